"""Shared fixtures: the seed-000 example, and control over which engine the package sees."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

import cclab.engine
from cclab.errors import EngineUnavailable

REPO = Path(__file__).resolve().parents[1]

# Hypothesis profiles of the fuzzers (tests/test_fuzz_*.py). `ci`, the default, is the in-suite size: a
# fixed set of examples (derandomized, so a run is reproducible and never flaky), a few seconds in all.
# `fuzz` is the long run: `--hypothesis-profile=fuzz`, CCLAB_FUZZ_EXAMPLES examples per test (default 5000),
# fresh random examples each time, failures kept in .hypothesis/ and replayed first on the next run.
settings.register_profile("ci", max_examples=int(os.environ.get("CCLAB_FUZZ_EXAMPLES", 60)), deadline=None,
                          derandomize=True, database=None, print_blob=True)
settings.register_profile("fuzz", max_examples=int(os.environ.get("CCLAB_FUZZ_EXAMPLES", 5000)), deadline=None,
                          print_blob=True)
settings.load_profile("ci")
EXAMPLE = REPO / "examples" / "seed000-newreno.toml"


@pytest.fixture
def example() -> Path:
    return EXAMPLE


@pytest.fixture
def example_dict() -> dict:
    """The seed-000 example as the TOML reader returns it, to edit freely in a test."""
    return {
        "network": {"packet_size": 1500, "bottleneck": {
            "rate": "200Mbps", "delay": "50ms", "queue": {"discipline": "droptail", "size": "0.1bdp"}}},
        "flows": [{"cc": "newreno", "access_delay": "2.5ms"}],
        "run": {"duration": "2000s", "measure_from": "1000s", "seed": 1},
    }


@pytest.fixture
def no_engine(monkeypatch):
    """As if the engine were not built: algorithm names come from the static list."""
    def unavailable():
        raise EngineUnavailable("the simulation engine cclab._engine is not built (test)")
    monkeypatch.setattr(cclab.engine, "load_engine", unavailable)


@pytest.fixture
def fake_engine(monkeypatch):
    """The contract-shaped stand-in of tests/fake_engine.py in place of cclab._engine."""
    import fake_engine as module
    monkeypatch.setattr(cclab.engine, "load_engine", lambda: module)
    return module


def run_cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    """`python -m cclab ARGS` in a fresh interpreter, as a person would run it."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "cclab", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
