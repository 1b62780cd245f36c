"""The page of a stored sweep lists its points in the grid's order, not as the store sorts them (as text).

The store orders runs by their params JSON, so a buffer grid of 0.1, 0.5, 1, 2 and 10 BDP came out as
0.1bdp, 0.5bdp, 10bdp, 1bdp, 2bdp, and rates as 100Mbps, 10Mbps, 1Gbps, 20Mbps.
"""

import json

from cclab.stored_sweep_report import point_order, value_order


def test_buffer_sizes_in_bdp_come_in_numeric_order():
    values = ["0.1bdp", "0.5bdp", "10bdp", "1bdp", "2bdp"]  # the store's (text) order
    assert sorted(values, key=value_order) == ["0.1bdp", "0.5bdp", "1bdp", "2bdp", "10bdp"]


def test_rates_and_durations_by_their_value_whatever_the_unit():
    assert sorted(["100Mbps", "10Mbps", "1Gbps", "500kbps"], key=value_order) == \
        ["500kbps", "10Mbps", "100Mbps", "1Gbps"]
    assert sorted(["1s", "100ms", "2min", "20ms"], key=value_order) == ["20ms", "100ms", "1s", "2min"]
    assert sorted([0.01, 0.001, 0.1], key=value_order) == [0.001, 0.01, 0.1]


def test_points_are_ordered_field_by_field_the_first_outermost():
    points = [{"flows.0.cc": cc, "network.bottleneck.queue.size": q}
              for cc in ("newreno", "cubic") for q in ("1bdp", "0.2bdp", "10bdp")]
    params = {json.dumps(p, sort_keys=True): p for p in points}
    ordered = [params[text] for text in point_order(params, ["flows.0.cc", "network.bottleneck.queue.size"])]
    assert [(p["flows.0.cc"], p["network.bottleneck.queue.size"]) for p in ordered] == [
        ("cubic", "0.2bdp"), ("cubic", "1bdp"), ("cubic", "10bdp"),
        ("newreno", "0.2bdp"), ("newreno", "1bdp"), ("newreno", "10bdp")]
