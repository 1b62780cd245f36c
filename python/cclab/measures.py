"""Metrics of one run, from its stored summary (one row per flow) and, for windows, its time series.

- `delivered_bps`: packets delivered in order to the receiver x packet size (the unit of seed 000's tables:
  199.8 Mbit/s on a 200 Mbit/s link); `goodput_bps`: the same in payload bytes.
- `utilisation`: bits the bottleneck put on the wire / what it could have carried (rate x window), 1.0 = the
  link was busy the whole window. From the link's own byte count (the summary over the run's measurement
  window, the queue series' cumulative `bytes_tx` over any other), so it cannot exceed 1 the way in-order
  deliveries can (below); the count is taken when a packet's transmission starts, which can put a window
  at most one packet over, and that packet is clipped off.
- `clip = True` on a rate (measure(..., clip=True)): the rate clipped to what crossed the bottleneck in the
  window. In-order delivery is bursty: a hole filled just after the window opens releases packets that
  crossed the link before it, so the in-order count over a window can exceed the link's capacity (200.4
  Mbit/s on 200 Mbit/s). Clipped, the flows' deliveries are scaled down, all by the same factor, until their
  sum is no more than the bytes the bottleneck transmitted in the window.
- `synchronisation`: seed 003's synchronisation ratio (Section III, `cclab.analysis.synchronisation`) of the
  flows measured (those running `cc`, or all the scenario's flows), with `threshold` a share of them.
- `jain`: Jain's fairness index of the flows' delivered rates, (sum g)^2 / (N sum g^2) (Jain, Chiu, Hawe 1984;
  seed 000, Section III-B); with `every`, the mean of the indices over consecutive intervals of that length
  (seed 003, Figs. 10-11: every 50 s).
- `share`: the summed share of capacity of groups of flows or connections (the engine's `share_of_capacity`:
  goodput over the capacity of the group's route, in the measurement window; seed 003, Fig. 9).
- `bic_phase`: the share of the flows' window samples in one of BIC's modes (`cclab.analysis.bic_phases`).
- Per-flow figures of seed 002 (Tables 3-6, Fig. 6): `timeouts` (retransmission timeouts of the flow),
  `retransmissions` (% of the data packets sent that were retransmissions), from the summary; `rtt_ms`,
  `rtt_std_ms` (mean and standard deviation of the flow's RTT samples, one per sample interval, as Web100
  polled them), `queueing_ms` (mean RTT less the flow's minimum RTT: the study's t_q, its footnote 1),
  `rto_s` (mean retransmission timeout in force, backoff included: the study's T0), `timeout_time_s`
  (timeouts x mean RTO: the study's t_out = N_tout T0, Section 5), from the time series over the
  measurement window; `transfer_bps` (a finite transfer's size / completion time); `ack_rtt_ms` (the mean
  of every RTT measurement the sender took, one per ACK that gave one (Karn's rule: none from a
  retransmitted segment), from the engine's summary: the ACK-weighted mean, beside `rtt_ms`'s
  time-weighted one).
- `flows = "samples"` (rtt_ms and queueing_ms only): every sample itself, each flow's samples over the
  window pooled, for the study's Figs. 4-5 (CDFs of RTT and queueing-time samples). An RTT sample is the
  flow's latest RTT measurement at a sample instant (every `run.sample_interval`), so the samples weigh
  time, not ACKs: while no ACK arrives (a stall) the last measurement is sampled again and again. A
  queueing-time sample is an RTT sample less the flow's smallest RTT sample (the study's footnote 1).
- `flows = "acks"` (rtt_ms and queueing_ms only): every RTT measurement the sender took over the window
  (one per ACK that gave one, Karn's rule), from the engine's per-flow histogram (`run.rtt_histogram`,
  `cclab.analysis.rtt_histogram`): ACK-weighted where the samples weigh time. Each measurement is its
  bucket's middle (within 0.8 %); a queueing time is it less the flow's smallest measurement (exact).
A metric with a `window` = [t1, t2] is computed from the cumulative `delivered` column of the time series:
(delivered(t2) - delivered(t1)) x size / (t2 - t1); both instants must be sample times. Without a window the
engine's own figures over [run.measure_from, run.duration] are used.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from .errors import CclabError


class MeasureError(CclabError):
    """A metric that cannot be computed from what the run recorded."""


def _delivered_at(series: pd.DataFrame, flows: int, t_ns: int) -> np.ndarray:
    """Cumulative packets delivered per flow at instant t (a sample time; t = 0: nothing yet)."""
    if t_ns == 0:
        return np.zeros(flows)
    at = series[np.abs(series["time_s"].to_numpy() * 1e9 - t_ns) < 1e3]  # within 1 µs: float seconds
    if len(at) != flows:
        raise MeasureError(f"the time series has no sample at {t_ns / 1e9:g} s for every flow; "
                           "set run.sample_interval to a divisor of the metric windows")
    return at.sort_values("flow")["delivered"].to_numpy(dtype=float)


def flow_rates(of: str, window: tuple[int, int] | None, config: dict, summary: pd.DataFrame,
               series: Callable[[], pd.DataFrame]) -> np.ndarray:
    """Per-flow rate in bit/s (delivered, or goodput for `goodput_bps`), in flow order."""
    summary = summary.sort_values("flow")
    column = "goodput_bps" if of == "goodput_bps" else "delivered_bps"
    if window is None or window == (config["run"]["measure_from_ns"], config["run"]["duration_ns"]):
        return summary[column].to_numpy(dtype=float)
    start, end = window
    if end > config["run"]["duration_ns"]:
        raise MeasureError(f"the window ends at {end / 1e9:g} s, after the run ({config['run']['duration_ns'] / 1e9:g} s)")
    data = series()
    flows = len(summary)
    packets = _delivered_at(data, flows, end) - _delivered_at(data, flows, start)
    size = config["packet_size"] - (config["header_size"] if of == "goodput_bps" else 0)
    return packets * size * 8 / ((end - start) / 1e9)


def _bytes_at(queue: pd.DataFrame, t_ns: int) -> float | None:
    """The bottleneck's cumulative bytes on the wire at a sample time (None: no sample there)."""
    if t_ns == 0:
        return 0.0
    at = queue[np.abs(queue["time_s"].to_numpy() * 1e9 - t_ns) < 1e3]  # within 1 µs: float seconds
    return float(at["bytes_tx"].iloc[0]) if len(at) else None


def link_bytes(window: tuple[int, int], config: dict, summary: pd.DataFrame,
               queue: Callable[[], pd.DataFrame] | None) -> float:
    """Bytes the bottleneck put on the wire in the window: from the queue series' cumulative count, or, for
    the run's measurement window, from the summary's utilisation (the engine's count over the same window)."""
    start, end = window
    data = queue() if queue is not None else None
    if data is not None and "bytes_tx" in data:
        first, last = _bytes_at(data, start), _bytes_at(data, end)
        if first is not None and last is not None:
            return last - first
    default = (config["run"]["measure_from_ns"], config["run"]["duration_ns"])
    rate = config.get("bottleneck", {}).get("rate_bps", 0)
    if window == default and rate and "bottleneck_utilization" in summary:
        return float(summary["bottleneck_utilization"].iloc[0]) * rate * (end - start) / 1e9 / 8
    raise MeasureError(f"the bottleneck's bytes on the wire between {start / 1e9:g} s and {end / 1e9:g} s are not "
                       "stored (runs stored before cclab kept them, or no sample at those times); remove the run "
                       "from the store to compute it again")


def utilisation(window: tuple[int, int], config: dict, summary: pd.DataFrame,
                queue: Callable[[], pd.DataFrame] | None) -> float:
    """Bits on the wire over capacity in the window, at most 1 (see the module's note)."""
    start, end = window
    rate = config.get("bottleneck", {}).get("rate_bps", 0)
    default = (config["run"]["measure_from_ns"], config["run"]["duration_ns"])
    if window == default and "bottleneck_utilization" in summary:
        # The engine's own figure: against the capacity the link offered (a trace-driven link's too).
        value = float(summary["bottleneck_utilization"].iloc[0])
    elif rate:
        value = link_bytes(window, config, summary, queue) * 8 / (rate * (end - start) / 1e9)
    else:
        raise MeasureError("a link whose rate varies has its utilisation over the run's measurement window only; "
                           "for another window give the metric a nominal rate (`nominal`)")
    return min(1.0, value)


def realised_loss_rate(window: tuple[int, int], config: dict, summary: pd.DataFrame) -> float:
    """The bottleneck's random (error) losses per packet it put on the wire, over the run's measurement
    window: the loss rate a run realised, beside the `loss_rate` it was given. A few hundred losses are a
    sample: at p = 1e-7 the first 1e9 draws of seed 1's error stream hold 120 below p, not 100 (seed 003's
    response functions, docs/reproductions/seed003.md)."""
    if window != (config["run"]["measure_from_ns"], config["run"]["duration_ns"]):
        raise MeasureError("the realised loss rate is counted over the run's measurement window only")
    sent = int(summary["bottleneck_packets_forwarded"].iloc[0])
    return int(summary["bottleneck_error_drops"].iloc[0]) / sent if sent else float("nan")


def jain_index(rates: np.ndarray) -> float:
    """(sum x)^2 / (n sum x^2); 1 when every flow gets the same, 1/n when one gets everything."""
    total_sq = float(np.sum(rates * rates))
    if total_sq == 0.0:
        return float("nan")
    return float(np.sum(rates)) ** 2 / (len(rates) * total_sq)


def _window_samples(data: pd.DataFrame, window: tuple[int, int]) -> pd.DataFrame:
    """Samples at times t with window[0] <= t <= window[1] (1 µs slack: times are float seconds)."""
    t_ns = data["time_s"].to_numpy() * 1e9
    inside = data[(t_ns >= window[0] - 1e3) & (t_ns <= window[1] + 1e3)]
    if inside.empty:
        raise MeasureError(f"no sample between {window[0] / 1e9:g} s and {window[1] / 1e9:g} s")
    return inside


def state_means(column: str, window: tuple[int, int], summary: pd.DataFrame,
                series: Callable[[], pd.DataFrame]) -> np.ndarray:
    """Each flow's mean of a time-series column over the window, in flow order (NaN samples, such as a
    baseRTT before the first ACK, are left out)."""
    data = series()
    if column not in data:
        accepted = ", ".join(c for c in data.columns if c not in ("time_s", "flow"))
        raise MeasureError(f"the time series has no column {column!r}; it has {accepted}")
    inside = _window_samples(data, window)
    means = inside.groupby("flow")[column].mean()
    return np.array([means.get(flow, np.nan) for flow in sorted(summary["flow"])], dtype=float)


FLOW_FIGURES = ("timeouts", "retransmissions", "rtt_ms", "rtt_std_ms", "queueing_ms", "rto_s", "timeout_time_s",
                "transfer_bps", "ack_rtt_ms")
# The figures whose every sample can be measured (flows = "samples", or "acks" from the histograms).
SAMPLED_FIGURES = ("rtt_ms", "queueing_ms")


def flow_samples(of: str, span: tuple[int, int], flows: list[int], series: Callable[[], pd.DataFrame]) -> np.ndarray:
    """Every sample of `of` (SAMPLED_FIGURES) of these flows over the span, in ms, flow by flow and in time
    order within a flow; NaN samples (before a flow's first RTT measurement) are left out."""
    if of not in SAMPLED_FIGURES:
        raise MeasureError(f"only {' and '.join(SAMPLED_FIGURES)} are measured sample by sample, not {of}")
    data = _window_samples(series(), span)
    if "rtt_s" not in data:
        raise MeasureError("the time series has no column 'rtt_s'")
    data = data[data["flow"].isin(flows) & np.isfinite(data["rtt_s"].to_numpy())].sort_values(["flow", "time_s"])
    rtt = data["rtt_s"].to_numpy(dtype=float)
    if of == "queueing_ms":
        rtt = rtt - data.groupby("flow")["rtt_s"].transform("min").to_numpy(dtype=float)
    return rtt * 1e3


def ack_samples(of: str, flows: list[int], rtt_histogram: Callable[[], pd.DataFrame] | None) -> np.ndarray:
    """Every RTT measurement (or queueing time) of these flows over the window, ms, from the run's RTT
    histograms (`cclab.analysis.rtt_histogram.measurements_ms`)."""
    from .analysis.rtt_histogram import measurements_ms

    if of not in SAMPLED_FIGURES:
        raise MeasureError(f"only {' and '.join(SAMPLED_FIGURES)} are measured ACK by ACK, not {of}")
    if rtt_histogram is None:
        raise MeasureError("the run's RTT histograms are not stored: run it with run.rtt_histogram = true")
    rows = rtt_histogram()
    columns = {name: rows[name].to_numpy() for name in ("flow", "low_ns", "high_ns", "count")}
    return measurements_ms(columns, flows, queueing=of == "queueing_ms")


def flow_figures(of: str, span: tuple[int, int], summary: pd.DataFrame,
                 series: Callable[[], pd.DataFrame]) -> np.ndarray:
    """One of FLOW_FIGURES per flow, in flow order (NaN where a flow has no sample)."""
    summary = summary.sort_values("flow")
    if of == "timeouts":
        return summary["timeouts"].to_numpy(dtype=float)
    if of == "retransmissions":
        sent = summary["packets_sent"].to_numpy(dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(sent > 0, 100.0 * summary["retransmissions"].to_numpy(dtype=float) / sent, np.nan)
    if of == "ack_rtt_ms":
        if "mean_rtt_s" not in summary:
            raise MeasureError("the run's summary has no mean_rtt_s")
        return summary["mean_rtt_s"].to_numpy(dtype=float) * 1e3
    if of == "transfer_bps":
        if "completion_time_s" not in summary or "size_bytes" not in summary:
            raise MeasureError("no flow of this run is a finite transfer (give the flows a size)")
        return summary["size_bytes"].to_numpy(dtype=float) * 8 / summary["completion_time_s"].to_numpy(dtype=float)
    data = _window_samples(series(), span)
    column = "rto_s" if of in ("rto_s", "timeout_time_s") else "rtt_s"
    if column not in data:
        raise MeasureError(f"the time series has no column {column!r} (runs stored before it existed must be "
                           "computed again)")
    grouped = data[np.isfinite(data[column].to_numpy())].groupby("flow")[column]
    if of == "rtt_ms":
        per_flow = grouped.mean() * 1e3
    elif of == "rtt_std_ms":
        per_flow = grouped.std(ddof=0) * 1e3
    elif of == "queueing_ms":
        per_flow = (grouped.mean() - grouped.min()) * 1e3
    else:
        per_flow = grouped.mean()
        if of == "timeout_time_s":
            timeouts = summary.set_index("flow")["timeouts"].astype(float)
            per_flow = per_flow * timeouts.reindex(per_flow.index)
    return np.array([per_flow.get(flow, np.nan) for flow in summary["flow"]], dtype=float)


def combine(values: np.ndarray, flows: str | int) -> "float | np.ndarray":
    """Per-flow values (in flow order) to one number, or `each`: the values themselves (pooled over the
    replications, so that their mean and spread are over flows, as seed 002's tables are)."""
    if isinstance(flows, int):
        if not 0 <= flows < len(values):
            raise MeasureError(f"flow {flows} does not exist; the run has flows 0 to {len(values) - 1}")
        return float(values[flows])
    if len(values) == 0:
        raise MeasureError("no flow to measure")
    if flows in ("each", "samples", "acks"):
        return np.asarray(values, dtype=float)
    if flows == "ratio":
        if len(values) != 2:
            raise MeasureError(f"a ratio is flow 0 over flow 1, and needs two flows (there are {len(values)})")
        return float(values[0] / values[1]) if values[1] else float("inf")
    reduce = {"sum": np.sum, "mean": np.mean, "min": np.min, "max": np.max,
              "spread": lambda v: np.max(v) - np.min(v)}[flows]
    return float(reduce(values))


def synchronisation(summary: pd.DataFrame, cc: str | None, threshold: float | None, span: tuple[int, int],
                    loss_events: Callable[[], pd.DataFrame] | None, group: str | None = None) -> float:
    """Seed 003's synchronisation ratio over `span` of the scenario's flows running `cc` (all without it):
    intervals with at least ceil(threshold x flows) flows losing over intervals with at least one."""
    from .analysis.synchronisation import (SynchronisationError, loss_times_by_flow, synchronisation_ratio,
                                           threshold_flows)

    if loss_events is None:
        raise MeasureError("the run's loss-event times are not stored: run it with run.record_loss_events = true")
    flows = summary[summary["kind"] != "group"] if "kind" in summary else summary
    if cc is not None:
        flows = flows[flows["cc"] == cc]
    if group is not None:
        flows = flows[flows["group"] == group] if "group" in flows else flows.iloc[0:0]
    chosen = sorted(int(f) for f in flows["flow"])
    if not chosen:
        raise MeasureError(f"no flow runs {cc}" if cc else "no flow to measure")
    events = loss_events()
    columns = {"flow": events["flow"].to_numpy(), "time_ns": events["time_ns"].to_numpy()}
    try:
        sync = synchronisation_ratio(loss_times_by_flow(columns, chosen), threshold_flows(threshold, len(chosen)),
                                     span[0], span[1])
    except SynchronisationError as exc:
        raise MeasureError(str(exc)) from None
    return sync.ratio


def group_share(summary: pd.DataFrame, groups: str | list[str]) -> float:
    """The summed `share_of_capacity` of the named groups' rows (seed 003, Fig. 9)."""
    names = [groups] if isinstance(groups, str) else list(groups)
    rows = summary[summary["kind"] == "group"] if "kind" in summary else summary.iloc[0:0]
    known = set(rows["group"]) if "group" in rows else set()
    missing = [name for name in names if name not in known]
    if missing:
        raise MeasureError(f"no group {', '.join(map(repr, missing))}; the run has "
                           + (", ".join(sorted(known)) or "no groups"))
    return float(rows[rows["group"].isin(names)]["share_of_capacity"].sum())


def interval_jain(config: dict, summary: pd.DataFrame, series: Callable[[], pd.DataFrame],
                  span: tuple[int, int], every_ns: int, keep: np.ndarray) -> float:
    """Mean over consecutive intervals of `every_ns` in `span` of Jain's index of the kept flows' rates."""
    if (span[1] - span[0]) % every_ns:
        raise MeasureError(f"the window ({span[0] / 1e9:g} s to {span[1] / 1e9:g} s) is not a whole number of "
                           f"intervals of {every_ns / 1e9:g} s")
    indices = [jain_index(flow_rates("delivered_bps", (t, t + every_ns), config, summary, series)[keep])
               for t in range(span[0], span[1], every_ns)]
    return float(np.nanmean(indices)) if not all(np.isnan(indices)) else float("nan")


def bic_phase(series: Callable[[], pd.DataFrame], span: tuple[int, int], phase: str, flows: list[int]) -> float:
    """The share of the flows' window samples over `span` in one of BIC's modes (paper parameters)."""
    from .analysis.bic_phases import phase_share

    data = series()
    if "cc_w_max" not in data:
        raise MeasureError("the time series has no cc_w_max column: the flows measured must run BIC")
    inside = _window_samples(data, span)
    inside = inside[inside["flow"].isin(flows)].dropna(subset=["cc_w_max"])
    try:
        return phase_share(inside["cwnd"].to_numpy(), inside["cc_w_max"].to_numpy(), phase)
    except ValueError as exc:
        raise MeasureError(str(exc)) from None


def _kept(ordered: pd.DataFrame, cc: str | None, group: str | None) -> np.ndarray:
    """Which of the flows (in flow order) are measured: those running `cc` and in `group`, when given."""
    keep = np.ones(len(ordered), dtype=bool)
    if cc is not None:
        keep &= (ordered["cc"] == cc).to_numpy()
        if not keep.any():
            raise MeasureError(f"no flow runs {cc}; the run's flows run {', '.join(sorted(set(ordered['cc'])))}")
    if group is not None:
        keep &= (ordered["group"] == group).to_numpy() if "group" in ordered else False
        if not keep.any():
            raise MeasureError(f"no flow is in group {group!r}" + (f" and runs {cc}" if cc else ""))
    return keep


def measure(of: str, flows: str | int, window: tuple[int, int] | None, config: dict, summary: pd.DataFrame,
            series: Callable[[], pd.DataFrame], column: str | None = None, cc: str | None = None,
            queue: Callable[[], pd.DataFrame] | None = None, threshold: float | None = None,
            loss_events: Callable[[], pd.DataFrame] | None = None, group: str | list[str] | None = None,
            every_ns: int | None = None, phase: str | None = None, clip: bool = False,
            nominal_bps: int | None = None,
            rtt_histogram: Callable[[], pd.DataFrame] | None = None) -> "float | np.ndarray":
    """One metric value of one run, in base units (bit/s, a ratio, an index, packets or the column's);
    with `clip`, a rate clipped to what crossed the bottleneck in the window (see the module's note); with
    `flows = "each"`, one value per flow; with `flows = "samples"`, every sample (`flow_samples`); with
    `flows = "acks"`, every RTT measurement (`ack_samples`, from `rtt_histogram`)."""
    span = window or (config["run"]["measure_from_ns"], config["run"]["duration_ns"])
    if of == "synchronisation":
        return synchronisation(summary, cc, threshold, span, loss_events, group)
    if of == "share":
        return group_share(summary, group)
    if of == "loss_rate":
        if cc is not None or group is not None:
            raise MeasureError("the realised loss rate is the bottleneck's, every packet counted; it has no cc or group")
        return realised_loss_rate(span, config, summary)
    if of == "utilisation" and nominal_bps is None:
        # The link's own count: every packet it put on the wire, background traffic included.
        if cc is not None or group is not None:
            raise MeasureError("utilisation is the link's, every packet counted; for the share of some flows, "
                               "measure delivered_bps of those flows")
        return utilisation(span, config, summary, queue)
    if "kind" in summary:
        # A run with groups (traffic sources, named [[flows]]) has a row per group after the flows' rows.
        summary = summary[summary["kind"] != "group"]
    if of == "queue":
        if queue is None:
            raise MeasureError("the run's queue series is not available")
        return float(_window_samples(queue(), span)["queue_packets"].mean())
    ordered = summary.sort_values("flow")
    keep = _kept(ordered, cc, group)
    if flows == "samples":
        return flow_samples(of, span, [int(f) for f in ordered["flow"][keep]], series)
    if flows == "acks":
        return ack_samples(of, [int(f) for f in ordered["flow"][keep]], rtt_histogram)
    if of == "bic_phase" or every_ns:
        values = np.zeros(len(summary))
    elif of == "state":
        values = state_means(column, span, summary, series)
    elif of in FLOW_FIGURES:
        values = flow_figures(of, span, summary, series)
    else:
        values = flow_rates(of, window, config, summary, series)
    if clip and of in ("delivered_bps", "goodput_bps"):
        # Every flow's packets on the wire, against the link's bytes: one factor for all flows.
        delivered = flow_rates("delivered_bps", window, config, summary, series)
        delivered_bytes = float(np.sum(delivered)) * (span[1] - span[0]) / 1e9 / 8
        if delivered_bytes > 0:
            values = values * min(1.0, link_bytes(span, config, summary, queue) / delivered_bytes)
    values = values[keep]
    if of == "bic_phase":
        return bic_phase(series, span, phase, [int(f) for f in ordered["flow"][keep]])
    if of == "jain" and every_ns:
        return interval_jain(config, summary, series, span, every_ns, keep)
    if of == "jain":
        return jain_index(values)
    if of == "utilisation":
        # Of a nominal rate (a bearer's, seed 002): the flows' delivered rates over it.
        return float(np.sum(values)) / nominal_bps
    return combine(values, flows)
