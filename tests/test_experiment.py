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
    (lambda t: t.replace('flows = 0\n', 'flows = "samples"\n'), "only rtt_ms and queueing_ms are measured sample"),
    (lambda t: t.replace('name = "a"\n', 'name = "a"\nof = "product"\nfactors = ["total"]\n'),
     "multiplies at least two metrics"),
    (lambda t: t.replace('name = "a"\n', 'name = "a"\nof = "product"\nfactors = ["total", "b"]\n'),
     "metrics.1.factors: 'b' is not defined"),
    (lambda t: t.replace('name = "a"\n', 'name = "a"\nper = "100s"\n'), "per (a positive duration) divides"),
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
SUMMARY = pd.DataFrame({"flow": [1, 0], "delivered_bps": [3e6, 6e6], "goodput_bps": [2.92e6, 5.84e6],
                        "bottleneck_utilization": [0.9, 0.9]})
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


def test_utilisation_is_the_links_bytes_on_the_wire_never_above_one():
    # 10 Mbit/s for 1 s (1-2 s) carries 1,250,000 bytes. The link's count says 1,251,500: a packet
    # started just before 2 s counts whole (the count is taken at the start of a transmission), 1.0012 of
    # capacity, which is clipped to 1. Over the run's measurement window the summary's own figure is used.
    queue = pd.DataFrame({"time_s": [1.0, 2.0], "bytes_tx": [1_000_000, 2_251_500]})
    window = (10**9, 2 * 10**9)
    assert measure("utilisation", "sum", window, CONFIG, SUMMARY, lambda: SERIES, queue=lambda: queue) == 1.0
    half = queue.assign(bytes_tx=[1_000_000, 1_625_000])       # 625,000 bytes: half the capacity
    assert measure("utilisation", "sum", window, CONFIG, SUMMARY, lambda: SERIES, queue=lambda: half) == 0.5
    assert measure("utilisation", "sum", None, CONFIG, SUMMARY, lambda: SERIES) == 0.9
    with pytest.raises(MeasureError, match="bytes on the wire between 1 s and 2 s are not stored"):
        measure("utilisation", "sum", window, CONFIG, SUMMARY, lambda: SERIES, queue=lambda: queue[["time_s"]])


def test_goodput_clipped_to_what_crossed_the_link():
    # In 1-2 s flow 0 gets 900 packets in order and flow 1 100: 1000 x 1500 B = 1,500,000 bytes, 12 Mbit/s
    # on a 10 Mbit/s link (a hole filled just after 1 s released packets that crossed before). The link put
    # 1,200,000 bytes on the wire in the window, so clipped every flow is scaled by 1,200,000 / 1,500,000
    # = 0.8: flow 0 900 x 12,000 bit x 0.8 = 8,640,000 bit/s, the sum 9.6 Mbit/s, flow 1's goodput
    # 100 x 1460 x 8 x 0.8 = 934,400 bit/s. Unclipped, the values are as before.
    burst = pd.DataFrame({"time_s": [1.0, 1.0, 2.0, 2.0], "flow": [0, 1, 0, 1], "delivered": [100, 50, 1000, 150]})
    queue = pd.DataFrame({"time_s": [1.0, 2.0], "bytes_tx": [1_000_000, 2_200_000]})
    window = (10**9, 2 * 10**9)
    args = (window, CONFIG, SUMMARY, lambda: burst)
    assert measure("delivered_bps", "sum", *args, queue=lambda: queue) == 12_000_000
    assert measure("delivered_bps", "sum", *args, queue=lambda: queue, clip=True) == pytest.approx(9_600_000)
    assert measure("delivered_bps", 0, *args, queue=lambda: queue, clip=True) == pytest.approx(8_640_000)
    assert measure("goodput_bps", 1, *args, queue=lambda: queue, clip=True) == pytest.approx(934_400)
    # A ratio and Jain's index do not change with a common factor; a window within capacity is not touched.
    assert measure("jain", "sum", *args, queue=lambda: queue, clip=True) == measure("jain", "sum", *args)
    assert measure("delivered_bps", 0, window, CONFIG, SUMMARY, lambda: SERIES, queue=lambda: queue,
                   clip=True) == 2_400_000


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
    # reno against 0.9 x reno-cubic: 8000 < 8100 and 8500 < 8550; against 0.85 x: 8000 is not < 7650.
    ({"rows": ["reno"], "below_row": "reno-cubic", "times": 0.9}, "holds"),
    ({"rows": ["reno"], "below_row": "reno-cubic", "times": 0.85}, "fails"),
    # reno-cubic above 1.15 x reno: 9000 is not > 9200 (B/BDP=0.5).
    ({"rows": ["reno-cubic"], "above_row": "reno", "times": 1.15}, "fails"),
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


@pytest.mark.parametrize("claim, paper, cclab, difference", [
    # The lowest total, reno at B/BDP=0.5 (8000), against 8600: 8000 - 8600 = -600.
    ({"at_least": 8600}, ">= 8,600", "8,000 (reno @ B/BDP=0.5)", "-600"),
    # The largest, reno-cubic at B/BDP=1 (9500), against 9400: +100.
    ({"between": [8000, 9400]}, "8,000 to 9,400", "9,500 (reno-cubic @ B/BDP=1)", "+100"),
    # reno-cubic over reno: margins 1000 at both cells; the first is kept: 9000 against 8000.
    ({"rows": ["reno-cubic"], "above_row": "reno"}, "above reno: 8,000", "9,000 (reno-cubic @ B/BDP=0.5)", "+1,000"),
    # Increasing from the first cell to the last: reno-cubic +500, reno +500; the first line is kept.
    ({"trend": "increasing"}, "increasing, from 9,000", "9,500 (reno-cubic: B/BDP=0.5 -> B/BDP=1)", "+500"),
    # reno below 0.9 x reno-cubic: margins 8100 - 8000 = 100 and 8550 - 8500 = 50; the smaller is kept.
    ({"rows": ["reno"], "below_row": "reno-cubic", "times": 0.9}, "below 0.900 x reno-cubic: 8,550",
     "8,500 (reno @ B/BDP=1)", "-50"),
])
def test_claims_give_the_papers_value_cclabs_and_the_difference(tmp_path, claim, paper, cclab, difference):
    plan = _claim_plan(tmp_path)
    means = {("total", 0, 0): 9000.0, ("total", 0, 1): 9500.0, ("total", 1, 0): 8000.0, ("total", 1, 1): 8500.0}
    result = check_claim(ClaimSpec(text="t", metric="total", **claim), plan, means)
    assert (result.paper, result.cclab, result.difference) == (paper, cclab, difference)
    assert result.difference_value == result.cclab_value - result.paper_value


def test_claims_over_several_seeds_on_the_mean_or_on_each(tmp_path):
    # "reno-cubic above reno" at B/BDP=0.5 over three seeds: 9000 > 8000, 9000 < 9200, 9600 > 8000. The means,
    # 9200 and 8400, hold it; seed #1 alone breaks it. On the mean (default) it holds, and says 2 of 3; on
    # each seed it fails, with seed #1's values: 9,000 against 9,200, a difference of -200.
    plan = _claim_plan(tmp_path)
    seeds = [{("total", 0, 0): 9000.0, ("total", 1, 0): 8000.0},
             {("total", 0, 0): 9000.0, ("total", 1, 0): 9200.0},
             {("total", 0, 0): 9600.0, ("total", 1, 0): 8000.0}]
    means = {("total", 0, 0): 9200.0, ("total", 1, 0): 8400.0}
    claim = dict(text="t", metric="total", rows=["reno-cubic"], cells=["B/BDP=0.5"], above_row="reno")
    on_mean = check_claim(ClaimSpec(**claim), plan, means, seeds)
    assert on_mean.status == "holds"
    assert on_mean.detail == ("on the mean of 3 seeds: total above row reno: 1 comparisons; "
                              "holds on 2 of 3 seeds alone")
    assert (on_mean.cclab, on_mean.difference) == ("9,200 (reno-cubic @ B/BDP=0.5)", "+800")
    on_each = check_claim(ClaimSpec(**claim, seeds="each"), plan, means, seeds)
    assert on_each.status == "fails"
    assert on_each.detail == ("on each seed: holds on 2 of 3 seeds alone; seed #1: total above row reno: "
                              "reno-cubic @ B/BDP=0.5: 9,000 not > reno 9,200")
    assert (on_each.cclab, on_each.difference) == ("9,000 (reno-cubic @ B/BDP=0.5) [seed #1]", "-200")
    # Without seed #1 it holds on each: 2 of 2.
    both = check_claim(ClaimSpec(**claim, seeds="each"), plan, means, [seeds[0], seeds[2]])
    assert both.status == "holds" and both.detail.startswith("on each of 2 seeds (holds on 2 of 2 seeds alone)")
    # One seed: the plain check, as before replications.
    assert check_claim(ClaimSpec(**claim), plan, means, seeds[:1]).detail == "total above row reno: 1 comparisons"


def test_keep_first_seed_leaves_replication_0_on_the_experiments_seed(tmp_path):
    # The toy experiment has seed 1 (default) and 3 replications: derived seeds for all three, unless
    # keep_first_seed, which puts seed 1 itself first and leaves the other two as they were.
    from cclab.sweep import derive_seed

    path = write(tmp_path)
    derived = [run.run.seed for run in plan_experiment(load_experiment(path)).runs[:3]]
    assert derived == [derive_seed(1, {}, k) for k in range(3)]
    path.write_text(path.read_text().replace('id = "toy-mix"', 'id = "toy-mix"\nkeep_first_seed = true'))
    kept = [run.run.seed for run in plan_experiment(load_experiment(path)).runs[:3]]
    assert kept == [1, derived[1], derived[2]]


def test_claims_in_quick_mode_and_without_results(tmp_path):
    experiment = load_experiment(write(tmp_path))
    quick = plan_experiment(experiment, quick=True)
    unmarked = check_claim(ClaimSpec(text="t", metric="total", at_least=0), quick, {})
    # The reason names what quick mode changed here: 2 s runs of 20 s (time_scale 0.1), 2 of 3 seeds, 1 of
    # the 2 cells.
    assert unmarked.status == "not checked"
    assert unmarked.detail == ("not a quick-mode finding: quick mode has runs of 2 s instead of 20 s, 2 seeds "
                               "instead of 3, 2 of 2 rows x 1 of 2 cells, too little for it to hold reliably; "
                               "the full study checks it")
    only_half = ClaimSpec(text="t", metric="total", at_least=0, quick=True, cells=["B/BDP=0.5"])
    assert check_claim(only_half, quick, {}).detail == ("quick mode runs none of its rows or cells; the full study "
                                                        "checks it")
    marked = ClaimSpec(text="t", metric="total", at_least=0, quick=True)
    assert check_claim(marked, quick, {}).detail == "no finished runs to compare"
    assert check_claim(marked, quick, {("total", 0, 1): 5.0}).status == "holds"


# --- grids of configurations (seed 001's 180 cells) ----------------------------------------------------

GRID = """
id = "toy-grid"
title = "toy grid"
scenario = "two.toml"
[[axes]]
field = "network.bottleneck.rate"
values = ["10Mbps", "20Mbps"]
x = [10, 20]
label = "bw"
[[axes]]
field = "network.bottleneck.loss_rate"
values = [1e-7, 1e-5, 1e-3]
x = [1e-7, 1e-5, 1e-3]
label = "per"
[[rows]]
name = "reno"
cc = "newreno"
[[figures]]
kind = "lines"
metric = "goodput"
x = "per"
where = { bw = 10 }
[[claims]]
text = "falls with the error rate, at every rate"
metric = "goodput"
trend = "decreasing"
along = "per"
[quick]
where = { per = [1e-7, 1e-3] }
"""


def test_axes_make_every_combination_with_its_coordinates(tmp_path):
    experiment = load_experiment(write(tmp_path, GRID))
    # The first axis outermost: 2 x 3 cells, each with the overrides of both axes.
    assert [c.name for c in experiment.cells] == ["bw=10 per=1e-07", "bw=10 per=1e-05", "bw=10 per=0.001",
                                                  "bw=20 per=1e-07", "bw=20 per=1e-05", "bw=20 per=0.001"]
    assert experiment.cells[4].set == ['network.bottleneck.rate="20Mbps"', "network.bottleneck.loss_rate=1e-05"]
    assert experiment.cells[4].coords == {"bw": 20, "per": 1e-5} and experiment.cells[4].x == 20
    # Coordinates written as 1e-7 and as 1e-07 are the same (relative tolerance 1e-9).
    assert experiment.select_cells([], {"per": 1e-7}) == [0, 3]
    assert experiment.select_cells([], {"bw": 20, "per": [1e-5, 0.001]}) == [4, 5]
    assert experiment.select_cells(["bw=10 per=1e-05"], {"bw": 20}) == []
    plan = plan_experiment(experiment)
    assert plan.runs[5].run.config["bottleneck"]["loss_rate"] == 1e-3
    assert plan.runs[5].run.config["bottleneck"]["rate_bps"] == 20_000_000
    assert plan_experiment(experiment, quick=True).cells == [0, 2, 3, 5]


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace('where = { bw = 10 }', 'where = { rate = 10 }'),
     "figures.0.where: 'rate' is not defined; use one of bw, per"),
    (lambda t: t.replace('where = { per = [1e-7, 1e-3] }', 'where = { per = 1e-4 }'),
     "quick.where.per: 0.0001 is not on the axis"),
    (lambda t: t.replace('along = "per"', 'along = "delay"'), "claims.0.along: 'delay' is not defined"),
    (lambda t: t.replace('trend = "decreasing"', 'at_least = 1'), "claims.0.along: only a trend runs along an axis"),
    (lambda t: t.replace('x = "per"', 'x = "nope"'), "figures.0.x: 'nope' is not defined"),
    (lambda t: t.replace('label = "per"', 'label = "bw"'), "axes: the name(s) bw are used twice"),
])
def test_bad_grids_name_the_field(tmp_path, edit, message):
    with pytest.raises(ScenarioError) as caught:
        load_experiment(write(tmp_path, edit(GRID)))
    assert message in str(caught.value)


@pytest.mark.parametrize("values, status", [
    # goodput per cell in the grid's order: bw=10 at per 1e-7, 1e-5, 1e-3, then bw=20 likewise.
    ([9.0, 5.0, 1.0, 19.0, 12.0, 2.0], "holds"),     # falls along per at both rates
    ([9.0, 5.0, 1.0, 19.0, 25.0, 20.0], "fails"),    # bw=20 ends above where it starts: 19 -> 20
    ([9.0, 9.5, 1.0, 19.0, 21.0, 2.0], "holds"),     # only the ends of each line count
])
def test_a_trend_along_an_axis_is_checked_in_every_line(tmp_path, values, status):
    plan = plan_experiment(load_experiment(write(tmp_path, GRID)))
    means = {("goodput", 0, c): v for c, v in enumerate(values)}
    claim = plan.experiment.spec.claims[0]
    result = check_claim(claim, plan, means)
    assert result.status == status, result.detail
    assert "2 line(s)" in result.detail
    if status == "fails":
        assert result.detail.endswith("reno: 19 at bw=20 per=1e-07 -> 20 at bw=20 per=0.001")


def test_claims_pick_cells_by_coordinates(tmp_path):
    plan = plan_experiment(load_experiment(write(tmp_path, GRID)))
    means = {("goodput", 0, c): v for c, v in enumerate([9.0, 5.0, 1.0, 19.0, 12.0, 2.0])}
    # At bw = 20 every value is at least 2; at bw = 10 one is 1.
    at_bw20 = ClaimSpec(text="t", metric="goodput", where={"bw": 20}, at_least=2)
    at_per3 = ClaimSpec(text="t", metric="goodput", where={"per": 1e-3}, at_least=2)
    assert check_claim(at_bw20, plan, means).status == "holds"
    assert check_claim(at_per3, plan, means).status == "fails"


# --- metrics of seed 001: queue, algorithm state, ratios, flows of one algorithm ------------------------

STATE_SERIES = pd.DataFrame({
    "time_s": [1.0, 1.0, 2.0, 2.0, 3.0, 3.0],
    "flow": [0, 1, 0, 1, 0, 1],
    "delivered": [100, 50, 300, 60, 400, 100],
    "cc_base_rtt_s": [0.230, float("nan"), 0.220, 0.250, 0.220, 0.226],
})
QUEUE_SERIES = pd.DataFrame({"time_s": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0], "queue_packets": [9, 10, 20, 30, 40, 50]})
MIXED = pd.DataFrame({"flow": [0, 1], "cc": ["compound", "newreno"], "delivered_bps": [6e6, 2e6],
                      "goodput_bps": [5.84e6, 1.95e6]})


def test_state_and_queue_metrics_average_the_window_samples():
    series, queue = (lambda: STATE_SERIES), (lambda: QUEUE_SERIES)  # noqa: E731
    window = (2 * 10**9, 3 * 10**9)
    # Queue samples at 2.0, 2.5, 3.0 s: (30 + 40 + 50) / 3 = 40 packets.
    assert measure("queue", "sum", window, CONFIG, MIXED, series, queue=queue) == 40
    # baseRTT at 2 and 3 s: flow 0 0.220, flow 1 (0.250 + 0.226) / 2 = 0.238; spread 0.018, max 0.238.
    base_rtt = {"column": "cc_base_rtt_s"}
    assert measure("state", "spread", window, CONFIG, MIXED, series, **base_rtt) == pytest.approx(0.018)
    assert measure("state", "max", window, CONFIG, MIXED, series, **base_rtt) == pytest.approx(0.238)
    # Over 1-3 s flow 1's NaN (no RTT sample yet at 1 s) is left out of its mean: still 0.238.
    assert measure("state", 1, (10**9, 3 * 10**9), CONFIG, MIXED, series, **base_rtt) == pytest.approx(0.238)
    with pytest.raises(MeasureError, match="no column 'cc_dwnd'"):
        measure("state", 0, window, CONFIG, MIXED, series, column="cc_dwnd")
    with pytest.raises(MeasureError, match="no sample between 4 s and 5 s"):
        measure("queue", "sum", (4 * 10**9, 5 * 10**9), CONFIG, MIXED, series, queue=queue)


def test_ratio_min_max_and_flows_of_one_algorithm():
    series = lambda: STATE_SERIES  # noqa: E731
    assert measure("delivered_bps", "ratio", None, CONFIG, MIXED, series) == 3.0     # 6 / 2 Mbit/s
    assert measure("delivered_bps", "min", None, CONFIG, MIXED, series) == 2e6
    assert measure("delivered_bps", "spread", None, CONFIG, MIXED, series) == 4e6
    # Only the NewReno flow: 2 Mbit/s, whether summed or averaged.
    assert measure("delivered_bps", "mean", None, CONFIG, MIXED, series, cc="newreno") == 2e6
    with pytest.raises(MeasureError, match="utilisation is the link's"):
        measure("utilisation", "sum", None, CONFIG, MIXED, series, cc="compound")
    with pytest.raises(MeasureError, match="no flow runs bic; the run's flows run compound, newreno"):
        measure("delivered_bps", "sum", None, CONFIG, MIXED, series, cc="bic")
    with pytest.raises(MeasureError, match="needs two flows"):
        measure("delivered_bps", "ratio", None, CONFIG, MIXED, series, cc="newreno")


def test_add_flows_appends_entries_the_rows_cc_covers():
    # Seed 003 Fig. 3: the background's 5 entries plus one added (2 STCP flows at RTT 160 ms). The engine
    # config lists 8 + 2 + 2 + 25 + 25 + 2 = 64 flows; the last two are the added entry's, with the row's
    # 6th algorithm and 35 ms access delays (RTT 2 x (10 + 2 x 35) = 160 ms).
    from cclab.experiment import list_experiments, load_experiment, plan_experiment

    experiment = load_experiment(list_experiments()["seed003-figure3"])
    assert len(experiment.base_scenario["flows"]) == 6
    config = plan_experiment(experiment).runs[0].run.config
    flows = config["flows"]
    assert len(flows) == 64
    assert [f["group"] for f in flows[-2:]] == ["high-speed-160ms"] * 2
    assert all(f["cc"]["name"] == "scalable" and f["src_access_delay_ns"] == 35_000_000 for f in flows[-2:])
    assert [f["group"] for f in flows[:8]] == ["high-speed"] * 8
def test_table3_sensitivity_reuses_the_tables_runs_for_the_chosen_profile():
    # seed003-sensitivity-table3's "as chosen" cells are table2-3's RTT-ratio-6 cells under another name and
    # set order: the same engine configs and seed 1 (table2-3's replication 0, keep_first_seed), so the same
    # run keys, 4 rows x 2 rates = 8 runs, in full mode and (100 Mbit/s only) 4 in quick mode. Its other 40
    # runs (5 profiles x 2 rates x 4 rows) are its own.
    from cclab.experiment import list_experiments, load_experiment, plan_experiment

    found = list_experiments()
    for quick, shared in ((False, 8), (True, 4)):
        tables = {r.run.key for r in plan_experiment(load_experiment(found["seed003-table2-3"]), quick).runs}
        plan = plan_experiment(load_experiment(found["seed003-sensitivity-table3"]), quick)
        chosen = {r.run.key for r in plan.runs if plan.experiment.spec.cells[r.cell].coords["variant"] == 0}
        assert len(chosen) == shared and chosen <= tables
        assert len({r.run.key for r in plan.runs} & tables) == shared
    assert len(plan_experiment(load_experiment(found["seed003-sensitivity-table3"])).runs) == 48


def test_a_rows_cell_set_applies_to_that_row_in_that_cell_only(tmp_path):
    # reno runs 40 s at B/BDP=1 only; every other (row, cell) keeps the scenario's 20 s. A cell name that
    # does not exist is an error that names the accepted ones.
    text = EXPERIMENT.replace('name = "reno"\ncc = "newreno"', 'name = "reno"\ncc = "newreno"\n'
                              'cell_set = { "B/BDP=1" = ["run.duration=40s"] }')
    plan = plan_experiment(load_experiment(write(tmp_path, text)))
    durations = {(plan.experiment.spec.rows[r.row].name, plan.experiment.spec.cells[r.cell].name):
                 r.run.config["run"]["duration_ns"] for r in plan.runs}
    assert durations == {("reno-cubic", "B/BDP=0.5"): 20 * 10**9, ("reno-cubic", "B/BDP=1"): 20 * 10**9,
                         ("reno", "B/BDP=0.5"): 20 * 10**9, ("reno", "B/BDP=1"): 40 * 10**9}
    with pytest.raises(ScenarioError, match="'B/BDP=2' is not defined; use one of B/BDP=0.5, B/BDP=1"):
        load_experiment(write(tmp_path, text.replace('"B/BDP=1" = [', '"B/BDP=2" = [')))


def test_low_loss_response_runs_last_for_about_100_loss_events():
    # seed003-response-low and -1e-8 size each run by the analytic window: TCP at p = 1e-7 has
    # W = sqrt(1.5 / 1e-7) = 3873 packets, a loss event every 1e7 / 3873 = 2582 RTTs = 51.6 s at 20 ms, and
    # measures 6300 - 1100 = 5200 s: 100.7 events, after 1100 / 51.6 = 21 of warm-up. STCP at 1e-7
    # (W = 0.08 / 1e-7 = 800 000; at 0.91 of it, as measured at 1e-5: a loss every 0.275 s) measures
    # 120 - 5.5 = 114.5 s: 416 events, the 400 its slow return to equilibrium needs.
    # Every run, one flow: 100 events measured or more, and a link of at least 3 windows per RTT.
    from cclab.analysis.response import protocol_window
    from cclab.experiment import list_experiments, load_experiment, plan_experiment

    found = list_experiments()
    measured = {}
    for name in ("seed003-response-low", "seed003-response-1e-8"):
        plan = plan_experiment(load_experiment(found[name]))
        for run in plan.runs:
            config = run.run.config
            row = plan.experiment.spec.rows[run.row].name
            p = plan.experiment.spec.cells[run.cell].x
            seconds = (config["run"]["duration_ns"] - config["run"]["measure_from_ns"]) / 1e9
            measured[(row, p)] = seconds
            algorithm = {"TCP (NewReno)": "newreno", "AIMD(32, 0.125)": "aimd", "HSTCP": "highspeed",
                         "STCP": "scalable", "BIC": "bic"}[row]
            window = protocol_window(algorithm, p)
            # BIC's 1e-6 and 1e-7 runs were sized on the whole-packet variant's 0.60 of the curve, its 1e-8 run
            # on the real-valued one's 0.90: 1500 s x 1e-8 x 153 500 x 0.9 / 20 ms = 103.6 events.
            share = {"STCP": 0.91, "BIC": 0.60 if p > 1e-8 else 0.90}.get(row, 1.0)
            assert seconds * p * window * share / 0.020 >= 100, (row, p)
            assert config["bottleneck"]["rate_bps"] * 0.020 / (1500 * 8) >= 3 * window, (row, p)
    assert measured[("TCP (NewReno)", 1e-7)] == 5200 and measured[("STCP", 1e-7)] == 114.5
    assert len(measured) == 10 + 4     # STCP is left out at 1e-8 (8 million packets in flight)


def test_every_finding_of_a_study_has_its_own_text():
    # Two findings with one text and two verdicts ("holds" and "not checked") read as a contradiction; a
    # finding checked in parts names each part ([STCP on host A], [STCP on host B]).
    from cclab.experiment import list_experiments

    for experiment_id, path in list_experiments().items():
        texts = [claim.text for claim in load_experiment(path).spec.claims]
        assert len(texts) == len(set(texts)), experiment_id


def test_metric_labels_name_the_windows_measured(tmp_path):
    # "{window}" and "{length}" become the window the runs are measured over: 2-10 s and 8 s in full,
    # scaled by quick mode's 0.1 to 0.2-1 s and 0.8 s; the default window is the run's (10-20 s, 1-2 s).
    text = EXPERIMENT.replace('window = ["2s", "10s"]', 'window = ["2s", "10s"]\nlabel = "A, {window} ({length})"')
    text = text.replace('name = "total"\n[[metrics]]', 'name = "total"\nlabel = "last {length}"\n[[metrics]]', 1)
    text = text.replace("[quick]", '[quick]\ntitle = "toy, one cell"')
    experiment = load_experiment(write(tmp_path, text))
    full, quick = plan_experiment(experiment), plan_experiment(experiment, quick=True)
    assert [m.label for m in full.experiment.metrics] == ["last 10 s", "A, 2-10 s (8 s)"]
    assert [m.label for m in quick.experiment.metrics] == ["last 1 s", "A, 0.2-1 s (0.8 s)"]
    assert (full.experiment.spec.title, quick.experiment.spec.title) == ("toy", "toy, one cell")
# --- figures in the paper's form: reference lines and ratios to a row -----------------------------------

RATIO = EXPERIMENT.replace('''[[claims]]''', '''[[figures]]
kind = "lines"
metric = "total"
ratio_to_row = "reno"
references = [{ y = 1.0, label = "baseline" }]
[[claims]]''')


def test_a_lines_figure_draws_each_row_over_the_ratio_row(tmp_path):
    from types import SimpleNamespace

    from cclab.reproduce import Stats
    from cclab.reproduction_report import _line_panels

    experiment = load_experiment(write(tmp_path, RATIO))
    figure = experiment.spec.figures[0]
    assert figure.references[0].y == 1.0 and figure.references[0].x is None
    # total: reno-cubic 9000 and 9500, reno 8000 and 10000: ratios 9000 / 8000 = 1.125, 9500 / 10000 = 0.95.
    means = {(0, 0): 9000.0, (0, 1): 9500.0, (1, 0): 8000.0, (1, 1): 10000.0}
    outcome = SimpleNamespace(experiment=experiment,
                              stats=lambda metric, r, c: Stats(means[r, c], 50.0, means[r, c], means[r, c], 3))
    _, panels = _line_panels(outcome, figure, [0, 1], [0, 1])
    [(_, lines)] = panels
    assert [(label, x, mean, spread) for label, _, x, mean, spread, _ in lines] == \
        [("reno-cubic", [0.5, 1.0], [1.125, 0.95], [0.0, 0.0])]


@pytest.mark.parametrize("figure, message", [
    ('ratio_to_row = "nope"', "figures.0.ratio_to_row: 'nope' is not defined; use one of reno-cubic, reno"),
    ('references = [{ x = 1.0, y = 1.0, label = "both" }]', "exactly one of x (vertical) and y (horizontal)"),
])
def test_bad_figure_references_and_ratios_are_refused(tmp_path, figure, message):
    text = EXPERIMENT.replace("[[claims]]", f'[[figures]]\nkind = "lines"\nmetric = "total"\n{figure}\n[[claims]]')
    with pytest.raises(ScenarioError) as caught:
        load_experiment(write(tmp_path, text))
    assert message in str(caught.value)


def test_a_product_metric_multiplies_the_cells_means(tmp_path):
    # Seed 002's E[t_out] = E[N_tout] E[T0]: timeouts 1 and 3 per flow (mean 2), mean RTO 2 and 4 s (mean
    # 3 s): 2 x 3 = 6 s, or 0.06 of 100 s; not the mean of each flow's product ((1x2 + 3x4) / 2 = 7).
    from cclab.reproduce import _products

    text = EXPERIMENT.replace('name = "a"\n', 'name = "a"\nof = "product"\nfactors = ["total", "b"]\nper = "100s"\n')
    text = text.replace("[[rows]]", '[[metrics]]\nname = "b"\n[[rows]]', 1)
    experiment = load_experiment(write(tmp_path, text))
    plan = plan_experiment(experiment)
    values = {("total", 0, 0): np.array([1.0, 3.0]), ("b", 0, 0): np.array([2.0, 4.0]),
              ("total", 0, 1): np.array([1.0])}   # no "b" in cell 1: no product there
    products = _products(experiment.metric("a"), values, plan)
    assert list(products) == [("a", 0, 0)]
    assert products[("a", 0, 0)][0] == pytest.approx(0.06)
