"""Memory of a run that opens a great many short connections: flat, because finished ones give their slot back.

Runs the engine binary (`target/release/cclab-sim`, built by `cargo build --release -p cclab-engine`) on an
idle 100 Mbit/s dumbbell (10 ms each way) fed by one traffic source: single-packet transfers (1460 bytes)
arriving as a Poisson process at 1,000 per second. The run's length sets how many connections it opens:
10^4, 10^5 and 10^6 by default. For each it prints the connections created, completed and alive at the end,
the flow slots the engine ever held, events, wall time, and the peak resident memory of the process
(ru_maxrss of that child, from os.wait4). Memory that follows the connections alive stays the same from 10^4 to
10^6; memory that followed the connections made would grow a hundredfold.

    python3 benchmarks/traffic_memory.py                 # 10^4, 10^5, 10^6 connections
    python3 benchmarks/traffic_memory.py --flows 1000000 # one size

Not a test: the 10^6 run simulates 1000 s (about 10^7 events). docs/benchmarks.md keeps the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MS = 1_000_000
ARRIVALS_PER_S = 1_000


def config(flows: int) -> dict:
    duration_ns = flows * 10**9 // ARRIVALS_PER_S
    return {
        "packet_size": 1500,
        "bottleneck": {"rate_bps": 100_000_000, "delay_ns": 10 * MS,
                       "queue": {"discipline": "droptail", "limit_packets": 200}},
        "flows": [],
        "traffic": [{"group": "short", "size_bytes": {"fixed": 1460},
                     "inter_arrival_ns": {"exponential": 1e9 / ARRIVALS_PER_S},
                     "flow": {"cc": {"name": "newreno"}, "access_rate_bps": 1_000_000_000,
                              "src_access_delay_ns": MS, "dst_access_delay_ns": MS}}],
        "run": {"duration_ns": duration_ns, "seed": 1, "sample_interval_ns": 0},
    }


def measure(binary: Path, flows: int) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(config(flows), handle)
        path = handle.name
    try:
        # os.wait4 gives this child's own resource use (RUSAGE_CHILDREN would be a maximum over all runs).
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            started = time.perf_counter()
            child = subprocess.Popen([str(binary), path], stdout=out, stderr=err, text=True)
            _, status, usage = os.wait4(child.pid, 0)
            wall = time.perf_counter() - started
            child.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        if child.returncode != 0:
            sys.exit(f"cclab-sim failed: {stderr}")
        peak_kib = usage.ru_maxrss  # KiB on Linux
    finally:
        os.unlink(path)
    summary = json.loads(stdout)
    group = summary["groups"][0]
    slots = None
    for line in stderr.splitlines():
        if line.startswith("flow slots"):
            slots = int(line.split()[-1])
    return {"flows": flows, "created": group["flows_created"], "completed": group["flows_completed"],
            "alive": group["flows_alive"], "slots": slots, "events": summary["events"], "wall_s": wall,
            "peak_rss_mib": peak_kib / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flows", type=int, action="append", help="connections to open (repeatable)")
    args = parser.parse_args()
    binary = ROOT / "target" / "release" / "cclab-sim"
    if not binary.exists():
        sys.exit("build the engine first: cargo build --release -p cclab-engine")
    sizes = sorted(args.flows or [10**4, 10**5, 10**6])
    print("| connections opened | completed | alive at the end | flow slots | events | wall s | peak RSS MiB |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for flows in sizes:
        r = measure(binary, flows)
        assert r["created"] == r["completed"] + r["alive"], r
        print(f"| {r['created']:,} | {r['completed']:,} | {r['alive']} | {r['slots']} | {r['events']:,} | "
              f"{r['wall_s']:.1f} | {r['peak_rss_mib']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
