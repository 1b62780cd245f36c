"""Plots. One style per algorithm (colour, marker, label) so every figure draws an algorithm the same way."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; never needs a display
import matplotlib.pyplot as plt  # noqa: E402

# Colour-blind-safe palette (Okabe & Ito 2008), one entry per algorithm, fixed across all plots.
STYLE = {
    "newreno": {"color": "#000000", "marker": "o", "label": "NewReno"},
    "scalable": {"color": "#E69F00", "marker": "s", "label": "STCP"},
    "highspeed": {"color": "#56B4E9", "marker": "^", "label": "HSTCP"},
    "htcp": {"color": "#009E73", "marker": "v", "label": "H-TCP"},
    "westwood": {"color": "#F0E442", "marker": "D", "label": "Westwood+"},
    "bic": {"color": "#0072B2", "marker": "P", "label": "BIC"},
    "cubic": {"color": "#D55E00", "marker": "X", "label": "CUBIC"},
    "compound": {"color": "#CC79A7", "marker": "*", "label": "CTCP"},
    "vegas": {"color": "#999999", "marker": "h", "label": "Vegas"},
    "fast": {"color": "#882255", "marker": "<", "label": "FAST"},
    "aimd": {"color": "#44AA99", "marker": ">", "label": "AIMD"},
    "bbr": {"color": "#117733", "marker": "p", "label": "BBR"},
}
FALLBACK = {"color": "#555555", "marker": ".", "label": None}


def style(algorithm: str) -> dict:
    return STYLE.get(algorithm, FALLBACK)


# A reference line: ("x" for vertical or "y" for horizontal, value, label), a number the paper's text gives.
Reference = tuple[str, float, str]


def draw_references(ax, references: list[Reference]) -> None:
    """The paper's numbers as dashed grey lines, labelled in the legend."""
    for axis, value, label in references:
        (ax.axvline if axis == "x" else ax.axhline)(value, color="0.3", ls=(0, (5, 3)), lw=0.9, label=label)


def window_figure(path: Path, title: str, algorithm: str, panels: list[tuple[str, dict]],
                  references: list[Reference] = ()) -> Path:
    """Congestion window and bottleneck queue over time, one panel per cell, with the paper's reference
    lines C*RTT and B + C*RTT (seed 000, Figures 2-8)."""
    n = len(panels)
    cols = 2 if n > 1 else 1
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.4 * cols, 3.6 * rows), squeeze=False)
    colour = style(algorithm)["color"]
    for ax, (name, s) in zip(axes.flat, panels):
        ax.plot(s["time_s"], s["cwnd"], color=colour, lw=0.8, label="cwnd")
        if "dwnd" in s:
            ax.plot(s["time_s"], s["dwnd"], color=colour, lw=0.7, ls="--", alpha=0.7, label="dwnd")
        ax.axhline(s["bdp_packets"], ls="--", color="0.35", lw=0.8, label="C·RTT")
        ax.axhline(s["bdp_packets"] + s["buffer_packets"], ls=":", color="0.6", lw=0.8, label="B + C·RTT")
        draw_references(ax, references)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (packets)")
        queue_ax = ax.twinx()
        queue_ax.fill_between(s["queue_time_s"], s["queue_packets"], step="post", color="#56B4E9", alpha=0.35, lw=0)
        queue_ax.set_ylabel("queue (packets)", color="#1f6f99")
        queue_ax.set_ylim(0, max(1, s["buffer_packets"]) * 4)  # keep the queue in the lower quarter
        ax.legend(loc="upper left", fontsize=7, frameon=False)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# Line styles for several lines of one algorithm (a grid's other axes: one line per delay, say).
LINE_STYLES = ("-", "--", ":", "-.")


def lines_figure(path: Path, title: str, xlabel: str, ylabel: str,
                 panels: list[tuple[str, list[tuple[str, str, list[float], list[float], list[float], int]]]],
                 log_x: bool = False, log_y: bool = False, references: list[Reference] = ()) -> Path:
    """Lines against x, a panel per entry (seed 000, Figures 9-12; seed 001, Figure 3 has a panel per
    buffer size). A line is (label, algorithm, x, mean, std, variant): colour and marker from the
    algorithm, the line style from `variant` (which of several lines of one algorithm it is); error bars
    show the spread over replications when there are several."""
    n = len(panels)
    fig, axes = plt.subplots(1, n, figsize=(6.4 if n == 1 else 4.6 * n, 4.2), squeeze=False, sharey=True)
    for ax, (name, lines) in zip(axes.flat, panels):
        for label, algorithm, x, mean, std, variant in lines:
            s = style(algorithm)
            ax.errorbar(x, mean, yerr=std if any(std) else None, color=s["color"], marker=s["marker"], ms=5, lw=1.2,
                        ls=LINE_STYLES[variant % len(LINE_STYLES)], capsize=2, label=label,
                        mec="black" if algorithm == "westwood" else s["color"], mew=0.5)
        draw_references(ax, references)
        if log_x:
            ax.set_xscale("log")
        if log_y:
            ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        if name:
            ax.set_title(name, fontsize=10)
        ax.grid(True, color="0.9", lw=0.6)
        ax.legend(fontsize=7 if n > 1 else 8, frameon=False, ncol=2 if n == 1 else 1)
    axes.flat[0].set_ylabel(ylabel)
    if n == 1:
        axes.flat[0].set_title(title, fontsize=10)
    else:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def timeseries_figure(path: Path, title: str, ylabel: str,
                      panels: list[tuple[str, list[tuple[str, list[float], list[float]]]]],
                      references: list[Reference] = ()) -> Path:
    """One quantity of every flow over time, a panel per cell (seed 001, Figures 8-10, 13 and 14): a line
    per (label, time_s, values). The flows of one run share an algorithm, so they take colours in turn."""
    n = len(panels)
    cols = 2 if n > 1 else 1
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.4 * cols, 3.6 * rows), squeeze=False)
    colours = plt.get_cmap("tab20" if max((len(lines) for _, lines in panels), default=0) > 10 else "tab10")
    for ax, (name, lines) in zip(axes.flat, panels):
        for i, (label, time_s, values) in enumerate(lines):
            ax.plot(time_s, values, lw=0.8, color=colours(i % colours.N), label=label)
        draw_references(ax, references)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("time (s)")
        ax.set_ylabel(ylabel)
        ax.grid(True, color="0.9", lw=0.6)
        if 1 < len(lines) + len(references) and len(lines) <= 16:
            ax.legend(fontsize=6, frameon=False, ncol=2 if len(lines) > 4 else 1)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# Bar fills for several measurement windows of one algorithm (seed 000, Figure 13: black, gray, white bars).
WINDOW_ALPHA = (1.0, 0.55, 0.15)


def bars_figure(path: Path, title: str, ylabel: str, metric_labels: list[str],
                panels: list[tuple[str, list[tuple[str, str, list[float]]]]]) -> Path:
    """Grouped bars, a panel per cell: per row (label, algorithm) one bar per metric, filled in the algorithm's
    colour, darkest for the first metric (Figure 13's black / gray / white bars for three windows)."""
    n = len(panels)
    fig, axes = plt.subplots(1, n, figsize=(max(6.4, 4.2 * n), 4.4), squeeze=False, sharey=True)
    for ax, (name, groups) in zip(axes.flat, panels):
        width = 0.8 / max(1, len(metric_labels))
        for g, (label, algorithm, values) in enumerate(groups):
            colour = style(algorithm)["color"]
            for m, value in enumerate(values):
                ax.bar(g - 0.4 + width * (m + 0.5), value, width, color=colour,
                       alpha=WINDOW_ALPHA[m % len(WINDOW_ALPHA)], edgecolor="black", lw=0.5)
        ax.set_xticks(range(len(groups)), [label for label, _, _ in groups], rotation=45, ha="right", fontsize=8)
        ax.set_title(name, fontsize=10)
        ax.grid(True, axis="y", color="0.9", lw=0.6)
    axes.flat[0].set_ylabel(ylabel)
    handles = [plt.Rectangle((0, 0), 1, 1, color="0.3", alpha=WINDOW_ALPHA[m % len(WINDOW_ALPHA)], ec="black")
               for m in range(len(metric_labels))]
    fig.legend(handles, metric_labels, loc="lower center", ncol=len(metric_labels), fontsize=8, frameon=False)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
