"""The bindings' interface, held still: the stand-in engine of tests/fake_engine.py has the real bindings'
functions, methods and properties with the same parameters and returns the same shapes (summary keys,
time-series columns), so that tests on the stand-in say something about the real thing. And a panic inside
the engine reaches Python as a RuntimeError naming what failed, which the runner reports as a
SimulationError, never a crash of the interpreter."""

from __future__ import annotations

import inspect
import json

import pytest

from engine_required import need

real = need("cclab._engine")

import cclab  # noqa: E402
import cclab.engine  # noqa: E402
import fake_engine as fake  # noqa: E402
from cclab.errors import SimulationError  # noqa: E402
from cclab.scenario import load_scenario  # noqa: E402
from conftest import EXAMPLE  # noqa: E402

# What the runner, the CLI and the sweeps use of the bindings: everything public.
MODULE_FUNCTIONS = ["algorithms_json", "queues_json", "source_hash", "version"]
SIMULATION_METHODS = ["connection_records", "link_series", "loss_events", "rtt_histogram", "run_until", "summary_json",
                      "timeseries"]
SIMULATION_PROPERTIES = ["duration_ns", "events", "now_ns"]
# Not the simulation's: the live testbed's delay line (cclab.live.delayline), which the stand-in never needs.
LIVE_CLASSES = ["DelayLine"]
DELAY_LINE_METHODS = ["stats", "stop"]


def public(names) -> list[str]:
    return sorted(n for n in names if not n.startswith("_"))


def parameters(function) -> list[str]:
    return [p.name for p in inspect.signature(function).parameters.values() if p.name != "self"]


def test_the_real_bindings_are_what_the_lists_say():
    # If this fails, the bindings changed: update the lists, tests/fake_engine.py and docs/engine-interface.md.
    assert public(dir(real)) == sorted(MODULE_FUNCTIONS + ["Simulation"] + LIVE_CLASSES)
    assert public(dir(real.Simulation)) == sorted(SIMULATION_METHODS + SIMULATION_PROPERTIES)
    assert public(dir(real.DelayLine)) == DELAY_LINE_METHODS


def test_the_fake_has_the_same_functions_with_the_same_parameters():
    for name in MODULE_FUNCTIONS:
        assert parameters(getattr(fake, name)) == parameters(getattr(real, name)), name
    assert parameters(fake.Simulation) == parameters(real.Simulation) == ["config_json"]
    for name in SIMULATION_METHODS:
        assert callable(getattr(fake.Simulation, name)), name
        assert parameters(getattr(fake.Simulation, name)) == parameters(getattr(real.Simulation, name)), name
    for name in SIMULATION_PROPERTIES:
        # Read-only attributes on both sides (a getset descriptor in Rust, a property here).
        assert isinstance(getattr(fake.Simulation, name), property), name
        assert inspect.isgetsetdescriptor(getattr(real.Simulation, name)), name
    assert public(dir(fake.Simulation)) == public(dir(real.Simulation))


def both(overrides=("run.duration=2s", "run.measure_from=0s", "run.sample_interval=100ms",
                    "run.record_loss_events=true", "run.rtt_histogram=true")):
    """The example's config, run for 1 s on the real engine and on the fake."""
    config = load_scenario(EXAMPLE, list(overrides)).to_engine_config()
    out = []
    for module in (real, fake):
        simulation = module.Simulation(json.dumps(config))
        simulation.run_until(10**9)
        out.append(simulation)
    return out


def keys(summary: dict) -> dict:
    return {"summary": sorted(summary), "flow": sorted(summary["flows"][0]), "bottleneck": sorted(summary["bottleneck"]),
            "link": sorted(summary["links"][0])}


def test_the_fake_returns_what_the_real_bindings_return():
    real_sim, fake_sim = both()
    assert keys(json.loads(fake_sim.summary_json())) == keys(json.loads(real_sim.summary_json()))
    real_series, fake_series = real_sim.timeseries(), fake_sim.timeseries()
    assert sorted(fake_series) == sorted(real_series) == ["flows", "queue"]
    for table in ("flows", "queue"):
        # Algorithm-specific columns (cc_*) come and go with the algorithm; the rest is fixed.
        fixed = sorted(c for c in real_series[table] if not c.startswith("cc_"))
        assert sorted(fake_series[table]) == fixed, table
        for column in fixed:
            assert fake_series[table][column].dtype == real_series[table][column].dtype, (table, column)
    assert sorted(fake_sim.link_series()) == sorted(real_sim.link_series())
    assert set(fake_sim.link_series()["link"]) == set(real_sim.link_series()["link"])
    for method in ("loss_events", "connection_records", "rtt_histogram"):
        real_columns, fake_columns = getattr(real_sim, method)(), getattr(fake_sim, method)()
        assert sorted(fake_columns) == sorted(real_columns), method
        for column, values in real_columns.items():
            assert type(fake_columns[column]) is type(values), (method, column)
            if hasattr(values, "dtype"):
                assert fake_columns[column].dtype == values.dtype, (method, column)
    for name in ("now_ns", "duration_ns", "events"):
        assert type(getattr(fake_sim, name)) is type(getattr(real_sim, name)) is int, name
    for name in MODULE_FUNCTIONS:
        assert type(getattr(fake, name)()) is type(getattr(real, name)()) is str, name
    assert sorted(json.loads(fake.algorithms_json())[0]) == sorted(json.loads(real.algorithms_json())[0])
    assert sorted(json.loads(fake.queues_json())[0]) == sorted(json.loads(real.queues_json())[0])


def test_loss_events_unrecorded_are_a_value_error_on_both():
    # Without run.record_loss_events the engine keeps no times; both sides say which field to set.
    for simulation in both(("run.duration=2s", "run.measure_from=0s")):
        with pytest.raises(ValueError, match="run.record_loss_events"):
            simulation.loss_events()


def test_rtt_histograms_not_asked_for_are_a_value_error_on_both():
    # Without run.rtt_histogram the engine counts nothing; both sides say which field to set.
    for simulation in both(("run.duration=2s", "run.measure_from=0s")):
        with pytest.raises(ValueError, match="run.rtt_histogram"):
            simulation.rtt_histogram()


def test_a_rejected_config_is_a_value_error_on_both():
    config = load_scenario(EXAMPLE).to_engine_config()
    config["flows"][0]["cc"]["gamma"] = 1
    for module in (real, fake):
        with pytest.raises(ValueError, match="gamma"):
            module.Simulation(json.dumps(config))


def test_a_panic_in_the_engine_is_a_runtime_error_naming_it():
    with pytest.raises(RuntimeError) as caught:
        real._panic_for_tests("index out of bounds")
    assert str(caught.value) == ("internal error in a deliberate test panic: index out of bounds "
                                 "(please report this with the scenario)")


def test_a_panic_during_a_run_is_a_simulation_error(monkeypatch):
    # The real bindings, with a run_until that panics in Rust after the first step.
    class Panicking:
        def __init__(self, config_json):
            self._inner = real.Simulation(config_json)
            self.steps = 0

        def __getattr__(self, name):
            return getattr(self._inner, name)

        def run_until(self, t_ns):
            self.steps += 1
            if self.steps == 2:
                real._panic_for_tests("attempt to add with overflow")
            self._inner.run_until(t_ns)

    module = type("Bindings", (), {"Simulation": Panicking, **{n: staticmethod(getattr(real, n)) for n in MODULE_FUNCTIONS}})
    monkeypatch.setattr(cclab.engine, "load_engine", lambda: module)
    with pytest.raises(SimulationError) as caught:
        # With a progress callback the runner advances in steps (without one, in a single call).
        cclab.run(EXAMPLE, ["run.duration=1s", "run.measure_from=0s"], progress=lambda now, end: None)
    assert str(caught.value) == ("internal error in a deliberate test panic: attempt to add with overflow "
                                 "(please report this with the scenario)")
