"""cclab.run on the contract-shaped stand-in engine: chunks, progress, Result, parquet, errors."""

import json

import pandas as pd
import pytest

import cclab
from cclab.errors import EngineUnavailable, ScenarioError, SimulationError

SHORT = ["run.duration=20s", "run.measure_from=10s"]


def test_run_returns_a_result(example, fake_engine):
    result = cclab.run(example, SHORT)
    assert isinstance(result, cclab.Result)
    assert result.config["run"]["duration_ns"] == 20 * 10**9
    assert list(result.flows["cc"]) == ["newreno"]
    assert result.flows.loc[0, "goodput_bps"] > 0
    assert result.bottleneck["drops"] == 30
    assert {"time_s", "flow", "cwnd"} <= set(result.timeseries.columns)
    assert list(result.queue.columns) == ["time_s", "queue_packets", "queue_bytes", "drops", "bytes_tx"]


def test_progress_steps_take_about_a_quarter_second_of_wall_time(example, fake_engine, monkeypatch):
    # A stand-in that simulates 10 s per wall second, on a clock of its own: the runner's steps start at a
    # thousandth of the 20 s run (20 ms, 2 ms of wall time), grow 4x at a time while they are fast
    # (80 ms, 320 ms, 1.28 s), then settle where a step takes PROGRESS_WALL_S = 0.25 s: 1.28 s took 0.128 s,
    # so x 0.25 / 0.128 = 2.5 s of simulated time per step. 1.7 s after four steps, 18.3 s left: 8 more.
    from cclab import runner

    clock = [0.0]
    monkeypatch.setattr(runner.time, "perf_counter", lambda: clock[0])
    original = fake_engine.Simulation.run_until

    def run_until(self, t_ns):
        clock[0] += (min(t_ns, self.duration_ns) - self.now_ns) / 1e9 / 10
        original(self, t_ns)

    monkeypatch.setattr(fake_engine.Simulation, "run_until", run_until)
    seen = []
    cclab.run(example, SHORT, progress=lambda now, end: seen.append((now, end)))
    nows = [now for now, _ in seen]
    assert seen[0] == (0, 20 * 10**9) and seen[-1] == (20 * 10**9, 20 * 10**9)
    assert nows[1:6] == [20_000_000, 100_000_000, 420_000_000, 1_700_000_000, 4_200_000_000]
    assert len(seen) == 1 + 4 + 8
    steps = [b - a for a, b in zip(nows[4:], nows[5:])]
    assert steps[:-1] == [2_500_000_000] * 7 and 0 < steps[-1] <= 2_500_000_000


def test_without_progress_the_run_is_one_call(example, fake_engine, monkeypatch):
    # Ctrl-C is the bindings' business (they check for it between slices of ~50 ms); the runner needs no
    # steps of its own when nobody watches.
    targets = []
    original = fake_engine.Simulation.run_until

    def run_until(self, t_ns):
        targets.append(t_ns)
        original(self, t_ns)

    monkeypatch.setattr(fake_engine.Simulation, "run_until", run_until)
    cclab.run(example, SHORT)
    assert targets == [20 * 10**9]


def test_to_parquet(example, fake_engine, tmp_path):
    result = cclab.run(example, SHORT)
    out = result.to_parquet(tmp_path / "out")
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "link_series.parquet", "links.parquet",
                                                    "queue.parquet", "summary.json", "summary.parquet",
                                                    "timeseries.parquet"]
    pd.testing.assert_frame_equal(pd.read_parquet(out / "summary.parquet"), result.flows)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "timeseries.parquet"), result.timeseries)
    assert json.loads((out / "config.json").read_text()) == result.config


def test_summary_json_is_strict_json(example, fake_engine, tmp_path):
    # The stand-in reports a NaN mean RTT for its second flow; JSON has no NaN, so it becomes null.
    result = cclab.run(example, SHORT + ["flows.0.count=2"])
    summary = json.loads(result.summary_json())
    assert summary["flows"][1]["mean_rtt_s"] is None


def test_no_time_series(example, fake_engine, tmp_path):
    result = cclab.run(example, SHORT + ["run.sample_interval=0"])
    assert result.timeseries.empty and result.queue.empty
    result.to_parquet(tmp_path)  # empty frames still write


def test_engine_rejection_is_a_scenario_error(example, fake_engine):
    with pytest.raises(ScenarioError) as caught:
        cclab.run(example, SHORT + ['flows.0.cc={ name = "cubic", beta = 1.5 }'])
    assert str(caught.value) == "scenario error: flows[0].cc.beta: must be in (0, 1) (rejected by the engine)"


def test_an_unknown_algorithm_parameter_is_refused_before_the_engine(example, fake_engine):
    # The engine lists each algorithm's parameters: a name outside that list is said at load, like a
    # queue's, naming the accepted ones (before: the engine's refusal, and in a sweep a failed run).
    with pytest.raises(ScenarioError) as caught:
        cclab.run(example, SHORT + ['flows.0.cc={ name = "cubic", gamma = 1 }'])
    assert str(caught.value) == ("scenario error: flows.0.cc.gamma: unknown parameter 'gamma' of cubic; use one of "
                                 "name, variant, beta, c (`cclab algorithms cubic`)")


def test_engine_failure_is_a_simulation_error(example, fake_engine, monkeypatch):
    def panic(self, t_ns):
        raise RuntimeError("internal error: boom")
    monkeypatch.setattr(fake_engine.Simulation, "run_until", panic)
    with pytest.raises(SimulationError, match="internal error: boom"):
        cclab.run(example, SHORT)


def test_missing_engine(example, no_engine):
    with pytest.raises(EngineUnavailable, match="not built"):
        cclab.run(example, SHORT)


def test_version():
    assert isinstance(cclab.__version__, str) and cclab.__version__


def test_a_misspelt_summary_key_names_the_right_one(example, fake_engine):
    result = cclab.run(example, SHORT)
    assert result.bottleneck["utilization"] == 0.9
    with pytest.raises(KeyError, match="'utilisation': the key is spelled 'utilization'"):
        result.bottleneck["utilisation"]
    with pytest.raises(KeyError, match="'speed': not a figure of the summary; it has drops"):
        result.bottleneck["speed"]
