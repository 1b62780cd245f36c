"""What `cclab reproduce` and `cclab report` show and write: one model of a study's report, drawn three ways.

`study_report` measures nothing itself: it turns a `Reproduction` (values measured from the store) into a
`StudyReport`: per experiment, its tables (cclab's value beside the paper's and ns-2.35's, with the
difference and the verdict against a stated tolerance), its findings (one per statement of the paper, with
holds / fails / not checked and the reason) and its figures (PNG files drawn into the study's folder). The
terminal view (rich), the Markdown page (docs) and the HTML page (`cclab.html_report`) all render that
model, so they can never disagree.

The folder of a study (results/<study>/) holds report.md and report.html (every experiment), report.json
(the study's summary, for the index page across studies), values.csv (one line per run and metric),
claims.csv (one line per finding and part: the paper's value as we read it, cclab's deciding value, the
difference) and the PNG figures.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
from rich.console import Group
from rich.table import Table
from rich.text import Text

from .analysis.bic_phases import PHASE_LABEL, PHASES, bic_phases
from .claims import ClaimResult
from .experiment import NOT_CHECKED, UNIT_SCALE, ClaimSpec, MetricSpec, RowSpec, _scaled
from .measures import jain_index
from .plotting import bars_figure, lines_figure, timeseries_figure, window_figure
from .reproduce import ExperimentOutcome, Reproduction, Stats
from .units import parse_duration

# With more cells than this, a metric's table has a line per cell and a column per row (a grid of 180
# network configurations does not fit across a page).
WIDE = 8
QUICK_NOTE = ("Quick mode: shorter runs, fewer points and seeds; the numbers are not comparable to the "
              "paper's (no differences are shown) and only the findings marked for quick mode are checked.")
# A finding's verdict as every view prints it. "partly checked": the parts of a finding that were checked
# hold, the others were not checked (quick mode checks one placement of Table II's "in both placements").
FINDING_MARK = {"holds": "holds", "fails": "FAILS", "partly checked": "holds where checked",
                "not checked": "not checked"}
VERDICT_MARK = {"ok": "ok", "off": "OFF", "failed": "failed"}
MEASURE_NOTE = ("Rates in the tables are the packets the receivers got in order in the window, as the paper "
                "measures them. In-order delivery comes in bursts: a hole filled just after the window opens "
                "releases packets that crossed the link before it, so over a window a rate can exceed what "
                "crossed the link, even its capacity. Where it does, the cell also shows it clipped: scaled down "
                "to the bytes the bottleneck put on the wire in that window. Utilisation is the link's own count "
                "of bytes on the wire over its capacity, never above 1")


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


# --- the model ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Reference:
    """A published value beside cclab's: the paper's or ns-2.35's, and cclab's difference from it ("" in
    quick mode, whose short runs are not comparable)."""
    source: str          # "paper" or "ns-2"
    value: str
    difference: str      # "+3.1%", or ""
    tolerance: str = ""  # "±20%" when the cell is held to this reference (full runs only), else ""

    def text(self) -> str:
        """'paper 3,500.0 -0.4% (tolerance ±20%)'."""
        tolerance = f" (tolerance {self.tolerance})" if self.tolerance else ""
        return f"{self.source} {self.value} {self.difference}".rstrip() + tolerance


@dataclass(frozen=True)
class Cell:
    """One (row, cell) of a metric's table."""
    value: str                    # cclab: mean ± sd over seeds, "-" when no run finished
    spread: str                   # "[low, high] n=3" with several seeds, else ""
    references: tuple[Reference, ...]
    verdict: str                  # "ok", "off" (outside the stated tolerance), "failed" (no result), or ""
    bound: str = ""               # "at least 199,000.0": a lower bound the cell is held to (full runs only)
    clipped: str = ""             # "clipped 199,999.9": the rate clipped to the bottleneck's bytes, where lower

    def lines(self) -> list[str]:
        """The cell as lines of text, cclab's value first (Markdown and terminal)."""
        out = [self.value] + ([self.spread] if self.spread else []) + ([self.clipped] if self.clipped else [])
        out += [reference.text() for reference in self.references]
        return out + ([self.bound] if self.bound else [])


@dataclass(frozen=True)
class MetricTable:
    title: str
    corner: str                   # "row", or "cell" for a table turned on its side (WIDE)
    columns: list[str]
    rows: list[tuple[str, list[Cell]]]


@dataclass(frozen=True)
class Finding:
    """A statement of the paper and what cclab's runs say of it. An experiment can check one statement in
    several parts (each placement of Table II, each group of cells of a grid): they make one finding."""
    text: str
    status: str                   # a key of FINDING_MARK
    reason: str                   # what was compared, the values that break it, or why it was not checked
    paper: str = ""               # the paper's value as we read it (parts: each, joined by "; ")
    cclab: str = ""               # cclab's deciding value and where
    difference: str = ""          # cclab's minus the paper's, at the deciding row and cell


@dataclass(frozen=True)
class Figure:
    file: str                     # PNG, in the study's folder
    caption: str


@dataclass(frozen=True)
class RunError:
    run: str                      # "row / cell / seed #n"
    why: str


@dataclass
class ExperimentReport:
    id: str
    title: str
    anchor: str
    description: str
    file: str
    runs: str                     # "3 rows x 2 cells x 1 seed(s) = 6 runs"
    quick: bool
    tables: list[MetricTable]
    findings: list[Finding]
    errors: list[RunError]
    figures: list[Figure] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {status: sum(1 for f in self.findings if f.status == status) for status in FINDING_MARK}

    @property
    def cells_off(self) -> int:
        """Cells outside their stated tolerance, or with no result."""
        return sum(1 for t in self.tables for _, cells in t.rows for c in cells if c.verdict in ("off", "failed"))


@dataclass
class StudyReport:
    study: str
    quick: bool
    folder: Path
    runs: str                     # how many runs were planned, found, computed, failed
    wall_s: float
    experiments: list[ExperimentReport]

    @property
    def title(self) -> str:
        return f"cclab reproduction of {self.study}" + (" (quick)" if self.quick else "")

    @property
    def findings(self) -> list[Finding]:
        return [finding for experiment in self.experiments for finding in experiment.findings]

    @property
    def markdown_path(self) -> Path:
        return self.folder / "report.md"

    @property
    def html_path(self) -> Path:
        return self.folder / "report.html"

    def counts(self) -> dict[str, int]:
        return {status: sum(1 for f in self.findings if f.status == status) for status in FINDING_MARK}

    def summary(self) -> dict:
        """What the index page across studies shows of this study (report.json)."""
        return {"kind": "reproduction", "study": self.study, "quick": self.quick, "title": self.title,
                "runs": self.runs, "experiments": len(self.experiments), "findings": self.counts(),
                "cells_off": sum(e.cells_off for e in self.experiments)}


def counts_text(counts: dict[str, int]) -> str:
    """'3 hold, 1 fail, 2 not checked' (and those holding where checked, when there are any)."""
    text = f"{counts['holds']} hold, {counts['fails']} fail, {counts['not checked']} not checked"
    if counts.get("partly checked"):
        text += f", {counts['partly checked']} hold where checked (the rest not checked)"
    return text


def cell(outcome: ExperimentOutcome, metric: MetricSpec, r: int, c: int) -> Cell:
    """cclab's value (mean ± sd over seeds, with their range), the paper's and ns-2.35's with differences."""
    stats = outcome.stats(metric.name, r, c)
    spread = f"[{_number(stats.low, metric)}, {_number(stats.high, metric)}] n={stats.n}" \
        if stats is not None and stats.n > 1 else ""
    mean = stats.mean if stats else None
    quick = outcome.plan.quick
    experiment = outcome.experiment
    row = experiment.rows[r]

    def held(kind: str) -> Optional[float]:
        """The tolerance or bound of this kind the cell is held to; none in quick mode (not checked)."""
        values = [] if quick else experiment.row_values(row, kind, metric.name)
        return values[c] if values and values[c] != NOT_CHECKED else None

    references = []
    for kind, label, tolerance_kind in (("paper", "paper", "check"), ("ns2", "ns-2", "check_ns2")):
        reference = outcome.reference(kind, metric.name, r, c)
        if reference is not None:
            tolerance = held(tolerance_kind)
            references.append(Reference(label, _number(reference, metric), "" if quick else _diff(mean, reference),
                                        "" if tolerance is None else f"±{tolerance * 100:g}%"))
    at_least = held("at_least")
    bound = "" if at_least is None else f"at least {_number(at_least, metric)}"
    return Cell(_mean_text(stats, metric), spread, tuple(references), outcome.verdict(metric.name, r, c), bound,
                clipped_text(outcome, metric, r, c))


def metric_table(outcome: ExperimentOutcome, metric: MetricSpec) -> MetricTable:
    """A metric's table: a line per row and a column per cell, or the other way round when the cells are
    many (WIDE)."""
    spec, plan = outcome.experiment.spec, outcome.plan
    title = metric.title
    if len(plan.cells) > WIDE:
        return MetricTable(title, "cell", [spec.rows[r].name for r in plan.rows],
                           [(spec.cells[c].name, [cell(outcome, metric, r, c) for r in plan.rows])
                            for c in plan.cells])
    return MetricTable(title, "row", [spec.cells[c].name for c in plan.cells],
                       [(spec.rows[r].name, [cell(outcome, metric, r, c) for c in plan.cells]) for r in plan.rows])


def _part_names(specs: list[ClaimSpec]) -> list[str]:
    """What tells the parts of one statement apart: their rows, else their cells, else their metric
    ("rows A: STCP, B: NewReno"; "where delay=[20, 50], qsize=0.5"); empty when nothing does."""
    def where(spec: ClaimSpec) -> str:
        def text(value) -> str:
            return "[" + ", ".join(f"{v:g}" for v in value) + "]" if isinstance(value, list) else f"{value:g}"
        return ", ".join(f"{axis}={text(value)}" for axis, value in sorted(spec.where.items()))

    for label, describe in (("rows", lambda c: ", ".join(c.rows)), ("cells", lambda c: ", ".join(c.cells)),
                            ("where", where), ("metric", lambda c: c.metric)):
        names = [describe(spec) for spec in specs]
        if len(set(names)) == len(names):
            return [f"{label} {name}" if name else f"{label}: all" for name in names]
    return [""] * len(specs)


def findings(claims: list[ClaimResult], specs: Optional[list[ClaimSpec]] = None) -> list[Finding]:
    """One finding per statement, in the order first written. A statement checked in several parts fails
    when any part fails, holds when every part holds, is not checked when no part is, and otherwise holds
    where checked; the reason names each part (by what its spec in `specs` selects, when given) and its
    result, so a reader sees which part was left out and why."""
    parts: dict[str, list[tuple[ClaimResult, Optional[ClaimSpec]]]] = {}
    for i, claim in enumerate(claims):
        parts.setdefault(claim.text, []).append((claim, specs[i] if specs else None))
    out = []
    for text, pairs in parts.items():
        results = [result for result, _ in pairs]
        statuses = {result.status for result in results}
        if "fails" in statuses:
            status = "fails"
        elif statuses == {"holds"}:
            status = "holds"
        elif statuses == {"not checked"}:
            status = "not checked"
        else:
            status = "partly checked"
        details = [result.detail or "no reason recorded" for result in results]
        if len(statuses) == 1 and len(set(details)) == 1:
            # One part, or parts alike (quick mode's "checked on full runs only"): said once.
            reason = details[0]
        else:
            names = _part_names([spec for _, spec in pairs]) if specs else [""] * len(pairs)
            reason = "; ".join(f"part {i}{f' ({name})' if name else ''} {FINDING_MARK[result.status]}: {detail}"
                               for i, (result, detail, name) in enumerate(zip(results, details, names), start=1))
        out.append(Finding(text, status, reason, *(_joined(getattr(r, name) for r in results)
                                                   for name in ("paper", "cclab", "difference"))))
    return out


def _joined(values) -> str:
    """Each part's value once, in order, joined by '; ' (a finding of one part: its value)."""
    return "; ".join(dict.fromkeys(v for v in values if v))


def experiment_report(outcome: ExperimentOutcome, out_dir: Optional[Path] = None,
                      on_figure: Optional[Callable[[str], None]] = None) -> ExperimentReport:
    """The model of one experiment's section; its figures are drawn into `out_dir` when given."""
    spec, plan = outcome.experiment.spec, outcome.plan
    runs = (f"{len(plan.rows)} rows x {len(plan.cells)} cells x {plan.replications} seed(s) = {len(plan.runs)} runs"
            + (f", durations x {plan.time_scale:g}" if plan.time_scale != 1 else ""))
    errors = [RunError(f"{spec.rows[row].name} / {spec.cells[c].name} / seed #{replication}", why)
              for row, c, replication, why in outcome.errors]
    report = ExperimentReport(spec.id, spec.title, _slug(spec.title), spec.description.strip(),
                              outcome.experiment.path.name, runs, plan.quick,
                              [metric_table(outcome, m) for m in outcome.experiment.metrics],
                              findings(outcome.claims, list(spec.claims)), errors)
    if out_dir is not None:
        report.figures = _figures(outcome, out_dir, on_figure)
    return report


def study_report(reproduction: Reproduction, out_dir: Path,
                 progress: Optional[Callable[[int, int, str], None]] = None) -> StudyReport:
    """The model of a study's report, its figures drawn into `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    sweep = reproduction.sweep_report
    runs = (f"{sweep.planned} runs: {sweep.already_stored} found in the store, {sweep.done} computed, "
            f"{sweep.failed} failed")
    missing = sweep.planned - sweep.already_stored - sweep.done - sweep.failed
    if sweep.to_run == 0 and missing > 0:      # `cclab report`: what the store holds, nothing computed
        runs += f", {missing} not run"
    return StudyReport(reproduction.study, reproduction.quick, out_dir, runs, reproduction.wall_s,
                       [experiment_report(outcome, out_dir, _figure_progress(progress, done, len(reproduction.outcomes),
                                                            outcome.experiment.spec.title))
                        for done, outcome in enumerate(reproduction.outcomes)])


def _figure_progress(progress: Optional[Callable[[int, int, str], None]], done: int, total: int,
                     title: str) -> Optional[Callable[[str], None]]:
    """on_figure for one experiment: tells `progress` which figure of which experiment is being drawn."""
    if progress is None:
        return None
    progress(done, total, title)
    return lambda name: progress(done, total, f"{name}, {title}")


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


def terminal_header(reproduction: Reproduction) -> list:
    """What the terminal shows before the tables: the quick-mode warning and, when some rate was clipped,
    what the tables' rates are, as report.md has them."""
    lines = []
    if reproduction.quick:
        lines.append(Text(f"{reproduction.study}: {QUICK_NOTE} `cclab reproduce {reproduction.study}` (without "
                          "--quick) runs the study as the paper did.", style="bold yellow"))
    if _any_clipped(reproduction):
        lines.append(Text(MEASURE_NOTE + ".", style="dim"))
    return lines


# --- the terminal ------------------------------------------------------------------------------------

def terminal_view(outcome: ExperimentOutcome) -> Group:
    report = experiment_report(outcome)
    parts: list[Any] = []
    for metric in report.tables:
        table = Table(title=f"{report.title}: {metric.title}" + (" (quick)" if report.quick else ""),
                      title_justify="left")
        for i, name in enumerate([metric.corner] + metric.columns):
            table.add_column(name, justify="left" if i == 0 else "right")
        for name, cells in metric.rows:
            table.add_row(name, *(_terminal_cell(c) for c in cells))
        parts.append(table)
    if report.findings:
        claims = Table(title="the paper's findings", title_justify="left", show_lines=False)
        claims.add_column("finding")
        claims.add_column("cclab")
        claims.add_column("why", overflow="fold")
        for finding in report.findings:
            colour = {"holds": "green", "fails": "red"}.get(finding.status, "yellow")
            # Text, not markup: findings carry brackets ("[checked at 0.3 BDP]").
            claims.add_row(Text(finding.text), Text(FINDING_MARK[finding.status], style=colour),
                           Text(finding.reason if finding.status != "holds" else ""))
        parts.append(claims)
    for error in report.errors[:5]:
        parts.append(Text.assemble((f"run {error.run} failed: ", "red"), error.why))
    return Group(*parts)


def _terminal_cell(value: Cell) -> str:
    verdict = {"ok": "[green]ok[/]", "off": "[red]OFF[/]", "failed": "[red]failed[/]"}.get(value.verdict)
    return "\n".join(value.lines() + ([verdict] if verdict else []))


# --- the Markdown page -------------------------------------------------------------------------------

def _markdown_cell(value: Cell) -> str:
    verdict = VERDICT_MARK.get(value.verdict)
    return "<br>".join(value.lines() + ([f"**{verdict}**"] if verdict else []))


def _experiment_markdown(report: ExperimentReport) -> list[str]:
    lines = [f"## {report.title}", ""]
    if report.description:
        lines += [report.description, ""]
    lines += [f"`{report.file}`: {report.runs}.", ""]
    for table in report.tables:
        lines += [f"**{table.title}**", ""]
        lines.append("| " + " | ".join([table.corner] + table.columns) + " |")
        lines.append("|---|" + "---:|" * len(table.columns))
        lines += ["| " + " | ".join([name] + [_markdown_cell(c) for c in cells]) + " |" for name, cells in table.rows]
        lines.append("")
    if report.findings:
        lines += ["**The paper's findings**: the paper's value as we read its words, cclab's deciding value (the "
                  "one closest to breaking the finding) and the difference.", "",
                  "| finding | paper (our reading) | cclab | difference | verdict | why |", "|---|---|---|---:|---|---|"]
        for finding in report.findings:
            lines.append(f"| {finding.text} | {finding.paper} | {finding.cclab} | {finding.difference} | "
                         f"**{FINDING_MARK[finding.status]}** | {finding.reason} |")
        lines.append("")
    for error in report.errors:
        lines.append(f"- run {error.run} failed: `{error.why}`")
    lines.append("")
    for figure in report.figures:
        lines += [f"![{figure.caption}]({figure.file})", ""]
    return lines


def markdown_page(report: StudyReport) -> str:
    lines = [f"# {report.title}", ""]
    if report.quick:
        lines += [f"*{QUICK_NOTE}*", ""]
    lines += [f"{MEASURE_NOTE}.", ""]
    lines += [f"{report.runs}; the runs and their measures took {report.wall_s:.1f} s of wall time (the tables, "
              "this page and the figures came after).",
              f"Findings: {counts_text(report.counts())}. "
              "Numbers are delivered packets x 1500 B per second unless said otherwise; `± sd` and the "
              "range are over seeds.", ""]
    lines += ["Experiments:", ""] + [f"- [{e.title}](#{e.anchor})" for e in report.experiments] + [""]
    for experiment in report.experiments:
        lines += _experiment_markdown(experiment)
    return "\n".join(lines) + "\n"


def _figures(outcome: ExperimentOutcome, out_dir: Path,
             on_figure: Optional[Callable[[str], None]] = None) -> list[Figure]:
    """Draw the experiment's figures into out_dir; what each file shows. on_figure(file name) is called
    before each is drawn (a progress bar)."""
    drawing = on_figure or (lambda _name: None)
    experiment, spec = outcome.experiment, outcome.experiment.spec
    drawn: list[Figure] = []
    for index, figure in enumerate(spec.figures):
        rows = [r for r in outcome.plan.rows if not figure.rows or spec.rows[r].name in figure.rows]
        chosen = set(experiment.select_cells(figure.cells, figure.where))
        cells = [c for c in outcome.plan.cells if c in chosen]
        if figure.cells:   # in the order the figure names them (the paper's panels (a), (b), ...)
            order = {name: i for i, name in enumerate(figure.cells)}
            cells.sort(key=lambda c: order.get(spec.cells[c].name, len(order)))
        base = figure.file or f"{spec.id}-{figure.kind}-{index}"
        title = _titled(outcome, figure.title or spec.title)
        # A time on a time axis scales with the run (quick mode shortens runs and their schedules alike).
        time_scale = outcome.plan.time_scale if figure.kind in ("timeseries", "window") else 1.0
        references = [("x", ref.x * time_scale, ref.label) if ref.x is not None else ("y", ref.y, ref.label)
                      for ref in figure.references]
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
                    window_figure(out_dir / name, _titled(outcome, heading), row_algorithm(spec.rows[r]), panels,
                                  references)
                    drawn.append(Figure(name, number or row))
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
            lines_figure(out_dir / name, title, figure.xlabel or xlabel, figure.ylabel or metric.title, panels,
                         log_x=log_x, log_y=log_y, capacity=_capacity(outcome, metric), references=references)
            drawn.append(Figure(name, title))
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
            # The axis names the unit only when every bar is a rate in it (not a ratio, a time, a share).
            bars_figure(out_dir / name, title, figure.ylabel or (metrics[0].unit if all(m.rate for m in metrics)
                                                                  and len({m.unit for m in metrics}) == 1 else ""),
                        [m.label or m.name for m in metrics], panels)
            drawn.append(Figure(name, title))
        elif figure.kind == "timeseries":
            for r in rows:
                panels = []
                for c in cells:
                    found = outcome.series(r, c)
                    if found is not None:
                        every_ns = (_scaled(parse_duration(figure.every), outcome.plan.time_scale)
                                    if figure.every else None)
                        panels.append((spec.cells[c].name, _series_lines(figure.column, *found, group=figure.group,
                                                                         every_ns=every_ns)))
                if panels:
                    name = f"{base}-{_slug(spec.rows[r].name)}.png"
                    drawing(name)
                    timeseries_figure(out_dir / name, _titled(outcome, f"{figure.title or spec.title}: {spec.rows[r].name}"),
                                      SERIES_LABEL.get(figure.column, figure.column), panels, references)
                    drawn.append(Figure(name, spec.rows[r].name))
        elif figure.kind == "cdf":
            # The metric's values pooled over the replications (every flow with `flows = "each"`, every sample
            # with "samples"), as a CDF drawn through its 5 %-quantiles (the lines helper marks each point), a
            # panel per cell; with `metrics`, a line style per metric (seed 002's Figs. 4-5: RTT solid,
            # queueing time dashed, as the paper draws them).
            names = figure.metrics or [figure.metric]
            # Pooled samples (10^4-10^6 values) have a far tail (a 14-s RTT after a stall) that would squeeze
            # the body of the curve into a corner: their CDF is drawn to its 99th percentile, and says so.
            many = any(len(outcome.values.get((m, r, c), ())) >= 1000 for m in names for r in rows for c in cells)
            probabilities = [p / 20 for p in range(20)] + ([0.99] if many else [1.0])
            panels = []
            for c in cells:
                cdf_lines = []
                for variant, metric_name in enumerate(names):
                    for r in rows:
                        values = outcome.values.get((metric_name, r, c))
                        if values is not None and len(values):
                            quantiles = [float(q) for q in np.quantile(np.asarray(values, dtype=float), probabilities)]
                            # Several metrics: one legend entry per row and metric across the panels (the
                            # sample counts, which differ by cell, are in the tables).
                            label = (f"{spec.rows[r].name} (n={len(values)})" if len(names) == 1 else
                                     f"{spec.rows[r].name}, {experiment.metric(metric_name).label or metric_name}")
                            cdf_lines.append((label, row_algorithm(spec.rows[r]),
                                              quantiles, probabilities, [0.0] * len(probabilities), variant))
                panels.append((spec.cells[c].name, cdf_lines))
            name = f"{base}.png"
            drawing(name)
            xlabel = figure.xlabel or (experiment.metric(names[0]).title if len(names) == 1
                                       else " / ".join(experiment.metric(m).label or m for m in names))
            lines_figure(out_dir / name, title, xlabel, "CDF (to the 99th percentile)" if many else "CDF", panels)
            drawn.append(Figure(name, title))
    return drawn


SERIES_LABEL = {"throughput": "throughput (Mbit/s)", "queue": "queue (packets)", "cwnd": "window (packets)",
                "cc_dwnd": "dwnd (packets)", "cc_base_rtt_s": "baseRTT (s)", "fairness": "Jain's fairness index",
                "bic_phases": "window (packets)"}


def _series_lines(column: str, config: dict, flows, queue, group: "str | list[str] | None" = None,
                  every_ns: Optional[int] = None) -> list[tuple[str, list[float], list[float]]]:
    """The lines of a timeseries panel: the bottleneck queue, or the column (or throughput) of each flow
    (of `group` only, when given); "fairness" is one line, Jain's index of those flows' rates over each
    interval of `every_ns`; "bic_phases" draws each flow's window once per BIC mode (NaN outside it)."""
    if column == "queue":
        return [("queue", queue["time_s"].to_numpy(), queue["queue_packets"].to_numpy())]
    if group is not None:
        groups = [group] if isinstance(group, str) else group
        members = [i for i, f in enumerate(config["flows"]) if f.get("group") in groups]
        flows = flows[flows["flow"].isin(members)]
    if column == "fairness":
        return [_fairness_line(config, flows, every_ns)]
    out = []
    for flow, data in flows.groupby("flow"):
        data = data.sort_values("time_s")
        time_s = data["time_s"].to_numpy()
        if column == "throughput":
            # Mbit/s between consecutive samples, from the cumulative in-order delivery (packets x size).
            delivered = data["delivered"].to_numpy(dtype=float)
            rate = np.diff(delivered) * config["packet_size"] * 8 / np.diff(time_s) / 1e6
            out.append((f"flow {flow}", time_s[1:], rate))
        elif column == "bic_phases":
            phases = bic_phases(data["cwnd"].to_numpy(), data["cc_w_max"].to_numpy())
            cwnd = data["cwnd"].to_numpy(dtype=float)
            for phase in PHASES:
                if (phases == phase).any():
                    out.append((f"flow {flow}: {PHASE_LABEL[phase]}", time_s, np.where(phases == phase, cwnd, np.nan)))
        else:
            out.append((f"flow {flow}", time_s, data[column].to_numpy()))
    return out


def _fairness_line(config: dict, flows, every_ns: int) -> tuple[str, list[float], list[float]]:
    """Jain's index of the flows' rates over [t, t + every) for each interval, placed at its end (from the
    cumulative in-order delivery sampled at the run's sample times)."""
    delivered = flows.pivot_table(index="time_s", columns="flow", values="delivered").sort_index()
    ends, indices = [], []
    for end in np.arange(every_ns, config["run"]["duration_ns"] + 1, every_ns):
        at = delivered.index.to_numpy() * 1e9
        start_row, end_row = np.abs(at - (end - every_ns)).argmin(), np.abs(at - end).argmin()
        if abs(at[end_row] - end) > 1e3:
            break
        rates = (delivered.iloc[end_row] - (delivered.iloc[start_row] if end > every_ns else 0)).to_numpy(dtype=float)
        indices.append(jain_index(np.nan_to_num(rates)))
        ends.append(end / 1e9)
    return ("fairness index", ends, indices)


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


# The percentiles values.csv keeps of each cell's values besides their mean and range: what seed 002's
# page tables for the RTT distributions of Figs. 4-5 (cclab.doc_seed002), which no mean can stand in for.
PERCENTILES = (10, 50, 90, 99)


def write_values_csv(reproduction: Reproduction, path: Path) -> None:
    """One line per experiment, row, cell and metric: cclab's mean, sd, range and seeds, the paper's and
    ns-2.35's values, the verdict, the clipped mean, and the percentiles 10 / 50 / 90 / 99 of the same
    values (also what docs/reproductions/data/ keeps, cclab.doc_numbers)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["experiment", "row", "cell", "metric", "unit", "mean", "std", "min", "max", "seeds", "paper",
                    "ns2", "verdict", "clipped_mean", *(f"p{p}" for p in PERCENTILES)])
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
                                    else outcome.clipped_mean(metric.name, r, c),
                                    *(outcome.percentiles(metric.name, r, c, PERCENTILES)
                                      or ("",) * len(PERCENTILES))])


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


def write_study_report(reproduction: Reproduction, out_dir: Path,
                       progress: Optional[Callable[[int, int, str], None]] = None) -> StudyReport:
    """results/<study>/: report.md and report.html with every experiment, report.json (for the index
    page), values.csv and the figures. `progress(done, total, title)` is called before each experiment's
    figures are drawn."""
    from .html_report import SUMMARY, write_study_page

    report = study_report(reproduction, out_dir, progress)
    report.markdown_path.write_text(markdown_page(report), encoding="utf-8")
    write_study_page(report, report.html_path)
    (out_dir / SUMMARY).write_text(json.dumps(report.summary(), indent=2) + "\n", encoding="utf-8")
    write_values_csv(reproduction, out_dir / "values.csv")
    _claims_csv(reproduction, out_dir / "claims.csv")
    return report
