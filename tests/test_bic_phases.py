"""BIC's modes read from window samples (seed 003, Fig. 5), on windows worked out by hand."""

import numpy as np
import pytest

from cclab.analysis.bic_phases import bic_phases, phase_share


def test_modes_follow_the_distance_to_w_max():
    # Paper parameters: S_max 32, b 2, low_window 14. W_max = 1000:
    #   cwnd 900: step (1000 - 900) / 2 = 50 > 32        -> additive increase
    #   cwnd 936: step 32, not above S_max               -> binary search
    #   cwnd 999: step 0.5                               -> binary search
    #   cwnd 1000: at W_max, step (1000 - 1000) / 1 = 0  -> max probing
    #   cwnd 1032: step 32                               -> max probing
    #   cwnd 1033: step 33 > 32                          -> additive increase
    # cwnd 10 (below low_window 14) and W_max 0 (no loss yet) are Reno / slow start: tcp.
    cwnd = np.array([900, 936, 999, 1000, 1032, 1033, 10, 500])
    w_max = np.array([1000, 1000, 1000, 1000, 1000, 1000, 1000, 0])
    assert list(bic_phases(cwnd, w_max)) == ["additive", "binary", "binary", "probing", "probing", "additive",
                                             "tcp", "tcp"]


def test_shares_count_samples():
    # Of the 8 samples above, 2 are binary search: 0.25.
    cwnd = np.array([900, 936, 999, 1000, 1032, 1033, 10, 500])
    w_max = np.array([1000, 1000, 1000, 1000, 1000, 1000, 1000, 0])
    assert phase_share(cwnd, w_max, "binary") == 0.25
    assert phase_share(cwnd, w_max, "additive") == 0.25
    with pytest.raises(ValueError, match="not a BIC phase"):
        phase_share(cwnd, w_max, "cubic")
