"""Seed 002's per-flow figures (cclab.measures FLOW_FIGURES), on a hand-made run of two flows."""

import numpy as np
import pandas as pd
import pytest

from cclab.measures import measure

CONFIG = {"run": {"measure_from_ns": 0, "duration_ns": 400_000_000}, "bottleneck": {"rate_bps": 0},
          "packet_size": 1500, "header_size": 40}
SUMMARY = pd.DataFrame({"flow": [1, 0], "timeouts": [3, 1], "retransmissions": [5, 0], "packets_sent": [50, 100],
                        "goodput_bps": [100e3, 300e3], "delivered_bps": [110e3, 330e3],
                        "mean_rtt_s": [0.5, 1.25], "cc": ["reno", "cubic"]})
# Samples at 0, 0.1, ..., 0.4 s. Flow 0: RTT 1, 1, 2, 2 s and NaN before its first ACK; RTO 3 s throughout.
# Flow 1: RTT 0.5 s throughout, RTO 1, 1, 2, 2, 4 s.
SERIES = pd.DataFrame({
    "time_s": np.repeat([0.0, 0.1, 0.2, 0.3, 0.4], 2),
    "flow": [0, 1] * 5,
    "rtt_s": [np.nan, 0.5, 1.0, 0.5, 1.0, 0.5, 2.0, 0.5, 2.0, 0.5],
    "rto_s": [3.0, 1.0, 3.0, 1.0, 3.0, 2.0, 3.0, 2.0, 3.0, 4.0],
})


def figure(of, flows="each", **kw):
    return measure(of, flows, None, CONFIG, SUMMARY, lambda: SERIES, **kw)


def test_per_flow_figures_in_flow_order():
    assert list(figure("timeouts")) == [1.0, 3.0]
    assert list(figure("retransmissions")) == [0.0, 10.0]            # 5 of 50 packets
    assert list(figure("rtt_ms")) == [1500.0, 500.0]                 # NaN sample left out: (1+1+2+2)/4
    assert list(figure("rtt_std_ms")) == [500.0, 0.0]                # population sd of 1,1,2,2
    assert list(figure("queueing_ms")) == [500.0, 0.0]               # mean 1.5 s less min 1 s
    assert list(figure("rto_s")) == [3.0, 2.0]                       # (1+1+2+2+4)/5
    assert list(figure("timeout_time_s")) == [3.0, 6.0]              # 1 x 3 s, 3 x 2 s
    assert figure("timeouts", flows="mean") == 2.0


def test_utilisation_of_a_nominal_rate():
    # Delivered 110 + 330 kbit/s of a nominal 880 kbit/s: 0.5. The link's own rate (0: a modelled rate)
    # cannot serve.
    assert figure("utilisation", flows="sum", nominal_bps=880_000) == pytest.approx(0.5)
    with pytest.raises(Exception, match="nominal"):
        figure("utilisation", flows="sum")


def test_every_rtt_and_queueing_sample_flow_by_flow():
    # Flow 0's four samples 1, 1, 2, 2 s (its NaN left out), then flow 1's five of 0.5 s. Queueing: each
    # sample less its own flow's smallest: 0, 0, 1, 1 s for flow 0 and 0 s five times for flow 1.
    assert list(figure("rtt_ms", flows="samples")) == [1000.0, 1000.0, 2000.0, 2000.0] + [500.0] * 5
    assert list(figure("queueing_ms", flows="samples")) == [0.0, 0.0, 1000.0, 1000.0] + [0.0] * 5
    # Only the flows measured: flow 1 runs reno.
    assert list(figure("rtt_ms", flows="samples", cc="reno")) == [500.0] * 5
    # A window keeps the samples inside it: 0.2-0.3 s holds flow 0's 1 and 2 s and two of flow 1's.
    inside = measure("rtt_ms", "samples", (200_000_000, 300_000_000), CONFIG, SUMMARY, lambda: SERIES)
    assert list(inside) == [1000.0, 2000.0, 500.0, 500.0]
    with pytest.raises(Exception, match="sample by sample"):
        figure("timeouts", flows="samples")


def test_ack_weighted_mean_rtt_from_the_summary():
    # The engine's mean over every RTT measurement (one per ACK giving one), per flow in flow order:
    # flow 0 1.25 s, flow 1 0.5 s. Flow 0's samples in time average 1.5 s: the two weightings differ.
    assert list(figure("ack_rtt_ms")) == [1250.0, 500.0]


# The engine's RTT histograms of the same two flows (run.rtt_histogram; bounds in ns, every measurement of
# a row within them). Flow 0: 3 measurements in [1.000, 1.008] s, 1 in [1.984, 2.000] s; flow 1: 5 at
# exactly 0.5 s (one row whose bounds are both its smallest and largest measurement).
HISTOGRAM = pd.DataFrame({"flow": [0, 0, 1], "low_ns": [1_000_000_000, 1_984_000_000, 500_000_000],
                          "high_ns": [1_008_000_000, 2_000_000_000, 500_000_000], "count": [3, 1, 5]})


def test_every_rtt_measurement_from_the_histograms():
    # Each measurement at its row's middle: flow 0 (1000 + 1008) / 2 = 1004 ms three times and
    # (1984 + 2000) / 2 = 1992 ms once, then flow 1's 500 ms five times.
    acks = figure("rtt_ms", flows="acks", rtt_histogram=lambda: HISTOGRAM)
    assert list(acks) == [1004.0] * 3 + [1992.0] + [500.0] * 5
    # Queueing: less the flow's smallest measurement, which is exact (the first row's low bound, 1000 ms):
    # 4 ms three times, 992 ms once; flow 1's are all 0.
    queueing = figure("queueing_ms", flows="acks", rtt_histogram=lambda: HISTOGRAM)
    assert list(queueing) == [4.0] * 3 + [992.0] + [0.0] * 5
    assert list(figure("rtt_ms", flows="acks", cc="reno", rtt_histogram=lambda: HISTOGRAM)) == [500.0] * 5
    with pytest.raises(Exception, match="run.rtt_histogram = true"):
        figure("rtt_ms", flows="acks")
    with pytest.raises(Exception, match="ACK by ACK"):
        figure("timeouts", flows="acks", rtt_histogram=lambda: HISTOGRAM)
