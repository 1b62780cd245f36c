#!/usr/bin/env python3
"""Two engine builds (or one build under two environments) side by side on the speed suite's scenarios.

The way runs 20-29 of docs/benchmarks.md measured every engine change: each scenario's engine config
(`suite.py`'s, with the front's 100-ms time series) runs on both binaries in turn, the order alternating
from round to round so that load from other work hits both alike. For each scenario it prints the CPU
time (user + system, from GNU time as `suite.py` measures it) per data packet of each, the median of the
per-round ratios new / base with their range, peak RSS, events per data packet, and whether the
summaries (event count aside) are identical, which an optimisation must keep (a change of results, as
run 30's tie rule, says NO; the costs are then per each side's own data packets). GNU time counts CPU in
10-ms steps: keep each run above a second or so (`--duration-factor`).

    .venv/bin/python benchmarks/ab.py --base /tmp/old-cclab-sim --new target/release/cclab-sim
    .venv/bin/python benchmarks/ab.py --base A --new B --only flows --match "10 Gbit" --rounds 5
    .venv/bin/python benchmarks/ab.py --base X --new X --base-arg=--packet-by-packet --only flows

Build a base with `git worktree add /tmp/base REV && cd /tmp/base && cargo build --release -p cclab-engine`.
Not part of the test run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import suite  # noqa: E402  (the scenarios and their engine configs)


def run_once(binary: Path, config: Path, env: dict[str, str], args: list[str]) -> dict:
    """One run through `suite.measure` (GNU time: CPU seconds and peak RSS of the engine alone): CPU
    seconds, peak RSS in MB, data packets, events, and the summary without its events."""
    cmd = ["env", *(f"{k}={v}" for k, v in env.items()), str(binary), str(config), *args]
    run, stdout = suite.measure(cmd, cap=24 * 3600)
    if run.failed or run.cpu_s is None:
        raise SystemExit(f"{binary} on {config}: {run.failed or 'no CPU time from GNU time'}")
    summary = json.loads(stdout)
    events = summary.pop("events")
    return {"cpu": run.cpu_s, "rss_mb": run.rss_mb, "events": events,
            "packets": sum(f["packets_sent"] for f in summary["flows"]), "summary": json.dumps(summary, sort_keys=True)}


def env_pairs(values: list[str]) -> dict[str, str]:
    pairs = {}
    for v in values:
        key, sep, val = v.partition("=")
        if not sep or not key:
            raise SystemExit(f"--base-env/--new-env take NAME=VALUE, got {v!r}")
        pairs[key] = val
    return pairs


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", type=Path, required=True, help="the reference cclab-sim binary")
    p.add_argument("--new", type=Path, required=True, help="the cclab-sim binary measured against it")
    p.add_argument("--base-env", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--new-env", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--base-arg", action="append", default=[], metavar="ARG",
                   help="an argument for the base binary after the config (e.g. --base-arg=--packet-by-packet)")
    p.add_argument("--new-arg", action="append", default=[], metavar="ARG")
    p.add_argument("--only", default="example,windows,flows",
                   help=f"suite sections, comma-separated (default example,windows,flows; known: {', '.join(suite.SECTIONS)})")
    p.add_argument("--match", default="", help="only scenarios whose label contains this")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--duration-factor", type=float, default=1.0, help="scale every simulated duration")
    o = p.parse_args()
    for b in (o.base, o.new):
        if not b.is_file():
            p.error(f"no engine binary at {b}")
    sections = [s.strip() for s in o.only.split(",") if s.strip()]
    unknown = set(sections) - set(suite.SECTIONS)
    if unknown:
        p.error(f"unknown section(s) {', '.join(sorted(unknown))}; known: {', '.join(suite.SECTIONS)}")
    o.scale = lambda seconds: max(1.0, seconds * o.duration_factor)
    sides = {"base": (o.base, env_pairs(o.base_env), o.base_arg), "new": (o.new, env_pairs(o.new_env), o.new_arg)}

    with tempfile.TemporaryDirectory(prefix="cclab-ab-") as tmp:
        configs = {}
        for section in sections:
            for s in suite.SECTIONS[section](o):
                if o.match in s.label:
                    path = Path(tmp) / f"{len(configs)}.json"
                    path.write_text(json.dumps(suite.cclab_config(s)))
                    configs[s.label] = path
        runs = {label: {"base": [], "new": []} for label in configs}
        for r in range(o.rounds):
            for label, path in configs.items():
                order = ["base", "new"] if r % 2 == 0 else ["new", "base"]
                for side in order:
                    binary, env, args = sides[side]
                    runs[label][side].append(run_once(binary, path, env, args))

    print(f"{'scenario':34s} {'base ns/pkt':>11s} {'new ns/pkt':>10s} {'new/base':>22s} {'RSS base->new MB':>17s} "
          f"{'events/pkt':>13s}  same")
    for label, r in runs.items():
        base, new = r["base"], r["new"]
        per_packet = lambda x: x["cpu"] / x["packets"]
        ratios = [per_packet(n) / per_packet(b) for b, n in zip(base, new)]
        same = len({x["summary"] for x in base + new}) == 1
        ns = lambda side: statistics.median(per_packet(x) for x in side) * 1e9
        print(f"{label:34s} {ns(base):11.1f} {ns(new):10.1f} {statistics.median(ratios):8.3f} "
              f"({min(ratios):.3f}-{max(ratios):.3f}) {max(x['rss_mb'] for x in base):7.1f} -> "
              f"{max(x['rss_mb'] for x in new):6.1f} {base[0]['events'] / base[0]['packets']:5.2f} -> {new[0]['events'] / new[0]['packets']:4.2f}"
              f"  {'yes' if same else 'NO'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
