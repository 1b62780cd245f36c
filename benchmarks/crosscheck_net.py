#!/usr/bin/env python3
"""ns-2.35 reference runs for cclab's network models (issue 11): RED and adaptive RED on the
cross-check dumbbell, and a three-bottleneck parking lot.

This is the ns-2 side of the network-model cross-check. The cclab side is to be added once cclab has
`red`/`ared` queues and general topologies; every CSV row carries the full scenario (and the ns-2
command line), so a cclab run can be set up from the row alone. benchmarks/ns2/README-aqm.md lists
the ns-2 parameters, RED's effective thresholds and weights, and the results.

    python3 benchmarks/crosscheck_net.py --list              # every scenario of both matrices
    python3 benchmarks/crosscheck_net.py                     # run what is missing from the CSVs
    python3 benchmarks/crosscheck_net.py --only aqm          # the RED/ARED matrix only
    python3 benchmarks/crosscheck_net.py --only parkinglot
    python3 benchmarks/crosscheck_net.py --set main          # the 24 RED/ARED runs + the reno parking lot
    python3 benchmarks/crosscheck_net.py --report            # print the cached results as Markdown
    python3 benchmarks/crosscheck_net.py --recompute --scenarios f2-r100-rtt100-b1-d200m100-red/reno

Matrices (see matrix_aqm / matrix_parkinglot):
- AQM: queue RED or ARED (Queue/RED with adaptive_ 1) x {2, 10, 20} flows x {reno, highspeed} x
  {100, 1000} Mbit/s, the cross-check's default dumbbell (bottleneck 50 ms one way, so RTT 100 ms
  plus access links 2.5 ms x (i+1)/N each side; access links 10 x the bottleneck rate), buffer 1 BDP,
  1500-byte packets; 200 s measured over [100, 200] at 100 Mbit/s, 100 s over [50, 100] at
  1000 Mbit/s (as benchmarks/crosscheck.py). RED parameter sets ("variants"): `default` (ns-2.35's
  defaults: byte mode, mean_pktsize_ 500, automatic thresholds and weight), `bottom0.001` (ARED with
  bottom_ 0.001, as seed 003), `pkt1500` (packet mode with mean_pktsize_ 1500, the recipe of Floyd,
  Gummadi & Shenker 2001 in real packets), and `-a2.501` copies of `default` with every access delay
  1 us longer (the noise floor: how much one run moves under a perturbation that changes nothing).
- Parking lot: three 100 Mbit/s, 10 ms bottlenecks in a row, DropTail 583 packets each (1 BDP of the
  long flow's 70 ms base RTT), long flow 0 through all three, short flows 1-3 one each; access links
  1000 Mbit/s, one way each side 2.5 ms for the long flow and 0.625, 1.25, 1.875 ms for the short
  ones; 200 s over [100, 200]; reno (main) and highspeed; copies with the access delays 1 us longer
  (`-p0.001`) and with ns-2's random send jitter `overhead_` of up to 0.12 ms (`-o0.12`, 5 seeds).

CSVs (appended as each run finishes; a run already present is skipped, a failed one is retried, a
timeout is kept):
- benchmarks/crosscheck-ns2-aqm.csv: one row per run: scenario, effective RED parameters, bottleneck
  figures, totals; crosscheck-ns2-aqm-flows.csv: one row per flow.
- benchmarks/crosscheck-ns2-parkinglot.csv: one row per run and bottleneck; crosscheck-ns2-parkinglot-
  flows.csv: one row per flow, with its arrivals and drops at each bottleneck it crosses.
Each run row carries `ns2_script`, the hash of the script that made it with common.tcl
(benchmarks/provenance.py): a row made by another version of the script is stale and is run again; the
report leaves stale rows out unless --allow-stale, and names the scripts behind it.
Needs `ns` (Debian: apt-get install ns2). Standard library only. Runs one at a time, under `nice`.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from provenance import NS2_SCRIPT as NS2_STAMP, describe, ns2_script_hash  # noqa: E402
AQM_SCRIPT = HERE / "ns2" / "aqm.tcl"
PL_SCRIPT = HERE / "ns2" / "parkinglot.tcl"
AQM_CSV = HERE / "crosscheck-ns2-aqm.csv"
AQM_FLOWS_CSV = HERE / "crosscheck-ns2-aqm-flows.csv"
PL_CSV = HERE / "crosscheck-ns2-parkinglot.csv"
PL_FLOWS_CSV = HERE / "crosscheck-ns2-parkinglot-flows.csv"

PACKET_BYTES = 1500
PAYLOAD_BYTES = 1460
ACCESS_MS = 2.5
ACCESS_FACTOR = 10        # access links at 10 x the bottleneck rate, as benchmarks/crosscheck.py
SEED = 1

# Queue/RED class variables set before the link is built; anything not listed keeps ns-2.35's default.
RED_VARIANTS: dict[str, dict[str, str]] = {
    "default": {},
    "bottom0.001": {"bottom_": "0.001"},
    "pkt1500": {"bytes_": "false", "queue_in_bytes_": "false", "mean_pktsize_": "1500"},
}


@dataclass(frozen=True)
class AqmScenario:
    queue: str                 # "red" or "ared"
    flows: int
    rate_mbps: int
    variant: str = "default"   # key of RED_VARIANTS
    rtt_ms: int = 100          # 2 x bottleneck one-way delay
    bdp: float = 1.0           # buffer, in BDPs of rtt_ms
    access_ms: float = ACCESS_MS

    @property
    def duration(self) -> int:
        return 200 if self.rate_mbps <= 100 else 100

    @property
    def measure_from(self) -> int:
        return self.duration // 2

    @property
    def id(self) -> str:
        return (f"f{self.flows}-r{self.rate_mbps}-rtt{self.rtt_ms}-b{self.bdp:g}-d{self.duration}m{self.measure_from}"
                f"-{self.queue}" + ("" if self.variant == "default" else f"-{self.variant}")
                + ("" if self.access_ms == ACCESS_MS else f"-a{self.access_ms:g}"))

    @property
    def delay_ms(self) -> float:
        return self.rtt_ms / 2

    @property
    def buffer(self) -> int:
        # round half up, as benchmarks/crosscheck.py and cclab's "k bdp"
        bdp_packets = self.rate_mbps * 1e6 * self.rtt_ms * 1e-3 / (PACKET_BYTES * 8)
        return max(1, math.floor(self.bdp * bdp_packets + 0.5))

    def command(self, cc: str) -> list[str]:
        cmd = ["ns", str(AQM_SCRIPT), f"queue={self.queue.upper()}", f"cc={cc}", f"rate_mbps={self.rate_mbps}",
               f"delay_ms={self.delay_ms:g}", f"buffer={self.buffer}", f"access_ms={self.access_ms:g}",
               f"access_mbps={ACCESS_FACTOR * self.rate_mbps}", f"flows={self.flows}",
               f"duration={self.duration}", f"measure_from={self.measure_from}", f"seed={SEED}",
               f"payload={PAYLOAD_BYTES}"]
        return cmd + [f"red.{k}={v}" for k, v in RED_VARIANTS[self.variant].items()]


@dataclass(frozen=True)
class ParkingLot:
    rate_mbps: int = 100
    delay_ms: float = 10       # each bottleneck, one way
    links: int = 3
    access_ms: float = ACCESS_MS   # the long flow's access delay; short flow k gets access_ms * k / (links + 1)
    perturb_ms: float = 0.0        # added to every access delay (the noise-floor copy uses 0.001)
    overhead_ms: float = 0.0       # ns-2 Agent/TCP overhead_: each send delayed by U[0, overhead_ms)
    seed: int = SEED
    access_mbps: int = 1000
    queue: str = "droptail"
    duration: int = 200
    measure_from: int = 100

    @property
    def access_list_ms(self) -> list[float]:
        """One-way access delay of each flow, each side: long flow 0 first, then the short flows.
        Distinct delays keep the short flows from being exact copies of one another (equal RTTs and equal
        start times make them send in lockstep, and exact ties are broken by floating-point rounding in
        ns-2; see docs/validation.md, D4)."""
        n = self.links + 1
        return [round(a + self.perturb_ms, 6)
                for a in [self.access_ms] + [self.access_ms * k / n for k in range(1, n)]]

    @property
    def long_rtt_ms(self) -> float:
        """Base RTT of the long flow: every bottleneck and both access links, both ways."""
        return 2 * (self.links * self.delay_ms + 2 * self.access_ms)

    @property
    def buffer(self) -> int:
        """1 BDP of the long flow's base RTT, packets, round half up: 100 Mbit/s x 70 ms -> 583."""
        return max(1, math.floor(self.rate_mbps * 1e6 * self.long_rtt_ms * 1e-3 / (PACKET_BYTES * 8) + 0.5))

    @property
    def id(self) -> str:
        return (f"pl{self.links}-r{self.rate_mbps}-d{self.delay_ms:g}-b{self.buffer}-d{self.duration}m{self.measure_from}"
                f"-{self.queue}" + ("" if self.access_ms == ACCESS_MS else f"-a{self.access_ms:g}")
                + ("" if self.perturb_ms == 0 else f"-p{self.perturb_ms:g}")
                + ("" if self.overhead_ms == 0 else f"-o{self.overhead_ms:g}")
                + ("" if self.seed == SEED else f"-s{self.seed}"))

    def command(self, cc: str) -> list[str]:
        return ["ns", str(PL_SCRIPT), f"cc={cc}", f"rate_mbps={self.rate_mbps}", f"delay_ms={self.delay_ms:g}",
                f"buffer={self.buffer}", f"queue={'DropTail' if self.queue == 'droptail' else self.queue.upper()}",
                "access_ms=" + ",".join(f"{a:g}" for a in self.access_list_ms), f"access_mbps={self.access_mbps}",
                f"overhead_ms={self.overhead_ms:g}", f"duration={self.duration}",
                f"measure_from={self.measure_from}", f"seed={self.seed}", f"payload={PAYLOAD_BYTES}"]


@dataclass(frozen=True)
class Job:
    kind: str                  # "aqm" or "parkinglot"
    scenario: AqmScenario | ParkingLot
    cc: str
    set: str                   # "main" (what the brief asks for) or "extra"

    @property
    def key(self) -> str:
        return f"{self.scenario.id}/{self.cc}"


def matrix_aqm() -> list[Job]:
    """The main 24 first (100 Mbit/s before 1000), then the variants."""
    jobs = []
    for rate in (100, 1000):
        for queue in ("red", "ared"):
            for flows in (2, 10, 20):
                for cc in ("reno", "highspeed"):
                    jobs.append(Job("aqm", AqmScenario(queue, flows, rate), cc, "main"))
    for rate in (100, 1000):
        for flows in (2, 10, 20):
            for cc in ("reno", "highspeed"):
                jobs.append(Job("aqm", AqmScenario("ared", flows, rate, "bottom0.001"), cc, "extra"))
    for rate in (100, 1000):
        for queue in ("red", "ared"):
            for flows in (2, 10, 20):
                for cc in ("reno", "highspeed"):
                    jobs.append(Job("aqm", AqmScenario(queue, flows, rate, "pkt1500"), cc, "extra"))
    for rate in (100, 1000):
        for queue in ("red", "ared"):
            for flows in (2, 10, 20):
                for cc in ("reno", "highspeed"):
                    jobs.append(Job("aqm", AqmScenario(queue, flows, rate, access_ms=ACCESS_MS + 0.001), cc,
                                    "extra"))
    return jobs


def matrix_parkinglot() -> list[Job]:
    return [Job("parkinglot", ParkingLot(), "reno", "main"),
            Job("parkinglot", ParkingLot(), "highspeed", "extra"),
            Job("parkinglot", ParkingLot(perturb_ms=0.001), "reno", "extra"),
            # One packet time at 100 Mbit/s (0.12 ms) of random send jitter breaks the phase lock of the
            # plain runs (see README-aqm.md); five seeds show the spread that is left.
            *[Job("parkinglot", ParkingLot(overhead_ms=0.12, seed=seed), "reno", "extra") for seed in range(1, 6)],
            Job("parkinglot", ParkingLot(overhead_ms=0.12), "highspeed", "extra")]


# ------------------------------------------------------------------------------------------- output

def parse_lines(stdout: str) -> dict[str, list[dict[str, str]]]:
    """ns-2 output lines 'red ...', 'flow=...', 'link=...' -> {'red': [...], 'flow': [...], 'link': [...]}"""
    out: dict[str, list[dict[str, str]]] = {"red": [], "flow": [], "link": []}
    for line in stdout.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "red":
            out["red"].append(dict(w.partition("=")[::2] for w in words[1:]))
        elif words[0].startswith("flow=") or words[0].startswith("link="):
            out[words[0].partition("=")[0]].append(dict(w.partition("=")[::2] for w in words))
    return out


# The effective RED variables as ns-2 reports them (aqm.tcl's `red` line) -> CSV column.
RED_COLUMNS = ["bytes_", "queue_in_bytes_", "mean_pktsize_", "thresh_", "maxthresh_", "thresh_queue_",
               "maxthresh_queue_", "q_weight_", "linterm_", "cur_max_p_", "gentle_", "wait_", "adaptive_",
               "alpha_", "beta_", "interval_", "targetdelay_", "top_", "bottom_", "use_mark_p_", "mark_p_",
               "setbit_", "drop_tail_", "drop_front_", "drop_rand_", "ns1_compat_", "cautious_",
               "feng_adaptive_", "idle_pktsize_", "limit_", "ptc", "limit_queue"]


def red_column(var: str) -> str:
    name = var.rstrip("_")
    return {"cur_max_p": "red_max_p_init", "limit": "red_limit_pkts"}.get(name, f"red_{name}")


AQM_FIELDS = (["key", "scenario", "set", "queue", "variant", "red_overrides", "algorithm", "flows", "rate_mbps",
               "bottleneck_delay_ms", "rtt_ms", "access_ms_max", "access_rule", "access_mbps", "buffer_pkts",
               "buffer_bdp", "packet_bytes", "payload_bytes", "duration_s", "measure_from_s", "seed"]
              + [red_column(v) for v in RED_COLUMNS]
              + ["goodput_bps", "goodput_per_flow_bps", "jain_index", "utilisation", "departures", "arrivals",
                 "drops", "early_drops", "overflow_drops", "mean_queue_pkts", "mean_queue_bytes",
                 "max_queue_pkts_sampled", "red_ave_mean", "red_ave_final", "red_ave_unit", "cur_max_p_mean",
                 "cur_max_p_final", "drops_total", "early_drops_total", "overflow_drops_total", "loss_events", "timeouts", "retransmissions", "status", "wall_s", "date",
                 "host", "ns2_command", NS2_STAMP])
AQM_FLOW_FIELDS = ["key", "scenario", "algorithm", "flow", "access_ms", "goodput_bps", "delivered_bps",
                   "loss_events", "timeouts", "retransmissions", "packets_sent", "final_cwnd",
                   "bottleneck_arrivals", "bottleneck_drops", "bottleneck_early_drops", "bottleneck_drops_total",
                   "bottleneck_early_drops_total"]
PL_FIELDS = ["key", "scenario", "set", "algorithm", "links", "link", "rate_mbps", "link_delay_ms", "buffer_pkts",
             "buffer_rule", "queue", "access_ms", "access_mbps", "long_rtt_ms", "overhead_ms", "packet_bytes",
             "payload_bytes", "duration_s", "measure_from_s", "seed", "utilisation", "departures", "arrivals",
             "drops", "drops_total", "mean_queue_pkts", "mean_queue_bytes", "max_queue_pkts_sampled",
             "goodput_per_flow_bps",
             "status", "wall_s", "date", "host", "ns2_command", NS2_STAMP]
PL_FLOW_FIELDS = (["key", "scenario", "algorithm", "flow", "kind", "route", "access_ms", "goodput_bps",
                   "delivered_bps", "loss_events", "timeouts", "retransmissions", "packets_sent", "final_cwnd"]
                  + [f"L{k}_{c}" for k in range(3) for c in ("arrivals", "drops")])


def jain(xs: list[float]) -> float:
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if xs and any(xs) else 0.0


def stamp() -> dict:
    return {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M"), "host": platform.node()}


def aqm_rows(job: Job, parsed: dict, common: dict) -> tuple[list[dict], list[dict]]:
    s: AqmScenario = job.scenario  # type: ignore[assignment]
    run = dict(common)
    if parsed is not None:
        red = parsed["red"][0]
        for v in RED_COLUMNS:
            run[red_column(v)] = red.get(v, "")
        link = parsed["link"][0]
        flows = sorted(parsed["flow"], key=lambda f: int(f["flow"]))
        per = [float(f["goodput_bps"]) for f in flows]
        run.update({k: link[k] for k in ("utilisation", "departures", "arrivals", "drops", "early_drops",
                                          "overflow_drops", "mean_queue_pkts", "mean_queue_bytes",
                                          "max_queue_pkts_sampled", "red_ave_mean", "red_ave_final",
                                          "red_ave_unit", "cur_max_p_mean", "cur_max_p_final", "drops_total",
                                          "early_drops_total", "overflow_drops_total")})
        run.update({"goodput_bps": f"{sum(per):.1f}", "goodput_per_flow_bps": ";".join(f"{x:.1f}" for x in per),
                    "jain_index": f"{jain(per):.4f}",
                    "loss_events": sum(int(f["loss_events"]) for f in flows),
                    "timeouts": sum(int(f["timeouts"]) for f in flows),
                    "retransmissions": sum(int(f["retransmissions"]) for f in flows)})
        flow_rows = [{"key": job.key, "scenario": s.id, "algorithm": job.cc,
                      **{k: f[k] for k in AQM_FLOW_FIELDS[3:]}} for f in flows]
    else:
        flow_rows = []
    run.update({"scenario": s.id, "set": job.set, "queue": s.queue, "variant": s.variant,
                "red_overrides": ";".join(f"{k}={v}" for k, v in RED_VARIANTS[s.variant].items()),
                "algorithm": job.cc, "flows": s.flows, "rate_mbps": s.rate_mbps, "bottleneck_delay_ms": s.delay_ms,
                "rtt_ms": s.rtt_ms, "access_ms_max": f"{s.access_ms:g}",
                "access_rule": "flow i: access_ms_max*(i+1)/flows one way, each side",
                "access_mbps": ACCESS_FACTOR * s.rate_mbps, "buffer_pkts": s.buffer, "buffer_bdp": f"{s.bdp:g}",
                "packet_bytes": PACKET_BYTES, "payload_bytes": PAYLOAD_BYTES, "duration_s": s.duration,
                "measure_from_s": s.measure_from, "seed": SEED})
    return [run], flow_rows


def parkinglot_rows(job: Job, parsed: dict, common: dict) -> tuple[list[dict], list[dict]]:
    s: ParkingLot = job.scenario  # type: ignore[assignment]
    base = {**common, "scenario": s.id, "set": job.set, "algorithm": job.cc, "links": s.links,
            "rate_mbps": s.rate_mbps, "link_delay_ms": f"{s.delay_ms:g}", "buffer_pkts": s.buffer,
            "buffer_rule": "1 BDP of the long flow's base RTT, both directions of every bottleneck",
            "queue": s.queue, "access_ms": ";".join(f"{a:g}" for a in s.access_list_ms),
            "access_mbps": s.access_mbps,
            "long_rtt_ms": f"{s.long_rtt_ms:g}", "overhead_ms": f"{s.overhead_ms:g}", "packet_bytes": PACKET_BYTES,
            "payload_bytes": PAYLOAD_BYTES, "duration_s": s.duration, "measure_from_s": s.measure_from,
            "seed": s.seed}
    if parsed is None:
        return [dict(base, link="")], []
    flows = sorted(parsed["flow"], key=lambda f: int(f["flow"]))
    per = ";".join(f"{float(f['goodput_bps']):.1f}" for f in flows)
    runs = [dict(base, link=l["link"], goodput_per_flow_bps=per,
                 **{k: l[k] for k in ("utilisation", "departures", "arrivals", "drops", "drops_total",
                                      "mean_queue_pkts", "mean_queue_bytes", "max_queue_pkts_sampled")})
            for l in parsed["link"]]
    flow_rows = [{"key": job.key, "scenario": s.id, "algorithm": job.cc,
                  **{k: f.get(k, "") for k in PL_FLOW_FIELDS[3:]}} for f in flows]
    return runs, flow_rows


# --------------------------------------------------------------------------------------------- cache

def done_keys(path: Path, current: str) -> set[str]:
    """Keys already computed by the `current` script; a failed run ('error ...') or one made by another
    script counts as missing, a timeout as done."""
    if not path.exists():
        return set()
    with path.open(newline="") as f:
        return {r["key"] for r in csv.DictReader(f)
                if not r["status"].startswith("error") and r.get(NS2_STAMP) == current}


def script_of(kind: str) -> Path:
    return AQM_SCRIPT if kind == "aqm" else PL_SCRIPT


def rewrite_without(path: Path, fields: list[str], key: str) -> None:
    if not path.exists():
        return
    with path.open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["key"] != key]
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


def append(path: Path, fields: list[str], rows: list[dict]) -> None:
    new = not path.exists() or path.stat().st_size == 0
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="raise")
        if new:
            w.writeheader()
        w.writerows(rows)
        f.flush()
        os.fsync(f.fileno())


def files(kind: str) -> tuple[Path, list[str], Path, list[str]]:
    if kind == "aqm":
        return AQM_CSV, AQM_FIELDS, AQM_FLOWS_CSV, AQM_FLOW_FIELDS
    return PL_CSV, PL_FIELDS, PL_FLOWS_CSV, PL_FLOW_FIELDS


def run_job(job: Job, timeout: float) -> None:
    cmd = job.scenario.command(job.cc)
    t0 = time.perf_counter()
    parsed, status = None, "ok"
    try:
        proc = subprocess.run(["nice", *cmd], cwd=HERE, capture_output=True, text=True, timeout=timeout)
        parsed = parse_lines(proc.stdout)
        want_flows = job.scenario.flows if job.kind == "aqm" else job.scenario.links + 1
        want_links = 1 if job.kind == "aqm" else job.scenario.links
        if (proc.returncode != 0 or len(parsed["flow"]) != want_flows or len(parsed["link"]) != want_links
                or (job.kind == "aqm" and len(parsed["red"]) != 1)):
            tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
            print(f"    ns-2 failed (exit {proc.returncode}): {' '.join(cmd)}: {tail}", file=sys.stderr)
            parsed, status = None, f"error {proc.returncode}"
    except subprocess.TimeoutExpired:
        status = f"timeout>{timeout:g}s"
    wall = time.perf_counter() - t0
    common = {"key": job.key, "status": status, "wall_s": f"{wall:.1f}",
              "ns2_command": " ".join(["ns", f"benchmarks/ns2/{Path(cmd[1]).name}", *cmd[2:]]),
              NS2_STAMP: ns2_script_hash(script_of(job.kind)), **stamp()}
    runs, flows = (aqm_rows if job.kind == "aqm" else parkinglot_rows)(job, parsed, common)
    run_csv, run_fields, flow_csv, flow_fields = files(job.kind)
    rewrite_without(run_csv, run_fields, job.key)
    rewrite_without(flow_csv, flow_fields, job.key)
    append(run_csv, run_fields, runs)
    append(flow_csv, flow_fields, flows)
    print(f"    {status}, {wall:.1f} s", file=sys.stderr)


# -------------------------------------------------------------------------------------------- report

def read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def mbit(x: str) -> str:
    return f"{float(x) / 1e6:.2f}" if x else "—"


def rel(a: float, b: float) -> str:
    return "—" if a == 0 else f"{(b - a) / a * 100:+.1f}%"


def noise_floor(rows: list[dict]) -> list[str]:
    """Each default run against its copy with every access delay 1 us longer: the spread a cclab result
    can show for reasons that are not a modelling difference."""
    by_key = {r["key"]: r for r in rows}
    out = ["\n#### Noise floor: default against access delays +1 us\n",
           "| scenario | cc | goodput | utilisation | drops | mean queue | largest per-flow goodput change |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        scen, _, cc = r["key"].partition("/")
        p = by_key.get(f"{scen}-a{ACCESS_MS + 0.001:g}/{cc}")
        if p is None or r["variant"] != "default":
            continue
        per = [(float(x), float(y)) for x, y in zip(r["goodput_per_flow_bps"].split(";"),
                                                    p["goodput_per_flow_bps"].split(";"))]
        worst = max((abs(y - x) / x for x, y in per if x > 0), default=0.0)
        out.append(f"| {scen} | {cc} | {rel(float(r['goodput_bps']), float(p['goodput_bps']))} "
                   f"| {rel(float(r['utilisation']), float(p['utilisation']))} "
                   f"| {r['drops']} → {p['drops']} "
                   f"| {rel(float(r['mean_queue_pkts']), float(p['mean_queue_pkts']))} | {worst * 100:.0f}% |")
    return out


def fresh(rows: list[dict], kind: str, allow_stale: bool) -> list[dict]:
    current = ns2_script_hash(script_of(kind))
    return [r for r in rows if allow_stale or r.get(NS2_STAMP) == current]


def report(allow_stale: bool = False) -> str:
    aqm_runs, pl_runs = fresh(read(AQM_CSV), "aqm", allow_stale), fresh(read(PL_CSV), "parkinglot", allow_stale)
    out = [f"AQM rows: {describe(aqm_runs, NS2_STAMP, ns2_script_hash(AQM_SCRIPT))}",
           f"parking-lot rows: {describe(pl_runs, NS2_STAMP, ns2_script_hash(PL_SCRIPT))}"]
    rows = [r for r in aqm_runs if r["status"] == "ok"]
    by_variant: dict[str, list[dict]] = {}
    for r in rows:
        by_variant.setdefault(r["scenario"].split("-", 5)[-1], []).append(r)
    for name, group in by_variant.items():
        out.append(f"\n#### AQM dumbbell, {name}\n")
        out.append("| scenario | cc | goodput Mbit/s | per-flow Mbit/s | Jain | util. | drops (early/overflow) "
                   "| mean q pkts | max q (1 ms) | RED ave (mean) | max_p mean / final | loss ev. | RTOs |")
        out.append("|---|---|---:|---|---:|---:|---|---:|---:|---:|---|---:|---:|")
        for r in group:
            unit = "B" if r["red_ave_unit"] == "bytes" else "pkt"
            per = " ".join(f"{float(x) / 1e6:.1f}" for x in r["goodput_per_flow_bps"].split(";"))
            out.append(f"| {r['scenario']} | {r['algorithm']} | {mbit(r['goodput_bps'])} | {per} | {r['jain_index']} "
                       f"| {float(r['utilisation']):.4f} | {r['drops']} ({r['early_drops']}/{r['overflow_drops']}) "
                       f"| {float(r['mean_queue_pkts']):.1f} | {r['max_queue_pkts_sampled']} "
                       f"| {float(r['red_ave_mean']):.0f} {unit} "
                       f"| {float(r['cur_max_p_mean']):.4g} / {float(r['cur_max_p_final']):.4g} "
                       f"| {r['loss_events']} | {r['timeouts']} |")
    out.extend(noise_floor(rows))
    pl = [r for r in pl_runs if r["status"] == "ok"]
    plf = read(PL_FLOWS_CSV)
    keys = list(dict.fromkeys(r["key"] for r in pl))
    if keys:
        out.append("\n#### Parking lot\n")
        out.append("| run | link | utilisation | drops | mean q pkts | max q (1 ms) |")
        out.append("|---|---|---:|---:|---:|---:|")
        for r in pl:
            out.append(f"| {r['key']} | {r['link']} | {float(r['utilisation']):.4f} | {r['drops']} "
                       f"| {float(r['mean_queue_pkts']):.1f} | {r['max_queue_pkts_sampled']} |")
        out.append("\n| run | flow | route | goodput Mbit/s | loss ev. | RTOs | drops at L0 / L1 / L2 |")
        out.append("|---|---|---|---:|---:|---:|---|")
        for f in plf:
            if f["key"] not in keys:
                continue
            drops = " / ".join(f[f"L{k}_drops"] or "—" for k in range(3))
            out.append(f"| {f['key']} | {f['flow']} ({f['kind']}) | {f['route']} | {mbit(f['goodput_bps'])} "
                       f"| {f['loss_events']} | {f['timeouts']} | {drops} |")
        out.extend(seed_spread(plf))
    return "\n".join(out)


def seed_spread(flow_rows: list[dict]) -> list[str]:
    """Per-flow goodput over the seeds of each parking-lot scenario run with several seeds (the jittered
    ones): mean, sample standard deviation, min and max, Mbit/s."""
    groups: dict[tuple[str, str, str], list[float]] = {}
    for f in flow_rows:
        scen, _, cc = f["key"].partition("/")
        base = re.sub(r"-s\d+$", "", scen)   # seed 1 has no suffix, seed k > 1 ends in "-sk"
        groups.setdefault((base, cc, f["flow"]), []).append(float(f["goodput_bps"]) / 1e6)
    multi = {k: v for k, v in groups.items() if len(v) > 1}
    if not multi:
        return []
    out = ["\n| scenario (over seeds) | cc | flow | seeds | goodput mean Mbit/s | sd | min | max |",
           "|---|---|---|---:|---:|---:|---:|---:|"]
    for (scen, cc, flow), v in multi.items():
        mean = sum(v) / len(v)
        sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (len(v) - 1))
        out.append(f"| {scen} | {cc} | {flow} | {len(v)} | {mean:.2f} | {sd:.2f} | {min(v):.2f} | {max(v):.2f} |")
    return out


# ---------------------------------------------------------------------------------------------- main

def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", choices=["aqm", "parkinglot"], help="one matrix only")
    p.add_argument("--set", choices=["main", "extra"], help="the main runs (the brief's matrix) or the extras")
    p.add_argument("--scenarios", default="", help="comma-separated keys (scenario/cc, see --list)")
    p.add_argument("--list", action="store_true", help="print the jobs and their ns-2 commands, and exit")
    p.add_argument("--recompute", action="store_true", help="ignore the CSVs for the selected jobs")
    p.add_argument("--timeout", type=float, default=900.0, help="per run, s (default 900); kept as a timeout row")
    p.add_argument("--report", action="store_true", help="print the cached results as Markdown and exit")
    p.add_argument("--allow-stale", action="store_true",
                   help="with --report, also rows made by another version of the scripts (the report names them)")
    args = p.parse_args()

    if args.report:
        print(report(args.allow_stale))
        return 0
    jobs = ([] if args.only == "parkinglot" else matrix_aqm()) + ([] if args.only == "aqm" else matrix_parkinglot())
    if args.set:
        jobs = [j for j in jobs if j.set == args.set]
    if args.scenarios:
        wanted = set(args.scenarios.split(","))
        unknown = wanted - {j.key for j in jobs}
        if unknown:
            p.error(f"unknown scenario key(s): {sorted(unknown)} (see --list)")
        jobs = [j for j in jobs if j.key in wanted]
    if args.list:
        for j in jobs:
            print(f"{j.key:48s} {j.set:5s} {' '.join(j.scenario.command(j.cc)[2:])}")
        return 0
    if shutil.which("ns") is None:
        print("ns-2: `ns` not found on PATH (Debian: apt-get install ns2)", file=sys.stderr)
        return 1
    print(f"# {platform.node()} {platform.machine()}, {os.cpu_count()} cpus; "
          f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC", file=sys.stderr)
    done = {"aqm": done_keys(AQM_CSV, ns2_script_hash(AQM_SCRIPT)),
            "parkinglot": done_keys(PL_CSV, ns2_script_hash(PL_SCRIPT))}
    n, t0 = 0, time.perf_counter()
    for j in jobs:
        if not args.recompute and j.key in done[j.kind]:
            continue
        print(f"  ns-2 {j.key} ...", file=sys.stderr, flush=True)
        run_job(j, args.timeout)
        n += 1
    print(f"# {n} ns-2 runs in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
