"""Which of BIC's modes a window sample is in (seed 003, Section VI and Fig. 5): the mode follows from the
window and W_max alone, as the paper's pseudo-code picks its step (Section VI-A; `crates/engine/src/cc/bic.rs`,
`paper_cnt`, with b the search divisor):

- below W_max the step is (W_max - cwnd) / b: *binary search* while that is at most S_max, *additive
  increase* (the step clamped at S_max) when the distance is larger;
- at or above W_max the step is (cwnd - W_max) / (b - 1): *max probing* ("slow start": S_min, 2 S_min, 4 S_min,
  ...) while that is at most S_max, additive increase again beyond;
- below low_window BIC is Reno, and before its first loss (W_max still 0) it has no target: both are `tcp`.

Windows are in packets. The engine samples cwnd and W_max (`cc_w_max`) at the run's sample interval, so a
phase shorter than that interval can be missed; Fig. 5's runs sample every 50 ms.
"""

from __future__ import annotations

import numpy as np

PHASES = ("tcp", "additive", "binary", "probing")
PHASE_LABEL = {"tcp": "Reno / before the first loss", "additive": "additive increase",
               "binary": "binary search", "probing": "max probing"}


def bic_phases(cwnd: np.ndarray, w_max: np.ndarray, s_max: float = 32.0, b: float = 2.0,
               low_window: float = 14.0) -> np.ndarray:
    """The phase of each sample (one of PHASES), for BIC with the paper's S_max 32, b 2, low_window 14 unless
    told otherwise."""
    cwnd = np.asarray(cwnd, dtype=float)
    w_max = np.asarray(w_max, dtype=float)
    below = w_max - cwnd          # > 0: binary search or additive; <= 0: probing or additive
    phase = np.where(below > 0,
                     np.where(below / b > s_max, "additive", "binary"),
                     np.where(-below / (b - 1) > s_max, "additive", "probing"))
    return np.where((cwnd < low_window) | (w_max <= 0), "tcp", phase).astype(object)


def phase_share(cwnd: np.ndarray, w_max: np.ndarray, phase: str, **params: float) -> float:
    """Fraction of the samples in `phase` (NaN without samples)."""
    if phase not in PHASES:
        raise ValueError(f"{phase!r} is not a BIC phase; use one of {', '.join(PHASES)}")
    phases = bic_phases(cwnd, w_max, **params)
    return float(np.mean(phases == phase)) if len(phases) else float("nan")
