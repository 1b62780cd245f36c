"""Metrics of runs with groups (seed 003's background profile): group rows are skipped, `group` picks flows."""

import pandas as pd
import pytest

from cclab.measures import MeasureError, measure

CONFIG = {"run": {"measure_from_ns": 0, "duration_ns": 10}, "bottleneck": {"rate_bps": 100e6}}
# Flows 0-1 are the high-speed group, flow 2 background; then one row for each of two groups.
SUMMARY = pd.DataFrame({
    "kind": ["flow", "flow", "flow", "group", "group"], "flow": [0, 1, 2, None, None],
    "cc": ["bic", "bic", "newreno", None, None], "group": ["high-speed", "high-speed", "small", "high-speed", "web"],
    "delivered_bps": [60e6, 20e6, 10e6, None, None], "goodput_bps": [59e6, 19e6, 9e6, None, None],
    "bottleneck_utilization": [0.97] * 5,
})


def test_a_ratio_over_one_group():
    # 60 / 20 = 3: the two high-speed flows, not the background flow nor the group rows.
    assert measure("delivered_bps", "ratio", None, CONFIG, SUMMARY, lambda: None, group="high-speed") == 3.0
    # The sum of the flows, without the groups' NaN rows: 90 Mbit/s.
    assert measure("delivered_bps", "sum", None, CONFIG, SUMMARY, lambda: None) == 90e6
    with pytest.raises(MeasureError, match="group 'none'"):
        measure("delivered_bps", "sum", None, CONFIG, SUMMARY, lambda: None, group="none")
    with pytest.raises(MeasureError, match="group 'small' and runs bic"):
        measure("delivered_bps", "sum", None, CONFIG, SUMMARY, lambda: None, group="small", cc="bic")


def test_utilisation_with_groups_is_the_links_own():
    # The web connections are not scenario flows; the engine's figure counts every packet forwarded.
    assert measure("utilisation", "sum", None, CONFIG, SUMMARY, lambda: None) == 0.97


def test_share_sums_the_named_groups_rows():
    summary = SUMMARY.assign(share_of_capacity=[None, None, None, 0.6, 0.25])
    # high-speed 0.6 + web 0.25 = 0.85; one group alone is its own share.
    assert measure("share", "sum", None, CONFIG, summary, lambda: None, group=["high-speed", "web"]) == pytest.approx(0.85)
    assert measure("share", "sum", None, CONFIG, summary, lambda: None, group="web") == 0.25
    with pytest.raises(MeasureError, match="no group 'small'"):
        # 'small' has flows but no group row here: the share comes from group rows only.
        measure("share", "sum", None, CONFIG, summary, lambda: None, group="small")


def test_jain_every_interval_is_the_mean_of_the_intervals_indices():
    # Two flows sampled at 0, 10, 20 s (cumulative packets delivered). Over [0, 10 s) they deliver 100 and
    # 100 (index 1); over [10, 20 s) 300 and 100: (400)^2 / (2 x (90000 + 10000)) = 0.8. Mean 0.9.
    config = {"run": {"measure_from_ns": 0, "duration_ns": 20 * 10**9}, "packet_size": 1500, "header_size": 40}
    summary = pd.DataFrame({"flow": [0, 1], "cc": ["bic", "bic"], "delivered_bps": [1.0, 1.0]})
    series = pd.DataFrame({"time_s": [0.0, 0.0, 10.0, 10.0, 20.0, 20.0], "flow": [0, 1] * 3,
                           "delivered": [0, 0, 100, 100, 400, 200]})
    assert measure("jain", "sum", None, config, summary, lambda: series, every_ns=10 * 10**9) == pytest.approx(0.9)
    with pytest.raises(MeasureError, match="whole number of intervals"):
        measure("jain", "sum", None, config, summary, lambda: series, every_ns=15 * 10**9)
