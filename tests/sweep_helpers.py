"""Small sweeps on the real engine, and ways to look at a result store, shared by the sweep tests."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow.parquet as pq

# 2 algorithms x 3 buffers x 2 loss rates = 12 points, x 2 replications = 24 runs of 5 s simulated,
# two flows: about 0.2 s of engine time each, so executors and the store are what is tested, yet runs
# are long enough to be in progress when a test kills a worker.
SMALL_BASE = """
[network]
packet_size = 1500
[network.bottleneck]
rate = "{rate}"
delay = "10ms"
queue = {{ size = "1bdp" }}

[[flows]]
cc = "newreno"
access_delay = "1ms"
count = 2

[run]
duration = "{duration}"
measure_from = "1s"
seed = 1
sample_interval = "100ms"
"""

SMALL_SWEEP = """
base = "base.toml"
replications = 2
seed = 42
[grid]
"flows.0.cc" = ["newreno", "cubic"]
"network.bottleneck.queue.size" = ["0.5bdp", "1bdp", "2bdp"]
"network.bottleneck.loss_rate" = [0.0, 0.001]
"""

RUNS = 24
FLOWS = 2


def write_small_sweep(folder: Path, rate: str = "200Mbps", duration: str = "5s", name: str = "small",
                      sweep_text: str = SMALL_SWEEP) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "base.toml").write_text(SMALL_BASE.format(rate=rate, duration=duration), encoding="utf-8")
    path = folder / f"{name}.toml"
    path.write_text(sweep_text, encoding="utf-8")
    return path


def store_files(root: Path) -> dict[str, str]:
    """Relative path -> content hash of every result file (the lock file aside)."""
    return {str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(root.rglob("*")) if path.is_file() and path.name != ".lock"}


def run_count(root: Path) -> int:
    """Runs stored (summary files present) anywhere under the store root."""
    return sum(1 for _ in root.glob("*/*/summary/*.parquet"))


def assert_store_is_clean(root: Path, runs: int) -> None:
    """Every run present exactly once, as whole files: no leftovers, nothing unreadable."""
    files = [path for path in root.rglob("*") if path.is_file()]
    hidden = [path for path in files if path.name.startswith(".") and path.name != ".lock"]
    assert not hidden, f"temporary files left in the store: {hidden}"
    by_kind: dict[str, list[str]] = {}
    for path in files:
        if path.suffix == ".parquet":
            pq.read_table(path)  # raises on a truncated or corrupt file
            by_kind.setdefault(path.parent.name, []).append(path.stem)
    for kind in ("summary", "timeseries", "queue"):
        keys = by_kind.get(kind, [])
        assert len(keys) == len(set(keys)) == runs, (kind, len(keys))
    assert set(by_kind["summary"]) == set(by_kind["timeseries"]) == set(by_kind["queue"])


def assert_stored_runs_are_whole(root: Path, runs: int) -> None:
    """`runs` runs stored, each whole: its summary (written last, cclab.store.StudyStore.write_run) and its series
    beside it, all readable. A sweep stopped while it wrote a run may leave that run's series without a
    summary, which does not count as stored and the next sweep writes again."""
    summaries = list(root.glob("*/*/summary/*.parquet"))
    assert len(summaries) == runs, (len(summaries), runs)
    for summary in summaries:
        pq.read_table(summary)
        for kind in ("timeseries", "queue"):
            pq.read_table(summary.parent.parent / kind / summary.name)


_REFERENCE: dict[str, Path] = {}


def reference_store(tmp_path_factory) -> Path:
    """The small sweep computed once per test session on the local pool: the results every other
    executor must reproduce, byte for byte."""
    if "root" not in _REFERENCE:
        from cclab.store import results_version
        from cclab.executors import LocalPool
        from cclab.store import StudyStore
        from cclab.sweep import load_sweep
        from cclab.sweeper import run_sweep

        folder = tmp_path_factory.mktemp("reference")
        sweep = load_sweep(write_small_sweep(folder / "spec"))
        report = run_sweep(sweep, StudyStore(folder / "store", sweep.study, results_version()), LocalPool(2))
        assert (report.done, report.failed) == (RUNS, 0)
        _REFERENCE["root"] = folder / "store"
    return _REFERENCE["root"]
