#!/usr/bin/env python3
"""Re-run a sample of the cached ns-2 reference runs with the scripts as they are now, and compare.

The ns-2 caches (benchmarks/crosscheck-ns2.csv, crosscheck-ctcp-ns2.csv, crosscheck-ns2-aqm.csv,
crosscheck-ns2-parkinglot.csv) hold hours of ns-2 runs. Each row records the script that made it
(`ns2_script`, benchmarks/provenance.py), and the cross-check scripts treat a row made by another
version of the script as stale. When a script changes in a way meant to change nothing (a refactoring,
a comment), this tool shows whether that is so: it re-runs the cheapest `--sample` rows of each cache
and compares every figure the cache holds, digit for digit.

    python3 benchmarks/ns2_recheck.py                    # 3 rows per cache, print the comparison
    python3 benchmarks/ns2_recheck.py --sample 5 --only aqm
    python3 benchmarks/ns2_recheck.py --stamp unrecorded # then, where every sampled row matched,
                                                         # record the current script on the rows
                                                         # stamped `unrecorded` (or another old stamp)

--stamp changes only caches whose every sampled run came out identical; what it did is printed, and the
comparison belongs in docs/validation.md beside the tables. It also gives the cclab caches an `engine`
column, `unrecorded` where it was missing (those rows cannot be re-checked: the engine that made them is
gone). Needs `ns` (Debian: apt-get install ns2). Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import crosscheck  # noqa: E402
import crosscheck_ctcp  # noqa: E402
import crosscheck_net  # noqa: E402
from provenance import ENGINE, NS2_SCRIPT, UNRECORDED, ns2_script_hash  # noqa: E402

REPO = HERE.parent
FLOW_FIGURES = ["goodput_bps", "delivered_bps", "loss_events", "timeouts", "retransmissions", "packets_sent"]
NET_FLOW_FIGURES = FLOW_FIGURES + ["final_cwnd"]
NET_RUN_FIGURES = ["utilisation", "departures", "arrivals", "drops", "mean_queue_pkts", "max_queue_pkts_sampled"]


def read(path: Path) -> tuple[list[str], list[dict]]:
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def write(path: Path, fields: list[str], rows: list[dict]) -> None:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


def cheapest(rows: list[dict], n: int) -> list[str]:
    """Keys of the n ok runs with the shortest recorded wall time."""
    walls: dict[str, float] = {}
    for r in rows:
        if r["status"] == "ok":
            walls[r["key"]] = float(r.get("wall_s") or 0)
    return sorted(walls, key=lambda k: (walls[k], k))[:n]


def compare(cached: dict, fresh: dict, figures: list[str]) -> list[str]:
    return [f"{k}: cached {cached.get(k)!r}, now {fresh.get(k)!r}" for k in figures
            if str(cached.get(k)) != str(fresh.get(k))]


# --- one checker per cache: key -> list of differences (empty: identical) ----------------------------

def dumbbell_checker(timeout: float):
    scenarios = {s.id: s for s in crosscheck.matrix()}
    scenarios.update({p.id: p for p in (dataclasses.replace(s, access_ms=crosscheck.ACCESS_MS + 0.001)
                                        for s in crosscheck.matrix())})

    def check(key: str, rows: list[dict]) -> list[str]:
        scenario_id, _, alg = key.partition("/")
        fresh = crosscheck.run_ns2(scenarios[scenario_id], alg, timeout)
        return compare_flows(rows, fresh, FLOW_FIGURES)
    return check


def ctcp_checker(timeout: float):
    configs = {c.id: c for c in crosscheck_ctcp.selection()}

    def check(key: str, rows: list[dict]) -> list[str]:
        config_id, _, rest = key.partition("/")
        seed = int(rest.partition("/seed=")[2] or 1)
        fresh = crosscheck_ctcp.run_ns2(configs[config_id], timeout, seed)
        return compare_flows(rows, fresh, FLOW_FIGURES)
    return check


def net_checker(flows_csv: Path, timeout: float):
    _, flow_rows = read(flows_csv)

    def check(key: str, rows: list[dict]) -> list[str]:
        command = rows[0]["ns2_command"].split()
        proc = subprocess.run(["nice", *command], cwd=REPO, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            return [f"ns-2 exited {proc.returncode}: {proc.stderr.strip()[-200:]}"]
        parsed = crosscheck_net.parse_lines(proc.stdout)
        out = compare_flows([r for r in flow_rows if r["key"] == key], parsed["flow"], NET_FLOW_FIGURES)
        links = {line.get("link"): line for line in parsed["link"]}
        for r in rows:  # one row per run (aqm) or per bottleneck (parking lot)
            link = links.get(r.get("link", "bottleneck"))
            out += compare(r, link or {}, NET_RUN_FIGURES)
        return out
    return check


def compare_flows(cached: list[dict], fresh: list[dict], figures: list[str]) -> list[str]:
    by_flow = {str(f.get("flow")): f for f in fresh}
    if len(by_flow) != len(cached):
        return [f"{len(cached)} flows cached, {len(by_flow)} now"]
    out = []
    for r in cached:
        out += [f"flow {r['flow']} {d}" for d in compare(r, by_flow.get(str(r["flow"]), {}), figures)]
    return out


def caches(timeout: float) -> list[tuple[str, Path, Path, object]]:
    """(name, run CSV, script, checker) of every ns-2 cache."""
    return [
        ("dumbbell", crosscheck.NS2_CSV, crosscheck.NS2_SCRIPT, dumbbell_checker(timeout)),
        ("ctcp", crosscheck_ctcp.NS2_CSV, crosscheck_ctcp.NS2_SCRIPT, ctcp_checker(timeout)),
        ("aqm", crosscheck_net.AQM_CSV, crosscheck_net.AQM_SCRIPT,
         net_checker(crosscheck_net.AQM_FLOWS_CSV, timeout)),
        ("parkinglot", crosscheck_net.PL_CSV, crosscheck_net.PL_SCRIPT,
         net_checker(crosscheck_net.PL_FLOWS_CSV, timeout)),
    ]


def stamp_cache(path: Path, old: str, new: str) -> int:
    """Record `new` as the script of the rows stamped `old` (a missing stamp counts as unrecorded)."""
    fields, rows = read(path)
    if NS2_SCRIPT not in fields:
        fields.append(NS2_SCRIPT)
    changed = 0
    for r in rows:
        if (r.get(NS2_SCRIPT) or UNRECORDED) == old:
            r[NS2_SCRIPT] = new
            changed += 1
    write(path, fields, rows)
    return changed


def add_engine_column(path: Path) -> int:
    """cclab caches from before engine stamps: the column, `unrecorded` where empty."""
    fields, rows = read(path)
    if ENGINE not in fields:
        fields.append(ENGINE)
    missing = [r for r in rows if not r.get(ENGINE)]
    for r in missing:
        r[ENGINE] = UNRECORDED
    write(path, fields, rows)
    return len(missing)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sample", type=int, default=3, help="runs re-checked per cache (the cheapest ones)")
    p.add_argument("--only", choices=["dumbbell", "ctcp", "aqm", "parkinglot"])
    p.add_argument("--timeout", type=float, default=600.0, help="per run, s")
    p.add_argument("--stamp", metavar="OLD",
                   help="where every sampled run matched, record the current script on the rows stamped OLD")
    args = p.parse_args()
    if shutil.which("ns") is None:
        print("ns-2: `ns` not found on PATH (Debian: apt-get install ns2)", file=sys.stderr)
        return 1
    all_same = True
    for name, path, script, check in caches(args.timeout):
        if args.only and name != args.only:
            continue
        _, rows = read(path)
        current = ns2_script_hash(script)
        keys = cheapest(rows, args.sample)
        print(f"\n{name}: {path.name}, {len(keys)} of {len({r['key'] for r in rows})} runs re-run with {current}")
        diffs_here = 0
        for key in keys:
            diffs = check(key, [r for r in rows if r["key"] == key])
            print(f"  {key}: {'identical' if not diffs else 'DIFFERENT'}")
            for d in diffs:
                print(f"      {d}")
            diffs_here += bool(diffs)
        all_same &= diffs_here == 0
        if args.stamp:
            if diffs_here or not keys:
                print(f"  not stamped: {diffs_here} of {len(keys)} runs differ")
            else:
                print(f"  stamped {stamp_cache(path, args.stamp, current)} rows {args.stamp} -> {current}")
    if args.stamp and not args.only:
        for path in (crosscheck.CCLAB_CSV, crosscheck_ctcp.CCLAB_CSV):
            print(f"{path.name}: engine column, {add_engine_column(path)} rows {UNRECORDED}")
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())
