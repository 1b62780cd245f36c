"""Seed 002's per-flow figures, the same for a simulated and a live run (De Cicco & Mascolo 2008, Section 4):

- RTT distribution: the flow's smoothed RTT (srtt_s) sampled over the measurement window, its mean,
  standard deviation and 10th / 50th / 90th percentiles (seconds). The samples are taken at a fixed
  interval, so each percentile is a share of time, as the paper's CDFs over RTT-versus-time traces.
- Queueing time: RTT minus the propagation time, "which can be evaluated as the minimum RTT" (Section 4.2,
  footnote 1): srtt minus the flow's smallest RTT seen (min_rtt_s when the kernel reports it, else the
  smallest srtt sample), mean and percentiles.
- Retransmission percentage: retransmitted segments / data segments sent x 100.

A simulation samples every run.sample_interval (`cclab compare` sets 10 ms); the live sampler every few ms.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

PERCENTILES = (10, 50, 90)


def rtt_figures(series: pd.DataFrame, flow: int, start_s: float = 0.0, end_s: float = float("inf")) -> dict:
    """RTT and queueing-time figures of one flow from its time series over [start_s, end_s]."""
    empty = {f"rtt_{k}_s": np.nan for k in ("mean", "std", *(f"p{p}" for p in PERCENTILES))}
    empty.update({f"queueing_{k}_s": np.nan for k in ("mean", *(f"p{p}" for p in PERCENTILES))})
    if series.empty or "srtt_s" not in series:
        return empty
    mine = series[(series["flow"] == flow) & (series["time_s"] >= start_s) & (series["time_s"] <= end_s)]
    srtt = mine["srtt_s"].to_numpy(dtype=float)
    srtt = srtt[np.isfinite(srtt) & (srtt > 0)]   # before the first RTT sample the kernel reports 0
    if srtt.size == 0:
        return empty
    base = np.nan
    if "min_rtt_s" in mine:
        kernel_min = mine["min_rtt_s"].to_numpy(dtype=float)
        kernel_min = kernel_min[np.isfinite(kernel_min) & (kernel_min > 0)]
        base = float(kernel_min.min()) if kernel_min.size else np.nan
    if not np.isfinite(base) and "rtt_s" in mine:
        samples = mine["rtt_s"].to_numpy(dtype=float)
        samples = samples[np.isfinite(samples) & (samples > 0)]
        base = float(samples.min()) if samples.size else np.nan
    if not np.isfinite(base):
        base = float(srtt.min())
    queueing = np.maximum(srtt - base, 0.0)
    figures = {"rtt_mean_s": float(srtt.mean()), "rtt_std_s": float(srtt.std())}
    figures.update({f"rtt_p{p}_s": float(np.percentile(srtt, p)) for p in PERCENTILES})
    figures["queueing_mean_s"] = float(queueing.mean())
    figures.update({f"queueing_p{p}_s": float(np.percentile(queueing, p)) for p in PERCENTILES})
    return figures


def retransmission_percent(retransmissions: float, packets_sent: float) -> float:
    return 100.0 * retransmissions / packets_sent if packets_sent else float("nan")


def add_path_figures(flows: pd.DataFrame, series: pd.DataFrame, start_s: float = 0.0,
                     end_s: float = float("inf")) -> pd.DataFrame:
    """`flows` (one row per flow: flow, retransmissions, packets_sent) with the RTT, queueing-time and
    retransmission-percentage columns added."""
    rows = [rtt_figures(series, int(flow), start_s, end_s) for flow in flows["flow"]]
    out = pd.concat([flows.reset_index(drop=True), pd.DataFrame(rows)], axis=1)
    out["retransmission_pct"] = [retransmission_percent(r, s) for r, s in
                                 zip(out["retransmissions"], out["packets_sent"])]
    return out
