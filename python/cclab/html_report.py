"""The HTML pages of `cclab reproduce` and `cclab report`: a page per study, a page per stored sweep, and an
index across them.

Each page is one self-contained file: styles inline, every figure embedded as a base64 PNG data URI, no
script and nothing fetched, so it opens the same from a mail attachment, an archive or a laptop without the
results folder. The pages render the models of `cclab.reproduction_report` (a reproduction study) and
`cclab.stored_sweep_report` (a sweep) with jinja2 templates (`cclab/templates/`), autoescaped: a finding or
a scenario name holding `<` or `&` shows as written.

The index lists every study folder of the output folder that holds a report.json (what each page writes of
itself), so pages written by separate `cclab reproduce` and `cclab report` commands all appear.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2

if TYPE_CHECKING:
    from .reproduction_report import StudyReport
    from .stored_sweep_report import StoredSweepReport

INDEX = "index.html"
MAX_ERRORS = 20   # failed runs listed per experiment; report.md has them all
SUMMARY = "report.json"


def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader("cclab", "templates"), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=False, lstrip_blocks=False)


def _version() -> str:
    from . import __version__

    return __version__


def png_data_uri(path: Path) -> str:
    """A PNG file as a data: URI, so the page carries the picture itself."""
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_study_page(report: StudyReport, path: Path) -> Path:
    """The HTML page of a reproduction study; its figures are read from the study's folder."""
    from .reproduction_report import FINDING_MARK, MEASURE_NOTE, QUICK_NOTE, VERDICT_MARK

    images = {figure.file: png_data_uri(report.folder / figure.file)
              for experiment in report.experiments for figure in experiment.figures}
    text = _environment().get_template("study.html.j2").render(
        title=report.title, report=report, counts=report.counts(), images=images, quick_note=QUICK_NOTE, measure_note=MEASURE_NOTE,
        finding_mark=FINDING_MARK, verdict_mark=VERDICT_MARK, max_errors=MAX_ERRORS, version=_version(),
        index_link=True)
    return _write(path, text)


def write_sweep_page(report: StoredSweepReport, path: Path) -> Path:
    """The HTML page of a stored sweep; its figures are read from the page's folder."""
    images = {figure.file: png_data_uri(path.parent / figure.file) for figure in report.figures}
    text = _environment().get_template("sweep.html.j2").render(
        title=report.title, report=report, images=images, n_fields=report.columns.index("seeds") + 1,
        version=_version(), index_link=True)
    return _write(path, text)


def write_index(out_root: Path) -> Path:
    """out_root/index.html: every study page under out_root (each folder with a report.json)."""
    entries = []
    for summary_path in sorted(out_root.glob(f"*/{SUMMARY}")):
        try:
            summary = json.loads(summary_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue   # a folder half-written by an interrupted command is left out, not fatal
        if not (summary_path.parent / "report.html").exists():
            continue
        entries.append({**summary, "href": f"{summary_path.parent.name}/report.html"})
    # Reproductions first (a study's full page before its quick one), then sweeps, each by name.
    entries.sort(key=lambda entry: (entry.get("kind") != "reproduction", str(entry.get("study")),
                                    bool(entry.get("quick"))))
    text = _environment().get_template("index.html.j2").render(
        title="cclab reports", entries=entries, version=_version(), index_link=False)
    return _write(out_root / INDEX, text)
