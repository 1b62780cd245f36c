"""scripts/compare_stores.py: two engines' stored runs of a study compared file by file. It must pass runs that
differ only in the engine's name (NaN included), and fail a changed value, a changed column and a missing run."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "compare_stores.py"


def write_study(folder: Path, engine: str, srtt_last: float = 0.1, extra_column: bool = False, runs=("a-1", "b-1")):
    for run in runs:
        (folder / "summary").mkdir(parents=True, exist_ok=True)
        (folder / "timeseries").mkdir(parents=True, exist_ok=True)
        summary = pd.DataFrame({"cclab_version": [f"0.1.0+engine.{engine}"], "goodput_bps": [1.5e8], "events": [12345]})
        if extra_column:
            summary["new"] = [0]
        summary.to_parquet(folder / "summary" / f"{run}.parquet")
        # The first samples have no RTT yet: NaN, which must compare equal to NaN.
        pd.DataFrame({"t_s": [0.0, 0.1, 0.2], "srtt_s": [np.nan, 0.1, srtt_last]}).to_parquet(
            folder / "timeseries" / f"{run}.parquet")


def run(old: Path, new: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(old), str(new)], capture_output=True, text=True)


def test_runs_that_differ_only_in_the_engine_name_are_identical(tmp_path):
    write_study(tmp_path / "old", "aaaa")
    write_study(tmp_path / "new", "bbbb")
    out = run(tmp_path / "old", tmp_path / "new")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "identical: 4 files (summary 2, timeseries 2); differing or missing: 0" in out.stdout


@pytest.mark.parametrize("change, expected", [
    ({"srtt_last": 0.2}, "differs: timeseries/b-1.parquet"),
    ({"extra_column": True}, "differs: summary/a-1.parquet"),
    ({"runs": ("a-1",)}, "missing in NEW: summary/b-1.parquet"),
])
def test_a_changed_value_column_or_missing_run_fails(tmp_path, change, expected):
    write_study(tmp_path / "old", "aaaa")
    write_study(tmp_path / "new", "bbbb", **change)
    out = run(tmp_path / "old", tmp_path / "new")
    assert out.returncode == 1
    assert expected in out.stdout


def test_a_folder_that_is_not_there_or_holds_no_runs_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    out = run(tmp_path / "nowhere", tmp_path)
    assert out.returncode == 2 and "old: " in out.stderr and "is not a folder" in out.stderr
    out = run(tmp_path / "empty", tmp_path)
    assert out.returncode == 2 and "holds no stored runs" in out.stderr
