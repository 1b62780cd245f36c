"""Quantiles and CDFs of every RTT measurement from the engine's histogram rows (cclab.analysis.rtt_histogram),
on rows worked out by hand; and the rows of a real run (run.rtt_histogram) read through Result."""

import numpy as np
import pytest

from cclab.analysis.rtt_histogram import HistogramError, cdf, measurements_ms, quantiles_ms

# One flow: 2 measurements in [100, 102] ms, 5 in [200, 204] ms, 3 in [400, 406] ms (10 in all).
LOW = [100_000_000, 200_000_000, 400_000_000]
HIGH = [102_000_000, 204_000_000, 406_000_000]
COUNT = [2, 5, 3]


def test_quantiles_take_the_row_holding_the_ceiling_rank_at_its_middle():
    # Ranks: q = 0.1 -> ceil(1) = 1st (row 1, middle 101 ms); 0.2 -> 2nd (row 1); 0.25 -> ceil(2.5) = 3rd
    # (row 2, 202 ms); 0.7 -> 7th (row 2: cumulative 2, 7, 10); 0.71 -> ceil(7.1) = 8th (row 3, 403 ms);
    # 1.0 -> 10th (row 3).
    got = quantiles_ms(LOW, HIGH, COUNT, [0.1, 0.2, 0.25, 0.7, 0.71, 1.0])
    assert list(got) == [101.0, 101.0, 202.0, 202.0, 403.0, 403.0]
    assert np.isnan(quantiles_ms([], [], [], [0.5])).all()


def test_the_cdf_is_exact_at_each_row_s_upper_bound():
    x, p = cdf(LOW, HIGH, COUNT)
    assert list(x) == [102.0, 204.0, 406.0]
    assert list(p) == [0.2, 0.7, 1.0]


def test_rows_that_overlap_or_go_backwards_are_refused():
    with pytest.raises(HistogramError):
        cdf([100, 50], [120, 60], [1, 1])
    with pytest.raises(HistogramError):
        quantiles_ms([100, 110], [120, 130], [1, 1], [0.5])


def test_measurements_and_queueing_times_per_flow():
    columns = {"flow": np.array([0, 0, 0, 1]), "low_ns": np.array(LOW + [50_000_000]),
               "high_ns": np.array(HIGH + [50_000_000]), "count": np.array(COUNT + [2])}
    assert list(measurements_ms(columns, [1])) == [50.0, 50.0]
    # Flow 0: 101 x2, 202 x5, 403 x3; less its smallest measurement, 100 ms (exact): 1, 102, 303.
    assert list(measurements_ms(columns, [0], queueing=True)) == [1.0] * 2 + [102.0] * 5 + [303.0] * 3
    assert len(measurements_ms(columns, [7])) == 0


def _two_flow_result():
    # Flow 0 has the three rows above; flow 1 has none (it measured nothing in the window).
    from cclab.result import Result

    return Result.from_engine(config={"run": {"rtt_histogram": True}},
                              summary={"flows": [{"flow": 0}, {"flow": 1}]}, series={},
                              rtt_histogram={"flow": np.array([0, 0, 0]), "low_ns": np.array(LOW),
                                             "high_ns": np.array(HIGH), "count": np.array(COUNT)})


@pytest.mark.parametrize("probability", [1.5, 0, -0.1, 50])
def test_result_quantiles_refuse_what_is_not_a_probability(probability):
    # 1.5 (or 50, a percentile written as one) used to give a "p150_ms" column holding the maximum, 403 ms.
    with pytest.raises(ValueError, match=r"is not a probability; use numbers in \(0, 1\]"):
        _two_flow_result().rtt_quantiles((0.5, probability))


def test_result_cdf_of_a_flow_that_does_not_exist_is_an_error_not_an_empty_frame():
    result = _two_flow_result()
    assert list(result.rtt_cdf(0)["cdf"]) == [0.2, 0.7, 1.0]
    assert result.rtt_cdf(1).empty  # a flow of the run without measurements: empty, rightly
    with pytest.raises(ValueError, match="rtt_cdf: 5 is not a flow of this run; use one of 0, 1"):
        result.rtt_cdf(5)
    quantiles = result.rtt_quantiles((0.5, 1.0))
    assert list(quantiles["p50_ms"])[0] == 202.0 and list(quantiles["p100_ms"])[0] == 403.0
