"""Run a scenario on the engine: validate, build, advance in chunks, collect a Result."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Callable, Mapping, Sequence

from . import engine
from .errors import ScenarioError, SimulationError
from .result import Result
from .scenario import Scenario, load_scenario

# With a progress callback, the run is advanced in steps of simulated time sized to take about this much
# wall time each, so the bar moves (and estimates the time left) several times a second however fast or
# slow the run. Ctrl-C does not wait for a step: the bindings check for it every ~50 ms inside one.
PROGRESS_WALL_S = 0.25
# The first step: this share of the run (then steps grow or shrink, at most 4x at a time).
FIRST_STEP_SHARE = 1e-3

Progress = Callable[[int, int], None]  # (now_ns, duration_ns)


def run(source: "str | Path | Mapping | Scenario", overrides: Sequence[str] = (),
        progress: Progress | None = None, series: bool = True) -> Result:
    """Run the scenario in `source` (TOML path, dict or Scenario) with `--set`-style overrides.

    series=False leaves the time series in the engine (the Result's series frames are empty): `cclab run`
    without --out prints the summary only, and taking the series would import numpy (~50 ms) for nothing.
    """
    config = load_scenario(source, overrides).to_engine_config()
    simulation = _build(engine.load_engine(), config)
    _advance(simulation, progress)
    try:
        if not series:
            return Result.from_engine(config, engine.read_summary(simulation), {})
        link_series = simulation.link_series() if hasattr(simulation, "link_series") else None
        records = None
        if any(source.get("records") for source in config.get("traffic", ())):
            records = simulation.connection_records()
        loss_events = simulation.loss_events() if config["run"].get("record_loss_events") else None
        rtt_histogram = simulation.rtt_histogram() if config["run"].get("rtt_histogram") else None
        return Result.from_engine(config, engine.read_summary(simulation), simulation.timeseries(), link_series,
                                  records, loss_events, rtt_histogram)
    except RuntimeError as exc:
        raise SimulationError(f"the engine failed collecting results: {exc}") from None


def _build(module, config: dict):
    try:
        return module.Simulation(json.dumps(config))
    except ValueError as exc:
        # The engine says "field: message" about its own config; Python should have caught anything a
        # person can write, so this is mostly an algorithm parameter only the engine knows about.
        field, sep, message = str(exc).partition(": ")
        if not sep:
            field, message = "engine config", str(exc)
        raise ScenarioError(field, f"{message} (rejected by the engine)") from None
    except RuntimeError as exc:
        raise SimulationError(str(exc)) from None


def _advance(simulation, progress: Progress | None) -> None:
    duration = int(simulation.duration_ns)
    now = int(simulation.now_ns)
    step = max(1, int(duration * FIRST_STEP_SHARE))
    if progress:
        progress(now, duration)
    while now < duration:
        target = duration if progress is None else min(now + step, duration)
        started = time.perf_counter()
        try:
            simulation.run_until(target)
        except RuntimeError as exc:
            raise SimulationError(str(exc)) from None
        took = time.perf_counter() - started
        step = next_step(step, took)
        now = int(simulation.now_ns)
        if now < target:
            break
        if progress:
            progress(now, duration)
    if simulation.now_ns != duration:
        raise SimulationError(f"the engine stopped at {simulation.now_ns} ns, before the end at {duration} ns")


def next_step(step_ns: int, took_s: float) -> int:
    """The next step of simulated time: scaled towards PROGRESS_WALL_S of wall time, by 1/4 to 4 at a time."""
    factor = PROGRESS_WALL_S / max(took_s, 1e-9)
    return max(1, int(step_ns * min(4.0, max(0.25, factor))))
