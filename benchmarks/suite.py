#!/usr/bin/env python3
"""The speed suite: cclab against ns-2.35 (and ns-3 where installed) on the same dumbbells, in one run.

For each scenario it prints each simulator's wall time, data packets simulated (retransmissions
included), packets per wall second, peak memory (RSS), and the speed-up: cclab's packets per second
divided by the other simulator's. Sections (`--only`, comma-separated; default all):

  example     seed 000's example (one NewReno flow, 200 Mbit/s, 50 ms one way, 0.1 and 1 BDP)
  table1      every cell of seed 000's Table I (8 algorithms x RTT 100/300 ms x 0.1/1 BDP), cclab in
              ns-2 TCP-Linux's recovery mode (`linux-2.6`), as the study runs it
  algorithms  every cclab algorithm (default variant) on the example at 0.1 BDP; one without an ns-2
              counterpart (BBR, FAST, AIMD, Compound's paper variant...) is compared with ns-2's NewReno
  windows     a window ladder, one NewReno flow at 0.1 and 1 BDP: 200 Mbit/s x 50 ms, 1 Gbit/s x 300 ms,
              10 Gbit/s x 300 ms, 40 Gbit/s x 100 ms one way (windows from 10^3 to 10^6 packets, the
              1-BDP slow-start overshoot included)
  flows       a flow ladder: 1, 10, 100, 1000 NewReno flows at 1 and 10 Gbit/s, 50 ms one way, 0.1 BDP
  web         web traffic alone (the front's `web` preset: Poisson arrivals, Pareto sizes of mean 14 600 B,
              NewReno) at half the bottleneck's rate, 1 and 10 Gbit/s, 50 ms one way, 0.1 BDP: cclab only
              (ns-2.35 and ns-3 have no counterpart here); its packets are the data packets the bottleneck
              forwarded or dropped
  memory      peak RSS of a run and of one 10x longer (time series off, then on)
  steady      cost per packet at steady state, cclab alone: 1, 10, 100 and 1000 NewReno flows at 10 Gbit/s
              (the flow ladder's), the CPU time of a run of 3T less that of a run of T, per packet of the
              difference, T = 10 s (issue 13's target compares 1000 flows with one this way: the first
              seconds of many flows are cheaper than the rest, docs/benchmarks.md runs 31-32)

    .venv/bin/python benchmarks/suite.py                  # everything (about 35 min on a shared 2-core VM)
    .venv/bin/python benchmarks/suite.py --quick          # shorter runs, one repeat: a smoke test
    .venv/bin/python benchmarks/suite.py --only example,windows --repeat 5 --cap 120
    .venv/bin/python benchmarks/suite.py --no-ns3 --json-out out.json --plot docs/benchmarks-cost.png

Rounds: each scenario runs `--repeat` times, the simulators interleaved within a round (ns-2, cclab,
ns-3, ns-2, cclab, ...), so that load from other work hits both alike; the speed-up is the median of the
per-round ratios, with the range. On a shared machine, ratios measured this way are steadier than either
wall time. A run longer than `--cap` seconds (`--ns3-cap` for ns-3) is stopped and shown as "> cap (to T s)":
ns-2 and ns-3 print their packets sent every simulated second, so a stopped run is still measured, per
packet, over the part it simulated, and its speed-up is taken against cclab run again over that same
stretch (the first T s).
Beside the wall-time speed-up, "(CPU)" divides packets per CPU second (GNU time's %U + %S): both
simulators are single-threaded, so on a loaded machine that ratio is the steadier of the two.

cclab is the engine binary (`target/release/cclab-sim`, built here, with the profile-guided optimisation of
scripts/pgo.sh as the bindings are) on the engine config that
the Python front makes from the scenario, with the front's default time series (every 100 ms); ns-2 is
`benchmarks/ns2/dumbbell.tcl` (Debian `ns2`), no tracing; ns-3 is `benchmarks/ns3/dumbbell.cc`, compiled
here against Debian's `libns3-dev` (apt-get install ns3 libns3-dev); Debian's ns-3 has logging compiled
in (not ns-3's optimized profile). ns-2 and ns-3 get a window limit above twice the path's BDP plus
buffer, so that the window never limits. Peak RSS is each simulator's maximum resident set (GNU time's
%M). Not part of the test run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "python"))
NS2_SCRIPT = HERE / "ns2" / "dumbbell.tcl"
NS3_SOURCE = HERE / "ns3" / "dumbbell.cc"
NS3_BINARY = REPO / "target" / "ns3-dumbbell"
ENGINE = REPO / "target" / "release" / "cclab-sim"
ENGINE_USED = ENGINE     # --engine

PACKET_BYTES = 1500
PAYLOAD_BYTES = 1460
ACCESS_MS = 2.5          # one way, each side; N flows: spread over [2.5/N, 2.5] ms, as dumbbell.tcl
ACCESS_FACTOR = 10       # access links at 10 x the bottleneck rate (cclab's default)

# ns-2.35 TCP-Linux's select_ca name, and ns-3.37's TypeId, of each cclab algorithm (None: none there).
NS2_NAME = {"newreno": "reno", "scalable": "scalable", "highspeed": "highspeed", "htcp": "htcp",
            "westwood": "westwood", "bic": "bic", "cubic": "cubic", "compound": "compound", "vegas": "vegas"}
NS3_NAME = {"newreno": "TcpNewReno", "scalable": "TcpScalable", "highspeed": "TcpHighSpeed", "htcp": "TcpHtcp",
            "westwood": "TcpWestwood", "bic": "TcpBic", "cubic": "TcpCubic", "vegas": "TcpVegas", "bbr": "TcpBbr"}

# Seed 000, Table I: rows (cclab cc spec) and cells (one-way delay ms, buffer in BDP).
TABLE1_ROWS = [("NewReno", "newreno"), ("STCP", "scalable"), ("HSTCP", "highspeed"), ("HTCP", "htcp"),
               ("Westwood+", "westwood"), ("BIC", "bic"),
               ("CUBIC (2006-2008)", {"name": "cubic", "variant": "linux-2.6.22"}), ("CUBIC (today)", "cubic")]
TABLE1_CELLS = [(50, 0.1), (150, 0.1), (50, 1.0), (150, 1.0)]


@dataclass(frozen=True)
class Dumbbell:
    """One benchmark scenario, the same in every simulator."""
    label: str
    rate_bps: int
    delay_ms: float              # bottleneck, one way
    bdp: float                   # buffer in bottleneck BDPs (rate x 2 x delay / 1500 B)
    duration_s: float
    cc: object = "newreno"       # cclab cc spec: a name or {name, variant}
    flows: int = 1
    recovery: str = "sack"       # cclab flows.N.recovery
    sample_interval: str = "100ms"
    ns2_cc: str | None = "reno"  # None: ns-2 has no counterpart
    ns3_cc: str | None = "TcpNewReno"
    web_load: float | None = None  # a web-traffic source (preset "web") at this share of the bottleneck

    @property
    def bdp_packets(self) -> float:
        return self.rate_bps * 2 * self.delay_ms * 1e-3 / (PACKET_BYTES * 8)

    @property
    def buffer(self) -> int:
        # rounded half up, as the front's "k bdp"; both simulators get the same packet count
        return max(1, math.floor(self.bdp * self.bdp_packets + 0.5))


@dataclass
class Run:
    """One simulator run: wall time, packets, peak RSS; `capped` when stopped at the cap."""
    wall_s: float
    packets: int | None = None
    rss_mb: float | None = None
    capped: bool = False
    failed: str | None = None
    cpu_s: float | None = None   # user + system CPU seconds (not known for a stopped run)
    goodput_bps: float | None = None
    # A stopped run: the simulated time its last progress line reached, and the wall time of that line.
    reached_s: float | None = None
    reached_wall_s: float | None = None

    @property
    def pps(self) -> float | None:
        """Data packets per wall second: of the whole run, or of the part a stopped run simulated."""
        if self.failed or not self.packets:
            return None
        if self.capped:
            return self.packets / self.reached_wall_s if self.reached_wall_s else None
        return self.packets / self.wall_s

    @property
    def cpu_pps(self) -> float | None:
        """Data packets per CPU second: steadier than per wall second on a loaded machine."""
        if self.failed or self.capped or not self.packets or not self.cpu_s:
            return None
        return self.packets / self.cpu_s


def stop(pid: int, peak_kb: list[int]) -> None:
    """Stops a run at its cap: notes the simulator's peak RSS so far (VmHWM of the child of
    /usr/bin/time, which dies with it and cannot report), then kills the session."""
    try:
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            for line in Path(f"/proc/{child}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak_kb.append(int(line.split()[1]))
    except OSError:
        pass
    os.killpg(pid, signal.SIGKILL)


def measure(cmd: list[str], cap: float, cwd: Path = REPO) -> tuple[Run, str]:
    """Runs cmd, stops it after cap seconds; its peak RSS from GNU time (%M).

    The child's own ru_maxrss would count the Python process it was forked from, so the command runs
    under /usr/bin/time, in a session of its own that the cap kills whole. Standard output is read as it
    comes, so that the last "progress" line of a stopped run is known with its wall time."""
    lines: list[tuple[float, str]] = []
    with tempfile.TemporaryFile("w+") as err, tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        started = time.perf_counter()
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%M %U %S", "-o", rss.name] + cmd, stdout=subprocess.PIPE,
                                stderr=err, cwd=cwd, start_new_session=True, text=True)
        reader = threading.Thread(target=lambda: lines.extend((time.perf_counter() - started, line)
                                                              for line in proc.stdout))
        reader.start()
        peak_kb: list[int] = []
        timer = threading.Timer(cap, stop, (proc.pid, peak_kb))
        timer.start()
        proc.wait()
        wall = time.perf_counter() - started
        capped = not timer.is_alive()
        timer.cancel()
        reader.join()
        err.seek(0)
        stderr = err.read()
        rss_text = rss.read().strip().splitlines()
    stdout = "".join(line for _, line in lines)
    run = Run(wall_s=wall, capped=capped)
    fields = rss_text[-1].split() if rss_text else []
    if len(fields) == 3 and fields[0].isdigit():
        run.rss_mb = int(fields[0]) / 1024
        run.cpu_s = float(fields[1]) + float(fields[2])
    elif peak_kb:
        run.rss_mb = peak_kb[0] / 1024
    if capped:
        progress = [(at, dict(f.partition("=")[::2] for f in line.split()[1:])) for at, line in lines
                    if line.startswith("progress ")]
        if progress:
            at, last = progress[-1]
            run.packets, run.reached_s, run.reached_wall_s = int(last["packets_sent_total"]), float(last["t"]), at
    elif proc.returncode != 0:
        tail = " | ".join((stderr or stdout).strip().splitlines()[-3:])
        run.failed = f"exit {proc.returncode}: {tail}"
    return run, stdout


# --------------------------------------------------------------------------------------------- cclab

def cclab_config(s: Dumbbell, duration_s: float | None = None, sample_interval: str | None = None) -> dict:
    from cclab.scenario import load_scenario

    access = (f"{ACCESS_MS}ms" if s.flows <= 1
              else {"spread": [f"{ACCESS_MS * 1e6 / s.flows:.0f}ns", f"{ACCESS_MS * 1e6:.0f}ns"]})
    duration = duration_s if duration_s is not None else s.duration_s
    raw = {
        "network": {"packet_size": PACKET_BYTES, "access_rate": f"{ACCESS_FACTOR * s.rate_bps}bps",
                    "bottleneck": {"rate": f"{s.rate_bps}bps", "delay": f"{s.delay_ms * 1e6:.0f}ns",
                                   "queue": {"discipline": "droptail", "size": s.buffer}}},
        "flows": [{"cc": s.cc, "access_delay": access, "count": s.flows, "recovery": s.recovery}] if s.flows else [],
        # measured from 0, so that packets_sent counts the whole run, as ns-2's packets_sent_total
        "run": {"duration": f"{duration:g}s", "measure_from": "0s", "seed": 1,
                "sample_interval": sample_interval if sample_interval is not None else s.sample_interval},
    }
    if s.web_load is not None:
        raw["traffic"] = [{"group": "web", "preset": "web", "load": s.web_load, "access_delay": f"{ACCESS_MS}ms"}]
    return load_scenario(raw).to_engine_config()


def run_cclab(s: Dumbbell, cap: float, duration_s: float | None = None, sample_interval: str | None = None) -> Run:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(cclab_config(s, duration_s, sample_interval), f)
    try:
        run, stdout = measure([str(ENGINE_USED), f.name], cap)
    finally:
        Path(f.name).unlink()
    if run.capped or run.failed:
        return run
    summary = json.loads(stdout)
    run.packets = sum(flow["packets_sent"] for flow in summary["flows"])
    run.goodput_bps = sum(flow["goodput_bps"] for flow in summary["flows"])
    if s.web_load is not None:
        # Traffic connections are reported by group, without packet counts: count the data packets at
        # the bottleneck instead (forwarded or dropped; those still in the access links are left out).
        bottleneck = summary["bottleneck"]
        run.packets += bottleneck["packets_forwarded"] + bottleneck["drops"]
        run.goodput_bps += sum(group["goodput_bps"] for group in summary.get("groups", []))
    return run


# ---------------------------------------------------------------------------------------- ns-2, ns-3

def flow_lines(stdout: str) -> list[dict]:
    rows = []
    for line in stdout.splitlines():
        if line.startswith("flow="):
            rows.append(dict(field.partition("=")[::2] for field in line.split()))
    return rows


def window_limit(s: Dumbbell) -> int:
    """A window limit that never binds: above twice the path's BDP plus buffer (a slow-start overshoot
    reaches about twice what the path holds), and at least ns-2's usual 100 000."""
    return max(100_000, math.ceil(2 * (s.bdp_packets + s.buffer)) + 1000)


def run_ns2(s: Dumbbell, cap: float) -> Run:
    cmd = ["ns", str(NS2_SCRIPT), f"cc={s.ns2_cc}", f"rate_mbps={s.rate_bps / 1e6:g}", f"delay_ms={s.delay_ms:g}",
           f"buffer={s.buffer}", f"access_ms={ACCESS_MS}", f"access_mbps={ACCESS_FACTOR * s.rate_bps / 1e6:g}",
           f"flows={s.flows}", f"duration={s.duration_s:g}", "measure_from=0", "seed=1", f"payload={PAYLOAD_BYTES}",
           f"window={window_limit(s)}", "progress=1"]
    run, stdout = measure(cmd, cap, cwd=HERE)
    return with_flow_totals(run, stdout)


def with_flow_totals(run: Run, stdout: str) -> Run:
    """The run with the packets and goodput its per-flow lines (ns-2's and ns-3's `flow` lines) add up to."""
    if run.capped or run.failed:
        return run
    rows = flow_lines(stdout)
    run.packets = sum(int(r["packets_sent_total"]) for r in rows)
    run.goodput_bps = sum(float(r["goodput_bps"]) for r in rows)
    return run


def ns3_available() -> bool:
    """Builds benchmarks/ns3/dumbbell.cc once (or again when it changed) if libns3-dev is installed."""
    if NS3_BINARY.exists() and NS3_BINARY.stat().st_mtime >= NS3_SOURCE.stat().st_mtime:
        return True
    if not Path("/usr/include/ns3/core-module.h").exists() or shutil.which("g++") is None:
        return False
    NS3_BINARY.parent.mkdir(parents=True, exist_ok=True)
    libraries = ["core", "network", "internet", "point-to-point", "applications", "traffic-control"]
    cmd = ["g++", "-O2", "-std=c++17", "-o", str(NS3_BINARY), str(NS3_SOURCE)] + [f"-lns3-{x}" for x in libraries]
    print("  compiling benchmarks/ns3/dumbbell.cc ...", file=sys.stderr)
    return subprocess.run(cmd, capture_output=True).returncode == 0


def run_ns3(s: Dumbbell, cap: float) -> Run:
    cmd = [str(NS3_BINARY), f"--cc={s.ns3_cc}", f"--rateMbps={s.rate_bps / 1e6:g}", f"--delayMs={s.delay_ms:g}",
           f"--buffer={s.buffer}", f"--accessMs={ACCESS_MS}", f"--flows={s.flows}",
           f"--duration={s.duration_s:g}", f"--payload={PAYLOAD_BYTES}", "--progress=1"]
    run, stdout = measure(cmd, cap)
    return with_flow_totals(run, stdout)


# ----------------------------------------------------------------------------------------- scenarios

def example_scenarios(o) -> list[Dumbbell]:
    return [Dumbbell(f"example, {bdp:g} BDP", 200_000_000, 50, bdp, o.scale(200)) for bdp in (0.1, 1.0)]


def table1_scenarios(o) -> list[Dumbbell]:
    out = []
    for name, cc in TABLE1_ROWS:
        base = cc if isinstance(cc, str) else cc["name"]
        for delay, bdp in TABLE1_CELLS:
            out.append(Dumbbell(f"{name}, RTT {2 * delay} ms, {bdp:g} BDP", 200_000_000, delay, bdp, o.scale(100),
                                cc=cc, recovery="linux-2.6", sample_interval="500ms", ns2_cc=NS2_NAME[base],
                                ns3_cc=None))
    return out


def algorithm_scenarios(o) -> list[Dumbbell]:
    from cclab.engine import algorithm_list

    out = []
    for entry in algorithm_list():
        name = entry["name"]
        out.append(Dumbbell(f"{name}", 200_000_000, 50, 0.1, o.scale(200), cc=name,
                            ns2_cc=NS2_NAME.get(name, "reno"), ns3_cc=NS3_NAME.get(name)))
    return out


WINDOW_SCALES = [("200m x 50 ms", 200_000_000, 50, 200), ("1g x 300 ms", 1_000_000_000, 300, 30),
                 ("10g x 300 ms", 10_000_000_000, 300, 30), ("40g x 100 ms", 40_000_000_000, 100, 10)]


def window_scenarios(o) -> list[Dumbbell]:
    return [Dumbbell(f"{name}, {bdp:g} BDP", rate, delay, bdp, o.scale(seconds))
            for bdp in (0.1, 1.0) for name, rate, delay, seconds in WINDOW_SCALES]


def flow_scenarios(o) -> list[Dumbbell]:
    return [Dumbbell(f"{n} flows, {rate // 10**9} Gbit/s", rate, 50, 0.1, o.scale(seconds), flows=n)
            for rate, seconds in ((1_000_000_000, 30), (10_000_000_000, 10)) for n in (1, 10, 100, 1000)]


# -------------------------------------------------------------------------------------------- report

def fmt_wall(r: Run | None, cap: float) -> str:
    if r is None:
        return "—"
    if r.failed:
        return "failed"
    if r.capped:
        return f"> {cap:g}" + ("" if r.reached_s is None else f" (to {r.reached_s:g} s)")
    return f"{r.wall_s:.2f}"


def fmt_pps(r: Run | None) -> str:
    return "—" if r is None or r.pps is None else f"{r.pps / 1e6:.3g}"


def fmt_rss(r: Run | None) -> str:
    return "—" if r is None or r.rss_mb is None else f"{r.rss_mb:.0f}"


def ratio_text(ratios: list[float]) -> str:
    """Median (range) of the per-round speed-ups."""
    if not ratios:
        return "—"
    if len(ratios) == 1:
        return f"{ratios[0]:.1f}"
    return f"{statistics.median(ratios):.1f} ({min(ratios):.1f}-{max(ratios):.1f})"


def median_run(runs: list[Run]) -> Run | None:
    """The run of median wall time (a capped run counts as the longest)."""
    if not runs:
        return None
    ranked = sorted(runs, key=lambda r: (r.capped or bool(r.failed), r.wall_s))
    return ranked[(len(ranked) - 1) // 2]


def same_stretch(s: Dumbbell, cc: Run, other: Run, o, kept: list[Run]) -> Run:
    """cclab's run to compare with `other`: the whole run, or, when `other` was stopped at its cap, cclab
    run again up to the simulated time the other reached, so that both are measured per packet over the
    same stretch (the start of a run, slow start, costs less per packet than a big window's recovery)."""
    if not other.capped or other.reached_s is None:
        return cc
    again = run_cclab(s, o.cap, duration_s=other.reached_s)
    kept.append(again)
    return again if again.pps else cc


def bench(scenarios: list[Dumbbell], o, section: str, rounds: int) -> list[dict]:
    print(f"\n## {section}\n", flush=True)
    header = ("| scenario | BDP pkts | buffer | ns-2 wall s | ns-2 M pkt/s | ns-2 MB | cclab wall s | cclab pkts "
              "| cclab M pkt/s | ns/pkt | cclab MB | **cclab / ns-2** | cclab / ns-2 (CPU) | ns-3 wall s | ns-3 M pkt/s | ns-3 MB | cclab / ns-3 |")
    print(header)
    print("|---" * (header.count("|") - 1) + "|", flush=True)
    rows = []
    for s in scenarios:
        ns2_runs, cclab_runs, ns3_runs, ns2_ratios, ns3_ratios, cpu_ratios = [], [], [], [], [], []
        same_runs: list[Run] = []
        for _ in range(rounds):
            ns2 = run_ns2(s, o.cap) if o.ns2 and s.ns2_cc else None
            cc = run_cclab(s, o.cap)
            ns3 = run_ns3(s, o.ns3_cap) if o.ns3 and s.ns3_cc else None
            for runs, r in ((ns2_runs, ns2), (cclab_runs, cc), (ns3_runs, ns3)):
                if r is not None:
                    runs.append(r)
            if cc.pps and ns2 is not None and ns2.pps:
                ns2_ratios.append(same_stretch(s, cc, ns2, o, same_runs).pps / ns2.pps)
            if cc.cpu_pps and ns2 is not None and ns2.cpu_pps:
                cpu_ratios.append(cc.cpu_pps / ns2.cpu_pps)
            if cc.pps and ns3 is not None and ns3.pps:
                ns3_ratios.append(same_stretch(s, cc, ns3, o, same_runs).pps / ns3.pps)
        ns2, cc, ns3 = median_run(ns2_runs), median_run(cclab_runs), median_run(ns3_runs)
        ns2_ratio = ratio_text(ns2_ratios)
        ns_per_packet = None if cc.pps is None else 1e9 / cc.pps
        print(f"| {s.label} | {s.bdp_packets:,.0f} | {s.buffer:,} | {fmt_wall(ns2, o.cap)} | {fmt_pps(ns2)} | "
              f"{fmt_rss(ns2)} | {fmt_wall(cc, o.cap)} | {cc.packets or 0:,} | {fmt_pps(cc)} | "
              f"{'—' if ns_per_packet is None else f'{ns_per_packet:.0f}'} | {fmt_rss(cc)} | **{ns2_ratio}** | "
              f"{ratio_text(cpu_ratios)} | "
              f"{fmt_wall(ns3, o.ns3_cap)} | {fmt_pps(ns3)} | {fmt_rss(ns3)} | "
              f"{ratio_text(ns3_ratios)} |", flush=True)
        for r, who in ((ns2, "ns-2"), (cc, "cclab"), (ns3, "ns-3")):
            if r is not None and r.failed:
                print(f"    {who} failed: {r.failed}", file=sys.stderr)
        rows.append({"section": section, "scenario": dataclasses.asdict(s), "bdp_packets": s.bdp_packets,
                     "buffer": s.buffer, "ns2": [dataclasses.asdict(r) for r in ns2_runs],
                     "cclab": [dataclasses.asdict(r) for r in cclab_runs],
                     "ns3": [dataclasses.asdict(r) for r in ns3_runs],
                     "cclab_same_stretch": [dataclasses.asdict(r) for r in same_runs],
                     "cclab_over_ns2": ns2_ratios, "cclab_over_ns2_cpu": cpu_ratios, "cclab_over_ns3": ns3_ratios,
                     "cclab_ns_per_packet": ns_per_packet})
    return rows


def memory(o) -> list[dict]:
    """Peak RSS of a run and of one 10x longer: the engine's state should not grow with simulated time."""
    print("\n## memory: peak RSS, a run and one 10x longer\n", flush=True)
    print("| scenario | series | T s | RSS MB | 10 T s | RSS MB | growth |")
    print("|---|---|---:|---:|---:|---:|---:|", flush=True)
    cases = [(Dumbbell("example, 0.1 BDP", 200_000_000, 50, 0.1, o.scale(200)), ("0s", "100ms")),
             (Dumbbell("1g x 300 ms, 1 BDP", 1_000_000_000, 300, 1.0, o.scale(30)), ("0s",)),
             (Dumbbell("1000 flows, 1 Gbit/s", 1_000_000_000, 50, 0.1, o.scale(30), flows=1000), ("0s",))]
    rows = []
    for s, intervals in cases:
        for interval in intervals:
            short = run_cclab(s, o.cap * 10, s.duration_s, interval)
            long = run_cclab(s, o.cap * 10, 10 * s.duration_s, interval)
            growth = long.rss_mb / short.rss_mb - 1
            series = "off" if interval == "0s" else f"every {interval}"
            print(f"| {s.label} | {series} | {s.duration_s:g} | {short.rss_mb:.1f} | {10 * s.duration_s:g} | "
                  f"{long.rss_mb:.1f} | {growth * 100:+.0f} % |", flush=True)
            rows.append({"section": "memory", "scenario": s.label, "series": series, "duration_s": s.duration_s,
                         "short": dataclasses.asdict(short), "long": dataclasses.asdict(long)})
    return rows


def steady(o, rounds: int) -> list[dict]:
    """Cost per packet at steady state: the marginal CPU time per packet of a run's last two thirds (a run of
    3T against one of T, each round), for the flow ladder at 10 Gbit/s, and its ratio to one flow's."""
    seconds = o.scale(10)
    print(f"\n## steady: marginal cost per packet over [{seconds:g}, {3 * seconds:g}] s, cclab alone\n", flush=True)
    print("| scenario | ns/pkt over [0, T] | ns/pkt over [T, 3T] (range) | / one flow's | peak MB at 3T |")
    print("|---|---:|---:|---:|---:|", flush=True)
    rows, one = [], None
    for n in (1, 10, 100, 1000):
        s = Dumbbell(f"{n} flows, 10 Gbit/s", 10_000_000_000, 50, 0.1, seconds, flows=n)
        firsts, marginals, longs = [], [], []
        for _ in range(rounds):
            short = run_cclab(s, o.cap * 10, seconds)
            long = run_cclab(s, o.cap * 10, 3 * seconds)
            if short.failed or long.failed or not short.cpu_s or not long.cpu_s or long.packets <= short.packets:
                why = short.failed or long.failed or "no CPU time (GNU time counts 10-ms steps: too short a run)"
                print(f"    {s.label}: {why}", file=sys.stderr)
                continue
            firsts.append(short.cpu_s / short.packets * 1e9)
            marginals.append((long.cpu_s - short.cpu_s) / (long.packets - short.packets) * 1e9)
            longs.append(long)
        if not marginals:
            continue
        marginal = statistics.median(marginals)
        one = marginal if n == 1 else one
        versus = f"{marginal / one:.2f}x" if one else "—"
        print(f"| {s.label} | {statistics.median(firsts):.0f} | {marginal:.0f} ({min(marginals):.0f}-{max(marginals):.0f}) | "
              f"{versus} | {max(r.rss_mb for r in longs):.1f} |", flush=True)
        rows.append({"section": "steady", "scenario": dataclasses.asdict(s), "ns_per_packet_first": firsts,
                     "ns_per_packet_marginal": marginals, "long": [dataclasses.asdict(r) for r in longs]})
    return rows


def plot(rows: list[dict], path: Path) -> None:
    """Cost per packet (wall ns per data packet) against window and against flow count."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def cost(runs: list[dict], duration_s: float) -> float | None:
        # A stopped run counts if it got through a fifth of the run: before that its wall time is mostly
        # start-up (ns-2 builds 1000 flows in Tcl for most of a minute) and slow start.
        costs = [(r["reached_wall_s"] if r["capped"] else r["wall_s"]) * 1e9 / r["packets"] for r in runs
                 if r["packets"] and not r["failed"]
                 and (not r["capped"] or (r["reached_wall_s"] and r["reached_s"] >= 0.2 * duration_s))]
        return statistics.median(costs) if costs else None

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    names = {"cclab": "cclab", "ns2": "ns-2", "ns3": "ns-3"}
    for who, marker, colour in (("cclab", "o", "C0"), ("ns2", "s", "C3"), ("ns3", "^", "C2")):
        for bdp, style in ((0.1, "-"), (1.0, "--")):
            points = [(r["bdp_packets"], cost(r[who], r["scenario"]["duration_s"])) for r in rows
                      if r["section"] == "windows" and r["scenario"]["bdp"] == bdp]
            points = [(x, y) for x, y in points if y is not None]
            if points:
                left.plot(*zip(*points), marker=marker, linestyle=style, color=colour,
                          label=f"{names[who]}, buffer {bdp:g} BDP")
        for rate, style in ((1_000_000_000, "-"), (10_000_000_000, "--")):
            points = [(r["scenario"]["flows"], cost(r[who], r["scenario"]["duration_s"])) for r in rows
                      if r["section"] == "flows" and r["scenario"]["rate_bps"] == rate]
            points = [(x, y) for x, y in points if y is not None]
            if points:
                right.plot(*zip(*points), marker=marker, linestyle=style, color=colour,
                           label=f"{names[who]}, {rate / 1e9:g} Gbit/s")
    for side, xlabel in ((left, "bottleneck BDP (packets)"), (right, "flows")):
        side.set_xscale("log")
        side.set_yscale("log")
        side.set_xlabel(xlabel)
        side.set_ylabel("wall ns per data packet")
        side.grid(True, which="both", alpha=0.3)
        if side.get_legend_handles_labels()[0]:
            side.legend(fontsize=7)
    left.set_title("cost per packet against window (one NewReno flow)")
    right.set_title("cost per packet against flow count (0.1 BDP)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    print(f"\nplot: {path}")


def web_scenarios(o) -> list[Dumbbell]:
    return [Dumbbell(f"web, load 0.5, {rate // 10**9} Gbit/s", rate, 50, 0.1, o.scale(seconds), flows=0,
                     web_load=0.5, ns2_cc=None, ns3_cc=None)
            for rate, seconds in ((1_000_000_000, 30), (10_000_000_000, 10))]


SECTIONS = {"example": example_scenarios, "table1": table1_scenarios, "algorithms": algorithm_scenarios,
            "windows": window_scenarios, "flows": flow_scenarios, "web": web_scenarios}


def build_engine() -> str | None:
    """Build `ENGINE` as scripts/setup.sh builds the bindings: with the same profile-guided optimisation and
    the same package selection, which the profile's function names depend on (scripts/pgo.sh). Returns
    whether PGO is on ("on", or "off" with pgo.sh's reason), None if the build failed."""
    flags = subprocess.run([str(REPO / "scripts" / "pgo.sh")], cwd=REPO, capture_output=True, text=True)
    packages = subprocess.run([str(REPO / "scripts" / "pgo.sh"), "--packages"], cwd=REPO,
                              capture_output=True, text=True).stdout.split()
    env = dict(os.environ)
    if flags.stdout.strip():
        env["RUSTFLAGS"] = " ".join(x for x in (env.get("RUSTFLAGS", ""), flags.stdout.strip()) if x)
        pgo = "on"
    else:
        pgo = "off: " + flags.stderr.strip().splitlines()[-1] if flags.stderr.strip() else "off"
    if subprocess.run(["cargo", "build", "--quiet", "--release", *packages, "--bin", "cclab-sim"], cwd=REPO,
                      env=env).returncode != 0:
        return None
    return pgo


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", default=",".join(list(SECTIONS) + ["memory", "steady"]), help="sections, comma-separated")
    p.add_argument("--repeat", type=int, default=None,
                   help="rounds per scenario (default 3 for example, 1 for the rest; --quick: 1)")
    p.add_argument("--cap", type=float, default=60.0, help="wall seconds after which a run is stopped (60)")
    p.add_argument("--quick", action="store_true", help="a tenth of the simulated time, one round: a smoke test")
    p.add_argument("--duration-factor", type=float, default=1.0, help="scale every simulated duration")
    p.add_argument("--ns3-cap", type=float, default=30.0, help="wall seconds after which ns-3 is stopped (30)")
    p.add_argument("--engine", type=Path, default=ENGINE,
                   help="the cclab engine binary (default target/release/cclab-sim, built first)")
    p.add_argument("--no-ns2", action="store_true")
    p.add_argument("--no-ns3", action="store_true")
    p.add_argument("--json-out", type=Path, help="every run's numbers as JSON")
    p.add_argument("--plot", type=Path, help="cost per packet against window and flow count (PNG)")
    o = p.parse_args()
    factor = o.duration_factor * (0.1 if o.quick else 1.0)
    o.scale = lambda seconds: max(1.0, seconds * factor)
    o.ns2 = not o.no_ns2 and shutil.which("ns") is not None
    o.ns3 = not o.no_ns3 and ns3_available()
    sections = [x.strip() for x in o.only.split(",") if x.strip()]
    unknown = set(sections) - set(SECTIONS) - {"memory", "steady"}
    if unknown:
        p.error(f"unknown section(s) {', '.join(sorted(unknown))}; known: {', '.join(SECTIONS)}, memory, steady")

    pgo = "not used (--engine)"
    if o.engine == ENGINE:
        pgo = build_engine()
        if pgo is None:
            return 1
    global ENGINE_USED
    ENGINE_USED = o.engine
    engine = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    load = os.getloadavg()
    print(f"# cclab speed suite, {time.strftime('%Y-%m-%d %H:%M %Z')}, {platform.node()}, {os.cpu_count()} cpus, "
          f"load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, cclab "
          f"{engine.stdout.strip() if o.engine == ENGINE else o.engine}, profile-guided optimisation {pgo}")
    print(f"# ns-2: {'ns ' + NS2_SCRIPT.name if o.ns2 else 'not run (no `ns`: apt-get install ns2)'}; "
          f"ns-3: {'benchmarks/ns3/dumbbell.cc' if o.ns3 else 'not run (apt-get install ns3 libns3-dev)'}; "
          f"cap {o.cap:g} s, ns-3 {o.ns3_cap:g} s; durations x{factor:g}")
    print("# speed-up = cclab's data packets per wall second / the other's: the median over rounds (range); "
          "(CPU): per CPU second")
    results = []
    for section in sections:
        if section == "memory":
            results += memory(o)
            continue
        if section == "steady":
            results += steady(o, 1 if o.quick else (o.repeat or 3))
            continue
        rounds = 1 if o.quick else (o.repeat or (3 if section == "example" else 1))
        results += bench(SECTIONS[section](o), o, section, rounds)
    if o.json_out:
        o.json_out.write_text(json.dumps(results, indent=1) + "\n")
    if o.plot and any(r["section"] in ("windows", "flows") for r in results):
        plot(results, o.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
