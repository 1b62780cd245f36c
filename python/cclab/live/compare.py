"""`cclab compare scenario.toml`: one dumbbell in the simulator and on the real stack, side by side.

The scenario's bottleneck becomes the local testbed (cclab.live.testbed): its rate, its DropTail buffer in
packets, and a one-way delay of bottleneck delay + both access delays, added by the delay line in each
direction. Every flow becomes a kernel flow with the same algorithm (newreno -> Linux reno, cubic, bbr),
all starting together, for the run's duration (or, if every flow is a transfer of one size, that size).

So that the two run the same TCP as far as the scenario allows, the simulation is given Linux's defaults
where the scenario does not set them itself: initial window 10 (RFC 6928; the engine's default 2 is
ns-2's), delayed ACKs (Linux's receiver ACKs every second segment) with Linux's quick ACKs of the first
segments (up to TCP_MAX_QUICKACKS = 16), and for CUBIC the `linux-6` variant, whose HyStart the kernel
runs by default (the engine's default `linux` has it off); sampled every 10 ms. What still differs, and
why, is in docs/live.md: the payload per packet (1448 bytes with timestamps, against 1460), Linux's PRR,
its pacing of every flow, and the delay line's jitter.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from ..scenario import read_toml
from ..analysis.path_metrics import add_path_figures
from ..errors import ScenarioError
from .runs import LiveRun, RunSpec, measure
from .system import LiveError, check_congestion_control, require_namespaces, require_root
from .testbed import RECEIVER_ADDRESS, Testbed, TestbedConfig

SIMULATION_SAMPLE_INTERVAL = "10ms"
LINUX_INITIAL_CWND = 10
LINUX_CUBIC_VARIANT = "linux-6"
# Linux's receiver ACKs the first min(rcv_wnd / (2 rcv_mss), 16) segments at once (quick-ACK mode); the
# cap, TCP_MAX_QUICKACKS. Only the first matters for the RTT estimators (docs/live.md: 2 and 16 give the
# same runs on the CUBIC cells).
LINUX_QUICK_ACKS = 16


def _inline_table(table: dict) -> str:
    """{'name': 'cubic', 'beta': 0.8} -> '{ name = "cubic", beta = 0.8 }' for a --set value (scalars only)."""
    def literal(value) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return repr(value)
        return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "{ " + ", ".join(f"{key} = {literal(value)}" for key, value in table.items()) + " }"


@dataclass(frozen=True)
class Plan:
    testbed: TestbedConfig
    spec: RunSpec
    overrides: tuple[str, ...]          # what the simulation was given to match Linux
    duration_s: float


def plan(path: Path, overrides: Sequence[str] = (), name: str = "cclab", sample_interval_ns: int = 5_000_000) -> Plan:
    """The testbed and the live run for the scenario in `path`; a LiveError naming what does not map."""
    from ..scenario import load_scenario

    config = load_scenario(path, overrides).to_engine_config()
    bottleneck = config.get("bottleneck")
    problems = []
    if bottleneck is None:
        raise LiveError(f"{path}: compare needs a dumbbell ([network.bottleneck]); a network of links has "
                        "no testbed counterpart yet")
    queue = bottleneck.get("queue") or {}
    if queue.get("discipline") != "droptail" or queue.get("limit_packets") is None:
        problems.append("the bottleneck queue must be droptail with a size in packets or BDPs (the testbed "
                        "has pfifo; RED, CoDel, PIE and byte limits are not mapped)")
    if bottleneck.get("loss_rate"):
        problems.append("network.bottleneck.loss_rate: random losses are not emulated by the testbed")
    if not isinstance(bottleneck.get("rate_bps"), int) or not isinstance(bottleneck.get("delay_ns"), int):
        problems.append("network.bottleneck: the rate and delay must be constant (no trace or schedule)")
    if config.get("traffic"):
        problems.append("[[traffic]] sources are not run on the testbed")
    flows = config["flows"]
    delays = {f.get("src_access_delay_ns", 0) + f.get("dst_access_delay_ns", 0) for f in flows}
    if len(delays) != 1:
        problems.append("flows: every flow must have the same access delays (the testbed has one path)")
    for i, flow in enumerate(flows):
        for key, what in (("direction", "reverse flows"), ("pacing", "paced senders"), ("ecn", "ECN"),
                          ("start_draw_ns", "drawn starts"), ("duration_draw_ns", "drawn durations")):
            if flow.get(key):
                problems.append(f"flows.{i}: {what} are not run on the testbed")
        if flow.get("start_ns") or flow.get("start_jitter_ns") or flow.get("stop_ns"):
            problems.append(f"flows.{i}: every flow starts at 0 and runs to the end on the testbed")
        if flow.get("rwnd_packets", 1_000_000_000) < 1_000_000_000:
            problems.append(f"flows.{i}: rwnd is not mapped (the receiver's window is the kernel's)")
    sizes = {flow.get("size_bytes") for flow in flows}
    if len(sizes) != 1:
        problems.append("flows: either every flow is bulk or every flow has the same size")
    if problems:
        raise LiveError(f"{path} cannot run on the testbed:\n" + "\n".join(problems))
    ccs = tuple(flow["cc"]["name"] for flow in flows)
    for cc in set(ccs):
        check_congestion_control(cc)
    size = sizes.pop()
    run = config["run"]
    testbed = TestbedConfig(name=name, rate_bps=bottleneck["rate_bps"],
                            delay_ns=bottleneck["delay_ns"] + delays.pop(),
                            buffer_packets=queue["limit_packets"])
    spec = RunSpec(ccs=ccs, flows=len(flows), duration_ns=None if size else run["duration_ns"], size_bytes=size,
                   sample_interval_ns=sample_interval_ns)
    return Plan(testbed, spec, _linux_overrides(path, overrides), run["duration_ns"] / 1e9)


def _linux_overrides(path: Path, overrides: Sequence[str]) -> tuple[str, ...]:
    """--set overrides giving each [[flows]] entry Linux's initial window and delayed ACKs with its quick
    ACKs at the start, unless the scenario (or the user's --set) already chose them, CUBIC's `linux-6`
    variant (HyStart on, as the kernel runs it) where the flow's CUBIC names no variant and no `hystart`,
    and a 10 ms sampling interval."""
    from ..scenario import load_scenario

    raw = read_toml(path)
    chosen = " ".join(overrides)
    resolved = load_scenario(path, overrides).to_engine_config()["flows"]
    extra = []
    for i, entry in enumerate(raw.get("flows") or []):
        if "initial_cwnd" not in entry and f"flows.{i}.initial_cwnd" not in chosen:
            extra.append(f"flows.{i}.initial_cwnd={LINUX_INITIAL_CWND}")
        delayed = resolved[i].get("delayed_ack", False)
        if "delayed_ack" not in entry and f"flows.{i}.delayed_ack" not in chosen:
            extra.append(f"flows.{i}.delayed_ack=true")
            delayed = True
        if delayed and "quick_acks" not in entry and f"flows.{i}.quick_acks" not in chosen:
            extra.append(f"flows.{i}.quick_acks={LINUX_QUICK_ACKS}")
        cc = resolved[i]["cc"]
        if cc["name"] == "cubic" and "variant" not in cc and "hystart" not in cc:
            extra.append(f"flows.{i}.cc={_inline_table({**cc, 'variant': LINUX_CUBIC_VARIANT})}")
    if "run.sample_interval" not in chosen:
        extra.append(f"run.sample_interval={SIMULATION_SAMPLE_INTERVAL}")
    return tuple(extra)


@dataclass
class Comparison:
    plan: Plan
    simulated: pd.DataFrame        # one row per flow, with the path figures
    live: pd.DataFrame
    simulated_summary: dict
    live_run: LiveRun
    simulation_result: object

    def table(self) -> pd.DataFrame:
        """Per flow and figure: simulated, live, and live - simulated (relative where the figure is a rate)."""
        rows = []
        for figure, label, scale in FIGURES:
            for flow in self.simulated["flow"]:
                sim = _value(self.simulated, flow, figure)
                real = _value(self.live, flow, figure)
                rows.append({"flow": int(flow), "cc": self.live.loc[self.live["flow"] == flow, "cc"].iloc[0],
                             "figure": label, "simulated": sim * scale, "live": real * scale,
                             "difference": (real - sim) * scale,
                             "relative_pct": 100 * (real - sim) / sim if sim else np.nan})
        for label, sim, real in (("Jain's index", self.simulated_summary.get("jain_index"), self.live_run.jain_index),
                                 ("bottleneck utilisation %", 100 * (self.simulated_summary.get("bottleneck") or {}).get("utilization", np.nan),
                                  100 * self.live_run.bottleneck.get("utilization", np.nan)),
                                 ("bottleneck drops", (self.simulated_summary.get("bottleneck") or {}).get("drops", np.nan),
                                  self.live_run.bottleneck.get("drops", np.nan))):
            sim = np.nan if sim is None else float(sim)
            rows.append({"flow": -1, "cc": "all", "figure": label, "simulated": sim, "live": float(real),
                         "difference": float(real) - sim, "relative_pct": 100 * (float(real) - sim) / sim if sim else np.nan})
        return pd.DataFrame(rows)


# (column, label, scale to the label's unit)
FIGURES = [("goodput_bps", "goodput Mbit/s", 1e-6), ("retransmission_pct", "retransmissions %", 1.0),
           ("loss_events", "loss events", 1.0), ("timeouts", "timeouts", 1.0),
           ("rtt_mean_s", "RTT mean ms", 1e3), ("rtt_p50_s", "RTT p50 ms", 1e3), ("rtt_p90_s", "RTT p90 ms", 1e3),
           ("rtt_std_s", "RTT std ms", 1e3), ("queueing_mean_s", "queueing mean ms", 1e3),
           ("queueing_p90_s", "queueing p90 ms", 1e3)]


def _value(frame: pd.DataFrame, flow, column: str) -> float:
    row = frame[frame["flow"] == flow]
    return float(row[column].iloc[0]) if column in row and len(row) else float("nan")


def compare(path: Path, overrides: Sequence[str] = (), name: str = "cclab", sample_interval_ns: int = 5_000_000,
            keep_testbed: bool = False) -> Comparison:
    """Simulate the scenario, then run it on a testbed started (and torn down) for it."""
    from ..runner import run as simulate
    from .transfer import Server
    from . import netns

    require_root("cclab compare (it starts the local testbed)")
    require_namespaces()
    chosen = plan(path, overrides, name, sample_interval_ns)
    all_overrides = [*overrides, *chosen.overrides, "run.measure_from=0s"]
    try:
        result = simulate(path, all_overrides)
    except ScenarioError:
        raise
    simulated = add_path_figures(result.flows, result.timeseries)
    bed = Testbed.up(chosen.testbed)
    try:
        with netns.entered(chosen.testbed.receiver):
            server = Server("0.0.0.0", 0)
        server.start()
        try:
            live_run = measure(chosen.spec, RECEIVER_ADDRESS, server.port, namespace=chosen.testbed.sender,
                               bottleneck=bed.bottleneck_counters, bottleneck_rate_bps=chosen.testbed.rate_bps)
            line = bed.delay_line_stats()
            if line.get("packets_out"):
                live_run.bottleneck["delay_line_late_mean_s"] = line["late_ns_total"] / line["packets_out"] / 1e9
                live_run.bottleneck["delay_line_late_max_s"] = line["late_ns_max"] / 1e9
        finally:
            server.close()
    finally:
        if not keep_testbed:
            bed.down()
    return Comparison(chosen, simulated, live_run.flows, result.summary, live_run, result)
