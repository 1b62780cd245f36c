#!/usr/bin/env python3
"""Cross-check, draw by draw: one of crosscheck_sack1.py's cells, with one of crosscheck_laws.py's laws or
Reno's window, run many times on each side, for cells whose single runs are chaotic.

A deterministic run is one draw of such a cell: with AIMD(32, 0.125) on 2 flows and a 17-packet buffer,
moving one access link by a microsecond moves ns-2's goodput between 78 and 92 Mbit/s. This script runs
a cell `--draws` times on ns-2 and on cclab's sides of the law and compares the distributions. A draw is
either a shift of the access delays by k microseconds (`--shift-us`; k = 0 .. draws - 1, no randomness), or
a random wait before each send, ns-2's Agent/TCP `overhead_` (`--overhead-us`; draw k is ns-2's substream k
and cclab's seed k, cclab's `overhead_model = "delayed-send"`), which breaks the phase effects of a
deterministic run.

    python3 benchmarks/crosscheck_draws.py --law aimd --draws 10 --overhead-us 100 --duration 30
    python3 benchmarks/crosscheck_draws.py --law reno --cell f4-r100-rtt20-b0.1-d200m100 \
        --sides ns2-sack1,ns2-agent --overhead-us 100 --duration 60

Prints, per side: total goodput, mean and standard deviation over the draws; timeouts, median and range;
and in how many draws one flow was locked out (under 5 % of the total goodput). Nothing is cached (a
2-flow cell of 30 s takes about 1 s a side). See docs/validation.md, "Window laws against ns-2.35's own" and
"cclab's recovery rules against ns-2.35's Sack1 agent".
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import crosscheck as cc  # noqa: E402
import crosscheck_laws as laws  # noqa: E402
import crosscheck_sack1 as sack1  # noqa: E402

OVERHEAD_TCL = HERE / "ns2" / "overhead_sack1.tcl"
# crosscheck_laws.py's laws, and Reno's window as crosscheck_sack1.py runs it (its recovery rules as sides)
LAWS = {**laws.LAWS, "reno": laws.Law("ns-2 Sack1, Reno's window", sack1.SACK1_TCL, sack1.CSV_PATH,
                                      {side: (spec, rule, f"{spec} under `{rule}`")
                                       for side, (rule, spec) in sack1.CCLAB_SIDES.items()})}
DEFAULT_CELL = "f2-r100-rtt20-b0.1-d200m100"
LOCKED_OUT = 0.05   # a flow with less than this share of the total goodput


def draw_cells(base: sack1.Cell, draws: int, shift_us: float, duration: int | None) -> list[sack1.Cell]:
    """The cell of each draw: access delays shifted by k * shift_us, or (shift 0) the cell on seed k + 1."""
    s = base.scenario
    if duration is not None:
        s = dataclasses.replace(s, duration=duration, measure_from=0)
    if shift_us:
        return [sack1.Cell(dataclasses.replace(s, access_ms=s.access_ms + k * shift_us * 1e-3)) for k in range(draws)]
    return [sack1.Cell(s, base.loss_rate, k + 1) for k in range(draws)]


def run_side(args, law: laws.Law, side: str, cell: sack1.Cell) -> list[dict]:
    """One draw of the cell on one side: ns-2 with the law's script (through overhead_sack1.tcl when there
    is a wait), or cclab with the side's variant and rule."""
    overhead_us = args.overhead_us
    if side == "ns2":
        if not overhead_us:
            return sack1.run_ns2(args.ns, cell, law.script)
        extra = (f"script={law.script.name}", f"overhead_us={overhead_us:g}")
        return sack1.run_ns2(args.ns, cell, OVERHEAD_TCL, extra)
    spec, recovery, _ = law.sides[side]
    return sack1.run_cclab(args.cclab, cell, recovery, spec, round(overhead_us * 1000))


def summarise(draws: list[list[dict]]) -> str:
    goodput = [sum(float(r["goodput_bps"]) for r in rows) / 1e6 for rows in draws]
    timeouts = [sum(int(r["timeouts"]) for r in rows) for rows in draws]
    locked = sum(min(float(r["goodput_bps"]) for r in rows) < LOCKED_OUT * sum(float(r["goodput_bps"]) for r in rows)
                 for rows in draws)
    spread = statistics.stdev(goodput) if len(goodput) > 1 else 0.0
    return (f"| {statistics.mean(goodput):.2f} ± {spread:.2f} | {statistics.median(timeouts):g} "
            f"({min(timeouts)}-{max(timeouts)}) | {locked} of {len(draws)} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", default=sack1.DEFAULT_NS, help="ns-2.35 (Debian's)")
    ap.add_argument("--cclab", default=cc.cclab_exe(), help="the cclab executable (default: the .venv's)")
    ap.add_argument("--law", choices=sorted(LAWS), required=True,
                    help="the window law on both sides (reno: crosscheck_sack1.py's, its recovery rules as sides)")
    ap.add_argument("--cell", default=DEFAULT_CELL, help=f"a cell of crosscheck_sack1.py (default {DEFAULT_CELL})")
    ap.add_argument("--sides", help="cclab sides of the law to run (default: all)")
    ap.add_argument("--draws", type=int, default=10, help="draws a side (default 10)")
    draw = ap.add_mutually_exclusive_group()
    draw.add_argument("--shift-us", type=float, default=0.0, help="draw k shifts the access delays by k x this")
    draw.add_argument("--overhead-us", type=float, default=0.0,
                      help="a uniform [0, this] us wait before each send (ns-2 overhead_); draw k is seed k")
    ap.add_argument("--duration", type=int, help="simulated s, measured from 0 (default: the cell's own)")
    args = ap.parse_args()
    if args.draws < 1 or args.overhead_us < 0:
        raise SystemExit("--draws must be at least 1 and --overhead-us at least 0")
    if not args.shift_us and not args.overhead_us and args.draws > 1:
        raise SystemExit("give --shift-us or --overhead-us: without either every draw is the same run")
    if args.cclab is None:
        raise SystemExit("no cclab: run scripts/setup.sh, or give --cclab")
    if not Path(args.ns).exists():
        raise SystemExit(f"{args.ns} missing: apt-get install ns2")
    law = LAWS[args.law]
    base = {c.id: c for c in sack1.cells()}.get(args.cell)
    if base is None:
        raise SystemExit(f"unknown --cell {args.cell!r}; cells: {', '.join(c.id for c in sack1.cells())}")
    sides = ["ns2", *(args.sides.split(",") if args.sides else law.sides)]
    for side in sides[1:]:
        if side not in law.sides:
            raise SystemExit(f"unknown side {side!r} of {args.law}; sides: {', '.join(law.sides)}")
    cells = draw_cells(base, args.draws, args.shift_us, args.duration)
    how = (f"access delays shifted by 0-{(args.draws - 1) * args.shift_us:g} us" if args.shift_us
           else f"overhead_ {args.overhead_us:g} us, seeds 1-{args.draws}" if args.overhead_us else "one run")
    print(f"{cells[0].scenario.id} ({law.title}): {args.draws} draws, {how}\n")
    print("| side | goodput, Mbit/s, mean ± sd | timeouts, median (range) | a flow locked out |")
    print("|---|---|---|---|")
    for side in sides:
        runs = []
        for cell in cells:
            print(f"{cell.id} {side} ...", file=sys.stderr, flush=True)
            runs.append(run_side(args, law, side, cell))
        print(f"| {side} {summarise(runs)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
