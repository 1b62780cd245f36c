"""A live measurement: the flows of one run, and a campaign of runs rotated across algorithms and repeated.

Seed 002 (Section 3): "we have run tests by rotating TCP congestion control algorithms and scenarios and
repeating tests", so that a slow drift of the path (the hour of the day, other users) falls on every
algorithm alike. `campaign` orders runs that way: repetition by repetition, each going through every
algorithm set once, so consecutive runs of one algorithm are a whole round apart.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Callable, Iterator

import numpy as np
import pandas as pd

from ..analysis.path_metrics import add_path_figures
from ..measures import jain_index
from . import netns
from .sampler import Sampler
from .system import LiveError, cclab_cc_name, host_description
from .tcpinfo import CA_LOSS, CA_RECOVERY, REQUEST_BYTES, TCP_INFO, decode
from .transfer import DEFAULT_PORT, Flow, open_flow, send

DEFAULT_SAMPLE_INTERVAL_NS = 5_000_000
HEADER_BYTES = 52   # IPv4 20 + TCP 20 + timestamps option 12: a 1500-byte packet carries MSS 1448


@dataclass(frozen=True)
class RunSpec:
    """What one run sends: `ccs` cycles over the flows (flow i runs ccs[i % len(ccs)])."""

    ccs: tuple[str, ...]
    flows: int = 1
    duration_ns: int | None = 10_000_000_000
    size_bytes: int | None = None
    sample_interval_ns: int = DEFAULT_SAMPLE_INTERVAL_NS

    def __post_init__(self) -> None:
        if not self.ccs:
            raise LiveError("name at least one congestion control (--cc)")
        if self.flows < 1:
            raise LiveError("a run needs at least one flow (--flows)")
        if (self.duration_ns is None) == (self.size_bytes is None):
            raise LiveError("give a run either a duration (--duration) or a size (--size), not both")
        if self.sample_interval_ns < 1_000_000:
            raise LiveError("sample at most every 1 ms (--sample-interval): TCP_INFO is a system call per flow")

    def flow_ccs(self) -> list[str]:
        return [self.ccs[i % len(self.ccs)] for i in range(self.flows)]

    def label(self) -> str:
        return "+".join(self.ccs)


@dataclass
class LiveRun:
    """One measured run: a row per flow (the figures simulations have, and the kernel's own), the sampled
    time series, and where and when it was measured."""

    spec: RunSpec
    run_id: str
    destination: str
    started_at: str                     # UTC, ISO 8601
    host: dict
    flows: pd.DataFrame
    series: dict[str, np.ndarray]
    duration_s: float
    sampler: dict
    bottleneck: dict = field(default_factory=dict)
    replication: int = 0

    @property
    def timeseries(self) -> pd.DataFrame:
        return pd.DataFrame(self.series)

    @property
    def jain_index(self) -> float:
        return jain_index(self.flows["goodput_bps"].to_numpy(dtype=float))

    def summary(self) -> dict:
        """The run in the engine summary's shape (docs/engine-interface.md), plus where it was measured."""
        flows = [{k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in row.items()}
                 for row in self.flows.to_dict("records")]
        summary = {"flows": flows, "jain_index": self.jain_index, "duration_s": self.duration_s,
                   "measure_from_s": 0.0, "source": "live", "destination": self.destination,
                   "started_at": self.started_at, **self.host,
                   **{f"sampler_{k}": v for k, v in self.sampler.items()}}
        if self.bottleneck:
            summary["bottleneck"] = self.bottleneck
        return summary


def _final_info(flows: list[Flow]) -> dict[str, np.ndarray]:
    """TCP_INFO of every flow once more after its last byte was acknowledged: the run's final counters."""
    records = []
    for flow in flows:
        try:
            records.append(flow.sock.getsockopt(6, TCP_INFO, REQUEST_BYTES))
        except OSError:
            records.append(b"")
    return decode(records)


def _transitions_into(states: np.ndarray, targets: tuple[int, ...]) -> int:
    """Samples where the congestion state entered one of `targets` (from any other state)."""
    inside = np.isin(states, targets)
    return int(inside[0]) + int(np.sum(inside[1:] & ~inside[:-1])) if inside.size else 0


def measure(spec: RunSpec, host: str, port: int = DEFAULT_PORT, namespace: str | None = None,
            run_id: str | None = None, replication: int = 0,
            bottleneck: Callable[[], dict] | None = None, bottleneck_rate_bps: int | None = None) -> LiveRun:
    """Run the flows of `spec` to `cclab live server` at host:port and sample them; `namespace` is the
    network namespace to send from (the testbed's sender), `bottleneck` a function reading the testbed's
    bottleneck counters (before and after, for its drops and utilisation)."""
    run_id = run_id or uuid.uuid4().hex[:12]
    started_at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    before = bottleneck() if bottleneck else {}
    origin_ns = time.monotonic_ns()
    flows: list[Flow] = []
    try:
        with netns.entered(namespace):
            for index, cc in enumerate(spec.flow_ccs()):
                flows.append(open_flow(index, cc, host, port, run_id))
        bbr = {f.index for f in flows if f.kernel_cc == "bbr"}
        sampler = Sampler([f.sock for f in flows], spec.sample_interval_ns, bbr, origin_ns).start()
        deadline = None if spec.duration_ns is None else time.monotonic_ns() + spec.duration_ns
        senders = [threading.Thread(target=send, args=(f, deadline, spec.size_bytes), name=f"flow-{f.index}")
                   for f in flows]
        for thread in senders:
            thread.start()
        for thread in senders:
            thread.join()
        sampler.stop()
        final = _final_info(flows)
    finally:
        for flow in flows:
            flow.sock.close()
    after = bottleneck() if bottleneck else {}
    errors = [f"flow {f.index}: {f.error}" for f in flows if f.error]
    if errors:
        raise LiveError("the run failed: " + "; ".join(errors))
    series = sampler.columns()
    end_ns = max(f.end_ns for f in flows)
    duration_s = (end_ns - origin_ns) / 1e9
    rows = []
    for i, flow in enumerate(flows):
        mine = series["flow"] == flow.index
        states = series["ca_state"][mine]
        reply = flow.reply
        active_s = (reply["last_byte_ns"] - reply["first_byte_ns"]) / 1e9
        goodput = reply["bytes"] * 8 / active_s if active_s > 0 else float("nan")
        mss = int(final["snd_mss"][i]) or 1448
        total_rto = final["total_rto"][i]
        rows.append({
            "flow": flow.index,
            "cc": cclab_cc_name(flow.kernel_cc),
            "kernel_cc": flow.kernel_cc,
            "goodput_bps": goodput,
            # Payload rate scaled to the packets that carried it (MSS + 52 bytes of headers), the unit of
            # a simulation's delivered_bps.
            "delivered_bps": goodput * (mss + HEADER_BYTES) / mss,
            "loss_events": _transitions_into(states, (CA_RECOVERY, CA_LOSS)),
            # Linux >= 6.7 counts RTO expiries (tcpi_total_rto); older kernels: entries into the Loss state seen.
            "timeouts": int(total_rto) if np.isfinite(total_rto) else _transitions_into(states, (CA_LOSS,)),
            "retransmissions": int(final["total_retrans"][i]),
            "packets_sent": int(final["data_segs_out"][i]),
            "mean_rtt_s": float(np.mean(series["srtt_s"][mine][series["srtt_s"][mine] > 0]))
            if np.any(series["srtt_s"][mine] > 0) else float("nan"),
            "final_cwnd": int(final["snd_cwnd"][i]),
            "bytes": int(reply["bytes"]),
            "bytes_sent": flow.bytes_sent,
            "bytes_acked": float(final["bytes_acked"][i]),
            "start_s": 0.0,
            "end_s": (flow.end_ns - origin_ns) / 1e9,
            "transfer_s": active_s,
            "mss": mss,
            "min_rtt_s": float(final["min_rtt_us"][i]) / 1e6,
            # Reordering the kernel saw, and duplicate segments the receiver reported (D-SACK, RFC 2883):
            # on the testbed both should be 0; a real path may have either.
            "reordering_seen": int(final["reord_seen"][i]),
            "dsack_dups": int(final["dsack_dups"][i]),
        })
    table = add_path_figures(pd.DataFrame(rows), pd.DataFrame(series))
    sampler_stats = {"interval_s": spec.sample_interval_ns / 1e9, "samples": sampler.samples,
                     "cpu_s": sampler.cpu_s, "cpu_share": sampler.cpu_s / sampler.wall_s if sampler.wall_s else 0.0,
                     "late_max_s": sampler.late_max_ns / 1e9}
    figures = {}
    if before and after:
        sent_bytes = after["bytes"] - before["bytes"]
        figures = {"drops": after["drops"] - before["drops"], "packets_forwarded": after["packets"] - before["packets"]}
        if bottleneck_rate_bps:
            figures["utilization"] = sent_bytes * 8 / (bottleneck_rate_bps * duration_s)
    return LiveRun(spec=spec, run_id=run_id, destination=f"{host}:{port}", started_at=started_at,
                   host=host_description(), flows=table, series=series, duration_s=duration_s,
                   sampler=sampler_stats, bottleneck=figures, replication=replication)


def campaign(specs: list[RunSpec], repetitions: int) -> Iterator[tuple[int, RunSpec]]:
    """(repetition, spec) in seed 002's order: every spec once per repetition, repetitions one after another."""
    for repetition in range(repetitions):
        for spec in specs:
            yield repetition, spec


def spec_params(spec: RunSpec) -> dict:
    """The run's defining values, as the store's parameter columns (live.*)."""
    values = asdict(spec)
    return {"live.ccs": "+".join(spec.ccs), "live.flows": spec.flows,
            "live.duration_s": None if spec.duration_ns is None else spec.duration_ns / 1e9,
            "live.size_bytes": values["size_bytes"], "live.sample_interval_s": spec.sample_interval_ns / 1e9}
