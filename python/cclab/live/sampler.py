"""The sampler: TCP_INFO of every sending socket, every few ms, from one thread beside the transfer.

Seed 002's modified iperf read the kernel's per-connection variables through Web100 while it sent; here
one thread calls getsockopt(TCP_INFO) (and TCP_CC_INFO for BBR) on each flow's socket every `interval_ns`
and keeps the raw bytes; `columns()` decodes them after the run (cclab.live.tcpinfo). getsockopt takes
the socket's lock for a few µs and copies ~250 bytes: it does not touch the data path, and a sample every
5 ms of a handful of flows costs well under 1 % of a core (the sampler measures its own CPU time: `cpu_s`,
reported with every run). What it cannot see is said in docs/live.md: only the state at each instant
(an event shorter than the interval is seen by its counters, not by the window's shape), and nothing of
the queue along the path.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from .tcpinfo import REQUEST_BYTES, TCP_CC_INFO, TCP_INFO, decode, decode_bbr


@dataclass
class Sampler:
    sockets: list[socket.socket]
    interval_ns: int
    bbr_flows: set[int] = field(default_factory=set)   # indexes of the flows to ask TCP_CC_INFO of
    origin_ns: int = 0                                  # time 0 of the samples (time.monotonic_ns)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._times: list[int] = []
        self._flows: list[int] = []
        self._records: list[bytes] = []
        self._cc_records: list[bytes | None] = []
        self._thread = threading.Thread(target=self._loop, name="tcp-info-sampler", daemon=True)
        self.cpu_s = 0.0
        self.wall_s = 0.0
        self.late_max_ns = 0   # largest delay of a sampling round behind its schedule

    def start(self) -> "Sampler":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        cpu_start, wall_start = time.thread_time(), time.monotonic()
        closed: set[int] = set()
        next_round = time.monotonic_ns()
        while not self._stop.is_set():
            now = time.monotonic_ns()
            self.late_max_ns = max(self.late_max_ns, now - next_round)
            for flow, sock in enumerate(self.sockets):
                if flow in closed:
                    continue
                try:
                    record = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, REQUEST_BYTES)
                    cc_record = (sock.getsockopt(socket.IPPROTO_TCP, TCP_CC_INFO, 64)
                                 if flow in self.bbr_flows else None)
                except OSError:     # the flow's socket was closed: its samples end here
                    closed.add(flow)
                    continue
                self._times.append(now)
                self._flows.append(flow)
                self._records.append(record)
                self._cc_records.append(cc_record)
            next_round += self.interval_ns
            pause = next_round - time.monotonic_ns()
            if pause > 0:
                self._stop.wait(pause / 1e9)
            else:
                next_round = time.monotonic_ns()  # behind (the machine is loaded): skip, do not catch up
        self.cpu_s = time.thread_time() - cpu_start
        self.wall_s = time.monotonic() - wall_start

    @property
    def samples(self) -> int:
        return len(self._records)

    def columns(self) -> dict[str, np.ndarray]:
        """The samples as the time-series columns of a run (time_s, flow, cwnd, ... as simulations have them,
        then the kernel's own), in time order."""
        info = decode(self._records)
        times = (np.array(self._times, dtype=np.int64) - self.origin_ns) / 1e9
        in_flight = info["unacked"] - info["sacked"] - info["lost"] + info["retrans"]  # tcp_packets_in_flight()
        columns = {
            "time_s": times,
            "flow": np.array(self._flows, dtype=np.int64),
            "cwnd": info["snd_cwnd"],
            "ssthresh": info["snd_ssthresh"],
            "srtt_s": info["rtt_us"] / 1e6,
            "rttvar_s": info["rttvar_us"] / 1e6,
            "min_rtt_s": info["min_rtt_us"] / 1e6,
            "in_flight": in_flight,
            "delivered": info["delivered"],
            "ca_state": info["ca_state"],
            "retransmits": info["retransmits"],
            "lost": info["lost"],
            "total_retrans": info["total_retrans"],
            "total_rto": info["total_rto"],
            "pacing_rate_bps": info["pacing_rate"] * 8.0,
            "delivery_rate_bps": info["delivery_rate"] * 8.0,
            "bytes_acked": info["bytes_acked"],
            "data_segs_out": info["data_segs_out"],
            "snd_mss": info["snd_mss"],
        }
        if self.bbr_flows:
            columns.update(decode_bbr(self._cc_records))
        return columns
