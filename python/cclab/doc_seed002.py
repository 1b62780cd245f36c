"""The tables and finding lists of docs/reproductions/seed002.md, rendered from the study's values.

Each renderer makes one `<!-- numbers: seed002/... -->` block of the page (see `cclab.doc_numbers`) from
docs/reproductions/data/seed002-values.csv (cclab's mean per experiment, row, cell and metric, with the
paper's value where the experiment file gives one: Tables 1-6 of the study) and seed002-claims.csv (each
finding's verdict, the paper's value as we read it, cclab's and the difference), both written by `cclab
reproduce seed002 --write-docs` from the stored full study.

Only what the full study measures is rendered: the predictions of the four experiments (downlink, uplink,
transfers each way), Section 5's estimate, the findings, and the percentiles of the RTT and queueing-time
distributions that Figs. 4-5 draw (the p10 ... p99 columns of the values file, since session 13). The
page's other tables are records of dated runs with other settings (the calibration, `--set` variants,
F-RTO, the bearer) and stay written by hand.

The cells are found by their coordinates (`flows`, `KB`) in the experiment files, never by spelling their
names; the rows are NewReno, BIC and Westwood+ in every part.
"""

from __future__ import annotations

import math
from typing import Callable

from .doc_numbers import Value, Values, source, table
from .doc_seed001 import cell, findings, findings_count

STUDY = "seed002"
ALGORITHMS = ["NewReno", "BIC", "Westwood+"]
FLOWS = [1, 2, 4]
SIZES_KB = [50, 100, 200, 500]
DOWNLINK, UPLINK = f"{STUDY}-downlink", f"{STUDY}-uplink"
TRANSFERS = [(f"{STUDY}-transfers-down", "downlink"), (f"{STUDY}-transfers-up", "uplink")]


# --- numbers -------------------------------------------------------------------------------------------

def decimals(n: int) -> Callable[[float], str]:
    return lambda x: f"{x:.{n}f}"


def _paper(x: float) -> str:
    """The paper's value with the digits the experiment file keeps (trailing zeros dropped: 6.20 -> 6.2):
    122.03, 0.318, 35."""
    return f"{x:g}"


def _three(shown: list[str]) -> str:
    """NewReno, BIC, Westwood+ as the page lists them; one value when the three print alike."""
    return shown[0] if len(set(shown)) == 1 else ", ".join(shown)


def _span(shown: list[float], fmt: Callable[[float], str]) -> str:
    """'4.32-5.40': the lowest and highest of several values; one value when they print alike."""
    low, high = fmt(min(shown)), fmt(max(shown))
    return low if low == high else f"{low}-{high}"


def _at(values: Values, experiment: str, metric: str, flows: int) -> list[Value]:
    c = cell(experiment, flows=flows)
    return [values.get(experiment, row, c, metric) for row in ALGORITHMS]


# --- the bulk experiments (Tables 1-6, Section 5) -------------------------------------------------------

# (metric, label, format of cclab's mean). The paper's value, where the experiment file has one, follows
# cclab's after " / ", as the study printed it.
DOWNLINK_ROWS = [("goodput", "goodput per flow, kbit/s", decimals(1)),
                 ("utilisation", "utilisation", decimals(3)),
                 ("jain", "Jain's index", decimals(3)),
                 ("rtt", "E(RTT), ms (time-weighted)", decimals(0)),
                 ("rtt_std", "sigma(RTT) within a flow, ms", decimals(0)),
                 ("queueing", "E(t_q), ms", decimals(0)),
                 ("timeouts", "timeouts per 100 s", decimals(2)),
                 ("retransmissions", "retransmissions, %", decimals(1)),
                 ("rto", "E(T0), s", decimals(2)),
                 ("timeout_estimate", "E[t_out] = E[N_tout] E[T0], s", decimals(1)),
                 ("timeout_share", "... as a share of the 100 s", decimals(3))]
UPLINK_ROWS = [row for row in DOWNLINK_ROWS if row[0] not in ("rto", "timeout_share")]


def _bulk_cell(values: Values, experiment: str, metric: str, flows: int, fmt: Callable[[float], str]) -> str:
    """cclab's three means, then the paper's three (or its one) after ' / '; empty where the cell has
    no meaning (Jain's index of one flow)."""
    if metric == "jain" and flows == 1:
        return ""
    at = _at(values, experiment, metric, flows)
    text = _three([fmt(v.mean) for v in at])
    papers = [v.paper for v in at if v.paper is not None]
    if papers:
        text += " / " + _three([_paper(p) for p in papers])
    return text


def bulk(values: Values, experiment: str, rows: list[tuple[str, str, Callable[[float], str]]]) -> str:
    lines = [[label] + [_bulk_cell(values, experiment, metric, n, fmt) for n in FLOWS] for metric, label, fmt in rows]
    return table(["NewReno, BIC, Westwood+ (one value: all three)", "1 flow sim / paper", "2 flows", "4 flows"],
                 ["---"] * 4, lines)


def downlink(values: Values) -> str:
    return bulk(values, DOWNLINK, DOWNLINK_ROWS)


def uplink(values: Values) -> str:
    return bulk(values, UPLINK, UPLINK_ROWS)


def section5(values: Values) -> str:
    """Section 5's argument with the model's single-flow downlink numbers: utilisation, the estimate's
    share of the 100 s, the timeouts and the RTO in force (the study's estimate implies 35 s / 5.3 = 6.6 s)."""
    get = lambda metric: [v.mean for v in _at(values, DOWNLINK, metric, 1)]
    percent = lambda x: f"{x * 100:.0f}"
    return (f"In the model the single-flow utilisation is {_span(get('utilisation'), percent)} %, and the timeouts "
            f"take {_span(get('timeout_share'), percent)} % of the time by the study's estimate: the model gives "
            f"{_span(get('timeouts'), decimals(1))} timeouts per 100 s, but an RTO of "
            f"{_span(get('rto'), decimals(2))} s on average where the estimate needs 6.6 s.\n")


def timeout_time(values: Values) -> str:
    """The mean of each flow's own N_tout x T0 against the product of the cell's means, one downlink flow."""
    own = [v.mean for v in _at(values, DOWNLINK, "timeout_time", 1)]
    product = [v.mean for v in _at(values, DOWNLINK, "timeout_estimate", 1)]
    return (f"With one downlink flow the mean of the flows' own products is {_span(own, decimals(1))} s, the "
            f"product of the means {_span(product, decimals(1))} s.\n")


def replications(values: Values) -> str:
    """The standard error of the single-flow downlink goodput: sd over flows / sqrt(flows), the largest of
    the three algorithms."""
    errors = [(v.std / math.sqrt(v.seeds), v.mean) for v in _at(values, DOWNLINK, "goodput", 1)]
    error, mean = max(errors)
    flows = _at(values, DOWNLINK, "goodput", 1)[0].seeds
    return (f"{flows} flows give a standard error of the single-flow downlink goodput of {error:.1f} kbit/s "
            f"({error / mean * 100:.0f} % of its mean) at most.\n")


# --- the RTT and queueing-time distributions (Figs. 4-5, "Measures") -----------------------------------

# (metric, column): each distribution in both weightings, side by side. The samples are the time series'
# 100-ms polls of each flow's latest RTT measurement (time-weighted), every ACK the engine's per-flow
# histograms of every measurement (ACK-weighted); both pooled over every flow of every replication.
DISTRIBUTIONS = [("rtt_samples", "RTT, samples (time)"), ("rtt_acks", "RTT, every ACK"),
                 ("queueing_samples", "t_q, samples"), ("queueing_acks", "t_q, every ACK")]


def _flows(n: int) -> str:
    return f"{n} flow" + ("s" if n > 1 else "")


def _percentiles(values: Values, experiment: str, row: str, flows: int, metric: str) -> str:
    """'485/1038/2922/7549': the 10th, 50th, 90th and 99th percentiles, ms."""
    return "/".join(f"{x:.0f}" for x in values.percentiles(experiment, row, cell(experiment, flows=flows), metric))


def _distribution(values: Values, experiment: str, row: str, flows: int, metric: str) -> str:
    """'485/1038/2922/7549, 1462': the percentiles, then the mean, ms."""
    mean = values.get(experiment, row, cell(experiment, flows=flows), metric).mean
    return f"{_percentiles(values, experiment, row, flows, metric)}, {mean:.0f}"


def distributions(values: Values, experiment: str, direction: str) -> str:
    """A line per number of flows and algorithm (one line for the three where every column prints alike):
    each distribution's percentiles and mean, then the mean over flows of each flow's exact mean over its
    ACKs (`ack_rtt`), which sits between the two weightings."""
    lines = []
    for n in FLOWS:
        shown = {row: [_distribution(values, experiment, row, n, metric) for metric, _ in DISTRIBUTIONS]
                 + [f"{values.get(experiment, row, cell(experiment, flows=n), 'ack_rtt').mean:.0f}"]
                 for row in ALGORITHMS}
        if len({tuple(columns) for columns in shown.values()}) == 1:
            lines.append([f"{_flows(n)} (all three alike)"] + shown[ALGORITHMS[0]])
        else:
            lines += [[f"{_flows(n)}, {row}"] + columns for row, columns in shown.items()]
    return table([direction] + [label for _, label in DISTRIBUTIONS] + ["mean of flows' ACK means"],
                 ["---"] * (len(DISTRIBUTIONS) + 2), lines)


def distributions_downlink(values: Values) -> str:
    return distributions(values, DOWNLINK, "downlink")


def distributions_uplink(values: Values) -> str:
    return distributions(values, UPLINK, "uplink")


def samples(values: Values, experiment: str, direction: str) -> str:
    """The samples' percentiles alone (the CDFs Figs. 4-5 drew in sessions 6-7): a line per number of
    flows, NewReno's, BIC's and Westwood+'s in a cell (one when the three print alike)."""
    lines = [[_flows(n)] + [_three([_percentiles(values, experiment, row, n, metric) for row in ALGORITHMS])
                            for metric in ("rtt_samples", "queueing_samples")]
             for n in FLOWS]
    return table([f"{direction} (NewReno, BIC, Westwood+; one value: all three)", "RTT samples",
                  "queueing-time samples"], ["---"] * 3, lines)


def samples_downlink(values: Values) -> str:
    return samples(values, DOWNLINK, "downlink")


def samples_uplink(values: Values) -> str:
    return samples(values, UPLINK, "uplink")


# --- the transfers (Fig. 6) ----------------------------------------------------------------------------

def _spread(shown: list[float]) -> float:
    """(max - min) / mean, what the flatness finding reads."""
    return (max(shown) - min(shown)) / (sum(shown) / len(shown))


def transfers(values: Values) -> str:
    lines = []
    for experiment, direction in TRANSFERS:
        for row in ALGORITHMS:
            means = [values.get(experiment, row, cell(experiment, KB=kb), "goodput").mean for kb in SIZES_KB]
            lines.append([f"{direction}, {row}"] + [f"{m:.1f}" for m in means] + [f"{_spread(means):.2f}"])
    return table(["goodput, kbit/s"] + [f"{kb} KB" for kb in SIZES_KB] + ["(max - min) / mean"],
                 ["---"] + ["---:"] * (len(SIZES_KB) + 1), lines)


# --- findings ------------------------------------------------------------------------------------------

def _findings_of(*parts: str) -> Callable[[Values], str]:
    return lambda values: findings(values, [f"{STUDY}-{p}" for p in parts])


def count(values: Values) -> str:
    return findings_count(values, STUDY)


RENDERERS: dict[str, Callable[[Values], str]] = {
    "seed002/source": source,
    "seed002/replications": replications,
    "seed002/timeout-time": timeout_time,
    "seed002/distributions-downlink": distributions_downlink,
    "seed002/distributions-uplink": distributions_uplink,
    "seed002/downlink": downlink,
    "seed002/samples-downlink": samples_downlink,
    "seed002/samples-uplink": samples_uplink,
    "seed002/section5": section5,
    "seed002/uplink": uplink,
    "seed002/transfers": transfers,
    "seed002/findings-count": count,
    "seed002/findings-downlink": _findings_of("downlink"),
    "seed002/findings-uplink": _findings_of("uplink"),
    # Both transfer parts check the same flatness finding (one fails, one holds): a table each, so the
    # reader sees which direction is which.
    "seed002/findings-transfers-down": _findings_of("transfers-down"),
    "seed002/findings-transfers-up": _findings_of("transfers-up"),
}
