"""The loss rate a run realised: the bottleneck's packet errors per packet it sent, in the window."""

import math

import pandas as pd
import pytest

from cclab.measures import MeasureError, measure

CONFIG = {"run": {"measure_from_ns": 5, "duration_ns": 10}, "bottleneck": {"rate_bps": 1e9}}
# Two flows' rows; the bottleneck's counters are the link's, the same on every row.
SUMMARY = pd.DataFrame({"flow": [0, 1], "cc": ["newreno", "newreno"], "delivered_bps": [1e6, 1e6],
                        "bottleneck_packets_forwarded": [2_000_000, 2_000_000], "bottleneck_error_drops": [3, 3]})


def test_the_realised_rate_is_errors_over_packets_sent():
    # 3 packets lost on the wire of 2 000 000 sent: 1.5e-6, whatever the flows.
    assert measure("loss_rate", "sum", None, CONFIG, SUMMARY, lambda: None) == pytest.approx(1.5e-6, rel=1e-12)


def test_nothing_sent_is_no_rate_and_other_windows_or_flows_are_refused():
    empty = SUMMARY.assign(bottleneck_packets_forwarded=0, bottleneck_error_drops=0)
    assert math.isnan(measure("loss_rate", "sum", None, CONFIG, empty, lambda: None))
    with pytest.raises(MeasureError, match="measurement window only"):
        measure("loss_rate", "sum", (6, 10), CONFIG, SUMMARY, lambda: None)
    with pytest.raises(MeasureError, match="no cc or group"):
        measure("loss_rate", "sum", None, CONFIG, SUMMARY, lambda: None, cc="newreno")
