#!/usr/bin/env python3
"""ns-2.35 TCP-Linux reference for seed 000's Table II: each row of python/cclab/studies/seed000/table2.toml
run once in ns-2 (both flows start at t = 0, as the paper's single run), printed beside the paper's numbers, and the
`ns2 = { host_a = [...], host_b = [...] }` lines to paste into table2.toml.

    python3 benchmarks/ns2_table2.py [--rows 1,7] [--duration 2000]

Runs go one at a time (ns-2 is single-threaded; 40-80 s each here) and are cached in
benchmarks/ns2-table2.csv, so an interrupted run loses at most one simulation. Needs Debian's `ns2`.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
TABLE2 = HERE.parent / "python" / "cclab" / "studies" / "seed000" / "table2.toml"
CACHE = HERE / "ns2-table2.csv"
# cclab algorithm -> ns-2.35 TCP-Linux module; CUBIC's 2.6.22 variant is the module ns-2.35 bundles.
NS2_NAME = {"newreno": "reno", "scalable": "scalable", "highspeed": "highspeed", "htcp": "htcp",
            "westwood": "westwood", "bic": "bic", "cubic": "cubic"}
# C = 200 Mbit/s, RTT 100 ms: 1 BDP = 1667 packets; access links 1.25 ms (flow 0) and 2.5 ms (flow 1).
SCENARIO = ["flows=2", "rate_mbps=200", "delay_ms=50", "buffer=1667", "access_ms=2.5", "access_mbps=2000"]


def ns2_modules(cc: list) -> str:
    names = [c if isinstance(c, str) else c["name"] for c in cc]
    return ",".join(NS2_NAME[n] for n in names)


def run(modules: str, duration: int) -> dict[int, float]:
    args = ["ns", str(HERE / "ns2" / "dumbbell.tcl"), f"cc={modules}", *SCENARIO, f"duration={duration}",
            f"measure_from={duration // 2}"]
    out = subprocess.run(args, capture_output=True, text=True, check=True, cwd="/tmp").stdout
    rates = {}
    for line in out.splitlines():
        fields = dict(item.split("=", 1) for item in line.split() if "=" in item)
        if "flow" in fields:
            rates[int(fields["flow"])] = float(fields["delivered_bps"]) / 1e3
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", help="1-based row numbers to run (default: all)")
    parser.add_argument("--duration", type=int, default=2000)
    args = parser.parse_args()
    if shutil.which("ns") is None:
        sys.exit("ns-2 is not installed: apt-get install -y ns2")
    rows = tomllib.loads(TABLE2.read_text())["rows"]
    wanted = {int(r) for r in args.rows.split(",")} if args.rows else set(range(1, len(rows) + 1))
    cached = {}
    if CACHE.exists():
        with open(CACHE) as f:
            cached = {(r["modules"], int(r["duration"])): r for r in csv.DictReader(f)}
    for number, row in enumerate(rows, start=1):
        if number not in wanted:
            continue
        modules = ns2_modules(row["cc"])
        key = (modules, args.duration)
        if key not in cached:
            started = time.perf_counter()
            rates = run(modules, args.duration)
            record = {"modules": modules, "duration": args.duration, "host_a": rates[0], "host_b": rates[1],
                      "wall_s": round(time.perf_counter() - started, 1), "date": time.strftime("%Y-%m-%d")}
            new = not CACHE.exists()
            with open(CACHE, "a", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=list(record))
                if new:
                    writer.writeheader()
                writer.writerow(record)
            cached[key] = {k: str(v) for k, v in record.items()}
        r = cached[key]
        paper = row.get("paper", {})
        print(f"{row['name']:<28} ns-2 A {float(r['host_a']):>10,.1f} B {float(r['host_b']):>10,.1f}   "
              f"paper A {paper.get('host_a', ['-'])[0]:>10} B {paper.get('host_b', ['-'])[0]:>10}")
        print(f"    ns2 = {{ host_a = [{float(r['host_a']):.1f}], host_b = [{float(r['host_b']):.1f}] }}")


if __name__ == "__main__":
    main()
