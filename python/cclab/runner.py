"""Run a scenario on the engine: validate, build, advance in chunks, collect a Result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Mapping, Sequence

from . import engine
from .errors import ScenarioError, SimulationError
from .result import Result
from .scenario import Scenario, load_scenario

# The run is advanced in this many steps of simulated time: often enough for a smooth progress bar
# and for Ctrl-C to be noticed (the engine releases the GIL inside a step), rarely enough that the
# Python between steps costs nothing.
CHUNKS = 200

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
        return Result.from_engine(config, engine.read_summary(simulation), simulation.timeseries(), link_series,
                                  records, loss_events)
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
    step = max(1, -(-duration // CHUNKS))  # ceiling division: at most CHUNKS steps
    if progress:
        progress(int(simulation.now_ns), duration)
    for target in range(step, duration + step, step):
        try:
            simulation.run_until(min(target, duration))
        except RuntimeError as exc:
            raise SimulationError(str(exc)) from None
        if progress:
            progress(int(simulation.now_ns), duration)
    if simulation.now_ns != duration:
        raise SimulationError(f"the engine stopped at {simulation.now_ns} ns, before the end at {duration} ns")
