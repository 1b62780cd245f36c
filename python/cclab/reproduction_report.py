"""What `cclab reproduce` shows and writes: terminal tables, and one Markdown page per study.

The folder of a study (results/<study>/) holds report.md (every experiment: its tables with cclab, the
paper and ns-2.35 side by side, the paper's findings checked, its figures), values.csv (one line per run
and metric) and the PNG figures.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
from rich.console import Group
from rich.table import Table
from rich.text import Text

from .experiment import UNIT_SCALE, MetricSpec, RowSpec
from .plotting import bars_figure, lines_figure, timeseries_figure, window_figure
from .reproduce import ExperimentOutcome, Reproduction, Stats

# With more cells than this, a metric's table has a line per cell and a column per row (a grid of 180
# network configurations does not fit across a page).
WIDE = 8
QUICK_NOTE = ("quick mode: shorter runs, fewer points and seeds; the numbers are not comparable to the "
              "paper's and only the findings marked for quick mode are checked")
MEASURE_NOTE = ("Rates in the tables are the packets the receivers got in order in the window, as the paper "
                "measures them. In-order delivery comes in bursts: a hole filled just after the window opens "
                "releases packets that crossed the link before it, so over a window a rate can exceed what "
                "crossed the link, even its capacity. Where it does, the cell also shows it clipped: scaled down "
                "to the bytes the bottleneck put on the wire in that window. Utilisation is the link's own count "
                "of bytes on the wire over its capacity, never above 1")
CLAIM_MARK = {"holds": "holds", "fails": "FAILS", "not checked": "not checked"}


def row_algorithm(row: RowSpec) -> str:
    """The algorithm that gives a row its colour: the row's (first) algorithm."""
    cc: Any = row.cc[0] if isinstance(row.cc, list) else row.cc
    return cc if isinstance(cc, str) else str(cc.get("name", ""))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _number(value: Optional[float], metric: MetricSpec) -> str:
    if value is None:
        return "-"
    if metric.of in ("utilisation", "jain"):
        return f"{value:.3f}"
    if not metric.rate:          # a ratio, packets of queue, a state such as a baseRTT in seconds
        return f"{value:,.4g}"
    return f"{value:,.1f}"


def _diff(value: Optional[float], reference: Optional[float]) -> str:
    if value is None or not reference:
        return ""
    return f"{(value - reference) / reference * 100:+.1f}%"


def _mean_text(stats: Optional[Stats], metric: MetricSpec) -> str:
    if stats is None:
        return "-"
    text = _number(stats.mean, metric)
    if stats.n > 1:
        text += f" ± {_number(stats.std, metric)}"
    return text


def cell_text(outcome: ExperimentOutcome, metric: MetricSpec, r: int, c: int, markdown: bool) -> str:
    """cclab's value (mean ± sd over seeds, with their range), the paper's and ns-2.35's with differences."""
    stats = outcome.stats(metric.name, r, c)
    parts = [_mean_text(stats, metric)]
    if stats is not None and stats.n > 1:
        parts.append(f"[{_number(stats.low, metric)}, {_number(stats.high, metric)}] n={stats.n}")
    clipped = clipped_text(outcome, metric, r, c)
    if clipped:
        parts.append(clipped)
    # Quick runs are too short to compare with the paper's numbers: the references are shown, for scale,
    # without a difference that would read as a verdict.
    mean = stats.mean if stats and not outcome.plan.quick else None
    for kind, label in (("paper", "paper"), ("ns2", "ns-2")):
        reference = outcome.reference(kind, metric.name, r, c)
        if reference is not None:
            parts.append(f"{label} {_number(reference, metric)} {_diff(mean, reference)}".rstrip())
    verdict = outcome.verdict(metric.name, r, c)
    if verdict:
        parts.append(f"**{verdict}**" if markdown else {"ok": "[green]ok[/]", "off": "[red]OFF[/]",
                                                          "failed": "[red]failed[/]"}[verdict])
    return ("<br>" if markdown else "\n").join(parts)


def terminal_view(outcome: ExperimentOutcome) -> Group:
    spec = outcome.experiment.spec
    parts = []
    for metric in outcome.experiment.metrics:
        table = Table(title=f"{spec.title}: {metric.title}" + (" (quick)" if outcome.plan.quick else ""),
                      title_justify="left")
        header, lines = _table(outcome, metric, markdown=False)
        for i, name in enumerate(header):
            table.add_column(name, justify="left" if i == 0 else "right")
        for line in lines:
            table.add_row(*line)
        parts.append(table)
    if outcome.claims:
        parts += _claims_view(outcome)
    for row, cell, replication, why in outcome.errors[:5]:
        parts.append(f"[red]run {spec.rows[row].name} / {spec.cells[cell].name} / seed #{replication} failed:[/] {why}")
    return Group(*parts)


def clipped_text(outcome: ExperimentOutcome, metric: MetricSpec, r: int, c: int) -> str:
    """'clipped 199,999.9' when the rate clipped to what crossed the bottleneck is lower by 0.02 % or more
    (40 kbit/s at 200 Mbit/s: a window's edges alone move a rate by less) and shows as a different number;
    else ''."""
    stats, clipped = outcome.stats(metric.name, r, c), outcome.clipped_mean(metric.name, r, c)
    if stats is None or clipped is None or clipped > stats.mean * (1 - 2e-4):
        return ""
    text = _number(clipped, metric)
    return "" if text == _number(stats.mean, metric) else f"clipped {text}"


def _any_clipped(reproduction: Reproduction) -> bool:
    return any(clipped_text(o, m, r, c) for o in reproduction.outcomes for m in o.experiment.metrics if m.rate
               for r in o.plan.rows for c in o.plan.cells)


def _claims_view(outcome: ExperimentOutcome) -> list:
    """The findings with their verdicts; under a finding that fails, the values that break it, and under
    one not checked, why. A reason shared by several (quick mode's) is given once, under the table."""
    reasons = [c.detail for c in outcome.claims if c.status == "not checked"]
    shared = next((reason for reason, n in Counter(reasons).most_common(1) if n > 1), None)
    claims = Table(title=f"{outcome.experiment.spec.title}: the paper's findings", title_justify="left")
    claims.add_column("finding", ratio=1)
    claims.add_column("cclab", no_wrap=True)
    for claim in outcome.claims:
        colour = {"holds": "green", "fails": "red"}.get(claim.status, "yellow")
        mark = CLAIM_MARK[claim.status] + ("*" if claim.detail == shared and claim.status == "not checked" else "")
        text = Text(claim.text)
        if claim.status != "holds" and claim.detail != shared:
            text.append("\n" + claim.detail, style="dim")
        claims.add_row(text, Text(mark, style=colour))
    parts: list = [claims]
    if shared:
        parts.append(Text(f"* {shared}", style="yellow"))
    return parts


def terminal_header(reproduction: Reproduction) -> list:
    """What the terminal shows before the tables: the quick-mode warning and, when some rate was clipped,
    what the tables' rates are, as report.md has them."""
    lines = []
    if reproduction.quick:
        lines.append(Text(f"{reproduction.study}, {QUICK_NOTE}; the paper's and ns-2.35's numbers are shown for "
                          "scale, without differences. `scripts/main.sh --full` runs the study as the paper did.",
                          style="bold yellow"))
    if _any_clipped(reproduction):
        lines.append(Text(MEASURE_NOTE + ".", style="dim"))
    return lines


def _table(outcome: ExperimentOutcome, metric: MetricSpec, markdown: bool) -> tuple[list[str], list[list[str]]]:
    """A metric's table: a line per row and a column per cell, or the other way round when the cells are
    many (WIDE)."""
    spec, plan = outcome.experiment.spec, outcome.plan
    if len(plan.cells) > WIDE:
        header = ["cell"] + [spec.rows[r].name for r in plan.rows]
        return header, [[spec.cells[c].name] + [cell_text(outcome, metric, r, c, markdown) for r in plan.rows]
                        for c in plan.cells]
    header = ["row"] + [spec.cells[c].name for c in plan.cells]
    return header, [[spec.rows[r].name] + [cell_text(outcome, metric, r, c, markdown) for c in plan.cells]
                    for r in plan.rows]


# --- the Markdown page -------------------------------------------------------------------------------

def _experiment_markdown(outcome: ExperimentOutcome, out_dir: Path,
                         on_figure: Optional[Callable[[str], None]] = None) -> list[str]:
    spec = outcome.experiment.spec
    lines = [f"## {spec.title}", ""]
    if spec.description:
        lines += [spec.description.strip(), ""]
    runs = len(outcome.plan.runs)
    lines += [f"`{outcome.experiment.path.name}`: {len(outcome.plan.rows)} rows x {len(outcome.plan.cells)} cells x "
              f"{outcome.plan.replications} seed(s) = {runs} runs" +
              (f", durations x {outcome.plan.time_scale:g}" if outcome.plan.time_scale != 1 else "") + ".", ""]
    for metric in outcome.experiment.metrics:
        lines += [f"**{metric.title}**", ""]
        header, body = _table(outcome, metric, markdown=True)
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|---|" + "---:|" * (len(header) - 1))
        lines += ["| " + " | ".join(line) + " |" for line in body]
        lines.append("")
    if outcome.claims:
        lines += ["**The paper's findings**", "", "| finding | cclab | detail |", "|---|---|---|"]
        for claim in outcome.claims:
            lines.append(f"| {claim.text} | **{CLAIM_MARK[claim.status]}** | {claim.detail} |")
        lines.append("")
    for row, cell, replication, why in outcome.errors:
        lines.append(f"- run {spec.rows[row].name} / {spec.cells[cell].name} / seed #{replication} failed: `{why}`")
    lines += [""] + _figures(outcome, out_dir, on_figure)
    return lines


def _figures(outcome: ExperimentOutcome, out_dir: Path, on_figure: Optional[Callable[[str], None]] = None) -> list[str]:
    """Draws the experiment's figures into out_dir; on_figure(file name) is called before each is drawn."""
    drawing = on_figure or (lambda _name: None)
    experiment, spec = outcome.experiment, outcome.experiment.spec
    lines = []
    for index, figure in enumerate(spec.figures):
        rows = [r for r in outcome.plan.rows if not figure.rows or spec.rows[r].name in figure.rows]
        chosen = set(experiment.select_cells(figure.cells, figure.where))
        cells = [c for c in outcome.plan.cells if c in chosen]
        if figure.cells:   # in the order the figure names them (the paper's panels (a), (b), ...)
            order = {name: i for i, name in enumerate(figure.cells)}
            cells.sort(key=lambda c: order.get(spec.cells[c].name, len(order)))
        base = figure.file or f"{spec.id}-{figure.kind}-{index}"
        title = _titled(outcome, figure.title or spec.title)
        if figure.kind == "window":
            for r in rows:
                panels = []
                row = spec.rows[r].name
                number = figure.numbers.get(row)
                for k, c in enumerate(cells):
                    found = outcome.series(r, c)
                    if found is not None:
                        # A numbered figure's panels are lettered as the paper's: (a), (b), ...
                        label = f"({chr(ord('a') + k)}) {spec.cells[c].name}" if number else spec.cells[c].name
                        panels.append((label, _window_panel(*found)))
                if panels:
                    name = f"{base}-{_slug(row)}.png" if number is None else f"{_slug(number)}.png"
                    if figure.title and len(rows) == 1 and not number:
                        heading = figure.title        # names the figure and its row already
                    else:
                        heading = (f"{number}: " if number else "") + f"{row}, congestion window and queue" + \
                            (f", {figure.title}" if figure.title else "")
                    drawing(name)
                    window_figure(out_dir / name, _titled(outcome, heading), row_algorithm(spec.rows[r]), panels)
                    lines += [f"![{number or row}]({name})", ""]
        elif figure.kind == "lines":
            metric = experiment.metric(figure.metric)
            name = f"{base}.png"
            xlabel, panels = _line_panels(outcome, figure, rows, cells)
            # A coordinate over three decades or more (a packet error rate) goes on a log scale.
            values = experiment.coordinates.get(xlabel, [])
            log_x = bool(values) and min(values) > 0 and max(values) / min(values) >= 1000
            # So do values over two decades or more (seed 001's throughput ratios, 1 to 500).
            means = [m for _, lines_ in panels for line in lines_ for m in line[3] if m == m]
            log_y = bool(means) and min(means) > 0 and max(means) / min(means) >= 100
            drawing(name)
            lines_figure(out_dir / name, title, xlabel, metric.title, panels, log_x=log_x, log_y=log_y,
                         capacity=_capacity(outcome, metric))
            lines += [f"![{title}]({name})", ""]
        elif figure.kind == "bars":
            metrics = [experiment.metric(m) for m in figure.metrics]
            panels = []
            for c in cells:
                groups = []
                for r in rows:
                    stats = [outcome.stats(m.name, r, c) for m in metrics]
                    groups.append((spec.rows[r].name, row_algorithm(spec.rows[r]),
                                   [s.mean if s is not None else float("nan") for s in stats]))
                panels.append((spec.cells[c].name, groups))
            name = f"{base}.png"
            drawing(name)
            bars_figure(out_dir / name, title, metrics[0].unit,
                        [m.label or m.name for m in metrics], panels)
            lines += [f"![{title}]({name})", ""]
        elif figure.kind == "timeseries":
            for r in rows:
                panels = []
                for c in cells:
                    found = outcome.series(r, c)
                    if found is not None:
                        panels.append((spec.cells[c].name, _series_lines(figure.column, *found)))
                if panels:
                    name = f"{base}-{_slug(spec.rows[r].name)}.png"
                    drawing(name)
                    timeseries_figure(out_dir / name, _titled(outcome, f"{figure.title or spec.title}: {spec.rows[r].name}"),
                                      SERIES_LABEL.get(figure.column, figure.column), panels)
                    lines += [f"![{spec.rows[r].name}]({name})", ""]
    return lines


SERIES_LABEL = {"throughput": "throughput (Mbit/s)", "queue": "queue (packets)", "cwnd": "window (packets)",
                "cc_dwnd": "dwnd (packets)", "cc_base_rtt_s": "baseRTT (s)"}


def _series_lines(column: str, config: dict, flows, queue) -> list[tuple[str, list[float], list[float]]]:
    """The lines of a timeseries panel: the bottleneck queue, or the column (or throughput) of each flow."""
    if column == "queue":
        return [("queue", queue["time_s"].to_numpy(), queue["queue_packets"].to_numpy())]
    out = []
    for flow, data in flows.groupby("flow"):
        data = data.sort_values("time_s")
        time_s = data["time_s"].to_numpy()
        if column == "throughput":
            # Mbit/s between consecutive samples, from the cumulative in-order delivery (packets x size).
            delivered = data["delivered"].to_numpy(dtype=float)
            rate = np.diff(delivered) * config["packet_size"] * 8 / np.diff(time_s) / 1e6
            out.append((f"flow {flow}", time_s[1:], rate))
        else:
            out.append((f"flow {flow}", time_s, data[column].to_numpy()))
    return out


def _line_panels(outcome: ExperimentOutcome, figure, rows: list[int], cells: list[int]):
    """(x label, panels) of a lines figure. Over a grid, x is one axis (figure.x, default the first), a
    panel per value of figure.panels, and a line per row and combination of the remaining axes (those
    that vary among the figure's cells)."""
    experiment, spec = outcome.experiment, outcome.experiment.spec
    names = list(experiment.coordinates)
    if len(names) <= 1:
        lines = []
        for r in rows:
            points = [(spec.cells[c].x, outcome.stats(figure.metric, r, c)) for c in cells]
            points = [(x, s) for x, s in points if s is not None]
            if points:
                lines.append((spec.rows[r].name, row_algorithm(spec.rows[r]), [x for x, _ in points],
                              [s.mean for _, s in points], [s.std for _, s in points], 0))
        return (names[0] if names else "x"), [("", lines)]
    x_axis = figure.x or names[0]
    # Only cells placed on every coordinate drawn ([[cells]] may give some coordinates and not others).
    cells = [c for c in cells if all(a in spec.cells[c].coords for a in names)]
    others = [a for a in names if a not in (x_axis, figure.panels)
              and len({spec.cells[c].coords[a] for c in cells}) > 1]
    panel_values = sorted({spec.cells[c].coords[figure.panels] for c in cells}) if figure.panels else [None]
    panels = []
    for panel in panel_values:
        in_panel = [c for c in cells if panel is None or spec.cells[c].coords[figure.panels] == panel]
        groups = sorted({tuple(spec.cells[c].coords[a] for a in others) for c in in_panel})
        lines = []
        for r in rows:
            for variant, group in enumerate(groups):
                members = sorted((spec.cells[c].coords[x_axis], c) for c in in_panel
                                 if tuple(spec.cells[c].coords[a] for a in others) == group)
                points = [(x, outcome.stats(figure.metric, r, c)) for x, c in members]
                points = [(x, s) for x, s in points if s is not None]
                if not points:
                    continue
                label = " ".join([spec.rows[r].name] * (len(rows) > 1) +
                                 [f"{a}={v:g}" for a, v in zip(others, group)]) or spec.rows[r].name
                lines.append((label, row_algorithm(spec.rows[r]), [x for x, _ in points],
                              [s.mean for _, s in points], [s.std for _, s in points], variant))
        panels.append(("" if panel is None else f"{figure.panels}={panel:g}", lines))
    return x_axis, panels


def _capacity(outcome: ExperimentOutcome, metric: MetricSpec) -> Optional[float]:
    """The bottleneck's rate in the metric's unit, when the metric is the rate of all flows together and
    every run has the same bottleneck: drawn as a line, so that a rate above it (in-order delivery's
    bursts; MEASURE_NOTE) is seen for what it is."""
    if not metric.rate or metric.flows != "sum" or metric.cc is not None or metric.group is not None:
        return None
    rates = {run.run.config.get("bottleneck", {}).get("rate_bps") for run in outcome.plan.runs}
    if len(rates) != 1 or not next(iter(rates)):
        return None
    return next(iter(rates)) * UNIT_SCALE[metric.unit]


def _titled(outcome: ExperimentOutcome, title: str) -> str:
    """A figure's title, saying so when its runs are quick mode's (shorter, fewer seeds than the paper's)."""
    return f"{title} (quick mode)" if outcome.plan.quick else title


def flow_round_trip_s(config: dict, flow: int = 0) -> float:
    """The flow's round-trip propagation time on the dumbbell: the bottleneck's delay and its own access
    links' (sender and receiver side), both ways. Seed 000's flows add 2 x (2.5 + 2.5) ms to the
    bottleneck's 100 ms: 110 ms, the RTT their windows settle against."""
    entry = config["flows"][flow]
    one_way = config["bottleneck"]["delay_ns"] + entry.get("src_access_delay_ns", 0) + entry.get("dst_access_delay_ns", 0)
    return 2 * one_way / 1e9


def _window_panel(config: dict, flows, queue) -> dict:
    """What a window figure draws for flow 0 of a run: its cwnd, the bottleneck queue, and the paper's
    reference lines with the flow's own round trip: C·RTT = rate x RTT / packet size, in packets, and the
    buffer B (limit_packets, the one on the wire included, as ns-2 counts)."""
    flow0 = flows[flows["flow"] == 0]
    bottleneck = config["bottleneck"]
    rtt_s = flow_round_trip_s(config)
    panel = {
        "time_s": flow0["time_s"].to_numpy(), "cwnd": flow0["cwnd"].to_numpy(),
        "queue_time_s": queue["time_s"].to_numpy(), "queue_packets": queue["queue_packets"].to_numpy(),
        "bdp_packets": bottleneck["rate_bps"] * rtt_s / 8 / config["packet_size"],
        "buffer_packets": bottleneck["queue"]["limit_packets"],
        "rtt_s": rtt_s,
    }
    if "cc_dwnd" in flow0:  # Compound TCP: the delay-based part of the window
        panel["dwnd"] = flow0["cc_dwnd"].to_numpy()
    return panel


def _values_csv(reproduction: Reproduction, path: Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["experiment", "row", "cell", "metric", "unit", "mean", "std", "min", "max", "seeds", "paper",
                    "ns2", "verdict", "clipped_mean"])
        for outcome in reproduction.outcomes:
            spec = outcome.experiment.spec
            for metric in outcome.experiment.metrics:
                for r in outcome.plan.rows:
                    for c in outcome.plan.cells:
                        s = outcome.stats(metric.name, r, c)
                        w.writerow([spec.id, spec.rows[r].name, spec.cells[c].name, metric.name,
                                    metric.unit if metric.rate else "",
                                    *(("", "", "", "", 0) if s is None else (s.mean, s.std, s.low, s.high, s.n)),
                                    outcome.reference("paper", metric.name, r, c) or "",
                                    outcome.reference("ns2", metric.name, r, c) or "",
                                    outcome.verdict(metric.name, r, c),
                                    "" if outcome.clipped_mean(metric.name, r, c) is None
                                    else outcome.clipped_mean(metric.name, r, c)])


def write_study_report(reproduction: Reproduction, out_dir: Path,
                       progress: Optional[Callable[[int, int, str], None]] = None) -> Path:
    """results/<study>/report.md with every experiment, values.csv and the figures; returns the page.
    `progress(done, total, title)` is called before each experiment's tables and figures are written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    claims = reproduction.claims
    counts = {status: sum(1 for c in claims if c.status == status) for status in CLAIM_MARK}
    sweep = reproduction.sweep_report
    lines = [f"# cclab reproduction of {reproduction.study}" + (" (quick)" if reproduction.quick else ""), ""]
    if reproduction.quick:
        lines += [f"*{QUICK_NOTE}; the paper's and ns-2.35's numbers are shown for scale, without differences.*", ""]
    lines += [f"{MEASURE_NOTE}.", ""]
    lines += [f"{sweep.planned} runs: {sweep.already_stored} found in the store, {sweep.done} computed, "
              f"{sweep.failed} failed; the runs and their measures took {reproduction.wall_s:.1f} s of wall time "
              "(the tables, this page and the figures came after).",
              f"Findings: {counts['holds']} hold, {counts['fails']} fail, {counts['not checked']} not checked. "
              "Numbers are delivered packets x 1500 B per second unless said otherwise; `± sd` and the "
              "range are over seeds.", ""]
    lines += ["Experiments:", ""] + [f"- [{o.experiment.spec.title}](#{_slug(o.experiment.spec.title)})"
                                      for o in reproduction.outcomes] + [""]
    for done, outcome in enumerate(reproduction.outcomes):
        title = outcome.experiment.spec.title
        if progress:
            progress(done, len(reproduction.outcomes), title)
        lines += _experiment_markdown(outcome, out_dir, on_figure=None if progress is None else (
            lambda name, done=done, title=title: progress(done, len(reproduction.outcomes), f"{name}, {title}")))
    page = out_dir / "report.md"
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _values_csv(reproduction, out_dir / "values.csv")
    return page
