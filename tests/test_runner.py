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
    assert list(result.queue.columns) == ["time_s", "queue_packets", "queue_bytes", "drops"]


def test_progress_is_reported_in_about_200_chunks(example, fake_engine):
    seen = []
    cclab.run(example, SHORT, progress=lambda now, end: seen.append((now, end)))
    assert seen[0] == (0, 20 * 10**9) and seen[-1] == (20 * 10**9, 20 * 10**9)
    assert 200 <= len(seen) <= 202
    assert [now for now, _ in seen] == sorted(now for now, _ in seen)


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
        cclab.run(example, SHORT + ['flows.0.cc={ name = "cubic", gamma = 1 }'])
    assert str(caught.value) == "scenario error: flows[0].cc.gamma: unknown parameter (rejected by the engine)"


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
