"""A stand-in for the compiled `cclab._engine`, with the bindings' interface (crates/pybind/src/lib.rs,
docs/engine-interface.md): the same functions, methods and properties, with the same parameters, returning
the same shapes (JSON text for the summary and the lists, numpy columns for the time series).

It lets the runner, Result and CLI be tested quickly and with made-up figures. It simulates nothing: figures
come from the config, so "same seed, same output" can be checked. tests/test_engine_interface.py compares it
with the real bindings (names, signatures, summary keys, columns), so that the two cannot drift apart.
"""

from __future__ import annotations

import json

import numpy as np

ALGORITHMS = [
    {"name": "newreno", "aliases": [], "summary": "AIMD with NewReno recovery", "default_variant": "rfc6582",
     "variants": [{"name": "rfc6582", "source": "RFC 6582", "parameters": {}}], "parameters": []},
    {"name": "cubic", "aliases": [], "summary": "cubic window growth", "default_variant": "rfc9438",
     "variants": [{"name": "rfc9438", "source": "RFC 9438", "parameters": {"beta": 0.7, "c": 0.4}},
                  {"name": "linux-2.6.22", "source": "Linux 2.6.22", "parameters": {"beta": 0.8, "c": 0.4}}],
     "parameters": [{"name": "beta", "doc": "multiplicative decrease factor"},
                    {"name": "c", "doc": "cubic scaling constant"}]},
]

QUEUES = [
    {"name": "droptail", "summary": "first in, first out; drops arrivals when full", "default_variant": "ns2",
     "variants": [{"name": "ns2", "source": "ns-2 DropTail", "parameters": {}}], "parameters": []},
]


def algorithms_json() -> str:
    return json.dumps(ALGORITHMS)


def queues_json() -> str:
    return json.dumps(QUEUES)


def version() -> str:
    return "0.0.0-fake"


def source_hash() -> str:
    return "fake0000fake0000"


class Simulation:
    def __init__(self, config_json):
        self.config = json.loads(config_json)
        for index, flow in enumerate(self.config["flows"]):
            algorithm = next(a for a in ALGORITHMS if a["name"] == flow["cc"]["name"])
            known = {"name", "variant"} | {p["name"] for p in algorithm["parameters"]}
            for key in flow["cc"]:
                if key not in known:
                    raise ValueError(f"flows[{index}].cc.{key}: unknown parameter")
            # A range only the engine judges (the front checks names and types), as the real one does.
            if not 0 < flow["cc"].get("beta", 0.5) < 1:
                raise ValueError(f"flows[{index}].cc.beta: must be in (0, 1)")
        self._duration_ns = self.config["run"]["duration_ns"]
        self._now_ns = 0
        self.calls = 0

    @property
    def now_ns(self) -> int:
        return self._now_ns

    @property
    def duration_ns(self) -> int:
        return self._duration_ns

    @property
    def events(self) -> int:
        return 1000 + self.config["run"]["seed"]

    def run_until(self, t_ns) -> None:
        self.calls += 1
        self._now_ns = min(t_ns, self._duration_ns)

    def summary_json(self) -> str:
        run = self.config["run"]
        rate = self.config["bottleneck"]["rate_bps"]
        flows = self.config["flows"]
        share = 0.9 * rate / len(flows)
        bottleneck = {"utilization": 0.9, "drops": 30, "error_drops": 0, "mean_queue_packets": 40.5,
                      "max_queue_packets": 167, "packets_forwarded": 10000}
        link = {"name": "bottleneck", "from": "left", "to": "right", "rate_bps": rate, "overflow_drops": 30,
                "early_drops": 0, "ecn_marks": 0, "arq_retransmissions": 0, "arq_failures": 0,
                "arq_mean_added_delay_s": None, **bottleneck}
        summary = {
            "measure_from_s": run["measure_from_ns"] / 1e9, "duration_s": run["duration_ns"] / 1e9,
            "now_s": self._now_ns / 1e9, "events": self.events,
            "flows": [{"flow": i, "cc": flow["cc"]["name"], "goodput_bps": share * 1460 / 1500,
                       "delivered_bps": share, "loss_events": 3, "timeouts": 0, "retransmissions": 30, "ecn_reductions": 0,
                       "packets_sent": 1000, "mean_rtt_s": None if i else 0.11, "final_cwnd": 100}
                      for i, flow in enumerate(flows)],
            "bottleneck": bottleneck,
            "links": [link, {**link, "name": "bottleneck.reverse", "from": "right", "to": "left"}],
            "jain_index": 1.0,
        }
        # A flow without an RTT sample has null, as serde writes the engine's NaN.
        return json.dumps(summary, allow_nan=False)

    def _times(self) -> list[float]:
        interval = self.config["run"]["sample_interval_ns"]
        return [t / 1e9 for t in range(0, self._now_ns, interval)][:50] if interval else []

    def timeseries(self) -> dict:
        """Columns of 50 samples per flow at most; ssthresh 2^31 - 1 is the engine's "not set yet"."""
        times = self._times()
        flows = range(len(self.config["flows"]))
        rows = [(t, f) for t in times for f in flows]
        # numpy arrays, as the bindings hand them over: int64 for counts, float64 for the rest.
        return {
            "flows": {"time_s": floats([t for t, _ in rows]), "flow": ints([f for _, f in rows]),
                      "cwnd": ints([10] * len(rows)), "ssthresh": ints([2**31 - 1] * len(rows)),
                      "srtt_s": floats([0.11] * len(rows)), "rtt_s": floats([0.11] * len(rows)),
                      "rto_s": floats([0.2] * len(rows)),
                      "in_flight": ints([10] * len(rows)), "delivered": ints(range(len(rows)))},
            "queue": {"time_s": floats(times), "queue_packets": ints([5] * len(times)),
                      "queue_bytes": ints([7500] * len(times)), "drops": ints([0] * len(times)),
                      "bytes_tx": ints(self._bytes_tx(t) for t in times)},
        }

    def _bytes_tx(self, time_s: float) -> int:
        """Cumulative bytes the bottleneck put on the wire by time_s: 90 % busy, as the summary's utilisation."""
        return int(0.9 * self.config["bottleneck"]["rate_bps"] * time_s / 8)

    def link_series(self) -> dict:
        """Lists, as the bindings give them: both directions of the bottleneck, at each sample."""
        times = self._times()
        names = ["bottleneck", "bottleneck.reverse"]
        return {"time_s": [t for t in times for _ in names], "link": names * len(times),
                "queue_packets": [5, 0] * len(times), "queue_bytes": [7500, 0] * len(times),
                "drops": [0, 0] * len(times), "bytes_tx": [b for t in times for b in (self._bytes_tx(t), 0)]}


    def loss_events(self) -> dict:
        """Three loss events per flow (the summary's loss_events), at 1/4, 1/2 and 3/4 of the time run so far,
        ordered by flow then time as the bindings give them; a ValueError, as there, unless the config's
        run.record_loss_events asked for them."""
        if not self.config["run"].get("record_loss_events"):
            raise ValueError("run.record_loss_events: the run did not record its loss-event times (set it to true)")
        flows = range(len(self.config["flows"]))
        times = [self._now_ns * k // 4 for k in (1, 2, 3)]
        return {"flow": ints([f for f in flows for _ in times]), "time_ns": ints([t for _ in flows for t in times])}

    def rtt_histogram(self) -> dict:
        """Every flow measured 10 times, all at the series' 110 ms: one bucket row per flow, ordered by flow,
        as the bindings give them; a ValueError, as there, unless the config's run.rtt_histogram asked."""
        if not self.config["run"].get("rtt_histogram"):
            raise ValueError("run.rtt_histogram: the run did not count its RTT measurements (set it to true)")
        flows = range(len(self.config["flows"]))
        return {"flow": ints(flows), "low_ns": ints(110_000_000 for _ in flows),
                "high_ns": ints(110_000_000 for _ in flows), "count": ints(10 for _ in flows)}

    def connection_records(self) -> dict:
        """No traffic source in the stand-in: every column empty, as the bindings give them without one."""
        floats, counts = np.array([], dtype=np.float64), np.array([], dtype=np.int64)
        return {"group": [], "start_s": floats, "end_s": floats, "size_bytes": counts, "bytes": counts,
                "completion_time_s": floats, "retransmissions": counts, "timeouts": counts}


def ints(values) -> np.ndarray:
    return np.array(list(values), dtype=np.int64)


def floats(values) -> np.ndarray:
    return np.array(list(values), dtype=np.float64)
