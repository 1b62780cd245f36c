"""A sweep killed part way (SIGKILL, or Ctrl-C) keeps every finished run, leaves nothing half-written that
counts, takes its workers with it, and finishes on the next run with every run present exactly once.

The steps here take the executor's options, so tests/test_sweep_dask.py stops sweeps on Dask the same way."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine_required import need  # noqa: E402

need("cclab._engine")

import cclab.results  # noqa: E402
from conftest import REPO  # noqa: E402
from sweep_helpers import FLOWS, RUNS, assert_store_is_clean, run_count, write_small_sweep  # noqa: E402

TIMEOUT_S = 120
LOCAL_POOL = ("--jobs", "2")


def start_sweep(spec: Path, store: Path, executor: tuple[str, ...] = LOCAL_POOL) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), env.get("PYTHONPATH")]))
    # Its own session, like a sweep started from a shell: the test can then see (and clean up) its workers.
    # With Ctrl-C's default action, as in a terminal: a test run started in the background by a
    # non-interactive shell (`scripts/test.sh &`) has SIGINT ignored, which the sweep would inherit, and then
    # it finished all its runs whatever the test sent (seen 3 times in a row, 2026-11-24).
    return subprocess.Popen([sys.executable, "-m", "cclab", "sweep", str(spec), "--store", str(store), *executor],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_for_stored(store: Path, count: int, process: subprocess.Popen) -> int:
    deadline = time.monotonic() + TIMEOUT_S
    while (stored := run_count(store)) < count:
        assert process.poll() is None, f"the sweep ended before {count} runs were stored: {process.communicate()}"
        assert time.monotonic() < deadline, "the sweep stored too few runs in time"
        time.sleep(0.02)
    return stored


def session_is_gone(session: int, timeout_s: float = 20) -> bool:
    """True once no process of the sweep's session is left (its pool workers and forkserver included)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            os.killpg(session, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    os.killpg(session, signal.SIGKILL)  # clean up for the next test, then report the leak
    return False


def finish(spec: Path, store: Path, executor: tuple[str, ...] = LOCAL_POOL) -> subprocess.CompletedProcess:
    process = start_sweep(spec, store, executor)
    out, err = process.communicate(timeout=TIMEOUT_S)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def stop_half_way(tmp_path: Path, stop, after: int, executor: tuple[str, ...] = LOCAL_POOL):
    """Start the small sweep, `stop(pid)` once `after` runs are stored, and wait for it to end: (spec, store,
    process, stderr, runs stored). Longer runs than elsewhere, so that the sweep is surely stopped half
    way: with 20 s runs a CI run (2026-11-21) saw all 24 finish before a Ctrl-C took effect."""
    spec = write_small_sweep(tmp_path / "spec", duration="60s")
    store = tmp_path / "store"
    process = start_sweep(spec, store, executor)
    wait_for_stored(store, after, process)
    stop(process.pid)
    _, err = process.communicate(timeout=TIMEOUT_S)
    stored = run_count(store)
    assert after <= stored < RUNS, "the sweep was not stopped half way"
    return spec, store, process, err, stored


@pytest.mark.parametrize("how", ["SIGKILL", "Ctrl-C"])
def test_a_killed_sweep_finishes_on_the_next_run(tmp_path, how):
    # SIGKILL to the sweep alone, as the OOM killer would; Ctrl-C to the whole foreground group, as a terminal does.
    kill, sig = (os.kill, signal.SIGKILL) if how == "SIGKILL" else (os.killpg, signal.SIGINT)
    spec, store, process, err, stopped_with = stop_half_way(tmp_path, lambda pid: kill(pid, sig), after=6)
    if how == "SIGKILL":
        assert process.returncode == -signal.SIGKILL
    else:
        assert process.returncode == 130, err
        assert "Traceback" not in err and "leaked" not in err, err
        assert "stopped;" in err and "Run the same command again" in err
    assert session_is_gone(process.pid), "worker processes outlived the sweep"
    finishes_the_rest(spec, store, stopped_with)


def finishes_the_rest(spec: Path, store: Path, stopped_with: int, executor: tuple[str, ...] = LOCAL_POOL) -> None:
    """The same command again computes only the runs not stored, and the store then holds every run once."""
    again = finish(spec, store, executor)
    assert again.returncode == 0, again.stderr
    match = re.search(r"(\d+) runs computed, 0 failed, (\d+) were already stored", again.stderr)
    assert match, again.stderr
    computed, kept = int(match.group(1)), int(match.group(2))
    assert computed + kept == RUNS and kept >= stopped_with  # every finished run was kept, none redone
    assert_store_is_clean(store, RUNS)
    runs = cclab.results.load("small", store=store)
    assert len(runs) == RUNS * FLOWS and runs["run_key"].nunique() == RUNS


@pytest.mark.parametrize("whom", ["the sweep", "its process group"])
def test_sigterm_stops_a_sweep_as_ctrl_c_does(tmp_path, whom):
    # `kill PID` (the sweep alone) or a service manager's stop (the whole group): the workers are stopped,
    # the sweep says how many runs are stored and how to go on, exits 143 (128 + SIGTERM), and leaves no
    # semaphore for multiprocessing's resource tracker to warn about. SIGTERM's default action did none of
    # that. Stopped after the first run is stored: a few seconds.
    kill = os.kill if whom == "the sweep" else os.killpg
    _, _, process, err, stored = stop_half_way(tmp_path, lambda pid: kill(pid, signal.SIGTERM), after=1)
    assert process.returncode == 143, err
    assert "Traceback" not in err and "leaked" not in err, err
    assert f"small: stopped; {stored} of {RUNS} runs are stored. Run the same command again" in err, err
    assert err.strip().endswith("terminated"), err
    assert session_is_gone(process.pid), "worker processes outlived the sweep"
