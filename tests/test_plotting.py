"""Figures a paper would print: one style per algorithm everywhere, readable in grey scale, legends off the
data, axes sized to the data, and the window plots' reference lines from the flow's own round trip, all
checked on what is drawn."""

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgb

from cclab.engine import STATIC_ALGORITHMS, ALIASES
from cclab.plotting import (STYLE, build_bars_figure, build_lines_figure, build_timeseries_figure,
                            build_window_figure, style)
from cclab.reproduction_report import _window_panel, flow_round_trip_s
from cclab.scenario import load_scenario
from cclab.studies import folder


def grey(colour: str) -> float:
    """Luminance as a grey-scale print renders it (ITU-R BT.601 weights), 0 black to 1 white."""
    r, g, b = to_rgb(colour)
    return 0.299 * r + 0.587 * g + 0.114 * b


def test_every_algorithm_has_its_own_style_that_shows_on_white_and_in_grey():
    algorithms = [a for a in STATIC_ALGORITHMS if a not in ALIASES]
    assert sorted(STYLE) == sorted(algorithms)
    assert len({s["marker"] for s in STYLE.values()}) == len(STYLE)            # shapes tell them apart in grey
    assert len({str(s["linestyle"]) for s in STYLE.values()}) >= 10          # and dashes, nearly all
    assert len({s["color"] for s in STYLE.values()}) == len(STYLE)
    assert len({s["label"] for s in STYLE.values()}) == len(STYLE)
    # Nothing paler than 70 % grey on white (Okabe & Ito's yellow, 0.87, was Westwood+'s and hard to see).
    for name, s in STYLE.items():
        assert grey(s["color"]) < 0.7, name


def _overlaps_data(fig) -> list[str]:
    """Axes (with data) that the figure's legends overlap, in display coordinates."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    assert legends, "the figure has no legend"
    hits = []
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            if ax.axison and box.overlaps(ax.get_window_extent(renderer)):
                hits.append(ax.get_title() or "axes")
    return hits


def single_flow_config(*overrides: str) -> dict:
    return load_scenario(str(folder() / "seed000" / "single-flow.toml"), list(overrides)).to_engine_config()


def test_window_figure_reference_lines_use_the_flows_round_trip():
    # Seed 000's single flow: bottleneck 200 Mbit/s, 50 ms one way, access links 2.5 ms on each side, so
    # the flow's round trip is 2 x (50 + 2.5 + 2.5) = 110 ms, not the bottleneck's 100 ms. C·RTT =
    # 200e6 x 0.110 / (1500 x 8) = 1833.3 packets; B = 0.1 BDP of the bottleneck's 100 ms = 166.7 -> 167
    # packets; B + C·RTT = 2000.3.
    config = single_flow_config()
    assert flow_round_trip_s(config) == pytest.approx(0.110)
    times = np.arange(0, 20, 0.5)
    flows = pd.DataFrame({"time_s": times, "flow": 0, "cwnd": np.linspace(900, 1990, len(times)).astype(int)})
    queue = pd.DataFrame({"time_s": times, "queue_packets": np.linspace(0, 160, len(times)).astype(int)})
    panel = _window_panel(config, flows, queue)
    fig = build_window_figure("Figure 2: NewReno", "newreno", [("B=0.1BDP RTT=100ms", panel)])
    cwnd_ax, queue_ax = fig.axes
    lines = {line.get_label(): line.get_ydata() for line in cwnd_ax.get_lines()}
    assert list(lines["C·RTT (RTT 110 ms)"]) == pytest.approx([1833.333] * 2, abs=1e-3)
    assert list(lines["B + C·RTT"]) == pytest.approx([2000.333] * 2, abs=1e-3)
    # The cwnd axis spans the data and both lines, the queue axis the buffer (167 packets, +5 %).
    assert cwnd_ax.get_ylim() == pytest.approx((0, 2000.333 * 1.08), abs=1e-2)
    assert queue_ax.get_ylim() == pytest.approx((0, 167 * 1.05))
    assert not _overlaps_data(fig)
    matplotlib.pyplot.close(fig)


def test_lines_bars_and_timeseries_keep_their_legends_off_the_data():
    line = lambda algorithm, k: (style(algorithm)["label"], algorithm, [0.1, 0.5, 1.0], [k, k + 1, k + 2],  # noqa: E731
                                 [0, 0, 0], 0)
    fig = build_lines_figure("Figure 9", "B/BDP", "goodput", [("", [line(a, i) for i, a in enumerate(STYLE)])])
    assert not _overlaps_data(fig)
    # Each algorithm is drawn in its own colour and marker.
    drawn = {c.get_label(): c.lines[0] for c in fig.axes[0].containers}
    for algorithm, s in STYLE.items():
        assert drawn[s["label"]].get_color() == s["color"] and drawn[s["label"]].get_marker() == s["marker"]
    matplotlib.pyplot.close(fig)
    # A total of all flows gets the link's capacity as a line, in the legend too.
    fig = build_lines_figure("Figure 12", "B/BDP", "total goodput (Mbit/s)", [("", [line("highspeed", 199)])],
                             capacity=200.0)
    capacity = [h for h in fig.axes[0].get_lines() if h.get_label() == "C (link capacity)"]
    assert [list(h.get_ydata()) for h in capacity] == [[200.0, 200.0]]
    assert "C (link capacity)" in [t.get_text() for t in fig.legends[0].get_texts()]
    assert not _overlaps_data(fig)
    matplotlib.pyplot.close(fig)
    fig = build_bars_figure("Figure 13", "Mbit/s", ["0.5-5 s", "5-50 s", "last 50 s"],
                            [("10 flows", [("NewReno", "newreno", [700, 900, 950]), ("CUBIC", "cubic", [800, 950, 990])])])
    assert not _overlaps_data(fig)
    matplotlib.pyplot.close(fig)
    fig = build_timeseries_figure("Figure 8", "window (packets)",
                                  [("cell", [(f"flow {i}", [0, 1, 2], [i, i + 1, i + 2]) for i in range(4)])])
    assert not _overlaps_data(fig)
    matplotlib.pyplot.close(fig)
