"""A stand-in for the compiled `cclab._engine`, following docs/engine-interface.md.

It lets the runner, Result and CLI be tested before the Rust engine is built. It simulates nothing:
figures are made up from the config, but every shape (summary keys, columnar time series, errors) is
the contract's, and results depend only on the config so "same seed, same output" can be checked.
"""

from __future__ import annotations

import json
import math

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


def algorithms() -> list[dict]:
    return [dict(entry) for entry in ALGORITHMS]


def version() -> str:
    return "0.0.0-fake"


class Simulation:
    def __init__(self, config_json: str):
        self.config = json.loads(config_json)
        for index, flow in enumerate(self.config["flows"]):
            algorithm = next(a for a in ALGORITHMS if a["name"] == flow["cc"]["name"])
            known = {"name", "variant"} | {p["name"] for p in algorithm["parameters"]}
            for key in flow["cc"]:
                if key not in known:
                    raise ValueError(f"flows[{index}].cc.{key}: unknown parameter")
        self.duration_ns = self.config["run"]["duration_ns"]
        self.now_ns = 0
        self.calls = 0

    def run_until(self, t_ns: int) -> None:
        self.calls += 1
        self.now_ns = min(t_ns, self.duration_ns)

    def summary(self) -> dict:
        run = self.config["run"]
        rate = self.config["bottleneck"]["rate_bps"]
        flows = self.config["flows"]
        share = 0.9 * rate / len(flows)
        return {
            "measure_from_s": run["measure_from_ns"] / 1e9, "duration_s": run["duration_ns"] / 1e9,
            "events": 1000 + run["seed"],
            "flows": [{"flow": i, "cc": flow["cc"]["name"], "goodput_bps": share * 1460 / 1500,
                       "delivered_bps": share, "loss_events": 3, "timeouts": 0, "retransmissions": 30,
                       "packets_sent": 1000, "mean_rtt_s": math.nan if i else 0.11, "final_cwnd": 100}
                      for i, flow in enumerate(flows)],
            "bottleneck": {"utilization": 0.9, "drops": 30, "error_drops": 0, "mean_queue_packets": 40.5,
                           "max_queue_packets": 167, "packets_forwarded": 10000},
            "jain_index": 1.0,
        }

    def timeseries(self) -> dict:
        """Columns of 50 samples per flow at most; ssthresh 2^31 - 1 is the engine's "not set yet"."""
        interval = self.config["run"]["sample_interval_ns"]
        if interval == 0:
            return {"flows": {}, "queue": {}}
        times = [t / 1e9 for t in range(0, self.now_ns, interval)][:50]
        flows = range(len(self.config["flows"]))
        rows = [(t, f) for t in times for f in flows]
        # numpy arrays, as the bindings hand them over: int64 for counts, float64 for the rest.
        return {
            "flows": {"time_s": floats([t for t, _ in rows]), "flow": ints([f for _, f in rows]),
                      "cwnd": ints([10] * len(rows)), "ssthresh": ints([2**31 - 1] * len(rows)),
                      "srtt_s": floats([0.11] * len(rows)), "rtt_s": floats([0.11] * len(rows)),
                      "in_flight": ints([10] * len(rows)), "delivered": ints(range(len(rows)))},
            "queue": {"time_s": floats(times), "queue_packets": ints([5] * len(times)),
                      "queue_bytes": ints([7500] * len(times)), "drops": ints([0] * len(times))},
        }


def ints(values) -> np.ndarray:
    return np.array(list(values), dtype=np.int64)


def floats(values) -> np.ndarray:
    return np.array(list(values), dtype=np.float64)
