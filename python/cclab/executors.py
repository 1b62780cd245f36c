"""Where the runs of a sweep execute: a local process pool (the default) or a Dask distributed cluster.

Whatever the executor, a run is the same function on the same plain data: `execute_run` takes the engine
config as JSON text (docs/engine-interface.md) with the run's study and key, and returns the engine's
summary and the time series as Parquet bytes. Nothing about the executor (host, worker, wall clock) goes
into what is stored, so a sweep gives the same results on every executor.

Each executor answers to the same few calls, which `cclab.sweeper` drives:

    slots()                 runs that can execute at once (for the submission window and "running")
    submit(task) -> handle  start a run
    wait(handles, timeout)  handles that have finished (at least one, unless the timeout passes)
    outcome(handle)         {"status": "ok" | "failed" | "lost", ...}: "lost" means the worker died
                            under the run, which says nothing about the run, so it may be tried again
    close(cancel)           stop; with cancel, drop queued runs and stop running ones now

A worker that dies takes its run with it but never the sweep: the local pool is rebuilt and the runs it
held are handed back as "lost"; Dask's scheduler moves them to other workers by itself and reports
`KilledWorker` only when workers keep dying on the same run.
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, Protocol

from .errors import CclabError

# What a lost run is recorded as when it keeps getting lost (see cclab.sweeper.MAX_ATTEMPTS).
WORKER_DIED = "the worker process running it died (killed, out of memory, or crashed)"


class ExecutorError(CclabError):
    """An executor that cannot be used: a bad --cluster address, an unreachable scheduler."""


# --- the run itself, in a worker ---------------------------------------------------------------------

def execute_run(task: dict) -> dict:
    """Run one engine config in this process; the outcome as plain data (picklable to any worker).

    A run that fails is an outcome too, never an exception: cclab's exceptions carry structured fields
    that do not survive pickling, and a failure is a result of the sweep worth recording, not a crash.
    """
    from .engine import load_engine, read_summary
    # The runner's own build and advance steps, so a run in a sweep is exactly a `cclab run` of its config.
    from .runner import _advance, _build
    from .store import parquet_bytes, series_table

    started, started_cpu = time.perf_counter(), time.process_time()
    try:
        config = json.loads(task["config_json"])
        simulation = _build(load_engine(), config)
        _advance(simulation, None)
        summary = read_summary(simulation)
        series = simulation.timeseries()
        identity = {"study": task["study"], "run_key": task["run_key"]}
        timeseries = parquet_bytes(series_table(identity, series.get("flows") or {}))
        queue = parquet_bytes(series_table(identity, series.get("queue") or {}))
        loss_events = (parquet_bytes(series_table(identity, simulation.loss_events()))
                       if config["run"].get("record_loss_events") else None)
        rtt_histogram = (parquet_bytes(series_table(identity, simulation.rtt_histogram()))
                         if config["run"].get("rtt_histogram") else None)
        # Per-connection records exist only for sources with records = true; a run without any stores no
        # file, so the connections view holds only runs that asked for them.
        records = simulation.connection_records() if hasattr(simulation, "connection_records") else {}
        connections = (parquet_bytes(series_table(identity, records))
                       if records and len(next(iter(records.values()))) else None)
    except CclabError as exc:  # e.g. ScenarioError: a parameter only the engine knows it rejects
        return {"status": "failed", "error_type": type(exc).__name__, "error": str(exc)}
    except Exception as exc:  # a bug: recorded with its traceback, and the sweep carries on
        return {"status": "failed", "error_type": type(exc).__name__, "error": str(exc) or repr(exc),
                "traceback": traceback.format_exc()}
    return {"status": "ok", "summary": summary, "timeseries": timeseries, "queue": queue, "loss_events": loss_events,
            "connections": connections, "rtt_histogram": rtt_histogram,
            # Measured for benchmarks and the report; never stored, since they depend on the machine.
            # Wall time includes waiting for a core on a busy machine; CPU time does not.
            "compute_s": time.perf_counter() - started, "cpu_s": time.process_time() - started_cpu}


class Executor(Protocol):
    description: str

    def slots(self) -> int: ...
    def submit(self, task: dict) -> Any: ...
    def wait(self, handles: list, timeout: float) -> list: ...
    def outcome(self, handle: Any) -> dict: ...
    def close(self, cancel: bool = False) -> None: ...


def make_executor(cluster: str | None = None, jobs: int | None = None) -> Executor:
    """The executor a command line asks for: a local pool of `jobs` processes, or `cluster`:
    'local:N' (a Dask LocalCluster of N worker processes), 'file:PATH' (a Dask scheduler file) or a
    scheduler address ('tcp://host:8786')."""
    if cluster is None:
        return LocalPool(jobs)
    if jobs is not None:
        raise ExecutorError("--jobs sizes the local pool; with --cluster the workers decide how many runs "
                            "execute at once (for local:N, N is the number of workers)")
    return DaskExecutor(cluster)


# --- local process pool ------------------------------------------------------------------------------

def _context() -> multiprocessing.context.BaseContext:
    """forkserver where there is one: workers are forked from a clean process that has imported cclab once,
    not from this one, whose threads (progress bar, Arrow) could hold locks at the moment of a fork."""
    try:
        context = multiprocessing.get_context("forkserver")
    except ValueError:  # Windows
        return multiprocessing.get_context("spawn")
    context.set_forkserver_preload(["cclab.executors", "cclab.store", "cclab.runner"])
    return context


def _init_worker() -> None:
    # Ctrl-C reaches the whole foreground process group; the parent alone decides what to do with it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent,), name="exit-with-parent", daemon=True).start()


def _exit_with(parent) -> None:
    # A sweep killed with SIGKILL cannot stop its workers; they notice here and go too, instead of
    # waiting for work that will never come (or finishing a run nobody will store).
    parent.join()
    os._exit(1)


class LocalPool:
    """A process pool on this machine, one process per core by default."""

    def __init__(self, workers: int | None = None):
        self.workers = workers or os.cpu_count() or 1
        self.description = f"a local pool of {self.workers} process{'es' if self.workers != 1 else ''}"
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._owner: dict[concurrent.futures.Future, concurrent.futures.ProcessPoolExecutor] = {}

    def slots(self) -> int:
        return self.workers

    def _ensure(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=_context(), initializer=_init_worker)
        return self._pool

    def submit(self, task: dict) -> concurrent.futures.Future:
        # Ctrl-C and SIGTERM held as in wait(), for another reason: a submit that starts a worker (the first
        # ones, or those after the pool is replaced) records it in the pool only after multiprocessing has
        # started it, and a KeyboardInterrupt (or Terminated) raised in between leaves a worker that close()
        # does not stop but that multiprocessing's exit hook joins, while the worker waits for this process to
        # end: the sweep printed "terminated" and hung (made exact in tests/test_sweep_run.py; the worker took
        # a run, then waited for more). And like wait(), submit takes locks through `with` blocks whose
        # `__enter__` is Python code (threading.Condition's: the pool's idle-worker semaphore, its queue of
        # work ids), so an interrupt raised just after the lock is taken leaves it held: seen once, the manager
        # thread waiting in that semaphore's release. Starting the first worker takes about a second (the
        # forkserver's imports), so a Ctrl-C then takes effect up to that much later.
        with _interrupts_held():
            pool = self._ensure()
            try:
                future = pool.submit(execute_run, task)
            except BrokenProcessPool:  # a worker died since the last outcome was read: start afresh
                self._discard(pool)
                pool = self._ensure()
                future = pool.submit(execute_run, task)
            self._owner[future] = pool
        return future

    def wait(self, handles: list, timeout: float) -> list:
        # Ctrl-C and SIGTERM held (so they take effect at most `timeout` later, on the way out): wait() takes
        # the lock of every future one at a time (concurrent.futures._base._AcquireFutures) and gives them
        # back the same way, so a KeyboardInterrupt (or Terminated) raised between two of those steps leaves
        # this thread holding the lock of some future for good. The pool's manager thread then blocks on it
        # as soon as it touches that future (cancelling it in close(cancel=True), or setting its result),
        # never ends, and Python's exit joins it: the sweep printed "terminated" and hung, as the SIGTERM test
        # of tests/test_sweep_crash.py did once in 15-30 full test runs (CPython 3.11). Seen with SIGTERM sent
        # at a random time (once in 60 stops, with 100 runs in flight), made exact in tests/test_sweep_run.py.
        with _interrupts_held():
            done, _ = concurrent.futures.wait(handles, timeout=timeout,
                                              return_when=concurrent.futures.FIRST_COMPLETED)
        return list(done)

    def outcome(self, future: concurrent.futures.Future) -> dict:
        pool = self._owner.pop(future, None)
        try:
            return future.result()
        except (BrokenProcessPool, concurrent.futures.CancelledError):
            # One dead worker breaks the whole pool: every run it held comes back here. Only the
            # first of them replaces the pool; the others belong to the same broken one.
            if pool is not None:
                self._discard(pool)
            return {"status": "lost", "error_type": "WorkerDied", "error": WORKER_DIED}

    def _discard(self, pool: concurrent.futures.ProcessPoolExecutor) -> None:
        if pool is self._pool:
            self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self, cancel: bool = False) -> None:
        pool, self._pool = self._pool, None
        self._owner.clear()
        if pool is None:
            return
        if not cancel:
            pool.shutdown(wait=True)
            return
        # shutdown() lets running calls finish, which for a long run is minutes after Ctrl-C: stop the
        # processes instead. `_processes` is private but has been there, unchanged, since Python 3.2.
        processes = list((getattr(pool, "_processes", None) or {}).values())
        results = getattr(pool, "_result_queue", None)  # shutdown() forgets it
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=5)
        _unblock_result_reader(results)


def _unblock_result_reader(results) -> None:
    """Close this process's write end of a stopped pool's result pipe, so that its reader cannot wait forever.

    A worker stopped while it writes a result (a run's time series is larger than a pipe holds) leaves a
    half-written message, and the pool's manager thread waits in `recv` for the rest. This process holds a
    write end of the same pipe, so the rest never comes and neither does the end of the file; the thread
    never ends, and Python's exit joins it: the command printed "interrupted" and hung (CPython 3.11,
    reproduced by killing a worker that returns 200 MB; 1 Ctrl-C test in about 15 full test runs, session
    18). With the last write end closed, the read fails, and the thread takes the pool as broken and ends.
    Only after the workers are gone; no one writes to the pipe afterwards."""
    writer = getattr(results, "_writer", None)
    if writer is not None:
        writer.close()


# --- Dask distributed --------------------------------------------------------------------------------

_HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while distributed works, and raise them as soon as it is done (also around
    LocalPool's submit and wait, for the reasons given there).

    distributed's blocking calls (`distributed.utils.sync`) do not survive the KeyboardInterrupt (or
    cclab.cli.Terminated) that the command's handlers raise: one that lands in the LocalCluster's start-up
    leaves a half-started cluster that nobody holds, which distributed's exit hook then fails to close, with
    tracebacks (AssertionError: Status.init, "Nanny failed to start"); one that lands before sync's coroutine
    has begun makes its cancel callback fail with a NameError traceback (distributed 2026.8). Held, the
    signal is raised here on the way out, in cclab's code, with the executor in a state that close() can
    stop. That is at most one wait (cclab.sweeper.WAIT_S) later, or once the cluster has started.

    Only handlers that are Python functions are held: a signal ignored or left to its default action stays
    so. A second signal of the same kind meanwhile gets the default action at once, as everywhere in the
    command (cclab.cli.stop_on_second_interrupt)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers belong to the main thread; a sweep driven from another one has none of cclab's
        return
    held: list[tuple[int, Any]] = []
    replaced = {}

    def hold(signum, frame) -> None:
        if not held:
            held.append((signum, frame))
        signal.signal(signum, signal.SIG_DFL)

    for signum in _HELD_SIGNALS:
        handler = signal.getsignal(signum)
        if callable(handler):
            replaced[signum] = signal.signal(signum, hold)
    try:
        yield
    finally:
        for signum, handler in replaced.items():
            signal.signal(signum, handler)
        if held:
            # The handler it was meant for: cclab's raises KeyboardInterrupt or Terminated; one held again
            # by an outer _interrupts_held records it there, to be raised when that one ends.
            signum, frame = held[0]
            replaced[signum](signum, frame)


def _check_reachable(address: str) -> None:
    """Fail at once when nothing listens at a tcp:// address, rather than after the client's timeout
    (it retries a refused connection for as long as it may, in case the scheduler is still starting)."""
    import socket
    from urllib.parse import urlsplit

    if not address.startswith("tcp://"):
        return
    parts = urlsplit(address)
    if parts.hostname is None or parts.port is None:
        raise ValueError(f"{address} has no host:port")
    with socket.create_connection((parts.hostname, parts.port), timeout=10):
        pass


# Dask is an optional part of cclab (`pip install 'cclab[cluster]'`), needed only for --cluster.
MISSING_DASK = ("--cluster needs Dask distributed, an optional part of cclab that is not installed; "
                "install it with: pip install 'cclab[cluster]'")


def _require_dask() -> None:
    """Fail before anything runs when distributed is missing; finding it costs nothing, importing it (a second)
    is left to the first submit."""
    import importlib.util

    try:
        found = importlib.util.find_spec("distributed") is not None
    except (ImportError, ValueError):  # ValueError: a module in sys.modules without a spec (set to None)
        found = False
    if not found:
        raise ExecutorError(MISSING_DASK)


class DaskExecutor:
    """Runs on a Dask distributed cluster: an existing scheduler, or a LocalCluster started here.

    The connection is made on the first submit, so a sweep with nothing left to run never connects.
    """

    def __init__(self, address: str):
        _require_dask()
        self.address = address.strip()
        self._local_workers: int | None = None
        if self.address.startswith("local:"):
            count = self.address[len("local:"):]
            if not count.isdigit() or int(count) < 1:
                raise ExecutorError(f"--cluster {address!r}: local:N needs a number of workers N of at least 1, "
                                    "e.g. local:4")
            self._local_workers = int(count)
            self.description = f"a local Dask cluster of {count} worker process{'es' if count != '1' else ''}"
        elif self.address.startswith("file:"):
            self.description = f"the Dask scheduler of {self.address[len('file:'):]}"
        elif "://" in self.address or ":" in self.address:
            self.description = f"the Dask scheduler at {self.address}"
        else:
            raise ExecutorError(f"--cluster {address!r} is not an address; use tcp://host:8786 (a running "
                                "`dask scheduler`), local:N (start N local workers) or file:PATH (a scheduler file)")
        self._client = None
        self._cluster = None
        self._outstanding: set = set()

    def _ensure(self):
        if self._client is not None:
            return self._client
        with _interrupts_held():
            return self._start()

    def _start(self):
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:  # found, but broken (a dependency of it missing)
            raise ExecutorError(f"{MISSING_DASK} ({exc})") from None
        try:
            if self._local_workers is not None:
                from ._dask_plugins import IgnoreStopSignals

                # One thread per worker: the engine runs a simulation on one core and releases the GIL,
                # so a process per core is the whole machine.
                # Workers' warnings (a run cancelled by Ctrl-C, say) would only clutter the terminal.
                # The plugin is given to each worker as it starts (Worker's `plugins`), not registered once
                # the cluster is up, so that no worker that has joined is without it.
                self._cluster = LocalCluster(n_workers=self._local_workers, threads_per_worker=1, processes=True,
                                             dashboard_address=None, silence_logs=logging.ERROR,
                                             plugins=(IgnoreStopSignals(),))
                self._client = Client(self._cluster)
            elif self.address.startswith("file:"):
                self._client = Client(scheduler_file=self.address[len("file:"):], timeout="20s")
            else:
                _check_reachable(self.address)
                self._client = Client(self.address, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            self.close()
            raise ExecutorError(f"cannot reach the Dask scheduler of --cluster {self.address} ({exc}); "
                                "start one with `dask scheduler` and its workers with `dask worker ADDRESS`") from None
        return self._client

    def slots(self) -> int:
        if self._client is None:
            return self._local_workers or 1
        try:
            with _interrupts_held():
                return max(1, sum(self._client.nthreads().values()))
        except OSError:  # the connection to the scheduler is down (it reconnects): a small window meanwhile
            return 1

    def submit(self, task: dict):
        client = self._ensure()
        # The key names the run, so the scheduler's dashboard and logs say which run is which; pure=False
        # because the key already identifies the work.
        with _interrupts_held():
            future = client.submit(execute_run, task, key=f"cclab-{task['study']}-{task['run_key']}", pure=False)
            self._outstanding.add(future)  # before an interrupt is raised, so that close() cancels it
        return future

    def wait(self, handles: list, timeout: float) -> list:
        from distributed import wait

        try:
            # Where a sweep spends its time, so where Ctrl-C nearly always lands: held for at most `timeout`.
            with _interrupts_held():
                done, _ = wait(handles, timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        return list(done)

    def outcome(self, future) -> dict:
        from distributed import KilledWorker

        self._outstanding.discard(future)
        try:
            with _interrupts_held():
                return future.result()
        except KilledWorker as exc:
            return {"status": "failed", "error_type": "KilledWorker",
                    "error": f"Dask workers kept dying while running it ({exc})"}
        except concurrent.futures.CancelledError:
            return {"status": "lost", "error_type": "Cancelled", "error": "the scheduler dropped it"}
        except Exception as exc:  # e.g. cclab not installed on a worker: recorded per run
            return {"status": "failed", "error_type": type(exc).__name__, "error": str(exc) or repr(exc)}
        finally:
            future.release()

    def close(self, cancel: bool = False) -> None:
        # Held too: a sweep that finishes as SIGTERM arrives closes its cluster whole, then stops.
        with _interrupts_held():
            self._close(cancel)

    def _close(self, cancel: bool) -> None:
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None
        outstanding, self._outstanding = list(self._outstanding), set()
        levels = {}
        if client is not None:
            if cancel and outstanding:
                try:
                    client.cancel(outstanding)
                except Exception:  # closing anyway; the scheduler forgets runs nobody holds
                    pass
            if cluster is not None:
                # Our own cluster only: a scheduler given by --cluster keeps its workers' logging.
                from ._dask_plugins import quiet_for_shutdown

                try:
                    client.run(quiet_for_shutdown)
                except Exception:  # a worker already gone: closing anyway
                    pass
                levels = quiet_for_shutdown()
            client.close()
        if cluster is not None:
            try:
                cluster.close()
            finally:
                if levels:
                    from ._dask_plugins import restore_levels

                    restore_levels(levels)
