"""The synchronisation ratio (seed 003, Section III) on hand-made loss times, counted by hand."""

import numpy as np
import pytest

from cclab.analysis.synchronisation import (SynchronisationError, loss_times_by_flow, synchronisation_ratio,
                                            threshold_flows)

S = 1_000_000_000  # ns per second


def _flows():
    # Flows 0-2 lose every 10 s, so the mean gap is 10 s and the measurement interval 1 s; flow 3 loses once
    # (no gap of its own, but it still counts in its interval). Over [0, 40 s): 40 intervals.
    #   flow 0: 1.0, 11.0, 21.0, 31.0 s -> intervals 1, 11, 21, 31
    #   flow 1: 1.5, 11.5, 21.5, 31.5 s -> intervals 1, 11, 21, 31
    #   flow 2: 5, 15, 25, 35 s         -> intervals 5, 15, 25, 35
    #   flow 3: 31.2 s                  -> interval 31
    # Flows losing per interval: 1, 11, 21 -> 2; 31 -> 3; 5, 15, 25, 35 -> 1: 8 intervals with a loss.
    return [np.array([1.0, 11.0, 21.0, 31.0]) * S, np.array([1.5, 11.5, 21.5, 31.5]) * S,
            np.array([5.0, 15.0, 25.0, 35.0]) * S, np.array([31.2]) * S]


@pytest.mark.parametrize("threshold, synchronised, ratio", [(1, 8, 1.0), (2, 4, 0.5), (3, 1, 0.125), (4, 0, 0.0)])
def test_ratio_counts_intervals_with_enough_flows_losing(threshold, synchronised, ratio):
    sync = synchronisation_ratio([t.astype(np.int64) for t in _flows()], threshold, 0, 40 * S)
    assert sync.interval_ns == 1 * S
    assert (sync.intervals_with_loss, sync.intervals_synchronised, sync.ratio) == (8, synchronised, ratio)


def test_a_flow_counts_once_per_interval():
    # Interval forced to 1 s. Flow 0 loses twice in [2, 3) s and flow 1 once there: 2 flows, not 3; flow 1's
    # loss at 7 s is alone. Threshold 2: 1 of the 2 intervals with a loss.
    times = [np.array([2_100_000_000, 2_900_000_000]), np.array([2_500_000_000, 7_000_000_000])]
    sync = synchronisation_ratio(times, 2, 0, 10 * S, interval_ns=S)
    assert (sync.intervals_with_loss, sync.intervals_synchronised, sync.ratio) == (2, 1, 0.5)
    assert synchronisation_ratio(times, 3, 0, 10 * S, interval_ns=S).intervals_synchronised == 0


def test_span_excludes_events_outside_it():
    # Measuring over [20 s, 40 s): flows 0-2 keep one 10 s gap each (interval 1 s); intervals from 20 s:
    # 1 (21.0, 21.5) -> 2 flows, 5 (25) -> 1, 11 (31.0, 31.5, 31.2) -> 3, 15 (35) -> 1.
    sync = synchronisation_ratio([t.astype(np.int64) for t in _flows()], 2, 20 * S, 40 * S)
    assert (sync.interval_ns, sync.intervals_with_loss, sync.intervals_synchronised) == (S, 4, 2)


def test_thresholds_are_shares_of_the_flows():
    # 25 % and 50 % of the paper's 20 HSTCP flows.
    assert (threshold_flows(0.25, 20), threshold_flows(0.5, 20), threshold_flows(0.25, 2)) == (5, 10, 1)


def test_no_gap_is_an_error():
    with pytest.raises(SynchronisationError, match="two loss events"):
        synchronisation_ratio([np.array([S]), np.array([], dtype=np.int64)], 1, 0, 10 * S)


def test_engine_columns_split_by_flow():
    columns = {"flow": np.array([0, 0, 2]), "time_ns": np.array([5, 9, 7])}
    split = loss_times_by_flow(columns, [0, 1, 2])
    assert [list(t) for t in split] == [[5, 9], [], [7]]


def test_experiment_metric_measures_the_flows_of_one_algorithm():
    import pandas as pd

    from cclab.measures import MeasureError, measure

    # Flows 0 and 1 run HSTCP, flow 2 NewReno (its losses must not count); a group row is ignored.
    # HSTCP losses: flow 0 at 1, 11, 21, 31 s, flow 1 at 1.5, 11.5, 21.5, 35 s: gaps 10, 10, 10 and
    # 10, 10, 13.5 -> means 10 and 11.167 -> 10.583 s; interval 1.0583 s. Over [0, 40 s) flow 0 is in
    # intervals 0 (1.0 < 1.058), 10, 19, 29; flow 1 in 1, 10, 20, 33: one interval (10) has both; 7 have one
    # or more. Threshold 0.5 x 2 = 1 flow: 7/7; threshold 1.0 -> 2 flows: 1/7.
    summary = pd.DataFrame({"flow": [0, 1, 2, None], "cc": ["highspeed", "highspeed", "newreno", None],
                            "kind": ["flow", "flow", "flow", "group"]})
    events = pd.DataFrame({"flow": [0] * 4 + [1] * 4 + [2] * 3,
                           "time_ns": np.array([1, 11, 21, 31, 1.5, 11.5, 21.5, 35, 1.2, 11.2, 21.2]) * S})
    config = {"run": {"measure_from_ns": 0, "duration_ns": 40 * S}}
    both = measure("synchronisation", "sum", None, config, summary, lambda: None, cc="highspeed", threshold=1.0,
                   loss_events=lambda: events)
    assert both == pytest.approx(1 / 7)
    assert measure("synchronisation", "sum", None, config, summary, lambda: None, cc="highspeed", threshold=0.5,
                   loss_events=lambda: events) == 1.0
    with pytest.raises(MeasureError, match="not stored"):
        measure("synchronisation", "sum", None, config, summary, lambda: None, threshold=0.5)


def test_only_experiments_measuring_synchronisation_record_loss_events():
    # The engine keeps loss-event times only when asked (they grow with simulated time): Fig. 2 measures the
    # ratio and asks in every run; Tables 2-3 do not, and their configs do not even name the switch, so
    # runs stored before it existed keep their keys.
    from cclab.experiment import list_experiments, load_experiment, plan_experiment

    experiments = list_experiments()
    figure2 = plan_experiment(load_experiment(experiments["seed003-figure2"]), quick=True)
    assert figure2.runs and all(r.run.config["run"]["record_loss_events"] is True for r in figure2.runs)
    tables = plan_experiment(load_experiment(experiments["seed003-table2-3"]), quick=True)
    assert tables.runs and all("record_loss_events" not in r.run.config["run"] for r in tables.runs)
