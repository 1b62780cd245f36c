"""`cclab reproduce`: run a study's experiments, print them beside the paper, write a report page.

The report folder holds report.md (tables with paper, cclab and difference side by side, and the figures),
results.csv (one line per run) and PNG figures.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from rich.table import Table

from .experiment import Experiment, ExperimentResult
from .plotting import window_figure

NOTES = {
    "quick": "quick mode: short runs, numbers not comparable to the paper; no checks are made",
}


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def _diff(value: float | None, paper: float | None) -> str:
    if value is None or not paper:
        return ""
    return f"{(value - paper) / paper * 100:+.1f}%"


def comparison_table(result: ExperimentResult) -> Table:
    spec = result.experiment.spec
    table = Table(title=spec.title + (" (quick)" if result.quick else ""), title_justify="left")
    table.add_column("algorithm")
    for cell in spec.cells:
        table.add_column(cell.name, justify="right")
    for r, row in enumerate(spec.rows):
        lines = []
        for c in range(len(spec.cells)):
            value = result.value(r, c)
            paper = row.paper[c] if row.paper else None
            verdict = result.verdict(r, c)
            mark = {"ok": " [green]ok[/]", "off": " [red]OFF[/]", "failed": " [red]failed[/]"}.get(verdict, "")
            text = f"{_fmt(value)}{mark}"
            if paper is not None:
                text += f"\npaper {_fmt(paper)} {_diff(value, paper)}"
            ns2 = result.ns2(r, c)
            if ns2 is not None:
                text += f"\nns-2 {_fmt(ns2)} {_diff(value, ns2)}"
            lines.append(text)
        table.add_row(row.name, *lines)
    return table


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def write_report(result: ExperimentResult, out_dir: Path) -> Path:
    """report.md, results.csv and figures for one experiment."""
    spec = result.experiment.spec
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["row", "cell", spec.metric, "paper", "difference", "ns2", "difference_ns2", "verdict",
                    "loss_events", "timeouts", "error"])
        for (r, c), o in sorted(result.outcomes.items()):
            row = spec.rows[r]
            flows = o.summary.get("flows", [])
            w.writerow([row.name, spec.cells[c].name, result.value(r, c), row.paper[c] if row.paper else "",
                        _diff(result.value(r, c), row.paper[c] if row.paper else None),
                        result.ns2(r, c) or "", _diff(result.value(r, c), result.ns2(r, c)), result.verdict(r, c),
                        sum(x["loss_events"] for x in flows), sum(x["timeouts"] for x in flows), o.error or ""])

    lines = [f"# {spec.title}", ""]
    if result.quick:
        lines += [f"*{NOTES['quick']}*", ""]
    lines += [f"Metric: `{spec.metric}` in {spec.unit}. Wall time {result.wall_s:.1f} s.", ""]
    lines.append("| algorithm | " + " | ".join(c.name for c in spec.cells) + " |")
    lines.append("|---|" + "---:|" * len(spec.cells))
    for r, row in enumerate(spec.rows):
        cells = []
        for c in range(len(spec.cells)):
            value, paper = result.value(r, c), (row.paper[c] if row.paper else None)
            text = _fmt(value)
            if paper is not None:
                text += f" (paper {_fmt(paper)}, {_diff(value, paper)})"
            ns2 = result.ns2(r, c)
            if ns2 is not None:
                text += f" (ns-2 {_fmt(ns2)}, {_diff(value, ns2)})"
            verdict = result.verdict(r, c)
            if verdict:
                text += f" **{verdict}**"
            cells.append(text)
        lines.append(f"| {row.name} | " + " | ".join(cells) + " |")
    lines.append("")
    errors = [(spec.rows[r].name, spec.cells[c].name, o.error) for (r, c), o in result.outcomes.items() if o.error]
    for row, cell, error in errors:
        lines.append(f"- run {row} / {cell} failed: `{error}`")

    if spec.figure == "window":
        lines += ["", "## Congestion window and bottleneck queue", ""]
        for r, row in enumerate(spec.rows):
            panels = [(spec.cells[c].name, result.outcomes[(r, c)].series) for c in range(len(spec.cells))
                      if (r, c) in result.outcomes and not result.outcomes[(r, c)].error]
            if not panels:
                continue
            algorithm = row.cc if isinstance(row.cc, str) else row.cc.get("name", "")
            name = f"window-{_slug(row.name)}.png"
            window_figure(out_dir / name, f"{row.name}: congestion window and queue", algorithm, panels)
            lines.append(f"![{row.name}]({name})")
            lines.append("")
    path = out_dir / "report.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
