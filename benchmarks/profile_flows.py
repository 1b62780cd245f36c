#!/usr/bin/env python3
"""Where the time per data packet goes as the flow count grows: one engine binary profiled at several flow
counts, its samples turned into ns per data packet, by function and, inside one function (the event loop by
default), by the inlined function each instruction comes from.

Run 43 of docs/benchmarks.md measured this way. The same binary runs the suite's flow scenario (NewReno,
10 Gbit/s, 50 ms one way, 0.1 BDP, access delays spread as `suite.py` spreads them) once per flow count,
under `perf record -e cpu-clock`. The binary is the same every time, so an instruction has the same
address in every profile, and the columns compare like with like.

Figures are ns per data packet: a function's sampled CPU time divided by the data packets the run sent.
The sampled time is perf's count of the task clock. At 5 kHz it reads about 10 % above GNU time's user
time, because servicing the samples is charged to the program, so compare columns of one run, not runs
of two tools. Inside the chosen function an instruction is charged to the function of the last source
line perf printed above it (`perf annotate -l`). That is the inlined callee the compiler placed there,
which is close but not exact.

This VM has no hardware counters, so a cache miss and a mispredicted branch both show only as time on
the instructions near them. Read the table as where the time grows, not as why.

    .venv/bin/python benchmarks/profile_flows.py                      # 1, 2, 10 and 1000 flows, 30 s each
    .venv/bin/python benchmarks/profile_flows.py --flows 2,10 --seconds 10 --engine /tmp/base/cclab-sim
    .venv/bin/python benchmarks/profile_flows.py --symbol Sender::on_ack --keep /tmp/profiles

Needs `perf` (Debian `linux-perf`). A benchmark, not part of the test run.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import suite  # noqa: E402  (the scenarios, their engine configs and the engine's build)

# `perf report --no-children -F overhead,period,sym`: "  58.36%  1623200000  [.] cclab_engine::...::run_until"
REPORT_LINE = re.compile(r"^\s*([0-9.]+)%\s+(\d+)\s+\[[^\]]+\]\s+(.+?)\s*$")
# `perf annotate --stdio -l`: an instruction "    2.51 :   4b146:  mov ..." (its share of the function's
# samples), and a source line's function "         : 279   cclab_engine::net::line::Line::pop:".
ANNOTATED_INSTRUCTION = re.compile(r"^\s+([0-9.]+) :\s+[0-9a-f]+:")
SOURCE_FUNCTION = re.compile(r"^\s+:\s+\d+\s+([A-Za-z_<][^ ]*::[^ ]*?):?\s*$")
REST = "(the rest)"


@dataclass
class Profile:
    """One run's sampled time: ns per data packet by function, and inside `symbol` by inlined function."""
    flows: int
    packets: int
    ns_per_packet: float
    functions: dict[str, float] = field(default_factory=dict)
    inlined: dict[str, float] = field(default_factory=dict)


def functions_from_report(text: str) -> dict[str, int]:
    """Sampled time (the period, ns of task clock) of each function in a `perf report` listing."""
    periods: dict[str, int] = {}
    for line in text.splitlines():
        m = REPORT_LINE.match(line)
        if m:
            periods[m.group(3)] = periods.get(m.group(3), 0) + int(m.group(2))
    return periods


def inlined_from_annotate(text: str) -> dict[str, float]:
    """Each inlined function's share (0-1) of an annotated function's samples: every instruction's share is
    charged to the function of the last source line printed above it ("?" before the first)."""
    shares: Counter[str] = Counter()
    current = "?"
    for line in text.splitlines():
        m = SOURCE_FUNCTION.match(line)
        if m:
            current = m.group(1)
            continue
        m = ANNOTATED_INSTRUCTION.match(line)
        if m:
            shares[current] += float(m.group(1)) / 100
    return dict(shares)


def short_name(name: str) -> str:
    """A function's name without the crate's path prefixes, as a table shows it."""
    return re.sub(r"\bcclab_engine::", "", name)


def matching(periods: dict[str, int], symbol: str) -> str | None:
    """The profiled function whose name ends with `symbol` (the one with the most samples)."""
    found = [name for name in periods if name.endswith(symbol)]
    return max(found, key=periods.__getitem__) if found else None


def profile(engine: Path, flows: int, seconds: float, frequency: int, symbol: str, where: Path) -> Profile:
    """Run the flow scenario under perf and read its profile back."""
    scenario = suite.Dumbbell(f"{flows} flows, 10 Gbit/s", 10_000_000_000, 50, 0.1, seconds, flows=flows)
    config = where / f"flows{flows}.json"
    config.write_text(json.dumps(suite.cclab_config(scenario, seconds)))
    data = where / f"flows{flows}.perf.data"
    run = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(frequency), "-o", str(data), "--",
                          str(engine), str(config)], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"perf record of {flows} flows failed: {run.stderr.strip()[-500:]}")
    packets = sum(f["packets_sent"] for f in json.loads(run.stdout)["flows"])
    report = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--no-children",
                             "-F", "overhead,period,sym"], capture_output=True, text=True, check=True).stdout
    periods = functions_from_report(report)
    total = sum(periods.values())
    result = Profile(flows, packets, total / packets, {k: v / packets for k, v in periods.items()})
    name = matching(periods, symbol)
    if name is not None:
        annotated = subprocess.run(["perf", "annotate", "-i", str(data), "--stdio", "-l", name],
                                   capture_output=True, text=True, check=True).stdout
        result.inlined = {k: share * periods[name] / packets for k, share in inlined_from_annotate(annotated).items()}
    return result


def table(rows: list[tuple[str, list[float]]], flows: list[int], first: str) -> list[str]:
    head = "| " + first + " | " + " | ".join(f"{n} flow{'s' if n > 1 else ''}" for n in flows) + " |"
    lines = [head, "|---|" + "---:|" * len(flows)]
    for name, values in rows:
        label = name if name == REST else f"`{short_name(name)}`"
        lines.append(f"| {label} | " + " | ".join(f"{v:.1f}" for v in values) + " |")
    return lines


def ranked(per_run: list[dict[str, float]], least: float) -> list[tuple[str, list[float]]]:
    """Every name at or above `least` ns per packet in some run, with its figure in each run, dearest in the
    last run first; the names below the bar summed as "(the rest)"."""
    names = set().union(*per_run)
    kept = [n for n in names if max(r.get(n, 0.0) for r in per_run) >= least]
    kept.sort(key=lambda n: (-per_run[-1].get(n, 0.0), n))
    rows = [(n, [r.get(n, 0.0) for r in per_run]) for n in kept]
    rest = [sum(v for k, v in r.items() if k not in kept) for r in per_run]
    if any(v > 0 for v in rest):
        rows.append((REST, rest))
    return rows


def report(profiles: list[Profile], symbol: str, least: float) -> str:
    flows = [p.flows for p in profiles]
    out = ["| flows | " + " | ".join(str(n) for n in flows) + " |", "|---|" + "---:|" * len(flows),
           "| data packets | " + " | ".join(f"{p.packets:,}" for p in profiles) + " |",
           "| ns per data packet (sampled) | " + " | ".join(f"{p.ns_per_packet:.1f}" for p in profiles) + " |",
           "", "By function (callees inlined into them), ns per data packet:", ""]
    out += table(ranked([p.functions for p in profiles], least), flows, "function")
    if any(p.inlined for p in profiles):
        out += ["", f"Inside `{symbol}`, by inlined function, ns per data packet:", ""]
        out += table(ranked([p.inlined for p in profiles], least), flows, "inlined function")
    else:
        out += ["", f"(no function ending in `{symbol}` was sampled)"]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--flows", default="1,2,10,1000", help="flow counts, comma-separated (default 1,2,10,1000)")
    p.add_argument("--seconds", type=float, default=30.0, help="simulated seconds per run (default 30)")
    p.add_argument("--frequency", type=int, default=5000, help="samples per second (default 5000)")
    p.add_argument("--symbol", default="Simulation::run_until",
                   help="the function split by inlined function (a suffix of its name; default the event loop)")
    p.add_argument("--least", type=float, default=1.0,
                   help="leave out rows under this many ns per packet in every run (default 1)")
    p.add_argument("--engine", type=Path, default=suite.ENGINE,
                   help="the cclab-sim binary (default target/release/cclab-sim, built first with PGO)")
    p.add_argument("--keep", type=Path, help="keep the configs and perf data in this directory")
    o = p.parse_args(argv)
    try:
        flows = [int(x) for x in o.flows.split(",") if x.strip()]
    except ValueError:
        p.error(f"--flows takes whole numbers separated by commas, got {o.flows!r}")
    if not flows or min(flows) < 1:
        p.error(f"--flows takes flow counts of 1 or more, got {o.flows!r}")
    if o.seconds <= 0 or o.frequency <= 0:
        p.error("--seconds and --frequency must be positive")
    if shutil.which("perf") is None:
        p.error("perf is not installed (Debian: apt-get install linux-perf)")
    pgo = "not used (--engine)"
    if o.engine == suite.ENGINE:
        pgo = suite.build_engine()
        if pgo is None:
            return 1
    print(f"# profile_flows: {o.engine}, profile-guided optimisation {pgo}; NewReno at 10 Gbit/s, 50 ms, "
          f"0.1 BDP, {o.seconds:g} s; cpu-clock at {o.frequency} Hz", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        where = o.keep or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        profiles = []
        for n in flows:
            print(f"  {n} flows ...", file=sys.stderr, flush=True)
            profiles.append(profile(o.engine, n, o.seconds, o.frequency, o.symbol, where))
    print(report(profiles, o.symbol, o.least))
    return 0


if __name__ == "__main__":
    sys.exit(main())
