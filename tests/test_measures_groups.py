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
