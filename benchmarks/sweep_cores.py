"""Does a sweep on the local pool use every core? A 64-run sweep, run twice into fresh stores: once on a
pool of one process per core, once on a pool of one process.

    python benchmarks/sweep_cores.py [--jobs N] [--duration 60s] [--keep DIR]

It prints, for each pool, the wall time of the whole sweep and the sums of the runs' own wall and CPU
times (each measured by its worker around the engine), and the ratios that answer the question: with P
free cores the wall time should be about 1/P of the single-process sum.

A core the pool cannot get (other programs busy on the machine) shows as runs whose wall time exceeds
their CPU time. So the script first times a pure-Python control, 4 equal CPU-bound tasks on a pool of 1
and of P processes, which tells how much parallelism the machine had to offer at the time.

Not part of the test suite; the figures, with the machine and date they were measured on, are in
docs/sweeps.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from cclab import __version__  # noqa: E402
from cclab.executors import LocalPool  # noqa: E402
from cclab.store import StudyStore  # noqa: E402
from cclab.sweep import load_sweep  # noqa: E402
from cclab.sweeper import run_sweep  # noqa: E402

# 2 algorithms x 4 buffers x 2 loss rates = 16 points, x 4 replications = 64 runs, on seed 000's network
# (200 Mbit/s, 100 ms round trip).
SWEEP = """
base = "{base}"
replications = 4
[grid]
"flows.0.cc" = ["newreno", "cubic"]
"network.bottleneck.queue.size" = ["0.1bdp", "0.5bdp", "1bdp", "2bdp"]
"network.bottleneck.loss_rate" = [0.0, 0.00001]
"run.duration" = ["{duration}"]
"run.measure_from" = ["{measure_from}"]
"""


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def load() -> str:
    try:
        return " ".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        return "n/a"


def _spin(count: int) -> float:
    total = 0
    for i in range(count):
        total += i * i
    return total


def control(jobs: int, count: int = 15_000_000) -> dict:
    """Wall time of 4 equal CPU-bound tasks on a pool of 1 and of `jobs`: the machine's spare cores."""
    from concurrent.futures import ProcessPoolExecutor

    walls = {}
    for workers in (1, jobs):
        started = time.perf_counter()
        with ProcessPoolExecutor(workers) as pool:
            list(pool.map(_spin, [count] * 4))
        walls[workers] = time.perf_counter() - started
    return {"wall_1_s": walls[1], f"wall_{jobs}_s": walls[jobs], "speedup": walls[1] / walls[jobs]}


def sweep_once(spec: Path, root: Path, jobs: int) -> dict:
    sweep = load_sweep(spec)
    assert len(sweep.runs) == 64, len(sweep.runs)
    load_before = load()
    started = time.perf_counter()
    report = run_sweep(sweep, StudyStore(root, sweep.study, __version__), LocalPool(jobs))
    wall = time.perf_counter() - started
    assert (report.done, report.failed) == (64, 0), report
    return {"jobs": jobs, "runs": report.done, "wall_s": wall, "sum_run_s": sum(report.compute_s),
            "sum_cpu_s": sum(report.cpu_s), "load_before": load_before, "load_after": load()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes of the parallel pool")
    parser.add_argument("--duration", default="60s", help="simulated time of each run (measured over its second half)")
    parser.add_argument("--keep", type=Path, help="keep the stores in DIR (default: a temporary folder)")
    parser.add_argument("--no-control", action="store_true", help="skip the pure-Python control")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as temporary:
        folder = args.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        seconds = float(args.duration.rstrip("s"))
        spec = folder / "bench-64.toml"
        spec.write_text(SWEEP.format(base=(REPO / "examples" / "seed000-newreno.toml").as_posix(),
                                     duration=args.duration, measure_from=f"{seconds / 2:g}s"), encoding="utf-8")
        print(f"machine: {machine()}; load average {load()}", flush=True)
        spare = None if args.no_control else control(args.jobs)
        if spare:
            print(f"control, 4 CPU-bound tasks: {spare}", flush=True)
        parallel = sweep_once(spec, folder / f"store-{args.jobs}", args.jobs)
        print(f"pool of {args.jobs}: {parallel}", flush=True)
        single = sweep_once(spec, folder / "store-1", 1)
        print(f"pool of 1: {single}", flush=True)

    print()
    print("| pool | wall time | sum of run wall times | sum of run CPU times | wall / single-process CPU sum |"
          " load average before -> after |")
    print("|---|---:|---:|---:|---:|---|")
    for result in (parallel, single):
        print(f"| {result['jobs']} process{'es' if result['jobs'] > 1 else ''} | {result['wall_s']:.1f} s | "
              f"{result['sum_run_s']:.1f} s | {result['sum_cpu_s']:.1f} s | "
              f"{result['wall_s'] / single['sum_cpu_s']:.2f} | {result['load_before']} -> {result['load_after']} |")
    print()
    print(f"pool of {args.jobs}: wall time / single-process sum of run CPU times = "
          f"{parallel['wall_s'] / single['sum_cpu_s']:.2f} (ideal 1/{args.jobs} = {1 / args.jobs:.2f}); "
          f"busy share of the slots = sum of run wall times / ({args.jobs} x wall) = "
          f"{parallel['sum_run_s'] / (args.jobs * parallel['wall_s']):.2f}")
    print(f"speed-up of the whole sweep, pool of 1 -> pool of {args.jobs}: {single['wall_s'] / parallel['wall_s']:.2f}x"
          + (f"; the control's speed-up at the time: {spare['speedup']:.2f}x" if spare else ""))
    print(json.dumps({"machine": machine(), "control": spare, "parallel": parallel, "single": single}))


if __name__ == "__main__":
    main()
