"""What `cclab reproduce` shows and writes: terminal tables, and one Markdown page per study.

The folder of a study (results/<study>/) holds report.md (every experiment: its tables with cclab, the
paper and ns-2.35 side by side, the paper's findings checked with the paper's value, cclab's and their
difference, its figures), values.csv (one line per run and metric), claims.csv (one line per finding) and
the PNG figures.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any, Optional

import numpy as np
from rich.console import Group
from rich.table import Table

from .experiment import MetricSpec, RowSpec
from .plotting import bars_figure, lines_figure, timeseries_figure, window_figure
from .reproduce import ExperimentOutcome, Reproduction, Stats

# With more cells than this, a metric's table has a line per cell and a column per row (a grid of 180
# network configurations does not fit across a page).
WIDE = 8
QUICK_NOTE = ("quick mode: shorter runs, fewer points and seeds; the numbers are not comparable to the "
              "paper's and only the findings marked for quick mode are checked")
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
    mean = stats.mean if stats else None
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
        claims = Table(title="the paper's findings", title_justify="left", show_lines=False)
        claims.add_column("finding")
        claims.add_column("paper (our reading)")
        claims.add_column("cclab")
        claims.add_column("difference", justify="right")
        claims.add_column("verdict")
        for claim in outcome.claims:
            colour = {"holds": "green", "fails": "red"}.get(claim.status, "yellow")
            claims.add_row(claim.text, claim.paper, claim.cclab, claim.difference,
                           f"[{colour}]{CLAIM_MARK[claim.status]}[/]")
        parts.append(claims)
    for row, cell, replication, why in outcome.errors[:5]:
        parts.append(f"[red]run {spec.rows[row].name} / {spec.cells[cell].name} / seed #{replication} failed:[/] {why}")
    return Group(*parts)


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

def _experiment_markdown(outcome: ExperimentOutcome, out_dir: Path) -> list[str]:
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
        lines += ["**The paper's findings**: the paper's value as we read its words, cclab's deciding value (the "
                  "one closest to breaking the finding) and the difference.", "",
                  "| finding | paper (our reading) | cclab | difference | verdict | detail |",
                  "|---|---|---|---:|---|---|"]
        for claim in outcome.claims:
            lines.append(f"| {claim.text} | {claim.paper} | {claim.cclab} | {claim.difference} | "
                         f"**{CLAIM_MARK[claim.status]}** | {claim.detail} |")
        lines.append("")
    for row, cell, replication, why in outcome.errors:
        lines.append(f"- run {spec.rows[row].name} / {spec.cells[cell].name} / seed #{replication} failed: `{why}`")
    lines += [""] + _figures(outcome, out_dir)
    return lines


def _figures(outcome: ExperimentOutcome, out_dir: Path) -> list[str]:
    experiment, spec = outcome.experiment, outcome.experiment.spec
    lines = []
    for index, figure in enumerate(spec.figures):
        rows = [r for r in outcome.plan.rows if not figure.rows or spec.rows[r].name in figure.rows]
        chosen = set(experiment.select_cells(figure.cells, figure.where))
        cells = [c for c in outcome.plan.cells if c in chosen]
        base = figure.file or f"{spec.id}-{figure.kind}-{index}"
        title = figure.title or spec.title
        # A time on a time axis scales with the run (quick mode shortens runs and their schedules alike).
        time_scale = outcome.plan.time_scale if figure.kind in ("timeseries", "window") else 1.0
        references = [("x", ref.x * time_scale, ref.label) if ref.x is not None else ("y", ref.y, ref.label)
                      for ref in figure.references]
        if figure.kind == "window":
            for r in rows:
                panels = []
                for c in cells:
                    found = outcome.series(r, c)
                    if found is not None:
                        panels.append((spec.cells[c].name, _window_panel(*found)))
                if panels:
                    name = f"{base}-{_slug(spec.rows[r].name)}.png"
                    window_figure(out_dir / name, f"{spec.rows[r].name}: congestion window and queue",
                                  row_algorithm(spec.rows[r]), panels, references)
                    lines += [f"![{spec.rows[r].name}]({name})", ""]
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
            lines_figure(out_dir / name, title, figure.xlabel or xlabel, figure.ylabel or metric.title, panels, log_x=log_x,
                         log_y=log_y, references=references)
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
                    timeseries_figure(out_dir / name, f"{title}: {spec.rows[r].name}",
                                      SERIES_LABEL.get(figure.column, figure.column), panels, references)
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
    that vary among the figure's cells). With figure.ratio_to_row, each row's mean over that row's in the
    same cell (no error bars), and that row is not drawn."""
    experiment, spec = outcome.experiment, outcome.experiment.spec
    names = list(experiment.coordinates)
    base_row = next((i for i, row in enumerate(spec.rows) if row.name == figure.ratio_to_row), None)
    rows = [r for r in rows if r != base_row]

    def point(r: int, c: int) -> Optional[tuple[float, float]]:
        """(mean, spread) drawn for row r at cell c, or None."""
        stats = outcome.stats(figure.metric, r, c)
        if stats is None or base_row is None:
            return None if stats is None else (stats.mean, stats.std)
        base = outcome.stats(figure.metric, base_row, c)
        return None if base is None or not base.mean else (stats.mean / base.mean, 0.0)

    if len(names) <= 1:
        lines = []
        for r in rows:
            points = [(spec.cells[c].x, point(r, c)) for c in cells]
            points = [(x, p) for x, p in points if p is not None]
            if points:
                lines.append((spec.rows[r].name, row_algorithm(spec.rows[r]), [x for x, _ in points],
                              [p[0] for _, p in points], [p[1] for _, p in points], 0))
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
                points = [(x, point(r, c)) for x, c in members]
                points = [(x, p) for x, p in points if p is not None]
                if not points:
                    continue
                label = " ".join([spec.rows[r].name] * (len(rows) > 1) +
                                 [f"{a}={v:g}" for a, v in zip(others, group)]) or spec.rows[r].name
                lines.append((label, row_algorithm(spec.rows[r]), [x for x, _ in points],
                              [p[0] for _, p in points], [p[1] for _, p in points], variant))
        panels.append(("" if panel is None else f"{figure.panels}={panel:g}", lines))
    return x_axis, panels


def _window_panel(config: dict, flows, queue) -> dict:
    flow0 = flows[flows["flow"] == 0]
    bottleneck = config["bottleneck"]
    panel = {
        "time_s": flow0["time_s"].to_numpy(), "cwnd": flow0["cwnd"].to_numpy(),
        "queue_time_s": queue["time_s"].to_numpy(), "queue_packets": queue["queue_packets"].to_numpy(),
        "bdp_packets": bottleneck["rate_bps"] * 2 * bottleneck["delay_ns"] / 1e9 / 8 / config["packet_size"],
        "buffer_packets": bottleneck["queue"]["limit_packets"],
    }
    if "cc_dwnd" in flow0:  # Compound TCP: the delay-based part of the window
        panel["dwnd"] = flow0["cc_dwnd"].to_numpy()
    return panel


def _values_csv(reproduction: Reproduction, path: Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["experiment", "row", "cell", "metric", "unit", "mean", "std", "min", "max", "seeds", "paper",
                    "ns2", "verdict"])
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
                                    outcome.verdict(metric.name, r, c)])


def _claims_csv(reproduction: Reproduction, path: Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["experiment", "finding", "status", "paper", "cclab", "difference", "paper_value",
                    "cclab_value", "difference_value", "detail"])
        for outcome in reproduction.outcomes:
            for claim in outcome.claims:
                w.writerow([outcome.experiment.spec.id, claim.text, claim.status, claim.paper, claim.cclab,
                            claim.difference, *("" if v is None else v for v in
                                                (claim.paper_value, claim.cclab_value, claim.difference_value)),
                            claim.detail])


def write_study_report(reproduction: Reproduction, out_dir: Path) -> Path:
    """results/<study>/report.md with every experiment, values.csv and the figures; returns the page."""
    out_dir.mkdir(parents=True, exist_ok=True)
    claims = reproduction.claims
    counts = {status: sum(1 for c in claims if c.status == status) for status in CLAIM_MARK}
    sweep = reproduction.sweep_report
    lines = [f"# cclab reproduction of {reproduction.study}" + (" (quick)" if reproduction.quick else ""), ""]
    if reproduction.quick:
        lines += [f"*{QUICK_NOTE}.*", ""]
    lines += [f"{sweep.planned} runs: {sweep.already_stored} found in the store, {sweep.done} computed, "
              f"{sweep.failed} failed; wall time {reproduction.wall_s:.1f} s.",
              f"Findings: {counts['holds']} hold, {counts['fails']} fail, {counts['not checked']} not checked. "
              "Numbers are delivered packets x 1500 B per second unless said otherwise; `± sd` and the "
              "range are over seeds.", ""]
    lines += ["Experiments:", ""] + [f"- [{o.experiment.spec.title}](#{_slug(o.experiment.spec.title)})"
                                      for o in reproduction.outcomes] + [""]
    for outcome in reproduction.outcomes:
        lines += _experiment_markdown(outcome, out_dir)
    page = out_dir / "report.md"
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _values_csv(reproduction, out_dir / "values.csv")
    _claims_csv(reproduction, out_dir / "claims.csv")
    return page
