#!/usr/bin/env python3
"""Cross-check: cclab's FAST `ns2` variant against ns-2.35's Agent/TCP/Fast (the CUBIN module, v1.1.3).

Debian's ns-2.35 has no FAST; benchmarks/ns2/build_fast.sh builds one that has, into
~/.cache/cclab/ns2-fast. The scenarios are crosscheck.py's dumbbells (access links at 10x the bottleneck,
2.5 ms each side, spread over [2.5/N, 2.5] ms with N flows; DropTail; 1500-byte packets) run by
benchmarks/ns2/fast_dumbbell.tcl on the ns-2 side and `cclab run` with cc = fast, variant ns2, on the
other, under recovery = "ns2-sack1": the module recovers from loss as ns-2's Sack1 agent, whose rule cclab
models (RFC 6675, cclab's default, made the table until 2026-11-30; --recovery-sweep shows every rule).
Both sides trace every flow's cwnd every 10 ms, so besides goodput and loss events the table gives the
window's equilibrium: the mean cwnd over the measurement window, and the bottleneck's mean queue.

    .venv/bin/python benchmarks/crosscheck_fast.py                  # runs what is missing, prints the table
    .venv/bin/python benchmarks/crosscheck_fast.py --report-only --markdown out.md
    .venv/bin/python benchmarks/crosscheck_fast.py --trace f1-r200-rtt100-b0.11-d120m60 --from 60 --to 62
                                                                    # both cwnd traces side by side
    .venv/bin/python benchmarks/crosscheck_fast.py --recovery-sweep f1-r100-rtt20-b0.1-d200m100/mi=0
                                                                    # cclab under each loss-recovery rule

Results are cached, one row per flow and side, in benchmarks/crosscheck-fast.csv; a row records the engine
fingerprint (cclab) or the hash of fast_dumbbell.tcl + common.tcl (ns-2), and a stale row is run again.
Needs the .venv (pyarrow reads cclab's traces). See docs/validation.md, "FAST against ns-2.35".
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import crosscheck as cc  # noqa: E402  (Scenario, scenario_toml, cclab_exe, rel, fmt_rel, stamp)
from provenance import ENGINE, NS2_SCRIPT as NS2_STAMP, engine_fingerprint, ns2_script_hash  # noqa: E402

FAST_TCL = HERE / "ns2" / "fast_dumbbell.tcl"
CSV_PATH = HERE / "crosscheck-fast.csv"
DEFAULT_NS = Path(os.environ.get("CCLAB_NS2_FAST_DIR", Path.home() / ".cache" / "cclab" / "ns2-fast")) / "bin/ns"
SPEC = '{ name = "fast", variant = "ns2" }'
# cclab's flows.N.recovery values: RFC 6675, ns-2 TCP-Linux's rule, PRR, and ns-2's Sack1, which the module's
# own recovery copies: the table's (TABLE_RECOVERY)
RECOVERY_RULES = ["sack", "linux-2.6", "prr", "ns2-sack1"]
TABLE_RECOVERY = "ns2-sack1"
TRACE_S = 0.01   # cwnd and queue sample period, both sides
MI_THRESHOLD_S = 0.00075   # the ns2 variant's and ns-2's mi_threshold_

FIELDS = ["key", "scenario", "side", "flow", "goodput_bps", "loss_events", "timeouts", "retransmissions",
          "packets_sent", "drops", "mean_cwnd", "mean_queue", "mean_queueing_ms", "mi_share", "status", "wall_s",
          "date", "host", ENGINE, NS2_STAMP]


@dataclass(frozen=True)
class Cell:
    scenario: cc.Scenario
    mi_off: bool = False   # both sides without the multiplicative-increase phase (mi_threshold 0)

    @property
    def id(self) -> str:
        return self.scenario.id + ("/mi=0" if self.mi_off else "")


def cells() -> list[Cell]:
    """crosscheck.py's 100 Mbit/s cells with 1 and 2 flows, then seed 000's example: 200 Mbit/s, bottleneck
    delay 50 ms, end-to-end RTT 110 ms, buffer 0.1 and 1 BDP of the 110 ms RTT (183 and 1833 packets, the
    buffers of docs/validation.md's FAST table; Scenario counts BDPs of the 100 ms bottleneck RTT, so 0.11
    and 1.1 of them), over [60, 120] s as there. Last, two 0.1-BDP cells again with the MI phase off on
    both sides, to tell what the MI phase does from what the rest of the model does."""
    out = [cc.Scenario(n, 100, rtt, b, 200, 100) for n in (1, 2) for rtt in (20, 100) for b in (0.1, 1)]
    out += [cc.Scenario(1, 200, 100, b, 120, 60) for b in (0.11, 1.1)]
    return [Cell(s) for s in out] + [Cell(out[0], mi_off=True), Cell(out[-2], mi_off=True)]


# ---------------------------------------------------------------------------------------------- runs

def estimate_fields(samples: list[dict]) -> dict:
    """The agent's own queueing-delay estimate avgRTT - baseRTT over the trace samples: its mean (ms) and the
    share of samples below the MI threshold, i.e. where an ACK would grow the window by one packet."""
    queueing = [c["avg_rtt"] - c["base_rtt"] for c in samples if c["avg_rtt"] > 0]
    return {"mean_queueing_ms": f"{statistics.fmean(queueing) * 1e3:.3f}",
            "mi_share": f"{sum(q < MI_THRESHOLD_S for q in queueing) / len(queueing):.3f}"}


def run_ns2(ns: str, cell: Cell) -> tuple[list[dict], list[dict], list[dict]]:
    """-> (per-flow result rows, cwnd trace rows, queue trace rows)."""
    s = cell.scenario
    cmd = [ns, str(FAST_TCL), f"rate_mbps={s.rate_mbps}", f"delay_ms={s.delay_ms:g}", f"buffer={s.buffer}",
           f"access_ms={s.access_ms:g}", f"access_mbps={cc.ACCESS_FACTOR * s.rate_mbps}", f"flows={s.flows}",
           f"duration={s.duration}", f"measure_from={s.measure_from}", "seed=1", f"payload={cc.PAYLOAD_BYTES}",
           f"trace_dt={TRACE_S}"] + (["mi_threshold=0"] if cell.mi_off else [])
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    flows, cwnd, queue = cc.parse_kv_lines(proc.stdout), [], []
    for line in proc.stdout.splitlines():
        kind, _, rest = line.partition(" ")
        fields = dict(f.partition("=")[::2] for f in rest.split())
        if kind == "trace":
            cwnd.append({"t": float(fields["t"]), "flow": int(fields["flow"]), "cwnd": float(fields["cwnd"]),
                         "avg_rtt": float(fields["avg_rtt"]), "base_rtt": float(fields["base_rtt"])})
        elif kind == "queue":
            queue.append({"t": float(fields["t"]), "pkts": int(fields["pkts"]), "drops": int(fields["drops"])})
    if proc.returncode != 0 or len(flows) != s.flows:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        raise RuntimeError(f"ns-2 failed (exit {proc.returncode}): {' '.join(cmd)}: {tail}")
    window = [q for q in queue if s.measure_from <= q["t"] <= s.duration]
    drops = window[-1]["drops"] - window[0]["drops"] if window else ""
    mean_queue = f"{statistics.fmean(q['pkts'] for q in window):.1f}" if window else ""
    rows = []
    for f in flows:
        i = int(f["flow"])
        samples = [c for c in cwnd if c["flow"] == i and s.measure_from <= c["t"] <= s.duration]
        rows.append({"flow": i, "goodput_bps": f["goodput_bps"], "loss_events": f["loss_events"],
                     "timeouts": f["timeouts"], "retransmissions": f["retransmissions"],
                     "packets_sent": f["packets_sent"], "drops": drops, "mean_queue": mean_queue,
                     "mean_cwnd": f"{statistics.fmean(c['cwnd'] for c in samples):.1f}", "status": "ok",
                     "wall_s": f"{wall:.1f}", **estimate_fields(samples)})
    return rows, cwnd, queue


def run_cclab(exe: str, cell: Cell, recovery: str = TABLE_RECOVERY) -> tuple[list[dict], list[dict]]:
    """-> (per-flow result rows, cwnd trace rows)."""
    import json

    import pyarrow.parquet as pq

    s = cell.scenario
    spec = SPEC.replace(" }", ", mi_threshold_us = 0 }") if cell.mi_off else SPEC
    toml = cc.scenario_toml(s, spec, recovery).replace('sample_interval = "0s"',
                                                       f'sample_interval = "{TRACE_S * 1e3:g}ms"')
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{s.id}.toml"
        path.write_text(toml)
        t0 = time.perf_counter()
        proc = subprocess.run([exe, "run", str(path), "--json", "-q", "--out", tmp],
                              capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"cclab failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}\n{toml}")
        doc = json.loads(proc.stdout[proc.stdout.find("{"):])
        series = pq.read_table(Path(tmp) / "timeseries.parquet",
                               columns=["time_s", "flow", "cwnd", "cc_avg_rtt_s", "cc_base_rtt_s"]).to_pylist()
    cwnd = [{"t": r["time_s"], "flow": r["flow"], "cwnd": float(r["cwnd"]), "avg_rtt": r["cc_avg_rtt_s"],
             "base_rtt": r["cc_base_rtt_s"]} for r in series]
    bottleneck = doc["bottleneck"]
    rows = []
    for f in doc["flows"]:
        samples = [c for c in cwnd if c["flow"] == f["flow"] and s.measure_from <= c["t"] <= s.duration]
        rows.append({"flow": f["flow"], "goodput_bps": f["goodput_bps"], "loss_events": f["loss_events"],
                     "timeouts": f["timeouts"], "retransmissions": f["retransmissions"],
                     "packets_sent": f["packets_sent"], "drops": bottleneck["drops"],
                     "mean_queue": f"{bottleneck['mean_queue_packets']:.1f}",
                     "mean_cwnd": f"{statistics.fmean(c['cwnd'] for c in samples):.1f}", "status": "ok",
                     "wall_s": f"{wall:.1f}", **estimate_fields(samples)})
    return rows, cwnd


# ------------------------------------------------------------------------------------------- cache

def read_rows(path: Path, stamps: dict[str, tuple[str, str]]) -> dict[tuple[str, str], list[dict]]:
    """(scenario, side) -> rows made by the current engine (cclab) or script (ns-2)."""
    return cc.read_sided_cache(path, stamps)


def append_rows(path: Path, rows: list[dict]) -> None:
    cc.append_cache(path, rows, FIELDS)


# ------------------------------------------------------------------------------------------ report

def summary(rows: list[dict]) -> dict:
    return {"goodput": sum(float(r["goodput_bps"]) for r in rows),
            "per_flow": [float(r["goodput_bps"]) for r in sorted(rows, key=lambda r: int(r["flow"]))],
            "loss_events": sum(int(r["loss_events"]) for r in rows),
            "timeouts": sum(int(r["timeouts"]) for r in rows),
            "sent": sum(int(r["packets_sent"]) for r in rows),
            "drops": int(rows[0]["drops"]), "mean_queue": float(rows[0]["mean_queue"]),
            "mean_cwnd": sum(float(r["mean_cwnd"]) for r in rows),
            "queueing_ms": [float(r["mean_queueing_ms"]) for r in rows],
            "mi_share": [float(r["mi_share"]) for r in rows]}


def label(cell: Cell) -> str:
    s = cell.scenario
    mi = ", **MI off**" if cell.mi_off else ""
    if s.rate_mbps == 200:
        return f"1 flow, 200 Mbit/s, RTT 110 ms, {s.bdp / 1.1:g} BDP ({s.buffer} pkt){mi}"
    return (f"{s.flows} flow{'s' if s.flows > 1 else ''}, {s.rate_mbps} Mbit/s, RTT {s.rtt_ms} ms, "
            f"{s.bdp:g} BDP ({s.buffer} pkt){mi}")


def markdown_table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in rows]


def report(cache: dict, markdown: Path | None) -> None:
    """The side-by-side table, then each agent's queueing-delay estimate; cells missing a side show dashes."""
    head = ["scenario", "goodput ns-2 Mbit/s", "cclab", "diff", "loss ev. ns-2", "cclab", "timeouts ns-2", "cclab",
            "packets sent ns-2", "cclab", "drops ns-2", "cclab", "mean cwnd ns-2 pkt", "cclab", "diff",
            "mean queue ns-2 pkt", "cclab", "per flow ns-2 / cclab Mbit/s"]
    main_rows, estimate_rows = [], []
    for cell in cells():
        a, b = cache.get((cell.id, "ns2")), cache.get((cell.id, "cclab"))
        if not a or not b:
            main_rows.append([label(cell)] + ["—"] * (len(head) - 1))
            continue
        x, y = summary(a), summary(b)
        per_flow = (", ".join(f"{p / 1e6:.1f}/{q / 1e6:.1f}" for p, q in zip(x["per_flow"], y["per_flow"]))
                    if cell.scenario.flows > 1 else "—")
        main_rows.append([
            label(cell), f"{x['goodput'] / 1e6:.2f}", f"{y['goodput'] / 1e6:.2f}",
            cc.fmt_rel(cc.rel(x["goodput"], y["goodput"])), str(x["loss_events"]), str(y["loss_events"]),
            str(x["timeouts"]), str(y["timeouts"]), str(x["sent"]), str(y["sent"]), str(x["drops"]), str(y["drops"]),
            f"{x['mean_cwnd']:.0f}", f"{y['mean_cwnd']:.0f}", cc.fmt_rel(cc.rel(x["mean_cwnd"], y["mean_cwnd"])),
            f"{x['mean_queue']:.1f}", f"{y['mean_queue']:.1f}", per_flow])
        per_flow_values = lambda values: ", ".join(f"{v:.2f}" for v in values)
        estimate_rows.append([label(cell), per_flow_values(x["queueing_ms"]), per_flow_values(y["queueing_ms"]),
                              per_flow_values(x["mi_share"]), per_flow_values(y["mi_share"])])
    lines = markdown_table(head, main_rows)
    lines += ["", "Each agent's queueing-delay estimate avgRTT - baseRTT, per flow, over the 10-ms trace samples:",
              ""]
    lines += markdown_table(["scenario", "mean ns-2 ms", "cclab", "share below the MI threshold ns-2", "cclab"],
                            estimate_rows)
    text = "\n".join(lines)
    print(text)
    if markdown:
        markdown.write_text(text + "\n")


def print_traces(ns: str, exe: str, cell_id: str, t_from: float, t_to: float) -> None:
    """Flow 0's cwnd and queueing-delay estimate (avgRTT - baseRTT) in both simulators, and ns-2's bottleneck
    queue, over [t_from, t_to], 10 ms apart."""
    cell = {x.id: x for x in cells()}[cell_id]
    _, ns_cwnd, ns_queue = run_ns2(ns, cell)
    _, cl_cwnd = run_cclab(exe, cell)
    pick = lambda rows: {round(r["t"], 2): r for r in rows if r["flow"] == 0 and t_from <= r["t"] <= t_to}
    a, b = pick(ns_cwnd), pick(cl_cwnd)
    q = {round(r["t"], 2): r["pkts"] for r in ns_queue}
    print("t s | ns-2 cwnd | avgRTT-baseRTT ms | queue | cclab cwnd | avgRTT-baseRTT ms")
    for t in sorted(set(a) & set(b)):
        queueing = [(r[t]["avg_rtt"] - r[t]["base_rtt"]) * 1e3 for r in (a, b)]
        print(f"{t:.2f} | {a[t]['cwnd']:.1f} | {queueing[0]:.3f} | {q.get(t, '')} | "
              f"{b[t]['cwnd']:.0f} | {queueing[1]:.3f}")


def recovery_sweep(exe: str, cell_id: str, cache: dict) -> None:
    """The cclab side of one cell under each of cclab's loss-recovery rules, beside the cached ns-2 row: how
    much of the cell the recovery rule decides."""
    cell = {x.id: x for x in cells()}[cell_id]
    rows = [("ns-2 Agent/TCP/Fast", summary(cache[(cell.id, "ns2")]))] if (cell.id, "ns2") in cache else []
    for recovery in RECOVERY_RULES:
        rows.append((f"cclab, recovery = {recovery}", summary(run_cclab(exe, cell, recovery)[0])))
    print(f"{label(cell)}\n")
    print("\n".join(markdown_table(
        ["run", "goodput Mbit/s", "loss events", "timeouts", "packets sent", "drops", "mean cwnd pkt"],
        [[name, f"{x['goodput'] / 1e6:.2f}", str(x["loss_events"]), str(x["timeouts"]), str(x["sent"]),
          str(x["drops"]), f"{x['mean_cwnd']:.0f}"] for name, x in rows])))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", default=str(DEFAULT_NS), help="ns with Agent/TCP/Fast (build_fast.sh)")
    ap.add_argument("--csv", type=Path, default=CSV_PATH)
    ap.add_argument("--report-only", action="store_true", help="run nothing, print the cached table")
    ap.add_argument("--markdown", type=Path, help="also write the table here")
    ap.add_argument("--trace", metavar="CELL", help="print both cwnd traces of this cell (scenario id[/mi=0])")
    ap.add_argument("--recovery-sweep", metavar="CELL",
                    help="run this cell's cclab side under each loss-recovery rule, beside the cached ns-2 row")
    ap.add_argument("--from", dest="t_from", type=float, default=0.0)
    ap.add_argument("--to", dest="t_to", type=float, default=5.0)
    args = ap.parse_args()
    exe = cc.cclab_exe()
    if exe is None:
        raise SystemExit("no cclab: run scripts/setup.sh")
    if args.trace:
        print_traces(args.ns, exe, args.trace, args.t_from, args.t_to)
        return 0
    stamps = {"ns2": (NS2_STAMP, ns2_script_hash(FAST_TCL)), "cclab": (ENGINE, engine_fingerprint(exe))}
    cache = read_rows(args.csv, stamps)
    if args.recovery_sweep:
        recovery_sweep(exe, args.recovery_sweep, cache)
        return 0
    if not args.report_only:
        if not Path(args.ns).exists():
            raise SystemExit(f"{args.ns} missing: build it with benchmarks/ns2/build_fast.sh")
        for cell in cells():
            for side in ("ns2", "cclab"):
                if (cell.id, side) in cache:
                    continue
                print(f"{cell.id} {side} ...", file=sys.stderr, flush=True)
                rows = run_ns2(args.ns, cell)[0] if side == "ns2" else run_cclab(exe, cell)[0]
                column, current = stamps[side]
                rows = [{**r, "key": f"{cell.id}/{side}", "scenario": cell.id, "side": side, column: current,
                         **cc.stamp()} for r in rows]
                append_rows(args.csv, rows)
                cache[(cell.id, side)] = rows
    report(cache, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
