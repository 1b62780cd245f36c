"""Start-up: `cclab --version` and `cclab run` import only what they use. numpy, pandas, pyarrow and
matplotlib cost about 0.4 s of imports, paid by every short run when they were imported eagerly (issue 13).
Checked as imported modules in a fresh interpreter, not as a time, which would depend on the machine."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from engine_required import need

from conftest import EXAMPLE, REPO

HEAVY = ("numpy", "pandas", "pyarrow", "matplotlib", "duckdb", "distributed", "dask")

# Runs the CLI with ARGS and reports, at exit, which of HEAVY were imported.
PROBE = f"""
import atexit, sys
atexit.register(lambda: print("imported:", *sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr))
from cclab.cli import main
main(sys.argv[1:])
"""


def heavy_imports(*args: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    process = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env,
                             timeout=120)
    assert process.returncode == 0, process.stderr
    line = process.stderr.splitlines()[-1]
    assert line.startswith("imported:"), process.stderr
    return line.split()[1:]


def test_version_imports_nothing_heavy():
    assert heavy_imports("--version") == []


def test_run_imports_nothing_heavy(tmp_path):
    need("cclab._engine")
    short = ["run", str(EXAMPLE), "--set", "run.duration=10ms", "--set", "run.measure_from=0s"]
    assert heavy_imports(*short) == []
    # Writing the series needs them, and gets them.
    assert {"numpy", "pandas", "pyarrow"} <= set(heavy_imports(*short, "--out", str(tmp_path / "out"), "-q"))


def test_a_run_without_series_has_the_same_summary(fake_engine, example):
    from cclab.runner import run

    with_series, without = run(example), run(example, series=False)
    assert without.summary == with_series.summary and not with_series.timeseries.empty
    assert without.timeseries.empty and without.queue.empty and without.link_series.empty


def test_the_api_still_has_every_name():
    """The package's names are imported on first use; each must still be there."""
    import cclab

    for name in cclab.__all__:
        assert getattr(cclab, name) is not None, name
    assert cclab.run.__module__ == "cclab.runner" and cclab.Result.__module__ == "cclab.result"
    with pytest.raises(AttributeError):
        cclab.no_such_name  # noqa: B018
