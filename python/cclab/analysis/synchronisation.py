"""Synchronisation ratio of loss events, exactly as seed 003 (Xu, Harfoush, Rhee, BIC, INFOCOM 2004)
Section III defines it:

1. the mean interval between two consecutive loss events of a connection (here: each flow's mean gap
   between consecutive loss-event starts, averaged over the flows with at least two events);
2. the *measurement interval* is one tenth of that mean;
3. the run [start, end) is cut into measurement intervals, and in each one the distinct flows with at least
   one loss event are counted;
4. the ratio = intervals with at least `threshold` flows / intervals with at least one flow.

The paper counts flows "with at least one packet loss"; the engine records the start of each loss event
(entry into fast recovery, or a timeout outside recovery: `Simulation.loss_events()`), which is the packet
loss that made the flow reduce its window. Further losses inside the same recovery episode fall within
the same RTT, far shorter than a measurement interval at the paper's window sizes, so they would not
change which intervals a flow is counted in. Times are integer nanoseconds throughout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..errors import CclabError


class SynchronisationError(CclabError):
    """Loss times from which no synchronisation ratio can be formed."""


@dataclass(frozen=True)
class Synchronisation:
    ratio: float                 # intervals with >= threshold flows / intervals with >= 1 flow
    threshold: int               # flows that must lose within one interval
    interval_ns: int             # the measurement interval, one tenth of the mean loss-event gap
    intervals_with_loss: int     # measurement intervals with at least one flow losing
    intervals_synchronised: int  # ... with at least `threshold` flows losing


def mean_loss_gap_ns(loss_times_ns: Sequence[np.ndarray]) -> float:
    """Mean over flows (those with two events or more) of each flow's mean gap between loss events, ns."""
    gaps = [float(np.mean(np.diff(np.sort(t)))) for t in loss_times_ns if len(t) >= 2]
    if not gaps:
        raise SynchronisationError("no flow has two loss events, so there is no interval between them; "
                                   "run longer or measure over more flows")
    return float(np.mean(gaps))


def threshold_flows(fraction: float, flows: int) -> int:
    """The paper's thresholds are shares of the high-speed flows: 25 % and 50 % of 20 flows are 5 and 10."""
    return max(1, math.ceil(fraction * flows - 1e-9))


def synchronisation_ratio(loss_times_ns: Sequence[np.ndarray] | Mapping[int, np.ndarray], threshold: int,
                          start_ns: int, end_ns: int, interval_ns: int | None = None) -> Synchronisation:
    """The ratio over [start_ns, end_ns) for the flows whose loss-event times (ns) are given, one array per
    flow. `interval_ns` overrides the measurement interval (default: one tenth of `mean_loss_gap_ns`)."""
    flows = [np.asarray(t, dtype=np.int64) for t in
             (loss_times_ns.values() if isinstance(loss_times_ns, Mapping) else loss_times_ns)]
    if end_ns <= start_ns:
        raise SynchronisationError(f"the span ends ({end_ns} ns) before it starts ({start_ns} ns)")
    if threshold < 1:
        raise SynchronisationError(f"the threshold is a number of flows, at least 1 (got {threshold})")
    inside = [t[(t >= start_ns) & (t < end_ns)] for t in flows]
    if interval_ns is None:
        interval_ns = int(round(mean_loss_gap_ns(inside) / 10))
    if interval_ns <= 0:
        raise SynchronisationError(f"the measurement interval must be positive (got {interval_ns} ns)")
    slots = -(-(end_ns - start_ns) // interval_ns)  # ceiling: the last interval may be cut short
    losing = np.zeros(slots, dtype=np.int64)
    for times in inside:
        # Each flow counts once per interval however many events it has there.
        losing[np.unique((times - start_ns) // interval_ns)] += 1
    with_loss = int(np.count_nonzero(losing >= 1))
    synchronised = int(np.count_nonzero(losing >= threshold))
    return Synchronisation(ratio=synchronised / with_loss if with_loss else float("nan"), threshold=threshold,
                           interval_ns=interval_ns, intervals_with_loss=with_loss,
                           intervals_synchronised=synchronised)


def loss_times_by_flow(columns: Mapping[str, np.ndarray], flows: Sequence[int]) -> list[np.ndarray]:
    """Per-flow arrays of loss-event times (ns) from `Simulation.loss_events()` columns {flow, time_ns},
    for the given flows in that order (a flow without loss gets an empty array)."""
    flow = np.asarray(columns.get("flow", []), dtype=np.int64)
    time_ns = np.asarray(columns.get("time_ns", []), dtype=np.int64)
    return [time_ns[flow == f] for f in flows]
