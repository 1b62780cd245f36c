"""Paper experiments: a table of runs (rows = algorithms, cells = network settings) compared with the
published numbers.

An experiment file (experiments/<study>/<part>.toml) names a base scenario, the cells as `--set`
overrides, and per row the algorithm and the paper's values. Runs go to a local process pool (one worker
per core); each worker runs the engine, so no Python runs per packet and the cores are all busy.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import ScenarioError, scenario_error_from_validation
from .scenario import read_toml

# Quick mode: short runs that show the shape in seconds; their numbers are not comparable to a paper.
QUICK_DURATION = "300s"
QUICK_MEASURE_FROM = "150s"

NOT_CHECKED = -1


class CellSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    set: list[str] = Field(default_factory=list)


class RowSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    cc: Any
    paper: list[float] = Field(default_factory=list)
    # Relative tolerance against the paper per cell; -1: not checked.
    check: list[float] = Field(default_factory=list)
    # Lower bounds per cell (physics), -1: none.
    at_least: list[float] = Field(default_factory=list)
    # ns-2.35 TCP-Linux run the same way (benchmarks/ns2/dumbbell.tcl), -1: not measured.
    ns2: list[float] = Field(default_factory=list)
    # Relative tolerance against ns-2.35 per cell; -1: not checked.
    check_ns2: list[float] = Field(default_factory=list)


class ExperimentSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    title: str
    scenario: str
    metric: str = "delivered_bps"
    unit: str = "kbit/s"
    figure: Optional[str] = None
    cells: list[CellSpec]
    rows: list[RowSpec]


UNIT_SCALE = {"bit/s": 1.0, "kbit/s": 1e-3, "Mbit/s": 1e-6}


@dataclass
class Experiment:
    spec: ExperimentSpec
    path: Path

    @property
    def base_scenario(self) -> dict:
        return read_toml(self.path.parent / self.spec.scenario)


def load_experiment(path: str | Path) -> Experiment:
    path = Path(path)
    try:
        spec = ExperimentSpec.model_validate(read_toml(path))
    except ValidationError as exc:
        raise scenario_error_from_validation(exc) from None
    for row in spec.rows:
        for name, values in (("paper", row.paper), ("check", row.check), ("at_least", row.at_least),
                             ("ns2", row.ns2), ("check_ns2", row.check_ns2)):
            if values and len(values) != len(spec.cells):
                raise ScenarioError(f"{path}: rows '{row.name}'.{name}",
                                    f"has {len(values)} values for {len(spec.cells)} cells")
    if spec.unit not in UNIT_SCALE:
        raise ScenarioError(f"{path}: unit", f"'{spec.unit}'; accepted: {', '.join(UNIT_SCALE)}")
    return Experiment(spec, path)


@dataclass
class RunOutcome:
    row: int
    cell: int
    summary: dict
    series: dict           # small columnar time series for figures
    error: Optional[str] = None


def _run_one(row: int, cell: int, scenario: dict, cc: Any, overrides: list[str]) -> RunOutcome:
    # Runs in a worker process: import here so the parent does not need the engine loaded to fork.
    from .runner import run

    scenario = {**scenario, "flows": [dict(f) for f in scenario["flows"]]}
    for flow in scenario["flows"]:
        flow["cc"] = cc
    try:
        result = run(scenario, overrides)
    except Exception as exc:  # reported per run, the rest carry on
        return RunOutcome(row, cell, {}, {}, error=f"{type(exc).__name__}: {exc}")
    ts = result.timeseries
    queue = result.queue
    series = {
        "time_s": ts["time_s"].tolist(), "cwnd": ts["cwnd"].tolist(),
        "queue_time_s": queue["time_s"].tolist(), "queue_packets": queue["queue_packets"].tolist(),
        "bdp_packets": result.config["bottleneck"]["rate_bps"] * 2 * result.config["bottleneck"]["delay_ns"]
        / 1e9 / 8 / result.config["packet_size"],
        "buffer_packets": result.config["bottleneck"]["queue"]["limit_packets"],
    }
    if "cc_dwnd" in ts:  # Compound TCP: the delay-based part of the window
        series["dwnd"] = ts["cc_dwnd"].tolist()
    return RunOutcome(row, cell, result.summary, series)


@dataclass
class ExperimentResult:
    experiment: Experiment
    quick: bool
    outcomes: dict[tuple[int, int], RunOutcome] = field(default_factory=dict)
    wall_s: float = 0.0

    def value(self, row: int, cell: int) -> Optional[float]:
        o = self.outcomes.get((row, cell))
        if o is None or o.error:
            return None
        values = [f[self.experiment.spec.metric] for f in o.summary["flows"]]
        return sum(values) * UNIT_SCALE[self.experiment.spec.unit]

    def ns2(self, row: int, cell: int) -> Optional[float]:
        values = self.experiment.spec.rows[row].ns2
        return values[cell] if values and values[cell] > 0 else None

    def verdict(self, row: int, cell: int) -> str:
        """'ok', 'off' (outside the stated tolerance), or '' when the cell is not checked."""
        spec = self.experiment.spec.rows[row]
        value = self.value(row, cell)
        if value is None:
            return "failed"
        if self.quick:
            return ""
        verdicts = []
        if spec.check and spec.check[cell] != NOT_CHECKED and spec.paper:
            paper = spec.paper[cell]
            verdicts.append(abs(value - paper) <= spec.check[cell] * paper)
        if spec.at_least and spec.at_least[cell] != NOT_CHECKED:
            verdicts.append(value >= spec.at_least[cell])
        if spec.check_ns2 and spec.check_ns2[cell] != NOT_CHECKED and spec.ns2 and spec.ns2[cell] > 0:
            verdicts.append(abs(value - spec.ns2[cell]) <= spec.check_ns2[cell] * spec.ns2[cell])
        if not verdicts:
            return ""
        return "ok" if all(verdicts) else "off"


def run_experiment(experiment: Experiment, quick: bool = False, jobs: Optional[int] = None,
                   progress: Optional[Callable[[int, int], None]] = None) -> ExperimentResult:
    import time

    spec = experiment.spec
    base = experiment.base_scenario
    extra = [f"run.duration={QUICK_DURATION}", f"run.measure_from={QUICK_MEASURE_FROM}"] if quick else []
    tasks = [(r, c, base, row.cc, list(cell.set) + extra)
             for r, row in enumerate(spec.rows) for c, cell in enumerate(spec.cells)]
    result = ExperimentResult(experiment, quick)
    started = time.perf_counter()
    workers = max(1, min(jobs or os.cpu_count() or 1, len(tasks)))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_run_one, *t) for t in tasks]
        if progress:
            progress(0, len(tasks))
        for done, future in enumerate(as_completed(futures), start=1):
            outcome = future.result()
            result.outcomes[(outcome.row, outcome.cell)] = outcome
            if progress:
                progress(done, len(tasks))
    result.wall_s = time.perf_counter() - started
    return result


def experiments_root() -> Path:
    """experiments/ of the repository (CCLAB_EXPERIMENTS overrides it)."""
    env = os.environ.get("CCLAB_EXPERIMENTS")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "experiments"


def list_experiments() -> dict[str, Path]:
    """Experiment id -> file, for every experiment file under experiments/."""
    found = {}
    root = experiments_root()
    for path in sorted(root.glob("*/*.toml")):
        try:
            data = read_toml(path)
        except ScenarioError:
            continue
        if "id" in data and "cells" in data:
            found[data["id"]] = path
    return found
