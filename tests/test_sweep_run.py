"""Sweeps on the local process pool and the real engine: the store, resuming, failures, queries, the CLI."""

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from engine_required import need  # noqa: E402

need("cclab._engine")

import cclab.results  # noqa: E402  (after the skip)
from cclab.store import results_version, version_folder  # noqa: E402
from cclab.executors import LocalPool  # noqa: E402
from cclab.store import STORE_ENV, StoreError, StoreLocked, StudyStore, default_store_root, write_atomic  # noqa: E402
from cclab.sweep import load_sweep  # noqa: E402
from cclab.sweeper import MAX_ATTEMPTS, run_status, run_sweep  # noqa: E402
from conftest import REPO, run_cli  # noqa: E402
from sweep_helpers import (FLOWS, RUNS, assert_store_is_clean, reference_store, store_files,  # noqa: E402
                           write_small_sweep)


def copy_store(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    (target / "small" / version_folder(results_version()) / ".lock").unlink(missing_ok=True)
    return target


def small(tmp_path, **kwargs):
    sweep = load_sweep(write_small_sweep(tmp_path / "spec", **kwargs))
    return sweep, StudyStore(tmp_path / "store", sweep.study, results_version())


# --- the store -----------------------------------------------------------------------------------------

def test_every_run_is_stored_once_as_whole_files(tmp_path_factory):
    root = reference_store(tmp_path_factory)
    assert_store_is_clean(root, RUNS)
    runs = cclab.results.load("small", store=root)
    assert len(runs) == RUNS * FLOWS
    for column in ("study", "cclab_version", "run_key", "scenario_hash", "seed", "replication", "params",
                   "flows.0.cc", "network.bottleneck.queue.size", "network.bottleneck.loss_rate",
                   "flow", "cc", "goodput_bps", "delivered_bps", "loss_events", "bottleneck_utilization",
                   "bottleneck_drops", "jain_index", "events", "duration_s"):
        assert column in runs.columns, column
    assert (runs["goodput_bps"] > 0).all()
    assert runs["cc"].tolist() == runs["flows.0.cc"].tolist()  # the swept value is what ran
    assert runs["seed"].dtype == "int64" and runs["network.bottleneck.loss_rate"].dtype == "float64"
    assert set(runs["cclab_version"]) == {results_version()}


def test_rerun_computes_nothing_and_changes_nothing(tmp_path_factory, tmp_path):
    root = copy_store(reference_store(tmp_path_factory), tmp_path / "store")
    before = store_files(root)
    sweep, store = small(tmp_path)
    report = run_sweep(sweep, store, LocalPool(2))
    assert (report.to_run, report.already_stored, report.done) == (0, RUNS, 0)
    assert store_files(root) == before


def test_only_missing_runs_are_computed_and_they_come_out_the_same(tmp_path_factory, tmp_path):
    root = copy_store(reference_store(tmp_path_factory), tmp_path / "store")
    before = store_files(root)
    summaries = sorted((root / "small" / version_folder(results_version()) / "summary").iterdir())
    for path in summaries[:5]:
        path.unlink()
    sweep, store = small(tmp_path)
    report = run_sweep(sweep, store, LocalPool(2))
    assert (report.to_run, report.done, report.already_stored) == (5, 5, RUNS - 5)
    assert store_files(root) == before  # byte for byte: nothing of the executor or clock in a result


def test_timeseries_and_queue_views_join_to_runs(tmp_path_factory):
    root = reference_store(tmp_path_factory)
    answer = cclab.results.query(
        'SELECT r."flows.0.cc" AS cc, count(DISTINCT t.run_key) AS runs, max(t.time_s) AS last '
        "FROM timeseries t JOIN (SELECT DISTINCT run_key, \"flows.0.cc\" FROM runs) r USING (run_key) "
        "GROUP BY ALL ORDER BY cc", store=root)
    assert answer["cc"].tolist() == ["cubic", "newreno"]
    assert answer["runs"].tolist() == [RUNS // 2, RUNS // 2]
    queue = cclab.results.query("SELECT count(DISTINCT run_key) AS n FROM queue", store=root)
    assert queue["n"][0] == RUNS


def test_a_table_no_run_kept_is_named_with_how_to_keep_it(tmp_path_factory):
    # DuckDB said 'Table with name connections does not exist! Did you mean "pg_collation"?'.
    root = reference_store(tmp_path_factory)
    with pytest.raises(cclab.results.ResultsError) as caught:
        cclab.results.query("SELECT * FROM connections", store=root)
    assert str(caught.value) == ("no stored run kept connections (runs keep them with records = true on a "
                                 "[[traffic]] source); the tables here are failures, queue, runs, timeseries")
    with pytest.raises(cclab.results.ResultsError, match="Table with name nosuch does not exist"):
        cclab.results.query("SELECT * FROM nosuch", store=root)


def test_stale_temporary_files_are_removed_and_never_read(tmp_path_factory, tmp_path):
    root = copy_store(reference_store(tmp_path_factory), tmp_path / "store")
    folder = root / "small" / version_folder(results_version()) / "summary"
    stale = folder / ".deadbeef-1.parquet.4242.tmp"
    stale.write_bytes(b"PAR1 half a file")
    assert len(cclab.results.load("small", store=root)) == RUNS * FLOWS  # the glob never sees it
    sweep, store = small(tmp_path)
    run_sweep(sweep, store, LocalPool(2))
    assert not stale.exists()


def test_write_atomic_leaves_the_old_file_or_the_new_one(tmp_path):
    path = tmp_path / "a" / "x.json"
    write_atomic(path, b"one")
    write_atomic(path, b"two")
    assert path.read_bytes() == b"two"
    assert [p.name for p in path.parent.iterdir()] == ["x.json"]


def test_one_sweep_at_a_time_per_study(tmp_path):
    # The lock's holder (this process) names itself in the lock file, and the refused sweep says so.
    sweep, store = small(tmp_path)
    with store.lock():
        with pytest.raises(StoreLocked, match=f"{RUNS} of the {RUNS} runs asked for are not in the store, and "
                                              f"`.*` \\(pid {os.getpid()}, since .* UTC\\) is writing study 'small'"):
            run_sweep(sweep, store, LocalPool(1))
    assert not store.stored_keys()


def test_a_sweep_with_every_run_stored_reads_while_another_writes(tmp_path_factory, tmp_path):
    # Nothing to compute: the sweep reads the store without the lock instead of refusing, and changes nothing.
    root = copy_store(reference_store(tmp_path_factory), tmp_path / "store")
    before = store_files(root)
    sweep, store = small(tmp_path)
    with store.lock():
        report = run_sweep(sweep, store, LocalPool(1))
    assert (report.planned, report.already_stored, report.to_run, report.done) == (RUNS, RUNS, 0, 0)
    assert store_files(root) == before


def test_a_lock_file_without_a_holder_still_gives_a_message(tmp_path):
    # A lock taken by a cclab that did not write its name (or in the instant before it does).
    import fcntl

    sweep, store = small(tmp_path)
    store.folder.mkdir(parents=True)
    descriptor = os.open(store.folder / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(StoreLocked, match="another cclab sweep is writing study 'small'") as refused:
            run_sweep(sweep, store, LocalPool(1))
        assert refused.value.holder == ""
    finally:
        os.close(descriptor)


def test_default_store_location(monkeypatch, tmp_path):
    monkeypatch.setenv(STORE_ENV, str(tmp_path / "env-store"))
    assert default_store_root() == tmp_path / "env-store"
    monkeypatch.delenv(STORE_ENV)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_store_root() == tmp_path / "data" / "cclab" / "store"


# --- failures -------------------------------------------------------------------------------------

FAILING_SWEEP = """
base = "base.toml"
replications = 2
[grid]
"flows.0.cc" = ["newreno", { name = "cubic", beta = 1.5 }]
"""


def test_failed_runs_are_recorded_and_the_sweep_carries_on(tmp_path):
    spec = write_small_sweep(tmp_path / "spec", name="failing", sweep_text=FAILING_SWEEP)
    store = tmp_path / "store"
    process = run_cli("sweep", str(spec), "--store", str(store), "--jobs", "2")
    assert process.returncode == 1, process.stderr  # ran, but not everything is stored
    assert "Traceback" not in process.stderr
    assert "2 runs computed, 2 failed" in process.stderr
    assert "flows.0.cc.beta: must be in (0, 1) (rejected by the engine)" in process.stderr
    assert "--retry-failed" in process.stderr
    failures = cclab.results.query("SELECT * FROM failures ORDER BY replication", store=store)
    assert failures["error_type"].tolist() == ["ScenarioError", "ScenarioError"]
    assert failures["replication"].tolist() == [0, 1]
    assert len(cclab.results.load("failing", store=store)) == 2 * FLOWS

    # A plain re-run leaves recorded failures alone; --retry-failed runs only those (and they fail again).
    again = run_cli("sweep", str(spec), "--store", str(store))
    assert again.returncode == 1 and "nothing to run" in again.stderr and "2 failed" in again.stderr
    retried = run_cli("sweep", str(spec), "--store", str(store), "--retry-failed")
    assert retried.returncode == 1 and "0 runs computed, 2 failed, 2 were already stored" in retried.stderr


def test_retry_failed_reruns_only_the_failed_and_clears_the_record(tmp_path_factory, tmp_path):
    root = copy_store(reference_store(tmp_path_factory), tmp_path / "store")
    before = store_files(root)
    sweep, store = small(tmp_path)
    victim = sweep.runs[7]
    store.path("summary", victim.key).unlink()
    store.write_failure({"run_key": victim.key, "error_type": "WorkerDied", "error": "killed"})
    missing = sweep.runs[3]
    store.path("summary", missing.key).unlink()
    report = run_sweep(sweep, store, LocalPool(2), retry_failed=True)
    assert (report.to_run, report.done) == (1, 1)
    status = run_status(sweep, store)
    assert status[victim.key] == "stored" and status[missing.key] == "missing"
    assert not store.path("failures", victim.key).exists()
    relative = str(store.path("summary", victim.key).relative_to(root))
    assert store_files(root)[relative] == before[relative]  # recomputed, byte for byte


class Handle:
    def __init__(self, outcome):
        self.outcome = outcome


class FlakyExecutor:
    """In-process executor whose workers 'die' under chosen runs: checks the sweeper's retry rule."""

    description = "a test executor"

    def __init__(self, lose: dict[str, int]):
        self.lose = dict(lose)  # run key -> times its worker dies under it
        self.submitted: list[str] = []

    def slots(self):
        return 2

    def submit(self, task):
        from cclab.executors import execute_run
        self.submitted.append(task["run_key"])
        if self.lose.get(task["run_key"], 0) > 0:
            self.lose[task["run_key"]] -= 1
            return Handle({"status": "lost", "error_type": "WorkerDied", "error": "killed by the test"})
        return Handle(execute_run(task))

    def wait(self, handles, timeout):
        return handles[:1]

    def outcome(self, handle):
        return handle.outcome

    def close(self, cancel=False):
        pass


def test_lost_runs_are_retried_then_recorded_as_failed(tmp_path):
    sweep, store = small(tmp_path)
    unlucky, dying = sweep.runs[2].key, sweep.runs[5].key
    executor = FlakyExecutor({unlucky: 1, dying: MAX_ATTEMPTS})
    report = run_sweep(sweep, store, executor)
    assert (report.done, report.failed) == (RUNS - 1, 1)
    assert executor.submitted.count(unlucky) == 2 and executor.submitted.count(dying) == MAX_ATTEMPTS
    record = store.failure(dying)
    assert record["attempts"] == MAX_ATTEMPTS and record["error_type"] == "WorkerDied"
    assert record["params"] == sweep.runs[5].params and record["seed"] == sweep.runs[5].seed


def test_killing_a_local_worker_loses_nothing(tmp_path_factory, tmp_path):
    # The pool is rebuilt and the runs the dead worker's pool held are done again.
    sweep, store = small(tmp_path)
    pool = LocalPool(2)
    killed = []

    def kill_a_worker(progress):
        if not killed and progress.done >= 2 and pool._pool is not None:
            pid = next(iter(pool._pool._processes))
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    report = run_sweep(sweep, store, pool, progress=kill_a_worker)
    assert killed and (report.done, report.failed) == (RUNS, 0)
    assert report.retried >= 1  # the runs the dead worker's pool held were handed out again
    assert_store_is_clean(tmp_path / "store", RUNS)


# A worker stopped half way through writing its result, made exact: the first bytes of a 1-MB message
# written into the pool's result pipe, which its manager thread then waits to read in full. Stopping the
# pool (Ctrl-C's close) must still let that thread end, or Python's exit waits for it forever: a sweep
# printed "interrupted" and hung (tests/test_sweep_crash.py, once in about 15 runs). In a child process,
# so that a regression fails here instead of hanging the test run at its exit.
HALF_WRITTEN_RESULT = """
import os, struct, sys, time
from cclab.executors import LocalPool
pool = LocalPool(1)
assert pool.outcome(pool.submit({}))["status"] == "failed"   # no config: a quick failed run starts the pool
manager = pool._pool._executor_manager_thread
os.write(pool._pool._result_queue._writer.fileno(), struct.pack("!i", 1 << 20) + bytes(16))
time.sleep(0.5)   # the manager thread reads the length, then waits for the rest
pool.close(cancel=True)
manager.join(timeout=20)
print("ended" if not manager.is_alive() else "still waiting", flush=True)
os._exit(0)   # a thread still waiting would hold up a normal exit
"""


def run_child(script: str) -> subprocess.CompletedProcess:
    """`script` in a fresh interpreter that imports this checkout's cclab; it must exit 0."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "python"), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def test_stopping_the_pool_ends_its_manager_thread_under_a_half_written_result():
    done = run_child(HALF_WRITTEN_RESULT)
    assert done.stdout.strip() == "ended", done.stderr


# SIGTERM (or Ctrl-C) arriving while concurrent.futures.wait takes the futures' locks one by one, made exact:
# the signal is sent between the first lock and the next. Raised there, it left the first future's lock held
# by the main thread for good; close(cancel=True) then had the manager thread wait for it in Future.cancel, and
# Python's exit waited for the manager thread: the sweep printed "terminated" and hung, the symptom of the rare
# hang of tests/test_sweep_crash.py's SIGTERM test. In a child process, as above.
SIGNAL_IN_WAIT = """
import concurrent.futures._base as base, os, signal, time
from cclab.cli import stop_on_second_interrupt
from cclab.executors import LocalPool
stop_on_second_interrupt()   # the command's handlers: SIGTERM raises cclab.cli.Terminated
pool = LocalPool(1)
executor = pool._ensure()
futures = [executor.submit(time.sleep, 60) for _ in range(3)]   # one running, two waiting: none finishes
manager = executor._executor_manager_thread

def enter(self):
    self.futures[0]._condition.acquire()
    os.kill(os.getpid(), signal.SIGTERM)   # its handler runs at the next instruction
    for future in self.futures[1:]:
        future._condition.acquire()

base._AcquireFutures.__enter__ = enter
try:
    pool.wait(futures, timeout=0.5)
    print("not stopped", flush=True)
except KeyboardInterrupt:
    pool.close(cancel=True)
    manager.join(timeout=20)
    print("ended" if not manager.is_alive() else "still waiting", flush=True)
os._exit(0)   # a thread still waiting would hold up a normal exit
"""

# The same in a submit that starts a worker, between multiprocessing starting it and the pool recording it:
# close() did not stop that worker, and multiprocessing's exit hook waited for it while it waited for the
# sweep to end (the worker took a run, then waited for more).
SIGNAL_IN_SPAWN = """
import concurrent.futures.process as process, multiprocessing, os, signal, time
from cclab.cli import stop_on_second_interrupt
from cclab.executors import LocalPool
stop_on_second_interrupt()
started = process.ProcessPoolExecutor._spawn_process

def spawn(self):
    self._mp_context.Process.start = start   # only this process start
    try:
        started(self)
    finally:
        del self._mp_context.Process.start

def start(worker):
    multiprocessing.process.BaseProcess.start(worker)
    # Give the worker time to come up (the forkserver's imports take about a second): sent at once, the
    # close() below removed the pool's semaphores before the worker had read them, the worker died of that,
    # and the unfixed pool passed the test too.
    time.sleep(3)
    os.kill(os.getpid(), signal.SIGTERM)   # raised here, the pool never learns of the worker

pool = LocalPool(2)
pool._ensure().submit(time.sleep, 60)   # the first worker, busy: the next submit starts the second
process.ProcessPoolExecutor._spawn_process = spawn
try:
    pool.submit({})
    print("not stopped", flush=True)
except KeyboardInterrupt:
    process.ProcessPoolExecutor._spawn_process = started
    pool.close(cancel=True)
    deadline = time.monotonic() + 20
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.1)
    left = multiprocessing.active_children()
    print("stopped" if not left else "left running", flush=True)
    for worker in left:
        worker.kill()
os._exit(0)
"""


@pytest.mark.parametrize("script, whole", [(SIGNAL_IN_WAIT, "ended"), (SIGNAL_IN_SPAWN, "stopped")],
                         ids=["wait", "spawn"])
def test_a_signal_inside_a_call_of_the_pool_still_stops_it_whole(script, whole):
    done = run_child(script)
    assert done.stdout.strip() == whole, done.stderr


# --- the command line ------------------------------------------------------------------------------

def test_dry_run_lists_runs_and_counts_the_stored(tmp_path_factory, tmp_path):
    root = copy_store(reference_store(tmp_path_factory), tmp_path / "store")
    summaries = sorted((root / "small" / version_folder(results_version()) / "summary").iterdir())
    for path in summaries[:4]:
        path.unlink()
    spec = write_small_sweep(tmp_path / "spec")
    process = run_cli("sweep", str(spec), "--store", str(root), "--dry-run")
    assert process.returncode == 0, process.stderr
    assert f"{RUNS} runs: {RUNS - 4} stored, 0 failed, 4 to run" in process.stdout
    assert process.stdout.count("missing") == 4 and process.stdout.count("stored") >= RUNS - 4
    # and nothing ran: still 4 missing
    assert len(list((root / "small" / version_folder(results_version()) / "summary").iterdir())) == RUNS - 4


def test_cli_results_query(tmp_path_factory, monkeypatch):
    root = reference_store(tmp_path_factory)
    process = run_cli("results", "query", "SELECT cc, count(*) AS n, avg(goodput_bps) > 0 AS ok FROM runs "
                      "GROUP BY cc ORDER BY cc", "--store", str(root), "--csv")
    assert process.returncode == 0, process.stderr
    assert process.stdout.splitlines() == ["cc,n,ok", "cubic,24,True", "newreno,24,True"]
    table = run_cli("results", "query", "SELECT cc, avg(goodput_bps) FROM runs GROUP BY cc", "--store", str(root))
    assert table.returncode == 0 and "newreno" in table.stdout and "cubic" in table.stdout


def test_cli_results_query_errors(tmp_path):
    empty = run_cli("results", "query", "SELECT 1 FROM runs", "--store", str(tmp_path))
    assert empty.returncode == 2 and empty.stderr.startswith("error: no runs of any study stored")
    assert "Traceback" not in empty.stderr


def test_cli_store_from_environment(tmp_path_factory, tmp_path):
    root = reference_store(tmp_path_factory)
    env_process = run_cli_env({STORE_ENV: str(root)}, "results", "query", "SELECT count(*) AS n FROM runs", "--csv")
    assert env_process.stdout.splitlines() == ["n", str(RUNS * FLOWS)]


def run_cli_env(extra_env, *args):
    import subprocess
    import sys
    env = {**os.environ, **extra_env,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "python"), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "cclab", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_example_sweep_as_written(tmp_path):
    # The example, unchanged: 8 runs of 60 s at 200 Mbit/s.
    example = REPO / "examples" / "sweep-table1-newreno-cubic.toml"
    process = run_cli("sweep", str(example), "--store", str(tmp_path))
    assert process.returncode == 0, process.stderr
    runs = cclab.results.query('SELECT cc, "network.bottleneck.queue.size" AS buffer, avg(goodput_bps) AS goodput, '
                               "count(*) AS n FROM runs GROUP BY ALL ORDER BY ALL", store=tmp_path)
    assert runs["n"].tolist() == [2, 2, 2, 2]
    assert (runs["goodput"] > 50e6).all()
    again = run_cli("sweep", str(example), "--store", str(tmp_path), "--dry-run")
    assert "8 runs: 8 stored, 0 failed, 0 to run" in again.stdout
    frame = cclab.results.load("sweep-table1-newreno-cubic", store=tmp_path)
    assert isinstance(frame, pd.DataFrame) and len(frame) == 8
    assert json.loads(frame["params"][0])["run.duration"] == "60s"
