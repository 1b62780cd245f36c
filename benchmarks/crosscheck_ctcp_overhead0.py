#!/usr/bin/env python3
"""Seed 001 cross-check: the cells left above 10 % run again, with as many seeds as asked.

The first version of this script ran the three cells with overhead_ = 0 on both sides and 5 seeds a side,
when ns-2's random packet errors seemed not to follow the configured rate with overhead_ = 8 us
(docs/validation.md, "Seed 001: window_ as a cwnd clamp"). Runs are 100 s measured over [50, 100] s, as
benchmarks/crosscheck_ctcp.py does. Each run gives one JSON line: goodput, loss events, the error drops in
the window (ns-2: from `dumbbell.tcl trace_dt=1`, over 50-99 s; cclab: the bottleneck's error_drops) and
the packets sent in it. Standard library only; 2 runs at a time under `nice -n 19`.

Five sets of results, each made by its own command:

- benchmarks/crosscheck-ctcp-overhead0.jsonl (2026-11-24): the three cells, seeds 1-5, overhead_ = 0, the
  first rows' fields only (no --out: the rows go to stdout, as the first version wrote them);
- benchmarks/crosscheck-ctcp-overhead0-seeds.jsonl (2026-11-30): the two 100 ms, 1e-5 cells, seeds 1-600,
  overhead_ = 0;
- benchmarks/crosscheck-ctcp-overhead8-seeds.jsonl (2026-11-30): overhead_ = 8 us, seed 001's setting:
  500 Mbit/s 100 ms with seeds 1-200, 1000 Mbit/s 50 ms with seeds 1-120.
- benchmarks/crosscheck-ctcp-substream-seeds.jsonl (2026-11-30): the four cells of the first table called
  noise on seeds 1-5 (NOISE_CELLS), overhead_ = 8 us: ns-2 on substreams 1-1000 (`--ns2-streams substream`,
  ns2/substream.tcl, independent runs) and with `seed=` 1-5 (the first table's runs), cclab seeds 1-1000;
- benchmarks/crosscheck-ctcp-substream-overhead0.jsonl (2026-11-30): the same four cells and streams with
  overhead_ = 0 on both sides;
- benchmarks/crosscheck-ctcp-delayed-send-seeds.jsonl (2026-11-30): cclab alone on the two 1e-3 cells,
  seeds 1-1000, overhead_ = 8 us read as ns-2's agents read it (`--overhead-model delayed-send`; the rows
  before it are all per-packet), to report against the substream file's ns-2 rows.

Rows written with --out add, for ns-2, the error drops and packets sent over exactly [50, 99] s
(`errors_span`, `packets_span`, from the trace and `progress=1`: the trace has no line at 100 s, so the
first rows compared 50-99 s errors with 50-100 s packets), ns-2's largest traced window and overflow drops;
for both sides timeouts, overhead_ when not 0, and the engine or ns-2 script that made the row
(benchmarks/provenance.py); an ns-2 row run on a substream also names the wrapper (`ns2_streams`). cclab's
rows serve both ns-2 seedings, so a file holds them once.

    python3 benchmarks/crosscheck_ctcp_overhead0.py > benchmarks/crosscheck-ctcp-overhead0.jsonl
    python3 benchmarks/crosscheck_ctcp_overhead0.py --cells 500/100,1000/100 --seeds 600 \\
        --out benchmarks/crosscheck-ctcp-overhead0-seeds.jsonl        # resumes: skips the runs in the file
    python3 benchmarks/crosscheck_ctcp_overhead0.py --overhead-us 8 --cells 500/100 --seeds 200 \\
        --out benchmarks/crosscheck-ctcp-overhead8-seeds.jsonl        # and --cells 1000/50 --seeds 120
    python3 benchmarks/crosscheck_ctcp_overhead0.py --overhead-us 8 --cells 100/50/1e-4,100/100/1e-3,200/50/1e-3,\
        1000/100/1e-4 --ns2-streams substream --seeds 1000 --out benchmarks/crosscheck-ctcp-substream-seeds.jsonl
    python3 benchmarks/crosscheck_ctcp_overhead0.py --report benchmarks/crosscheck-ctcp-overhead0-seeds.jsonl

--report computes nothing. For each cell it prints each side's mean goodput with a 95 % interval, the loss
events and timeouts per run, the error drops against PER x packets (Poisson z, also by block of 200
seeds), the spread of a difference of means over 5 seeds a side (and, where ns-2 ran on substreams, where
the first table's seeds 1-5 fall in it), and the comparison at equal errors:
each run's goodput x sqrt(errors per packet) (a loss-limited flow's goodput goes as 1/sqrt(p), so this is
about constant along one simulator's curve) and a least-squares fit of log goodput on log errors per
packet, both sides with one slope and a shift between them.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import engine_fingerprint, ns2_script_hash  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CCLAB = REPO / ".venv" / "bin" / "cclab"
NS2_SCRIPT = HERE / "ns2" / "dumbbell.tcl"
NS2_STREAMS = HERE / "ns2" / "substream.tcl"   # run k on substream k instead of `seed k` (--ns2-streams)
SCENARIO = REPO / "python" / "cclab" / "studies" / "seed001" / "single-flow.toml"
# (Mbit/s, one-way ms, packet error rate, queue packets = bw x 2 x delay x 0.5 / 1500 B)
CELLS = [(1000, 50, 1e-6, 4167), (500, 100, 1e-5, 4167), (1000, 100, 1e-5, 8333)]
# The four cells of the first table above 10 % that were called noise on seeds 1-5, with their queues
# (0.5, 0.5, 0.1 and 0.1 BDP); named with their PER, `100/50/1e-4`, since 1000/100 alone is a cell above.
NOISE_CELLS = [(100, 50, 1e-4, 417), (100, 100, 1e-3, 833), (200, 50, 1e-3, 167), (1000, 100, 1e-4, 1667)]
MEASURE_FROM_S = 50
LAST_TRACE_S = 99          # dumbbell.tcl's last trace line before the run ends at 100 s
BOOTSTRAP_DRAWS = 10000
BOOTSTRAP_SEED = 1         # the bootstrap's own generator: the report is the same every time
FEW_SEEDS = 5              # the first set's seeds a side: how far apart can means of so few runs fall?
SEED_BLOCK = 200           # the report counts errors by block of this many seeds
SIDES = ("ns2", "cclab")


def cell_name(cell) -> str:
    bw, delay, per, queue = cell
    return f"{bw} Mbit/s, {delay} ms, {per:g}, {queue} pkt"


def ns2(cell, seed, stamps, overhead_us=0, streams="seed", overhead_model="per-packet"):
    """One ns-2 run; `streams` "substream" runs it through ns2/substream.tcl on substream `seed` of the
    default generator instead of `seed=seed`."""
    bw, delay, per, queue = cell
    script, seed_arg = (("ns2/dumbbell.tcl", f"seed={seed}") if streams == "seed"
                        else ("ns2/substream.tcl", f"stream={seed}"))
    out = subprocess.run(["nice", "-n", "19", "ns", script, "cc=compound", f"rate_mbps={bw}",
                          f"delay_ms={delay}", f"buffer={queue}", "access_ms=5", f"access_mbps={10 * bw}", "flows=1",
                          "duration=100", "measure_from=50", seed_arg, "payload=1460", "window=10000",
                          f"per={per:g}", f"overhead_us={overhead_us:g}", "trace_dt=1"]
                         + (["progress=1"] if stamps else []),
                         cwd=HERE, capture_output=True, text=True).stdout
    lines = out.splitlines()
    flow = dict(kv.split("=") for kv in next(l for l in lines if l.startswith("flow=")).split())

    def traced(t, field, prefix="trace"):
        line = next(l for l in lines if l.startswith(f"{prefix} t=") and
                    math.isclose(float(l.split()[1][2:]), t, abs_tol=1e-6))
        return int(re.search(rf"\b{field}=(\d+)", line).group(1))
    row = dict(side="ns2", cell=cell, seed=seed, goodput=float(flow["goodput_bps"]),
               loss_events=int(flow["loss_events"]),
               errors_window=traced(LAST_TRACE_S, "error_drops") - traced(MEASURE_FROM_S, "error_drops"),
               packets_window=int(flow["packets_sent"]))
    if stamps:
        row.update(timeouts=int(flow["timeouts"]), errors_span=row["errors_window"],
                   packets_span=traced(LAST_TRACE_S, "packets_sent_total", "progress")
                   - traced(MEASURE_FROM_S, "packets_sent_total", "progress"),
                   max_cwnd=max(traced(t, "cwnd") for t in range(MEASURE_FROM_S, LAST_TRACE_S + 1)),
                   overflow_drops=traced(LAST_TRACE_S, "overflow_drops") - traced(MEASURE_FROM_S, "overflow_drops"),
                   ns2_script=stamps["ns2"])
        if overhead_us:
            row["overhead_us"] = overhead_us
        if streams != "seed":
            row["ns2_streams"] = stamps["ns2_streams"]
    return row


def cclab(cell, seed, stamps, overhead_us=0, streams="seed", overhead_model="per-packet"):
    bw, delay, per, queue = cell
    # Always named, so that the rows say which reading made them whatever the study's scenario takes.
    sets = [f"flows.0.overhead_model={overhead_model}", f"flows.0.overhead={overhead_us:g}us",
            f"network.bottleneck.rate={bw}Mbps",
            f"network.bottleneck.delay={delay}ms",
            f"network.bottleneck.loss_rate={per:g}", f"network.bottleneck.queue.size={queue}", "run.duration=100s",
            "run.measure_from=50s", "run.sample_interval=0s", f"run.seed={seed}"]
    cmd = ["nice", "-n", "19", str(CCLAB), "run", str(SCENARIO), "--json"]
    for s in sets:
        cmd += ["--set", s]
    text = subprocess.run(cmd, capture_output=True, text=True).stdout
    doc = json.loads(text[text.find("{"):])
    summary = doc.get("summary", doc)
    flow = summary["flows"][0]
    row = dict(side="cclab", cell=cell, seed=seed, goodput=flow["goodput_bps"], loss_events=flow["loss_events"],
               errors_window=summary["bottleneck"]["error_drops"], packets_window=flow.get("packets_sent"))
    if stamps:
        row.update(timeouts=flow["timeouts"], errors_span=row["errors_window"], packets_span=row["packets_window"],
                   overflow_drops=summary["bottleneck"]["drops"], engine=stamps["cclab"])
        if overhead_us:
            row["overhead_us"] = overhead_us
        if overhead_model != "per-packet":
            row["overhead_model"] = overhead_model
    return row


def pick_cells(spec: str | None):
    """`500/100,1000/100`: the cells of CELLS with these (Mbit/s, one-way ms); `100/50/1e-4`: the cell of
    CELLS or NOISE_CELLS with this PER too; all of CELLS without a spec."""
    if not spec:
        return CELLS
    chosen = []
    for item in spec.split(","):
        parts = [part.strip() for part in item.split("/")]
        if len(parts) == 2:
            match = [c for c in CELLS if [str(c[0]), str(c[1])] == parts]
        elif len(parts) == 3 and re.fullmatch(r"[0-9.eE+-]+", parts[2]):
            match = [c for c in CELLS + NOISE_CELLS
                     if [str(c[0]), str(c[1])] == parts[:2] and math.isclose(c[2], float(parts[2]))]
        else:
            match = []
        if not match:
            known = ", ".join([f"{c[0]}/{c[1]}" for c in CELLS] + [f"{c[0]}/{c[1]}/{c[2]:g}" for c in NOISE_CELLS])
            raise SystemExit(f"error: no cell {item!r} (known: {known})")
        chosen += match
    return chosen


def seeding(row) -> str:
    """How an ns-2 row's generator was seeded: "seed" (`seed=N`) or "substream" (substream.tcl stream=N);
    cclab rows are "seed"."""
    return "substream" if "ns2_streams" in row else "seed"


def read_rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def run(args) -> None:
    cells = pick_cells(args.cells)
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    sides = {"ns2": ns2, "cclab": cclab}
    unknown = [s for s in args.sides.split(",") if s not in sides]
    if unknown:
        raise SystemExit(f"error: unknown side(s) {', '.join(unknown)} (known: ns2, cclab)")
    chosen = [sides[s] for s in args.sides.split(",")]
    if args.ns2_streams == "substream" and not args.out:
        raise SystemExit("error: --ns2-streams substream writes the later sets' fields: give --out")
    stamps = None
    done = set()
    if args.out:
        stamps = {"ns2": ns2_script_hash(NS2_SCRIPT), "cclab": engine_fingerprint(str(CCLAB)),
                  "ns2_streams": ns2_script_hash(NS2_STREAMS)}
        if args.out.exists():
            done = {(r["side"], tuple(r["cell"]), r["seed"], seeding(r)) for r in read_rows(args.out)}
    # cclab's rows do not depend on how ns-2 is seeded: one set of them serves both ns-2 seedings.
    jobs = [(side, cell, seed) for cell in cells for seed in seeds for side in chosen
            if (side.__name__, tuple(cell), seed, args.ns2_streams if side is ns2 else "seed") not in done]
    sink = args.out.open("a", encoding="utf-8") if args.out else sys.stdout
    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            for row in pool.map(lambda job: job[0](job[1], job[2], stamps, args.overhead_us, args.ns2_streams,
                                                   args.overhead_model), jobs):
                sink.write(json.dumps(row) + "\n")
                sink.flush()
    finally:
        if args.out:
            sink.close()


# --- the report -------------------------------------------------------------------------------------------

def t_quantile(q: float, dof: int) -> float:
    """The q quantile of Student's t with `dof` degrees of freedom (q > 0.5): bisection on its CDF, which is
    integrated with Simpson's rule from 0."""
    log_norm = math.lgamma((dof + 1) / 2) - math.lgamma(dof / 2) - 0.5 * math.log(dof * math.pi)

    def density(x):
        return math.exp(log_norm - (dof + 1) / 2 * math.log1p(x * x / dof))

    def cdf(x, steps=2000):
        h = x / steps
        s = density(0) + density(x) + sum((4 if i % 2 else 2) * density(i * h) for i in range(1, steps))
        return 0.5 + s * h / 3

    low, high = 0.0, 50.0
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if cdf(mid) < q else (low, mid)
    return (low + high) / 2


def mean_interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % t interval."""
    n = len(values)
    return statistics.fmean(values), t_quantile(0.975, n - 1) * statistics.stdev(values) / math.sqrt(n)


def bootstrap_ratio(a: list[float], b: list[float], rng: random.Random) -> tuple[float, float, float]:
    """mean(b) / mean(a) and its 95 % percentile bootstrap interval (each side resampled on its own)."""
    ratios = sorted(statistics.fmean(rng.choices(b, k=len(b))) / statistics.fmean(rng.choices(a, k=len(a)))
                    for _ in range(BOOTSTRAP_DRAWS))
    return (statistics.fmean(b) / statistics.fmean(a), ratios[int(0.025 * BOOTSTRAP_DRAWS)],
            ratios[int(0.975 * BOOTSTRAP_DRAWS) - 1])


def poisson_z(observed: int, expected: float) -> float:
    return (observed - expected) / math.sqrt(expected)


def least_squares(xs: list[list[float]], ys: list[float]) -> tuple[list[float], list[float]]:
    """Ordinary least squares y = X b: the coefficients and their standard errors (normal equations,
    Gauss-Jordan; a handful of columns)."""
    k, n = len(xs[0]), len(ys)
    xtx = [[sum(x[i] * x[j] for x in xs) for j in range(k)] for i in range(k)]
    inverse = [row[:] + [float(i == j) for j in range(k)] for i, row in enumerate(xtx)]
    for col in range(k):
        pivot = max(range(col, k), key=lambda r: abs(inverse[r][col]))
        inverse[col], inverse[pivot] = inverse[pivot], inverse[col]
        scale = inverse[col][col]
        inverse[col] = [v / scale for v in inverse[col]]
        for r in range(k):
            if r != col:
                factor = inverse[r][col]
                inverse[r] = [v - factor * w for v, w in zip(inverse[r], inverse[col])]
    inverse = [row[k:] for row in inverse]
    xty = [sum(x[i] * y for x, y in zip(xs, ys)) for i in range(k)]
    coef = [sum(inverse[i][j] * xty[j] for j in range(k)) for i in range(k)]
    residual = sum((y - sum(c * v for c, v in zip(coef, x))) ** 2 for x, y in zip(xs, ys))
    variance = residual / (n - k)
    return coef, [math.sqrt(variance * inverse[i][i]) for i in range(k)]


def errors_of(row) -> int:
    """Error drops over the span the row's packets were counted in (the first rows: 50-99 s against 50-100 s)."""
    return row.get("errors_span", row["errors_window"])


def packets_of(row) -> int:
    return row.get("packets_span", row["packets_window"])


def report(paths: list[Path], overhead_model: str = "per-packet") -> None:
    # cclab's rows of the chosen reading of overhead_ (ns-2 has one: its own)
    rows = [row for path in paths for row in read_rows(path)
            if row["side"] != "cclab" or row.get("overhead_model", "per-packet") == overhead_model]
    rng = random.Random(BOOTSTRAP_SEED)
    cells = []
    for r in rows:
        if tuple(r["cell"]) not in cells:
            cells.append(tuple(r["cell"]))
    for cell in cells:
        per = cell[2]
        in_cell = [r for r in rows if tuple(r["cell"]) == cell]
        # ns-2's runs on substreams when the cell has them; its `seed=` runs are then only compared below.
        ns2_seeding = "substream" if any(seeding(r) == "substream" for r in in_cell) else "seed"
        sides = {side: sorted((r for r in in_cell if r["side"] == side and (side != "ns2" or seeding(r) == ns2_seeding)),
                              key=lambda r: r["seed"]) for side in SIDES}
        missing = [side for side, side_rows in sides.items() if len(side_rows) < 2]
        if missing:
            print(f"\n## {cell_name(cell)}: fewer than 2 runs of {', '.join(missing)} in these files"
                  f"{' with overhead_model ' + overhead_model if 'cclab' in missing else ''}; not compared")
            continue
        print(f"\n## {cell_name(cell)} ({', '.join(p.name for p in paths)}; ns-2 seeded by {ns2_seeding})")
        print("| side | runs | goodput Mbit/s, mean ± 95 % (t) | median | loss events / run | timeouts / run |"
              " errors (PER x packets) | z | errors / packet / PER |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for side, side_rows in sides.items():
            goodput = [r["goodput"] / 1e6 for r in side_rows]
            mean, half = mean_interval(goodput)
            errors = sum(errors_of(r) for r in side_rows)
            packets = sum(packets_of(r) for r in side_rows)
            digits = 2 if mean < 10 else 1     # a few Mbit/s (the 1e-3 cells) needs the second decimal
            print(f"| {side} | {len(side_rows)} | {mean:.{digits}f} ± {half:.{digits}f} | "
                  f"{statistics.median(goodput):.{digits}f} | "
                  f"{statistics.fmean(r['loss_events'] for r in side_rows):.2f} | "
                  f"{statistics.fmean(r.get('timeouts', 0) for r in side_rows):.2f} | "
                  f"{errors} ({per * packets:.1f}) | {poisson_z(errors, per * packets):+.1f} | "
                  f"{errors / packets / per:.3f} |")
        # The error counts by block of seeds: one block's z alone says little when there are several.
        blocks = sorted({(r["seed"] - 1) // SEED_BLOCK for rs in sides.values() for r in rs})
        if len(blocks) > 1:
            print()
            for side, side_rows in sides.items():
                text = []
                for block in blocks:
                    in_block = [r for r in side_rows if (r["seed"] - 1) // SEED_BLOCK == block]
                    errors = sum(errors_of(r) for r in in_block)
                    expected = per * sum(packets_of(r) for r in in_block)
                    text.append(f"seeds {block * SEED_BLOCK + 1}-{(block + 1) * SEED_BLOCK}: {errors} "
                                f"({expected:.1f}, z {poisson_z(errors, expected):+.1f})")
                print(f"{side} errors: " + "; ".join(text))
        ns2_goodput = [r["goodput"] for r in sides["ns2"]]
        cclab_goodput = [r["goodput"] for r in sides["cclab"]]
        ratio, low, high = bootstrap_ratio(ns2_goodput, cclab_goodput, rng)
        print(f"\ncclab / ns-2, mean goodput: {ratio:.3f} (95 % bootstrap {low:.3f}-{high:.3f})")
        few = sorted(statistics.fmean(rng.choices(cclab_goodput, k=FEW_SEEDS))
                     / statistics.fmean(rng.choices(ns2_goodput, k=FEW_SEEDS)) - 1 for _ in range(BOOTSTRAP_DRAWS))
        print(f"with {FEW_SEEDS} of these runs a side: difference of the means within "
              f"{100 * few[int(0.025 * BOOTSTRAP_DRAWS)]:+.1f} to {100 * few[int(0.975 * BOOTSTRAP_DRAWS) - 1]:+.1f} % "
              f"in 95 % of draws; beyond ±10 % in {100 * sum(abs(d) > 0.1 for d in few) / BOOTSTRAP_DRAWS:.0f} %")
        if ns2_seeding == "substream":
            first_seeds(in_cell, few, per)
        # Like with like: each run's goodput against the errors per packet it drew (a run without errors has
        # no point on that curve and is left out).
        lossy = {side: [r for r in side_rows if errors_of(r) > 0] for side, side_rows in sides.items()}
        constant = {side: [r["goodput"] / 1e6 * math.sqrt(errors_of(r) / packets_of(r)) for r in side_rows]
                    for side, side_rows in lossy.items()}
        for side, values in constant.items():
            mean, half = mean_interval(values)
            print(f"{side}: goodput x sqrt(errors/packet) = {mean:.4f} ± {half:.4f} Mbit/s "
                  f"({len(values)} runs with errors; log goodput on log errors/packet alone: slope "
                  f"{slope_of(lossy[side])})")
        ratio, low, high = bootstrap_ratio(constant["ns2"], constant["cclab"], rng)
        print(f"cclab / ns-2, goodput x sqrt(errors/packet): {ratio:.3f} (95 % bootstrap {low:.3f}-{high:.3f})")
        xs, ys = [], []
        for side, side_rows in lossy.items():
            for r in side_rows:
                xs.append([1.0, math.log(errors_of(r) / packets_of(r)), float(side == "cclab")])
                ys.append(math.log(r["goodput"]))
        coef, err = least_squares(xs, ys)
        print(f"log goodput = a + b log(errors/packet) + c [cclab]: b = {coef[1]:.3f} ± {1.96 * err[1]:.3f}, "
              f"exp(c) = {math.exp(coef[2]):.3f} (95 % {math.exp(coef[2] - 1.96 * err[2]):.3f}-"
              f"{math.exp(coef[2] + 1.96 * err[2]):.3f})")
        # Goodput at each error count in the window.
        print("\n| errors in the window | ns-2 runs | ns-2 mean Mbit/s | cclab runs | cclab mean Mbit/s |")
        print("|---:|---:|---:|---:|---:|")
        for count in sorted({errors_of(r) for rs in sides.values() for r in rs}):
            text = []
            for side_rows in sides.values():
                at = [r["goodput"] / 1e6 for r in side_rows if errors_of(r) == count]
                text += [str(len(at)), f"{statistics.fmean(at):.1f}" if at else "-"]
            print(f"| {count} | " + " | ".join(text) + " |")


def first_seeds(in_cell: list[dict], few: list[float], per: float) -> None:
    """The first table's runs of the cell: ns-2 `seed=1..5` against cclab seeds 1-5, and where their
    difference of the means falls among the 5-a-side draws `few` from the many-seed runs."""
    ns2_rows = [r for r in in_cell if r["side"] == "ns2" and seeding(r) == "seed" and r["seed"] <= FEW_SEEDS]
    cclab_rows = [r for r in in_cell if r["side"] == "cclab" and r["seed"] <= FEW_SEEDS]
    if len(ns2_rows) < FEW_SEEDS or len(cclab_rows) < FEW_SEEDS:
        return
    ns2_mean = statistics.fmean(r["goodput"] / 1e6 for r in ns2_rows)
    cclab_mean = statistics.fmean(r["goodput"] / 1e6 for r in cclab_rows)
    diff = cclab_mean / ns2_mean - 1
    errors = sum(errors_of(r) for r in ns2_rows)
    expected = per * sum(packets_of(r) for r in ns2_rows)
    print(f"first table's seeds 1-{FEW_SEEDS}: ns-2 (seed=) {ns2_mean:.2f}, cclab {cclab_mean:.2f} Mbit/s, "
          f"difference {100 * diff:+.1f} %; as far from 0 in {100 * sum(abs(d) >= abs(diff) for d in few) / len(few):.0f} "
          f"% of the draws; ns-2's errors {errors} ({expected:.1f}, z {poisson_z(errors, expected):+.1f})")


def slope_of(rows) -> str:
    """The slope of log goodput on log(errors/packet) over `rows`, with its 95 % half-width."""
    coef, err = least_squares([[1.0, math.log(errors_of(r) / packets_of(r))] for r in rows],
                              [math.log(r["goodput"]) for r in rows])
    return f"{coef[1]:.3f} ± {1.96 * err[1]:.3f}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cells", help="comma-separated Mbit/s/ms, e.g. 500/100,1000/100 (default: the three of the "
                                   "first set), or Mbit/s/ms/PER for the four cells called noise, e.g. 100/50/1e-4")
    p.add_argument("--seeds", type=int, default=5, help="seeds per side and cell (default 5)")
    p.add_argument("--first-seed", type=int, default=1, help="the first seed (default 1)")
    p.add_argument("--sides", default="ns2,cclab", help="ns2, cclab or both (default)")
    p.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    p.add_argument("--out", type=Path,
                   help="append the rows to this JSONL file, skipping runs already in it, and add the fields of "
                        "the later sets (without it: the first set's fields, to stdout)")
    p.add_argument("--overhead-us", type=float, default=0.0,
                   help="overhead_ on both sides, us (default 0; 8 is seed 001's setting: use another --out file)")
    p.add_argument("--ns2-streams", choices=("seed", "substream"), default="seed",
                   help="seed (default): ns-2 run k is dumbbell.tcl seed=k; substream: ns2/substream.tcl stream=k, "
                        "substream k of one generator (independent runs; needs --out)")
    p.add_argument("--overhead-model", choices=("per-packet", "delayed-send"), default="per-packet",
                   help="cclab's reading of overhead_ (default per-packet, the study's); with --report, the cclab "
                        "rows of that reading")
    p.add_argument("--report", type=Path, nargs="+", metavar="JSONL", help="compute nothing; analyse these files")
    args = p.parse_args()
    if args.report:
        report(args.report, args.overhead_model)
    else:
        run(args)


if __name__ == "__main__":
    main()
