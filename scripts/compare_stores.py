#!/usr/bin/env python3
"""Run-by-run check that two engines stored the same results for a study: an engine change meant to leave
results alone (docs/benchmarks.md) is re-run over the seeds, and `values.csv` shows only the tables' values;
this compares every stored run under the old engine with the same run under the new one.

    .venv/bin/python scripts/compare_stores.py OLD NEW

OLD and NEW are one study's folders of two engines in a result store, such as
`STORE/seed003/cclab-0.1.0+engine.5e543636c8cc` and `STORE/seed003/cclab-0.1.0+engine.c326b580f061` (two stores
or one). Every file of each kind (summary, timeseries, queue, loss_events, rtt_histogram: each a folder of
Parquet files named by the run) is read from both and compared as a table: the same columns in the same
order and the same values, NaN equal to NaN. The `cclab_version` column names the engine, so it is left out.
A run OLD has and NEW lacks counts as a difference (a study re-run in part cannot pass); runs only NEW has
are reported, not counted. Exit status 0 when every run is identical, 1 otherwise, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import pandas as pd

# Says which engine wrote the row: differs by design between the two folders.
ENGINE_COLUMNS = ("cclab_version",)


def same_table(old: Path, new: Path) -> bool:
    a, b = pd.read_parquet(old), pd.read_parquet(new)
    if list(a.columns) != list(b.columns):
        return False
    keep = [c for c in a.columns if c not in ENGINE_COLUMNS]
    # DataFrame.equals: same shape, dtypes and values, with NaN in the same places counted equal.
    return a[keep].equals(b[keep])


def compare(old: Path, new: Path) -> tuple[Counter, list[str], list[str]]:
    """(identical files per kind, differing or missing runs, runs only in `new`)."""
    identical: Counter = Counter()
    problems: list[str] = []
    extra: list[str] = []
    for kind in sorted(p.name for p in old.iterdir() if p.is_dir()):
        for path in sorted((old / kind).glob("*.parquet")):
            other = new / kind / path.name
            if not other.exists():
                problems.append(f"missing in NEW: {kind}/{path.name}")
            elif same_table(path, other):
                identical[kind] += 1
            else:
                problems.append(f"differs: {kind}/{path.name}")
        if (new / kind).is_dir():
            extra += [f"{kind}/{p.name}" for p in sorted((new / kind).glob("*.parquet")) if not (old / kind / p.name).exists()]
    return identical, problems, extra


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old", type=Path, help="a study's folder of the old engine in a store")
    parser.add_argument("new", type=Path, help="the same study's folder of the new engine")
    args = parser.parse_args(argv)
    for name in ("old", "new"):
        folder = getattr(args, name)
        if not folder.is_dir():
            parser.error(f"{name}: {folder} is not a folder (expected STORE/<study>/cclab-<version>+engine.<hash>)")
    identical, problems, extra = compare(args.old, args.new)
    if not identical and not problems:
        parser.error(f"old: {args.old} holds no stored runs (no <kind>/*.parquet inside)")
    for line in problems:
        print(line)
    counts = ", ".join(f"{kind} {n}" for kind, n in sorted(identical.items()))
    print(f"identical: {sum(identical.values())} files ({counts}); differing or missing: {len(problems)}; "
          f"only in NEW: {len(extra)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
