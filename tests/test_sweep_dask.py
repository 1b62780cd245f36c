"""Sweeps on a real Dask cluster on loopback: a scheduler and workers started here as `dask scheduler` and
`dask worker` processes, and a LocalCluster through `--cluster local:2`. Both must store exactly the bytes
the local pool stores, and a worker killed mid-sweep must cost nothing but time."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine_required import need  # noqa: E402

need("cclab._engine")
need("distributed")

from cclab.store import results_version  # noqa: E402
from cclab.executors import DaskExecutor, ExecutorError  # noqa: E402
from cclab.store import StudyStore  # noqa: E402
from cclab.sweep import load_sweep  # noqa: E402
from cclab.sweeper import run_sweep  # noqa: E402
from conftest import REPO, run_cli  # noqa: E402
from sweep_helpers import RUNS, assert_store_is_clean, reference_store, store_files, write_small_sweep  # noqa: E402

WORKERS = 3
START_TIMEOUT_S = 60


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), env.get("PYTHONPATH")]))
    return env


def _dask(*args: str, log: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "dask", *args], env=_env(), stdout=log.open("wb"),
                            stderr=subprocess.STDOUT, start_new_session=True)


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    """A scheduler on 127.0.0.1 and WORKERS single-thread workers without nannies (a killed worker stays
    dead), started as a person would start them by hand; all stopped afterwards."""
    from distributed import Client

    folder = tmp_path_factory.mktemp("dask")
    scheduler_file = folder / "scheduler.json"
    processes = [_dask("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                       "--scheduler-file", str(scheduler_file), log=folder / "scheduler.log")]
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not scheduler_file.exists() or not scheduler_file.read_text().strip():
            assert time.monotonic() < deadline, (folder / "scheduler.log").read_text()
            assert processes[0].poll() is None, (folder / "scheduler.log").read_text()
            time.sleep(0.1)
        address = json.loads(scheduler_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        workers = {}
        for index in range(WORKERS):
            name = f"w{index}"
            workers[name] = _dask("worker", address, "--name", name, "--nthreads", "1", "--no-nanny",
                                  "--no-dashboard", "--host", "127.0.0.1", log=folder / f"{name}.log")
            processes.append(workers[name])
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(WORKERS, timeout=START_TIMEOUT_S)
        yield address, workers, scheduler_file
    finally:
        # Workers are killed outright (a graceful close waits on the scheduler); the scheduler last.
        for process in processes[1:]:
            if process.poll() is None:
                process.kill()
        processes[0].terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_external_scheduler_same_results_and_a_killed_worker_loses_nothing(dask_cluster, tmp_path_factory,
                                                                            tmp_path):
    address, workers, _ = dask_cluster
    reference = reference_store(tmp_path_factory)
    sweep = load_sweep(write_small_sweep(tmp_path / "spec"))
    store = StudyStore(tmp_path / "store", sweep.study, results_version())
    executor = DaskExecutor(address)
    killed: list[tuple[str, int]] = []

    def kill_a_busy_worker(progress):
        # After a few results, SIGKILL a worker that is running a run at that moment.
        if killed or progress.done < 3 or executor._client is None:
            return
        client = executor._client
        names = {addr: info["name"] for addr, info in client.scheduler_info()["workers"].items()}
        busy = [(names[addr], keys) for addr, keys in client.processing().items() if keys and addr in names]
        if busy:
            name, keys = busy[0]
            workers[name].send_signal(signal.SIGKILL)
            workers[name].wait()
            killed.append((name, len(keys)))

    report = run_sweep(sweep, store, executor, progress=kill_a_busy_worker)
    assert killed, "no worker was busy after the third result; the test did not test anything"
    assert (report.done, report.failed) == (RUNS, 0)
    assert_store_is_clean(tmp_path / "store", RUNS)
    assert store_files(tmp_path / "store") == store_files(reference)  # byte for byte, as on the local pool


FOUR_RUNS = """
base = "base.toml"
replications = 2
[grid]
"flows.0.cc" = ["newreno", "cubic"]
"""


def test_command_line_with_a_scheduler_address_and_a_scheduler_file(dask_cluster, tmp_path):
    address, _, scheduler_file = dask_cluster
    spec = write_small_sweep(tmp_path / "spec", name="four", sweep_text=FOUR_RUNS)
    by_address = run_cli("sweep", str(spec), "--store", str(tmp_path / "a"), "--cluster", address)
    assert by_address.returncode == 0, by_address.stderr
    assert "4 runs computed, 0 failed" in by_address.stderr and f"the Dask scheduler at {address}" in by_address.stderr
    sweep = load_sweep(spec)
    report = run_sweep(sweep, StudyStore(tmp_path / "b", sweep.study, results_version()),
                       DaskExecutor(f"file:{scheduler_file}"))
    assert (report.done, report.failed) == (4, 0)
    assert store_files(tmp_path / "a") == store_files(tmp_path / "b")


def test_local_dask_cluster_from_the_command_line(tmp_path_factory, tmp_path):
    reference = reference_store(tmp_path_factory)
    spec = write_small_sweep(tmp_path / "spec")
    process = run_cli("sweep", str(spec), "--store", str(tmp_path / "store"), "--cluster", "local:2")
    assert process.returncode == 0, process.stderr
    assert f"{RUNS} runs computed, 0 failed" in process.stderr
    assert "a local Dask cluster of 2 worker processes" in process.stderr
    assert store_files(tmp_path / "store") == store_files(reference)


@pytest.mark.parametrize("address, message", [
    ("local:0", "local:N needs a number of workers"),
    ("local:two", "local:N needs a number of workers"),
    ("somewhere", "is not an address"),
])
def test_bad_cluster_addresses(address, message):
    with pytest.raises(ExecutorError, match=message):
        DaskExecutor(address)


def test_unreachable_scheduler_is_one_error(tmp_path):
    spec = write_small_sweep(tmp_path / "spec")
    # Port 9 (discard) on loopback: nothing listens there, so the connection is refused at once.
    process = run_cli("sweep", str(spec), "--store", str(tmp_path / "store"), "--cluster", "tcp://127.0.0.1:9")
    assert process.returncode == 2, process.stderr
    assert "Traceback" not in process.stderr
    assert "error: cannot reach the Dask scheduler of --cluster tcp://127.0.0.1:9" in process.stderr
