"""cclab as an installed package: the studies are package data found through importlib.resources (so they
ship inside the wheel), a `--list` that finds nothing is an error, and the optional Dask part says how to
install it. The wheel itself is built and installed into a fresh venv by scripts/check_wheel.sh, which is
too slow for the test run."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

import cclab
from cclab.cli import main
from cclab.experiment import experiments_root, list_experiments, load_experiment
from conftest import REPO

# Every experiment of the studies in the repository, in each study's `order`.
EXPERIMENTS = ["seed000-table1", "seed000-figure9-10", "seed000-table2", "seed000-figure11", "seed000-figure12",
               "seed000-figure13", "seed001-figure1", "seed001-figure3", "seed001-figure4a", "seed001-figure4b",
               "seed001-figure5", "seed001-figure6", "seed001-figure7", "seed001-figure8-9", "seed001-figure10",
               "seed001-figure11", "seed001-figure12", "seed001-figure13", "seed001-figure14", "seed001-reverse-traffic",
               "seed002-downlink", "seed002-uplink", "seed002-transfers-down", "seed002-transfers-up", "seed003-response",
               "seed003-figure2", "seed003-table2-3", "seed003-figure3", "seed003-figure5", "seed003-utilisation",
               "seed003-figure9", "seed003-figure10-11", "seed003-red",
               "seed003-sensitivity", "seed003-sensitivity-table3", "seed003-response-low", "seed003-response-1e-8"]


def test_studies_are_package_data(monkeypatch):
    monkeypatch.delenv("CCLAB_EXPERIMENTS", raising=False)
    packaged = resources.files("cclab") / "studies"
    assert isinstance(packaged, Path) and packaged.is_dir()
    # Inside the package folder itself, beside the modules, which is what maturin puts into the wheel.
    assert packaged.parent == Path(cclab.__file__).parent
    assert experiments_root() == packaged
    found = list_experiments()
    assert list(found) == EXPERIMENTS
    for path in found.values():
        assert path.parent.parent == packaged
        # The base scenario an experiment names sits beside it, so it ships too.
        experiment = load_experiment(path)
        assert (path.parent / experiment.spec.scenario).is_file()
        assert experiment.base_scenario["flows"]
    # The named link profiles the seed 002 scenarios refer to ship beside the modules too.
    assert {"umts-2007-down", "umts-2007-up"} <= {p.stem for p in (packaged.parent / "link_profiles").glob("*.toml")}


def test_a_list_that_finds_nothing_is_an_error(tmp_path):
    empty = tmp_path / "no-studies"
    empty.mkdir()
    process = subprocess.run([sys.executable, "-m", "cclab", "reproduce", "--list"], capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(REPO / "python"), "CCLAB_EXPERIMENTS": str(empty)},
                             timeout=60)
    assert process.returncode == 2 and process.stdout == ""
    assert process.stderr.splitlines() == [
        f"error: no experiment files found in $CCLAB_EXPERIMENTS ({empty}); each study is a folder of experiment "
        "files (<study>/<part>.toml). Reinstall cclab, or point $CCLAB_EXPERIMENTS at such a folder"]


def test_cluster_without_dask_names_the_extra(monkeypatch, capsys, example, tmp_path):
    # None in sys.modules makes `import distributed` fail, as when the extra is not installed.
    monkeypatch.setitem(sys.modules, "distributed", None)
    sweep = example.parent / "sweep-table1-newreno-cubic.toml"
    with pytest.raises(SystemExit) as exited:
        main(["sweep", str(sweep), "--cluster", "local:2", "--store", str(tmp_path / "store")])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert " ".join(err.split()) == ("error: --cluster needs Dask distributed, an optional part of cclab that is "
                                     "not installed; install it with: pip install 'cclab[cluster]'")
