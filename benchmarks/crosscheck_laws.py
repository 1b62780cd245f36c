#!/usr/bin/env python3
"""Cross-check: cclab's window laws against ns-2.35's own on its SACK agent, Agent/TCP/Sack1.

Seed 003 (Xu, Harfoush & Rhee, BIC, INFOCOM 2004) ran its protocols as modifications of ns-2's TCP-SACK.
Two of them are laws ns-2's Agent/TCP has built in, which the Sack1 agent inherits: HighSpeed TCP
(`windowOption_ 8`, tcp/tcp.cc) and AIMD(32, 0.125) as `increase_num_` 32 and `decrease_num_` 0.875 on
the standard window (`windowOption_ 1`). crosscheck_sack1.py showed cclab's `ns2-sack1` rule equal to the
Sack1 agent with Reno's window; this script puts each law on both sides, on the same 24 cells
(benchmarks/ns2/hstcp_sack1_dumbbell.tcl and aimd_sack1_dumbbell.tcl on Debian's /usr/bin/ns), and compares
cclab's variants of the law (LAWS[law].sides), seed 003's own setting first.

    python3 benchmarks/crosscheck_laws.py --law hstcp             # runs what is missing or stale, prints the tables
    python3 benchmarks/crosscheck_laws.py --law aimd --report-only --markdown out.md

Results are cached, one row per flow and side, in benchmarks/crosscheck-<law>.csv, stamped as
crosscheck_sack1.py's are (engine fingerprint; hash of the Tcl scripts). The cells with packet errors run
seeds 1-6 a side (`--error-seeds`): one seed is one draw of a noisy figure there. Standard library only.
See docs/validation.md, "Window laws against ns-2.35's own: HighSpeed and AIMD".
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import crosscheck as cc  # noqa: E402
import crosscheck_sack1 as sack1  # noqa: E402  (cells, runs on both sides, cache rows, table helpers)
from provenance import ENGINE, NS2_SCRIPT as NS2_STAMP, engine_fingerprint, ns2_script_hash  # noqa: E402

@dataclass(frozen=True)
class Law:
    """One of ns-2's built-in laws: the Tcl script that sets it on the Sack1 agent, the cache, and the cclab
    sides, label -> (cc spec, recovery rule, what the side is)."""
    title: str
    script: Path
    csv: Path
    sides: dict[str, tuple[str, str, str]]


# ns-2's Low_P: 1.5 / low_window_^2, which makes a(38) = 1 exactly (RFC 3649 rounds it to 1e-3)
NS2_LOW_P = 1.5 / 38 ** 2
HSTCP_TABLE = '{ name = "highspeed", variant = "linux-2.6.22" }'
HSTCP_NS2 = '{ name = "highspeed", variant = "ns2" }'
AIMD = '{ name = "aimd", variant = "xu2004" }'
AIMD_NS2 = '{ name = "aimd", variant = "xu2004-ns2" }'
LAWS = {
    "hstcp": Law("ns-2 Sack1, windowOption_ 8", HERE / "ns2" / "hstcp_sack1_dumbbell.tcl", HERE / "crosscheck-hstcp.csv", {
        "seed003": (HSTCP_TABLE, "sack", "`linux-2.6.22` (Linux's table) under `sack`: seed 003 as it runs"),
        "table": (HSTCP_TABLE, "ns2-sack1", "`linux-2.6.22` under `ns2-sack1`"),
        "rfc3649": ('{ name = "highspeed", variant = "rfc3649" }', "ns2-sack1",
                    "`rfc3649` (RFC 3649's equations, Low_P 1e-3) under `ns2-sack1`"),
        "rfc3649-ns2-low-p": (f'{{ name = "highspeed", variant = "rfc3649", low_p = {NS2_LOW_P!r} }}', "ns2-sack1",
                              "`rfc3649` with ns-2's Low_P (1.5/38^2) under `ns2-sack1`"),
        "ns2-law": (HSTCP_NS2, "ns2-sack1",
                    "`ns2` (ns-2's windowOption_ 8: Low_P 1.5/38^2 and ns-2's reductions) under `ns2-sack1`"),
        "ns2-law-under-sack": (HSTCP_NS2, "sack", "`ns2` under `sack` (seed 003's recovery)"),
    }),
    "aimd": Law("ns-2 Sack1, increase_num_ 32, decrease_num_ 0.875", HERE / "ns2" / "aimd_sack1_dumbbell.tcl",
                HERE / "crosscheck-aimd.csv", {
        "seed003": (AIMD, "sack", "`xu2004` under `sack`: seed 003 as it runs"),
        "xu2004": (AIMD, "ns2-sack1", "`xu2004` (every reduction keeps 0.875 w) under `ns2-sack1`"),
        "ns2-law": (AIMD_NS2, "ns2-sack1", "`xu2004-ns2` (ns-2's reductions and its double window) under `ns2-sack1`"),
        "ns2-law-under-sack": (AIMD_NS2, "sack", "`xu2004-ns2` under `sack` (seed 003's recovery)"),
    }),
}


ERROR_SEEDS = 6


def report(law: Law, cache: dict, markdown: Path | None, stamps: dict[str, tuple[str, str]],
           seeds: int = ERROR_SEEDS) -> None:
    """crosscheck_sack1.py's tables for the law's sides: goodput with the difference from ns-2, the counts,
    then the cells with packet errors over their seeds."""
    preamble = [f"ns-2: {stamps['ns2'][1]}; cclab: engine {stamps['cclab'][1]}", ""]
    preamble += [f"- `{s}`: {note}" for s, (_, _, note) in law.sides.items()] + [""]
    sack1.print_report(preamble, cache, ["ns2", *law.sides], [law.title, *[f"`{s}`" for s in law.sides]], seeds,
                       markdown)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", default=sack1.DEFAULT_NS, help="ns-2.35 (Debian's has Agent/TCP/Sack1 and both laws)")
    ap.add_argument("--cclab", default=cc.cclab_exe(), help="the cclab executable (default: the .venv's)")
    ap.add_argument("--law", choices=sorted(LAWS), required=True, help="the window law on both sides")
    ap.add_argument("--csv", type=Path, help="the cache (default: benchmarks/crosscheck-<law>.csv)")
    ap.add_argument("--report-only", action="store_true", help="run nothing, print the cached table")
    ap.add_argument("--markdown", type=Path, help="also write the tables here")
    ap.add_argument("--sides", help="run only these sides (default: ns2 and every cclab side of the law)")
    ap.add_argument("--error-seeds", type=int, default=ERROR_SEEDS,
                    help="run the cells with packet errors with seeds 1 .. this many a side (1: seed 1 only)")
    args = ap.parse_args()
    law = LAWS[args.law]
    csv = args.csv or law.csv
    if args.cclab is None:
        raise SystemExit("no cclab: run scripts/setup.sh, or give --cclab")
    stamps = {"ns2": (NS2_STAMP, ns2_script_hash(law.script)), "cclab": (ENGINE, engine_fingerprint(args.cclab))}
    cache = sack1.read_rows(csv, stamps)
    if not args.report_only:
        if not Path(args.ns).exists():
            raise SystemExit(f"{args.ns} missing: apt-get install ns2")
        for cell in sack1.cells() + sack1.seed_cells(args.error_seeds):
            for side in (args.sides.split(",") if args.sides else ["ns2", *law.sides]):
                if (cell.id, side) in cache:
                    continue
                print(f"{cell.id} {side} ...", file=sys.stderr, flush=True)
                if side == "ns2":
                    rows = sack1.run_ns2(args.ns, cell, law.script)
                else:
                    spec, recovery, _ = law.sides[side]
                    rows = sack1.run_cclab(args.cclab, cell, recovery, spec)
                sack1.keep_rows(csv, cache, cell, side, rows, stamps)
    report(law, cache, args.markdown, stamps, args.error_seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
