"""Distributions of every RTT measurement of a flow, from the engine's per-flow histograms (`run.rtt_histogram`).

The engine counts each measurement in a log-linear bucket (64 per power of two: a bucket is at most 1/64 of
its values, 1.6 %) and hands over one row per bucket with measurements: `low_ns`, `high_ns` (every value
counted in the row lies in [low_ns, high_ns]; the flow's first row starts at its smallest measurement and its
last ends at its largest, exactly) and `count`. So:
- the CDF is exact at each row's upper bound: P(RTT <= high_ns of row k) = (counts of rows 1..k) / total;
- a quantile is the row holding the ceiling rank, reported at its middle (the engine's rule for completion
  times), so within half a bucket (0.8 %) of the true one;
- the minimum RTT is exact (the first row's low_ns), which is what seed 002's queueing time subtracts.
Everything here works on the rows (a few hundred per flow), never on the measurements.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np


class HistogramError(ValueError):
    """Rows that are not one flow's histogram (unordered, overlapping, or empty)."""


def _rows(low_ns, high_ns, count) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    low = np.asarray(low_ns, dtype=np.int64)
    high = np.asarray(high_ns, dtype=np.int64)
    n = np.asarray(count, dtype=np.int64)
    if not (len(low) == len(high) == len(n)):
        raise HistogramError("low_ns, high_ns and count must have one value per row")
    if len(low) and (np.any(high < low) or np.any(low[1:] <= high[:-1]) or np.any(n <= 0)):
        raise HistogramError("rows must be disjoint, in increasing order, each with a positive count")
    return low, high, n


def middles_ms(low_ns, high_ns) -> np.ndarray:
    """Each row's middle, ms."""
    return (np.asarray(low_ns, dtype=float) + np.asarray(high_ns, dtype=float)) / 2 / 1e6


def quantiles_ms(low_ns, high_ns, count, probabilities: Sequence[float]) -> np.ndarray:
    """The q-quantiles (0 < q <= 1) of one flow's measurements, ms: the row holding the smallest
    measurement with at least ceil(q n) at or below it, at its middle. NaN for a flow without measurements."""
    low, high, n = _rows(low_ns, high_ns, count)
    if not len(n):
        return np.full(len(probabilities), np.nan)
    cumulative = np.cumsum(n)
    total = int(cumulative[-1])
    ranks = np.clip(np.ceil(np.asarray(probabilities, dtype=float) * total), 1, total)
    rows = np.searchsorted(cumulative, ranks, side="left")
    return middles_ms(low[rows], high[rows])


def cdf(low_ns, high_ns, count) -> tuple[np.ndarray, np.ndarray]:
    """(x_ms, p): P(RTT <= x) at each row's upper bound, exact there."""
    _, high, n = _rows(low_ns, high_ns, count)
    cumulative = np.cumsum(n)
    if not len(n):
        return np.zeros(0), np.zeros(0)
    return high / 1e6, cumulative / cumulative[-1]


def measurements_ms(columns: Mapping[str, np.ndarray], flows: Sequence[int], queueing: bool = False) -> np.ndarray:
    """Every measurement of these flows, ms, each at its row's middle (each row's middle repeated count
    times), flow by flow in increasing order; with `queueing`, less the flow's smallest measurement (exact:
    seed 002's t_q = RTT - minimum RTT, its footnote 1). For pooling into the CDFs of a study: the array
    has one value per ACK that gave a measurement (about 1000 for a 100-s flow at 150 kbit/s)."""
    flow = np.asarray(columns["flow"])
    chunks = []
    for f in flows:
        mine = flow == f
        low, high, n = _rows(np.asarray(columns["low_ns"])[mine], np.asarray(columns["high_ns"])[mine],
                             np.asarray(columns["count"])[mine])
        if not len(n):
            continue
        values = np.repeat(middles_ms(low, high), n)
        if queueing:
            values = values - low[0] / 1e6
        chunks.append(values)
    return np.concatenate(chunks) if chunks else np.zeros(0)
