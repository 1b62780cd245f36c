"""The report of a stored sweep (`cclab report STUDY` for a study written by `cclab sweep`).

A sweep has no paper to compare with, so its page is what the store holds: a line per parameter point with
the swept values, the seeds, each flow's goodput and the bottleneck's figures (means over the replications,
± the sample standard deviation when there are several), the failed runs with their error, and two
figures: the goodput of each point's flows, and the congestion window of each point's first replication.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from .plotting import bars_figure, timeseries_figure
from .results import connect, load
from .store import TIMESERIES, StudyStore, resolve_root, results_version

MBIT = 1e6
MAX_FLOW_COLUMNS = 4      # more flows than this: their total and Jain's index only
MAX_WINDOW_PANELS = 12    # points drawn in the window figure (a panel each)


@dataclass(frozen=True)
class Figure:
    file: str
    caption: str


@dataclass
class StoredSweepReport:
    study: str
    version: str
    folder: Path                  # where the page and its figures are written
    runs: str                     # "8 runs (4 points x 2 replications), 0 failed"
    columns: list[str]
    rows: list[list[str]]
    failures: list[tuple[str, str]] = field(default_factory=list)   # (parameters, error)
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)                   # what a reader must know first

    @property
    def title(self) -> str:
        return f"cclab sweep {self.study}"

    @property
    def html_path(self) -> Path:
        return self.folder / "report.html"

    def summary(self) -> dict:
        """What the index page across studies shows of this sweep (report.json)."""
        return {"kind": "sweep", "study": self.study, "quick": False, "title": self.title, "runs": self.runs}


def _mean_sd(values: pd.Series, scale: float = 1.0, digits: int = 2) -> str:
    values = values.dropna() / scale
    if values.empty:
        return "-"
    text = f"{values.mean():,.{digits}f}"
    if len(values) > 1:
        text += f" ± {values.std(ddof=1):,.{digits}f}"
    return text


def _value_text(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def value_order(value) -> tuple:
    """A sort key for one swept value, so that a page lists its points in the grid's order rather than
    the store's (sorted as text: "0.1bdp", "10bdp", "1bdp", and "100Mbps" before "20Mbps"). The store keeps
    no order of its own, so: rates and durations by their value in bps and ns, numbers by value, other
    text naturally (the numbers in it compared as numbers: 0.1bdp < 0.5bdp < 1bdp < 10bdp), then
    anything else (an algorithm table) by its JSON."""
    from .units import parse_duration, parse_rate

    if isinstance(value, bool) or value is None:
        return (4, str(value))
    if isinstance(value, (int, float)):
        return (0, float(value))
    if isinstance(value, str):
        for kind, parse in ((1, parse_rate), (2, parse_duration)):
            try:
                return (kind, float(parse(value)))
            except (ValueError, TypeError):
                pass
        parts = re.split(r"(\d+(?:\.\d+)?)", value)  # text at even places, numbers at odd ones
        return (3, tuple(float(p) if i % 2 else p for i, p in enumerate(parts)))
    return (5, json.dumps(value, sort_keys=True))


def point_order(params: dict[str, dict], fields: list[str]) -> list[str]:
    """The points' keys (their params JSON) ordered field by field, the first field outermost."""
    return sorted(params, key=lambda text: tuple(value_order(params[text].get(name)) for name in fields))


def stored_sweep_report(study: str, store: Path | str | None, out_dir: Path) -> StoredSweepReport:
    """Read every stored run of `study` (this cclab version) and draw its figures into out_dir."""
    frame = load(study, store)
    if "kind" in frame:   # runs with traffic groups carry a row per group too; the page shows flows
        frame = frame[frame["kind"].fillna("flow") == "flow"]
    params = {text: json.loads(text) for text in frame["params"].unique()}
    fields = list(dict.fromkeys(name for values in params.values() for name in values))
    flows = sorted(int(f) for f in frame["flow"].unique())
    per_flow = len(flows) <= MAX_FLOW_COLUMNS
    columns = fields + ["seeds"] + ([f"flow {f} goodput Mbit/s" for f in flows] if per_flow else []) + [
        "total goodput Mbit/s", "utilisation", "drops", "mean queue (packets)", "Jain's index"]
    rows, bars, windows = [], [], []
    replicated, identical = 0, 0     # points with several runs; of those, points whose runs all agree
    by_point = dict(tuple(frame.groupby("params", sort=False)))
    for text in point_order(params, fields):
        point, values = by_point[text], params[text]
        by_run = point.groupby("run_key")
        first = point.iloc[0]
        row = [_value_text(values.get(name, "")) for name in fields] + [str(by_run.ngroups)]
        goodputs = []
        for f in flows:
            goodput = point.loc[point["flow"] == f, "goodput_bps"]
            goodputs.append(float(goodput.mean()) / MBIT if not goodput.empty else math.nan)
            if per_flow:
                row.append(_mean_sd(goodput, MBIT))
        run_wide = by_run.first()
        if by_run.ngroups > 1:
            replicated += 1
            per_run = point.pivot_table(index="run_key", columns="flow", values="goodput_bps")
            identical += int((per_run.nunique() <= 1).all())
        row += [_mean_sd(by_run["goodput_bps"].sum(), MBIT), _mean_sd(run_wide["bottleneck_utilization"], digits=3),
                _mean_sd(run_wide["bottleneck_drops"], digits=0),
                _mean_sd(run_wide["bottleneck_mean_queue_packets"], digits=1),
                _mean_sd(run_wide["jain_index"], digits=3)]
        rows.append(row)
        label = " ".join(_value_text(values.get(name, "")) for name in fields)
        bars.append((label, str(first["cc"]), goodputs if per_flow else [float(np.nansum(goodputs))]))
        replication0 = point.loc[point["replication"] == point["replication"].min(), "run_key"].iloc[0]
        windows.append((label, replication0))
    failures = _failures(study, store)
    count = frame["run_key"].nunique()
    points = f"{len(rows)} point{'s' if len(rows) != 1 else ''}"
    report = StoredSweepReport(study, results_version(), out_dir,
                               f"{count} runs stored ({points}), {len(failures)} failed", columns, rows, failures)
    if replicated and identical == replicated:
        # docs/sweeps.md, "Seeds": the seed drives only the random parts of a scenario (random loss, drawn
        # start times); without any, replications are the same run, and their sd of 0 says nothing.
        report.notes.append("Every point's replications gave identical results: the scenario has no random "
                            "element (random loss, drawn start times), so its replications are the same run "
                            "and the ± 0 is not a measured spread.")
    out_dir.mkdir(parents=True, exist_ok=True)
    bars_figure(out_dir / "goodput.png", f"{study}: goodput per flow (means over replications)", "Mbit/s",
                [f"flow {f}" for f in flows] if per_flow else ["all flows"], [("", bars)])
    report.figures.append(Figure("goodput.png", "goodput of each flow at every point"))
    panels = _window_panels(study, store, windows[:MAX_WINDOW_PANELS])
    if panels:
        timeseries_figure(out_dir / "cwnd.png", f"{study}: congestion window, first replication of each point",
                          "cwnd (packets)", panels)
        shown = "" if len(windows) <= MAX_WINDOW_PANELS else f" (the first {MAX_WINDOW_PANELS} points)"
        report.figures.append(Figure("cwnd.png", f"congestion window of every flow over time{shown}"))
    return report


def write_sweep_report(study: str, store: Path | str | None, out_dir: Path) -> StoredSweepReport:
    """out_dir/: report.html (with its figures) and report.json (for the index page)."""
    from .html_report import SUMMARY, write_sweep_page

    report = stored_sweep_report(study, store, out_dir)
    write_sweep_page(report, report.html_path)
    (out_dir / SUMMARY).write_text(json.dumps(report.summary(), indent=2) + "\n", encoding="utf-8")
    return report


def _failures(study: str, store: Path | str | None) -> list[tuple[str, str]]:
    connection = connect(store, study)
    try:
        failed = connection.execute("SELECT params, error_type, error FROM failures ORDER BY params").df()
    finally:
        connection.close()
    return [(str(row.params), f"{row.error_type}: {str(row.error or '').splitlines()[0] if row.error else ''}")
            for row in failed.itertuples(index=False)]


def _window_panels(study: str, store: Path | str | None, runs: list[tuple[str, str]]):
    """(panel name, [(flow label, time_s, cwnd)]) for each (point label, run key)."""
    study_store = StudyStore(resolve_root(store), study, results_version())
    panels = []
    for label, key in runs:
        path = study_store.path(TIMESERIES, key)
        if not path.exists():
            continue
        series = pq.read_table(path, columns=["time_s", "flow", "cwnd"]).to_pandas()
        lines = [(f"flow {flow}", data["time_s"].to_numpy(), data["cwnd"].to_numpy())
                 for flow, data in series.groupby("flow")]
        panels.append((label, lines))
    return panels
