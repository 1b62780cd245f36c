"""Plots. One style per algorithm (colour, marker, line style, label) so every figure draws an algorithm
the same way, readable in grey scale too (markers and dashes differ where colours turn to the same grey).
Legends sit outside the data, and each builder returns its figure before saving it, so the tests can
check the geometry (reference lines, axis limits, legend placement) on what is drawn."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; never needs a display
import matplotlib.pyplot as plt  # noqa: E402

# One entry per algorithm, fixed across all plots. Colours: Okabe & Ito's colour-blind-safe palette (2008)
# for the first eight, darker tones for the rest; none lighter than 70 % grey, so every line shows on white
# (Okabe & Ito's yellow, #F0E442, did not: Westwood+ is brown). Markers and dash patterns are all
# different, so that a grey-scale print tells the algorithms apart by shape.
STYLE = {
    "newreno": {"color": "#000000", "marker": "o", "linestyle": "-", "label": "NewReno"},
    "scalable": {"color": "#E69F00", "marker": "s", "linestyle": "--", "label": "STCP"},
    "highspeed": {"color": "#56B4E9", "marker": "^", "linestyle": "-.", "label": "HSTCP"},
    "htcp": {"color": "#009E73", "marker": "v", "linestyle": ":", "label": "H-TCP"},
    "westwood": {"color": "#8C510A", "marker": "D", "linestyle": (0, (6, 2)), "label": "Westwood+"},
    "bic": {"color": "#0072B2", "marker": "P", "linestyle": (0, (3, 1, 1, 1, 1, 1)), "label": "BIC"},
    "cubic": {"color": "#D55E00", "marker": "X", "linestyle": (0, (1, 1)), "label": "CUBIC"},
    "compound": {"color": "#CC79A7", "marker": "*", "linestyle": (0, (8, 2, 2, 2)), "label": "CTCP"},
    "vegas": {"color": "#666666", "marker": "h", "linestyle": (0, (4, 4)), "label": "Vegas"},
    "fast": {"color": "#882255", "marker": "<", "linestyle": (0, (2, 3)), "label": "FAST"},
    "aimd": {"color": "#44AA99", "marker": ">", "linestyle": (0, (6, 2, 1, 2, 1, 2)), "label": "AIMD"},
    "bbr": {"color": "#117733", "marker": "p", "linestyle": (0, (10, 3)), "label": "BBR"},
}
FALLBACK = {"color": "#555555", "marker": ".", "linestyle": "-", "label": None}
# The bottleneck queue, in every figure that draws it.
QUEUE_COLOUR = "#3a7ca5"
DPI = 110


def style(algorithm: str) -> dict:
    return STYLE.get(algorithm, FALLBACK)


def save(fig, path: Path) -> Path:
    """Write the figure (with whatever sits outside the axes: legends below or to the right) and close it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


# A reference line: ("x" for vertical or "y" for horizontal, value, label), a number the paper's text gives.
Reference = tuple[str, float, str]


def draw_references(ax, references: "list[Reference] | tuple" = (), legend: "dict[str, object] | None" = None) -> None:
    """The paper's numbers as dashed grey lines, each labelled once in the figure's legend."""
    for axis, value, label in references:
        line = (ax.axvline if axis == "x" else ax.axhline)(value, color="0.3", ls=(0, (5, 3)), lw=0.9, label=label)
        if legend is not None:
            legend.setdefault(label, line)


def window_figure(path: Path, title: str, algorithm: str, panels: list[tuple[str, dict]],
                  references: "list[Reference] | tuple" = ()) -> Path:
    return save(build_window_figure(title, algorithm, panels, references), path)


def build_window_figure(title: str, algorithm: str, panels: list[tuple[str, dict]],
                        references: "list[Reference] | tuple" = ()):
    """Congestion window over time above the bottleneck queue, a pair of panels per cell (seed 000, Figures
    2-8). The cwnd panel has the paper's reference lines C·RTT and B + C·RTT, with RTT the flow's own round
    trip (`bdp_packets`, `buffer_packets`, `rtt_s` of each panel); its axis spans the data and both lines.
    The queue panel's axis spans the buffer."""
    n = len(panels)
    cols = 2 if n > 1 else 1
    rows = -(-n // cols)
    fig = plt.figure(figsize=(6.0 * cols, 4.2 * rows))
    grid = fig.add_gridspec(2 * rows, cols, height_ratios=[2.2, 1] * rows, hspace=0.12)
    s = style(algorithm)
    handles = {}
    for i, (name, panel) in enumerate(panels):
        r, c = divmod(i, cols)
        ax = fig.add_subplot(grid[2 * r, c])
        queue_ax = fig.add_subplot(grid[2 * r + 1, c], sharex=ax)
        handles["cwnd"], = ax.plot(panel["time_s"], panel["cwnd"], color=s["color"], lw=0.8, label="cwnd")
        if "dwnd" in panel:
            handles["dwnd"], = ax.plot(panel["time_s"], panel["dwnd"], color=s["color"], lw=0.7, ls="--", alpha=0.7,
                                       label="dwnd")
        bdp, buffer = panel["bdp_packets"], panel["buffer_packets"]
        rtt = f" (RTT {panel['rtt_s'] * 1e3:g} ms)" if "rtt_s" in panel else ""
        handles["bdp"] = ax.axhline(bdp, ls="--", color="0.3", lw=0.9, label=f"C·RTT{rtt}")
        handles["full"] = ax.axhline(bdp + buffer, ls=":", color="0.3", lw=1.1, label="B + C·RTT")
        draw_references(ax, references, handles)
        top = max([bdp + buffer, *(float(v) for v in panel["cwnd"])], default=1.0)
        ax.set_ylim(0, top * 1.08)
        ax.set_title(name, fontsize=10)
        ax.set_ylabel("cwnd (packets)")
        ax.grid(True, color="0.92", lw=0.6)
        ax.tick_params(labelbottom=False)
        handles["queue"] = queue_ax.fill_between(panel["queue_time_s"], panel["queue_packets"], step="post",
                                                 color=QUEUE_COLOUR, alpha=0.45, lw=0, label="queue")
        queue_ax.set_ylim(0, max(1, buffer) * 1.05)   # the buffer, B, at the top
        queue_ax.set_ylabel("queue (pkts)")
        queue_ax.set_xlabel("time (s)")
        queue_ax.grid(True, color="0.92", lw=0.6)
    fig.legend(list(handles.values()), [h.get_label() for h in handles.values()], loc="upper center",
               bbox_to_anchor=(0.5, 0.0), ncol=len(handles), fontsize=8, frameon=False)
    fig.suptitle(title, fontsize=11)
    return fig


# Line styles for several lines of one algorithm (a grid's other axes: one line per delay, say).
LINE_STYLES = ("-", "--", ":", "-.")
VARIANT_FILLS = ("full", "none", "left", "bottom")


def lines_figure(path: Path, title: str, xlabel: str, ylabel: str,
                 panels: list[tuple[str, list[tuple[str, str, list[float], list[float], list[float], int]]]],
                 log_x: bool = False, log_y: bool = False, capacity: float | None = None,
                 references: "list[Reference] | tuple" = ()) -> Path:
    return save(build_lines_figure(title, xlabel, ylabel, panels, log_x, log_y, capacity, references), path)


def build_lines_figure(title: str, xlabel: str, ylabel: str,
                       panels: list[tuple[str, list[tuple[str, str, list[float], list[float], list[float], int]]]],
                       log_x: bool = False, log_y: bool = False, capacity: float | None = None,
                       references: "list[Reference] | tuple" = ()):
    """Lines against x, a panel per entry (seed 000, Figures 9-12; seed 001, Figure 3 has a panel per
    buffer size). A line is (label, algorithm, x, mean, std, variant): colour, marker and dashes from the
    algorithm; when a panel has several lines of one algorithm, `variant` picks the dashes instead. Error
    bars show the spread over replications when there are several. One legend, right of the panels."""
    n = len(panels)
    fig, axes = plt.subplots(1, n, figsize=(6.0 if n == 1 else 4.4 * n, 4.2), squeeze=False, sharey=True)
    legend: dict[str, object] = {}
    for ax, (name, lines) in zip(axes.flat, panels):
        several = {a for _, a, *_rest in lines if sum(1 for line in lines if line[1] == a) > 1}
        for label, algorithm, x, mean, std, variant in lines:
            s = style(algorithm)
            dashes = LINE_STYLES[variant % len(LINE_STYLES)] if algorithm in several else s["linestyle"]
            # Several lines of one algorithm keep its marker's shape and differ by its fill too: a line of
            # one point (a quick run's single x) has no dashes to tell it by.
            fill = VARIANT_FILLS[variant % len(VARIANT_FILLS)] if algorithm in several else "full"
            drawn = ax.errorbar(x, mean, yerr=std if any(std) else None, color=s["color"], marker=s["marker"],
                                ms=6 if algorithm in several else 5, lw=1.2, ls=dashes, capsize=2, label=label,
                                mec="black", mew=0.5, fillstyle=fill)
            legend.setdefault(label, drawn)
        if capacity is not None:
            # The link's capacity, C: a total above it is in-order delivery's burst at a window's edge.
            legend.setdefault("C (link capacity)", ax.axhline(capacity, color="0.45", lw=0.9, ls=(0, (1, 2)),
                                                             label="C (link capacity)"))
        draw_references(ax, references, legend)
        if log_x:
            ax.set_xscale("log")
        if log_y:
            ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        if name:
            ax.set_title(name, fontsize=10)
        ax.grid(True, color="0.9", lw=0.6)
    axes.flat[0].set_ylabel(ylabel)
    fig.legend(list(legend.values()), list(legend), loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8,
               frameon=False, ncol=1 if len(legend) <= 14 else 2)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def timeseries_figure(path: Path, title: str, ylabel: str,
                      panels: list[tuple[str, list[tuple[str, list[float], list[float]]]]],
                      references: "list[Reference] | tuple" = ()) -> Path:
    return save(build_timeseries_figure(title, ylabel, panels, references), path)


def build_timeseries_figure(title: str, ylabel: str, panels: list[tuple[str, list[tuple[str, list[float], list[float]]]]],
                            references: "list[Reference] | tuple" = ()):
    """One quantity of every flow over time, a panel per cell (seed 001, Figures 8-10, 13 and 14): a line
    per (label, time_s, values). The flows of one run share an algorithm, so they take colours in turn,
    and dashes too, for grey scale. One legend, right of the panels."""
    n = len(panels)
    cols = 2 if n > 1 else 1
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.0 * cols, 3.6 * rows), squeeze=False)
    most = max((len(lines) for _, lines in panels), default=0)
    colours = plt.get_cmap("tab20" if most > 10 else "tab10")
    legend: dict[str, object] = {}
    for ax, (name, lines) in zip(axes.flat, panels):
        for i, (label, time_s, values) in enumerate(lines):
            drawn, = ax.plot(time_s, values, lw=0.8, color=colours(i % colours.N),
                             ls=LINE_STYLES[(i // 2) % len(LINE_STYLES)] if len(lines) > 1 else "-", label=label)
            legend.setdefault(label, drawn)
        draw_references(ax, references, legend)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("time (s)")
        ax.set_ylabel(ylabel)
        ax.grid(True, color="0.9", lw=0.6)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    if 1 < len(legend) <= 32:
        fig.legend(list(legend.values()), list(legend), loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7,
                   frameon=False, ncol=1 if len(legend) <= 16 else 2)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


# Fills and hatches for several measurement windows of one algorithm (seed 000, Figure 13: black, gray and
# white bars): the algorithm's colour, lighter and hatched differently for each window, so the windows
# differ in grey scale as well.
WINDOW_ALPHA = (1.0, 0.55, 0.15)
WINDOW_HATCH = ("", "///", "...")


def bars_figure(path: Path, title: str, ylabel: str, metric_labels: list[str],
                panels: list[tuple[str, list[tuple[str, str, list[float]]]]]) -> Path:
    return save(build_bars_figure(title, ylabel, metric_labels, panels), path)


def build_bars_figure(title: str, ylabel: str, metric_labels: list[str],
                      panels: list[tuple[str, list[tuple[str, str, list[float]]]]]):
    """Grouped bars, a panel per cell: per row (label, algorithm) one bar per metric, filled in the
    algorithm's colour, darkest for the first metric (Figure 13's black / gray / white bars for three
    windows). The legend of the metrics sits below the panels."""
    n = len(panels)
    fig, axes = plt.subplots(1, n, figsize=(max(6.4, 4.2 * n), 4.4), squeeze=False, sharey=True)
    for ax, (name, groups) in zip(axes.flat, panels):
        width = 0.8 / max(1, len(metric_labels))
        for g, (label, algorithm, values) in enumerate(groups):
            colour = style(algorithm)["color"]
            for m, value in enumerate(values):
                ax.bar(g - 0.4 + width * (m + 0.5), value, width, color=colour,
                       alpha=WINDOW_ALPHA[m % len(WINDOW_ALPHA)], hatch=WINDOW_HATCH[m % len(WINDOW_HATCH)],
                       edgecolor="black", lw=0.5)
        ax.set_xticks(range(len(groups)), [label for label, _, _ in groups], rotation=45, ha="right", fontsize=8)
        if name:
            ax.set_title(name, fontsize=10)
        ax.grid(True, axis="y", color="0.9", lw=0.6)
        ax.set_axisbelow(True)
    axes.flat[0].set_ylabel(ylabel)
    handles = [plt.Rectangle((0, 0), 1, 1, facecolor="0.3", alpha=WINDOW_ALPHA[m % len(WINDOW_ALPHA)],
                             hatch=WINDOW_HATCH[m % len(WINDOW_HATCH)], edgecolor="black")
               for m in range(len(metric_labels))]
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.legend(handles, metric_labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(metric_labels),
               fontsize=8, frameon=False)
    return fig
