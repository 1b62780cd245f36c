"""Experiment files, metrics and the paper's findings as claims: all checked on small, worked examples."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cclab.claims import check_claim
from cclab.errors import ScenarioError
from cclab.experiment import ClaimSpec, load_experiment, plan_experiment
from cclab.measures import MeasureError, jain_index, measure

from engine_required import need  # noqa: E402

need("cclab._engine")

SCENARIO = """
[network]
packet_size = 1500
[network.bottleneck]
rate = "10Mbps"
delay = "10ms"
queue = { discipline = "droptail", size = "1bdp" }
[[flows]]
cc = "newreno"
access_delay = "1ms"
[[flows]]
cc = "newreno"
access_delay = "2ms"
[run]
duration = "20s"
measure_from = "10s"
sample_interval = "1s"
"""

EXPERIMENT = """
id = "toy-mix"
title = "toy"
scenario = "two.toml"
replications = 3
set = ["flows.0.start_jitter=1s"]
[axis]
field = "network.bottleneck.queue.size"
values = ["0.5bdp", "1bdp"]
x = [0.5, 1.0]
label = "B/BDP"
[[metrics]]
name = "total"
[[metrics]]
name = "a"
flows = 0
window = ["2s", "10s"]
[[rows]]
name = "reno-cubic"
cc = ["newreno", "cubic"]
paper = { total = [9000, 9500] }
[[rows]]
name = "reno"
cc = "newreno"
[[claims]]
text = "fills"
metric = "total"
at_least = 1
[quick]
replications = 2
cells = ["B/BDP=1"]
"""


def write(tmp_path: Path, experiment: str = EXPERIMENT, scenario: str = SCENARIO) -> Path:
    (tmp_path / "two.toml").write_text(scenario)
    path = tmp_path / "toy.toml"
    path.write_text(experiment)
    return path


def test_axis_cells_rows_and_replications_become_runs(tmp_path):
    experiment = load_experiment(write(tmp_path))
    assert [c.name for c in experiment.cells] == ["B/BDP=0.5", "B/BDP=1"]
    plan = plan_experiment(experiment)
    assert len(plan.runs) == 2 * 2 * 3
    first = plan.runs[0].run.config
    assert [f["cc"]["name"] for f in first["flows"]] == ["newreno", "cubic"]
    assert first["flows"][0]["start_jitter_ns"] == 10**9 and first["flows"][1]["start_jitter_ns"] == 0
    # Common random numbers: replication k has the same seed in every row and cell, seeds differ across k.
    seeds = {(r.row, r.cell, r.replication): r.run.seed for r in plan.runs}
    assert seeds[(0, 0, 1)] == seeds[(1, 1, 1)] and len({seeds[(0, 0, k)] for k in range(3)}) == 3
    quick = plan_experiment(experiment, quick=True)
    assert len(quick.runs) == 2 * 1 * 2
    # Durations scale by 0.1 (20 s -> 2 s), and so do metric windows (2-10 s -> 0.2-1 s).
    assert quick.runs[0].run.config["run"]["duration_ns"] == 2 * 10**9
    assert quick.window_ns(experiment.metric("a"), quick.runs[0].run.config) == (2 * 10**8, 10**9)


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace('metric = "total"\nat_least = 1', 'metric = "nope"\nat_least = 1'),
     "claims.0.metric: 'nope' is not defined; use one of total, a"),
    (lambda t: t.replace("paper = { total = [9000, 9500] }", "paper = { total = [9000] }"),
     "rows.0.paper: has 1 values for 2 cells"),
    (lambda t: t.replace("at_least = 1", "at_least = 1\nat_most = 2"), "a claim needs exactly one of"),
    (lambda t: t.replace('cells = ["B/BDP=1"]', 'cells = ["B=1"]'), "quick.cells: 'B=1' is not defined"),
    (lambda t: t.replace('name = "a"\n', 'name = "total"\n'), "the name(s) total are used twice"),
    (lambda t: t.replace('window = ["2s", "10s"]', 'window = ["10s", "2s"]'), "ends before it starts"),
])
def test_bad_experiment_files_name_the_field(tmp_path, edit, message):
    with pytest.raises(ScenarioError) as caught:
        load_experiment(write(tmp_path, edit(EXPERIMENT)))
    assert message in str(caught.value)


def test_a_row_with_the_wrong_number_of_algorithms_is_refused(tmp_path):
    path = write(tmp_path, EXPERIMENT.replace('cc = ["newreno", "cubic"]', 'cc = ["newreno", "cubic", "bic"]'))
    with pytest.raises(ScenarioError, match="rows.0.cc: has 3 algorithms for the scenario's 2"):
        plan_experiment(load_experiment(path))


# --- metrics -----------------------------------------------------------------------------------------

def test_jain_index_worked_examples():
    assert jain_index(np.array([5.0, 5.0])) == 1.0
    assert jain_index(np.array([10.0, 0.0])) == 0.5            # (10)^2 / (2 * 100)
    assert jain_index(np.array([3.0, 1.0])) == pytest.approx(16 / 20)   # (3+1)^2 / (2 * (9+1))
    assert math.isnan(jain_index(np.array([0.0, 0.0])))


CONFIG = {"packet_size": 1500, "header_size": 40, "bottleneck": {"rate_bps": 10_000_000},
          "run": {"measure_from_ns": 10 * 10**9, "duration_ns": 20 * 10**9}}
SUMMARY = pd.DataFrame({"flow": [1, 0], "delivered_bps": [3e6, 6e6], "goodput_bps": [2.92e6, 5.84e6]})
SERIES = pd.DataFrame({"time_s": [1.0, 1.0, 2.0, 2.0], "flow": [0, 1, 0, 1], "delivered": [100, 50, 300, 60]})


def test_metrics_from_the_summary_and_from_windows():
    series = lambda: SERIES  # noqa: E731
    assert measure("delivered_bps", "sum", None, CONFIG, SUMMARY, series) == 9e6
    assert measure("delivered_bps", 0, None, CONFIG, SUMMARY, series) == 6e6     # sorted by flow
    assert measure("utilisation", "sum", None, CONFIG, SUMMARY, series) == 0.9
    assert measure("jain", "sum", None, CONFIG, SUMMARY, series) == pytest.approx(81 / 90)
    # Window 1-2 s: flow 0 delivered 200 packets x 1500 B x 8 = 2.4 Mbit in 1 s, flow 1 10 packets.
    window = (10**9, 2 * 10**9)
    assert measure("delivered_bps", 0, window, CONFIG, SUMMARY, series) == 2_400_000
    assert measure("goodput_bps", 1, window, CONFIG, SUMMARY, series) == 10 * 1460 * 8
    # From t = 0 nothing was delivered yet: 300 packets over 2 s.
    assert measure("delivered_bps", 0, (0, 2 * 10**9), CONFIG, SUMMARY, series) == 300 * 12000 / 2
    with pytest.raises(MeasureError, match="no sample at 1.5 s"):
        measure("delivered_bps", 0, (int(1.5e9), 2 * 10**9), CONFIG, SUMMARY, series)
    with pytest.raises(MeasureError, match="flow 2 does not exist"):
        measure("delivered_bps", 2, None, CONFIG, SUMMARY, series)


# --- claims ------------------------------------------------------------------------------------------

def _claim_plan(tmp_path):
    return plan_experiment(load_experiment(write(tmp_path)))


@pytest.mark.parametrize("claim, status", [
    ({"at_least": 8000}, "holds"),
    ({"at_least": 8600}, "fails"),              # reno at B=0.5 is 8000
    ({"at_most": 9500}, "holds"),
    ({"between": [8000, 9400]}, "fails"),            # reno-cubic at B=1 is 9500
    ({"rows": ["reno-cubic"], "above_row": "reno"}, "holds"),
    ({"rows": ["reno"], "above_row": ["reno-cubic"]}, "fails"),
    ({"rows": ["reno"], "below_row": "reno-cubic"}, "holds"),
    ({"trend": "increasing"}, "holds"),
    ({"rows": ["reno"], "trend": "decreasing"}, "fails"),
    ({"above_metric": "a"}, "holds"),
])
def test_claims_on_worked_values(tmp_path, claim, status):
    plan = _claim_plan(tmp_path)
    # total: reno-cubic 9000 -> 9500, reno 8000 -> 8500; a (flow 0): half of it.
    means = {("total", 0, 0): 9000.0, ("total", 0, 1): 9500.0, ("total", 1, 0): 8000.0, ("total", 1, 1): 8500.0}
    means.update({("a", r, c): v / 2 for (_, r, c), v in list(means.items())})
    result = check_claim(ClaimSpec(text="t", metric="total", **claim), plan, means)
    assert result.status == status, result.detail


def test_claims_in_quick_mode_and_without_results(tmp_path):
    experiment = load_experiment(write(tmp_path))
    quick = plan_experiment(experiment, quick=True)
    assert check_claim(ClaimSpec(text="t", metric="total", at_least=0), quick, {}).status == "not checked"
    marked = ClaimSpec(text="t", metric="total", at_least=0, quick=True)
    assert check_claim(marked, quick, {}).detail == "no finished runs to compare"
    assert check_claim(marked, quick, {("total", 0, 1): 5.0}).status == "holds"
