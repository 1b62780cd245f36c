#!/usr/bin/env python3
"""Cross-check: cclab's loss-recovery rules against ns-2.35's SACK agent, Agent/TCP/Sack1 with Reno's window.

Seed 003 (Xu, Harfoush & Rhee, BIC, INFOCOM 2004) ran its high-speed flows in ns-2 "as a modification of
TCP-SACK", that is Agent/TCP/Sack1 (tcp/tcp-sack1.cc); cclab's seed 003 stands in RFC 6675 recovery
(`recovery = "sack"`). This script measures how far each of cclab's recovery rules stands from Sack1 with
the same window law on both sides: Reno in ns-2 (windowOption_ 1, cwnd_ += 1/cwnd_ per new ACK), cclab's
newreno in its `linux-2.6.22` variant (growth counts ACKs, as ns-2's does).

The scenarios are crosscheck.py's dumbbells (access links at 10x the bottleneck, 2.5 ms each side, spread
over [2.5/N, 2.5] ms with N flows; DropTail; 1500-byte packets; one ACK per packet, SACK with 3 blocks),
run by benchmarks/ns2/sack1_dumbbell.tcl on Debian's /usr/bin/ns and by `cclab run` under each rule of
RECOVERY_RULES on the other side; and once more as ns-2's agent whole (side `ns2-agent`): `ns2-sack1` with
newreno `ns2`, ns-2's own window (a double, +1/cwnd per new ACK, slow start while cwnd < ssthresh).

    python3 benchmarks/crosscheck_sack1.py                     # runs what is missing or stale, prints the tables
    python3 benchmarks/crosscheck_sack1.py --report-only --markdown out.md
    python3 benchmarks/crosscheck_sack1.py --list              # the cells
    python3 benchmarks/crosscheck_sack1.py --error-seeds 1     # the cells with packet errors with seed 1 only

Results are cached, one row per flow and side, in benchmarks/crosscheck-sack1.csv; a row records the engine
fingerprint (cclab) or the hash of sack1_dumbbell.tcl + common.tcl (ns-2), and a stale row is run again
(--report-only leaves it out). Standard library only. See docs/validation.md, "cclab's recovery rules
against ns-2.35's Sack1 agent".
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import crosscheck as cc  # noqa: E402  (Scenario, scenario_toml, cclab_exe, parse_kv_lines, rel, fmt_rel, stamp)
from provenance import ENGINE, NS2_SCRIPT as NS2_STAMP, engine_fingerprint, ns2_script_hash  # noqa: E402

SACK1_TCL = HERE / "ns2" / "sack1_dumbbell.tcl"
CSV_PATH = HERE / "crosscheck-sack1.csv"
DEFAULT_NS = "/usr/bin/ns"
# ns-2's Reno window law grows by 1/cwnd per ACK, not per packet acknowledged: the variant that counts ACKs
SPEC = '{ name = "newreno", variant = "linux-2.6.22" }'
# cclab's flows.N.recovery values compared: RFC 6675, RFC 6582, ns-2 TCP-Linux's rule, PRR (Linux 4.3 on),
# ns-2's Sack1 (the agent on the other side, as cclab models its recovery)
RECOVERY_RULES = ["sack", "newreno", "linux-2.6", "prr", "ns2-sack1"]
# ns-2's agent as cclab models it whole: Sack1's recovery and timer with ns-2's own window arithmetic
NS2_SPEC = '{ name = "newreno", variant = "ns2" }'
# cclab's sides: label -> (recovery rule, cc spec)
CCLAB_SIDES = {**{rule: (rule, SPEC) for rule in RECOVERY_RULES}, "ns2-agent": ("ns2-sack1", NS2_SPEC)}
SIDES = ["ns2", *CCLAB_SIDES]

FIELDS = ["key", "scenario", "side", "flow", "goodput_bps", "loss_events", "timeouts", "retransmissions",
          "packets_sent", "status", "wall_s", "date", "host", ENGINE, NS2_STAMP]


@dataclass(frozen=True)
class Cell:
    scenario: cc.Scenario
    loss_rate: float = 0.0   # random packet errors on the bottleneck, data direction (ns-2 per=)
    seed: int = 1            # cclab's run.seed; ns-2's substream of seed 1 (sack1_dumbbell.tcl stream=)

    @property
    def id(self) -> str:
        return (self.scenario.id + (f"/per={self.loss_rate:g}" if self.loss_rate else "")
                + (f"/seed={self.seed}" if self.seed != 1 else ""))


def cells() -> list[Cell]:
    """crosscheck_fast.py's 100 Mbit/s cells (RTT 20 and 100 ms, 0.1 and 1 BDP, 200 s over [100, 200] s) with
    1, 2 and 4 flows; then one flow at 1 BDP with random packet errors of 1e-4, 1e-3 and 1e-2 at both RTTs,
    over [100, 1000] s: an error-limited flow sends a few Mbit/s, and 900 s give it 100-10 000 loss events.
    At 1e-2 the window is about 12 packets and retransmission timeouts are common: those cells test the
    timer and what follows a timeout. Last, large windows, measured from 0 s so that the slow-start
    overshoot counts: 1 and 2 flows at 1 Gbit/s, RTT 100 ms (8333 packets a BDP), 0.1 and 1 BDP, 60 s; 4
    flows at 500 Mbit/s, 0.1 BDP, 100 s; 2 flows at 2.5 Gbit/s, RTT 40 ms, 1 BDP, 40 s (seed 003's Table 3
    rate). There one loss episode holds 10^3-10^4 losses: the cells test Sack1's recovery where seed 003's
    high-speed flows run."""
    out = [Cell(cc.Scenario(n, 100, rtt, b, 200, 100)) for n in (1, 2, 4) for rtt in (20, 100) for b in (0.1, 1)]
    out += [Cell(cc.Scenario(1, 100, rtt, 1, 1000, 100), per) for per in (1e-4, 1e-3, 1e-2) for rtt in (20, 100)]
    out += [Cell(cc.Scenario(n, 1000, 100, b, 60, 0)) for n in (1, 2) for b in (0.1, 1)]
    out += [Cell(cc.Scenario(4, 500, 100, 0.1, 100, 0)), Cell(cc.Scenario(2, 2500, 40, 1, 40, 0))]
    return out


ERROR_SEEDS = 10


def seed_cells(seeds: int = ERROR_SEEDS) -> list[Cell]:
    """The cells with packet errors again with seeds 2 .. `seeds`: the two simulators draw their errors from
    different generators, so one seed a side compares two samples; these give each side's spread."""
    return [Cell(c.scenario, c.loss_rate, seed) for c in cells() if c.loss_rate for seed in range(2, seeds + 1)]


def side_stamp_kind(side: str) -> str:
    return "ns2" if side == "ns2" else "cclab"


# ---------------------------------------------------------------------------------------------- runs

def ns2_command(ns: str, cell: Cell, script: Path = SACK1_TCL, extra: tuple[str, ...] = ()) -> list[str]:
    s = cell.scenario
    return [ns, str(script), *extra, f"rate_mbps={s.rate_mbps}", f"delay_ms={s.delay_ms:g}", f"buffer={s.buffer}",
            f"access_ms={s.access_ms:g}", f"access_mbps={cc.ACCESS_FACTOR * s.rate_mbps}", f"flows={s.flows}",
            f"duration={s.duration}", f"measure_from={s.measure_from}", "seed=1", f"stream={cell.seed}",
            f"payload={cc.PAYLOAD_BYTES}", f"per={cell.loss_rate:g}"]


def result_rows(flows: list[dict], wall: float) -> list[dict]:
    return [{"flow": int(f["flow"]), "goodput_bps": f["goodput_bps"], "loss_events": f["loss_events"],
             "timeouts": f["timeouts"], "retransmissions": f["retransmissions"], "packets_sent": f["packets_sent"],
             "status": "ok", "wall_s": f"{wall:.1f}"} for f in flows]


def run_ns2(ns: str, cell: Cell, script: Path = SACK1_TCL, extra: tuple[str, ...] = ()) -> list[dict]:
    """`extra`: key=value arguments before the cell's (overhead_sack1.tcl's own)."""
    cmd = ns2_command(ns, cell, script, extra)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    flows = cc.parse_kv_lines(proc.stdout)
    if proc.returncode != 0 or len(flows) != cell.scenario.flows:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        raise RuntimeError(f"ns-2 failed (exit {proc.returncode}): {' '.join(cmd)}: {tail}")
    return result_rows(flows, wall)


# ns-2's agent sends a SYN first (`syn_` true) and its data only once the SYN's ACK is back; both are
# 40-byte packets (tcpip_base_hdr_size_, the sink's ACK size)
HANDSHAKE_BITS = 40 * 8


def handshake_ns(s: cc.Scenario, access_ms: float) -> int:
    """When ns-2's flow with one-way access delay `access_ms` sends its first data packet: the SYN and its ACK
    cross the empty path, each over two access links and the bottleneck."""
    bottleneck_bps = s.rate_mbps * 1e6
    access_bps = cc.ACCESS_FACTOR * bottleneck_bps
    transmissions = 2 * (2 * HANDSHAKE_BITS / access_bps + HANDSHAKE_BITS / bottleneck_bps)
    return round(transmissions * 1e9 + 2 * (s.delay_ms + 2 * access_ms) * 1e6)


def cclab_toml(cell: Cell, recovery: str, spec: str = SPEC, overhead_ns: int = 0) -> str:
    """crosscheck.py's dumbbell (no delayed ACKs, initial window 2, minimum RTO 200 ms: cclab's defaults),
    with the cell's packet error rate on the bottleneck and its seed. cclab has no handshake: each flow
    starts when ns-2's would send its first data packet (`handshake_ns`), which is exact while the flows
    start together on an idle path. The flows' starts then differ by their RTTs' differences, and that
    phase decides which flow's slow-start burst meets the full queue (2 flows at 2.5 Gbit/s: goodput
    2204 and 185 Mbit/s started together, 1722 and 651 as ns-2's, to 0.01 %)."""
    s = cell.scenario
    starts = [handshake_ns(s, s.access_ms * (i + 1) / s.flows) for i in range(s.flows)]  # agent_dumbbell.tcl's spread
    return cc.scenario_toml(s, spec, recovery, starts_ns=starts, loss_rate=cell.loss_rate, seed=cell.seed,
                            overhead_ns=overhead_ns)


def run_cclab(exe: str, cell: Cell, recovery: str, spec: str = SPEC, overhead_ns: int = 0) -> list[dict]:
    import json

    toml = cclab_toml(cell, recovery, spec, overhead_ns)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cell.toml"
        path.write_text(toml)
        t0 = time.perf_counter()
        proc = subprocess.run([exe, "run", str(path), "--json"], capture_output=True, text=True)
        wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"cclab failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}\n{toml}")
    text = proc.stdout.strip()
    doc = json.loads(text[text.find("{"):])
    doc = doc.get("summary", doc)
    return result_rows(doc["flows"], wall)


# ------------------------------------------------------------------------------------------- cache

def read_rows(path: Path, stamps: dict[str, tuple[str, str]]) -> dict[tuple[str, str], list[dict]]:
    """(cell id, side) -> rows made by the current engine (cclab sides) or script (ns-2); `stamps` maps
    "ns2" and "cclab" to (column, current stamp)."""
    return cc.read_sided_cache(path, stamps, side_stamp_kind, ok_only=True)


def append_rows(path: Path, rows: list[dict]) -> None:
    cc.append_cache(path, rows, FIELDS)


def keep_rows(path: Path, cache: dict, cell: Cell, side: str, rows: list[dict],
              stamps: dict[str, tuple[str, str]]) -> None:
    """A finished run's rows, keyed and stamped with what made them, appended to the cache file at once
    (an interrupted run loses at most one simulation) and to `cache`."""
    column, current = stamps[side_stamp_kind(side)]
    rows = [{**r, "key": f"{cell.id}/{side}", "scenario": cell.id, "side": side, column: current, **cc.stamp()}
            for r in rows]
    append_rows(path, rows)
    cache[(cell.id, side)] = rows


# ------------------------------------------------------------------------------------------ report

def summary(rows: list[dict]) -> dict:
    return {"goodput": sum(float(r["goodput_bps"]) for r in rows),
            "loss_events": sum(int(r["loss_events"]) for r in rows),
            "timeouts": sum(int(r["timeouts"]) for r in rows),
            "retransmissions": sum(int(r["retransmissions"]) for r in rows),
            "sent": sum(int(r["packets_sent"]) for r in rows)}


def label(cell: Cell) -> str:
    """The cell in a table row: the rate and the measured interval only where they are not the first cells'
    (100 Mbit/s, [100, 200] s)."""
    s = cell.scenario
    rate = f"{s.rate_mbps} Mbit/s, " if s.rate_mbps != 100 else ""
    per = f", errors {cell.loss_rate:g}" if cell.loss_rate else ""
    span = f", [{s.measure_from}, {s.duration}] s" if (s.measure_from, s.duration) != (100, 200) else ""
    return f"{s.flows} flow{'s' if s.flows > 1 else ''}, {rate}RTT {s.rtt_ms} ms, {s.bdp:g} BDP ({s.buffer} pkt){per}{span}"


def markdown_table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in rows]


def thousands(n: int) -> str:
    return f"{n:,}".replace(",", " ")


def seeds_table(cache: dict, seeds: int, sides: list[str] | None = None, names: list[str] | None = None) -> list[str]:
    """The cells with packet errors over seeds 1 .. `seeds` a side: mean goodput ± standard deviation and the
    difference of the means from the first side's (ns-2); a side with fewer seeds cached says how many.
    `sides` are the cache's side labels, `names` their column heads (default: ns-2 and CCLAB_SIDES)."""
    sides = sides or SIDES
    names = names or side_names()
    rows = []
    for cell in (c for c in cells() if c.loss_rate):
        runs = [cell] + [c for c in seed_cells(seeds) if c.scenario == cell.scenario and c.loss_rate == cell.loss_rate]
        means, row = {}, [label(cell).split(", [")[0]]
        for side in sides:
            values = [summary(cache[(c.id, side)])["goodput"] / 1e6 for c in runs if (c.id, side) in cache]
            if len(values) < 2:
                row.append("—")
                continue
            means[side] = statistics.fmean(values)
            text = f"{means[side]:.2f} ± {statistics.stdev(values):.2f}"
            if side != sides[0] and sides[0] in means:
                text += f" ({cc.fmt_rel(cc.rel(means[sides[0]], means[side])).rstrip('!').replace('%', ' %')})"
            row.append(text + (f" [{len(values)} seeds]" if len(values) != len(runs) else ""))
        rows.append(row)
    return markdown_table(["cell", *names], rows)


def cell_tables(cache: dict, sides: list[str], names: list[str]) -> list[str]:
    """Goodput of every side in each cell with the difference from the first side's (ns-2), then the loss
    events, timeouts, retransmissions and packets sent side by side; a side not in the cache shows a dash."""
    got = {(cell.id, side): summary(cache[(cell.id, side)]) for cell in cells() for side in sides
           if (cell.id, side) in cache}
    head = ["cell", *names]
    lines = ["Goodput, Mbit/s (difference from ns-2):", ""]
    rows = []
    for cell in cells():
        a = got.get((cell.id, sides[0]))
        row = [label(cell), f"{a['goodput'] / 1e6:.2f}" if a else "—"]
        for side in sides[1:]:
            b = got.get((cell.id, side))
            row.append("—" if not b else f"{b['goodput'] / 1e6:.2f}"
                       + (f" ({cc.fmt_rel(cc.rel(a['goodput'], b['goodput'])).rstrip('!').replace('%', ' %')})"
                          if a else ""))
        rows.append(row)
    lines += markdown_table(head, rows)
    for key, title in [("loss_events", "Loss events"), ("timeouts", "Timeouts"),
                       ("retransmissions", "Retransmissions"), ("sent", "Packets sent")]:
        rows = [[label(cell)] + [thousands(got[(cell.id, side)][key]) if (cell.id, side) in got else "—"
                                 for side in sides] for cell in cells()]
        lines += ["", f"{title}:", ""] + markdown_table(head, rows)
    return lines


def print_report(preamble: list[str], cache: dict, sides: list[str], names: list[str], seeds: int,
                 markdown: Path | None) -> None:
    """`preamble`, the cell tables of `sides` (column heads `names`, ns-2 first), then the cells with packet
    errors over seeds 1 .. `seeds`; printed, and written to `markdown` if given."""
    lines = preamble + cell_tables(cache, sides, names)
    if seeds > 1:
        lines += ["", f"The cells with packet errors, goodput over seeds 1-{seeds} a side (ns-2: substreams 1-{seeds} "
                  f"of seed 1), Mbit/s, mean ± standard deviation (difference of the means):", ""]
        lines += seeds_table(cache, seeds, sides, names)
    text = "\n".join(lines)
    print(text)
    if markdown:
        markdown.write_text(text + "\n")


def report(cache: dict, markdown: Path | None, stamps: dict[str, tuple[str, str]], seeds: int = ERROR_SEEDS) -> None:
    """Goodput of ns-2 and of each rule with the difference from ns-2, then the counts side by side, then the
    cells with packet errors over their seeds."""
    preamble = [f"ns-2: {stamps['ns2'][1]}; cclab: engine {stamps['cclab'][1]}, cc = {SPEC} "
                f"(`ns2-agent`: {NS2_SPEC} under `ns2-sack1`)", ""]
    print_report(preamble, cache, SIDES, side_names(), seeds, markdown)


def side_names() -> list[str]:
    return ["ns-2 Sack1", *[f"`{side}`" for side in CCLAB_SIDES]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", default=DEFAULT_NS, help="ns-2.35 (Debian's has Agent/TCP/Sack1)")
    ap.add_argument("--cclab", default=cc.cclab_exe(), help="the cclab executable (default: the .venv's)")
    ap.add_argument("--csv", type=Path, default=CSV_PATH)
    ap.add_argument("--report-only", action="store_true", help="run nothing, print the cached table")
    ap.add_argument("--markdown", type=Path, help="also write the tables here")
    ap.add_argument("--list", action="store_true", help="print the cells and exit")
    ap.add_argument("--error-seeds", type=int, default=ERROR_SEEDS,
                    help="run the cells with packet errors with seeds 1 .. this many a side (1: seed 1 only)")
    ap.add_argument("--sides", default=",".join(SIDES), help=f"run only these sides (of {','.join(SIDES)})")
    args = ap.parse_args()
    if args.list:
        for cell in cells():
            print(f"{cell.id}  {label(cell)}")
        return 0
    if args.cclab is None:
        raise SystemExit("no cclab: run scripts/setup.sh, or give --cclab")
    stamps = {"ns2": (NS2_STAMP, ns2_script_hash(SACK1_TCL)), "cclab": (ENGINE, engine_fingerprint(args.cclab))}
    cache = read_rows(args.csv, stamps)
    if not args.report_only:
        if not Path(args.ns).exists():
            raise SystemExit(f"{args.ns} missing: apt-get install ns2")
        sides = args.sides.split(",")
        for cell in cells() + seed_cells(args.error_seeds):
            for side in sides:
                if (cell.id, side) in cache:
                    continue
                print(f"{cell.id} {side} ...", file=sys.stderr, flush=True)
                rows = run_ns2(args.ns, cell) if side == "ns2" else run_cclab(args.cclab, cell, *CCLAB_SIDES[side])
                keep_rows(args.csv, cache, cell, side, rows, stamps)
    report(cache, args.markdown, stamps, args.error_seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
