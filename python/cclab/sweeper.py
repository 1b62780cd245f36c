"""Run a planned sweep through an executor into the result store, computing only what is missing.

The parent process is the only writer of the store: it hands runs to the executor, a few at a time, and
writes each result (atomically, see cclab.store) as soon as it comes back. So an interrupted sweep keeps
every finished run, and the same command run again picks up where it stopped (sem's
`get_missing_simulations`, with the store itself as the record of what is done).

A run that fails is recorded in the store's failures and the sweep carries on; a later
`retry_failed=True` runs only those. A run whose worker died is tried again, on a fresh worker, up to
MAX_ATTEMPTS times before it is recorded as failed: a worker can die for reasons that have nothing to do
with the run (killed, its machine lost), while a run that kills every worker it meets should not stop
the sweep either.
"""

from __future__ import annotations

import json
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Callable, Iterable

from .executors import Executor
from .store import StoreLocked, StudyStore
from .sweep import PlannedRun, Sweep

MAX_ATTEMPTS = 3          # lost runs are tried this many times in all
WAIT_S = 0.25             # how often the loop wakes without a result: progress refresh, Ctrl-C latency
WINDOW_PER_SLOT = 2       # runs handed out per slot: enough to keep every worker busy, few to cancel


@dataclass(frozen=True)
class SweepProgress:
    total: int            # runs this invocation computes
    done: int             # of those, stored
    failed: int           # of those, recorded as failed
    running: int          # handed to the executor and not back yet (at most its slots)


@dataclass
class SweepReport:
    planned: int                        # runs in the sweep
    already_stored: int                 # found in the store before starting
    already_failed: int                 # with a failure record before starting (not run unless retried)
    to_run: int                         # runs this invocation set out to compute
    done: int = 0
    failed: int = 0
    retried: int = 0                    # hand-outs again after a worker died under the run
    wall_s: float = 0.0
    compute_s: list[float] = field(default_factory=list)   # per stored run: wall time in its worker
    cpu_s: list[float] = field(default_factory=list)       # per stored run: CPU time in its worker
    failures: list[dict] = field(default_factory=list)     # the failure records written this time

    @property
    def stored(self) -> int:
        """Runs of the sweep now in the store."""
        return self.already_stored + self.done


def run_status(sweep: Sweep, store: StudyStore) -> dict[str, str]:
    """Run key -> 'stored', 'failed' or 'missing', for every run of the sweep."""
    stored, failed = store.stored_keys(), store.failed_keys()
    return {run.key: "stored" if run.key in stored else "failed" if run.key in failed else "missing"
            for run in sweep.runs}


def _task(sweep: Sweep, run: PlannedRun) -> dict:
    return {"config_json": json.dumps(run.config, sort_keys=True), "study": sweep.study, "run_key": run.key}


def _identity(sweep: Sweep, store: StudyStore, run: PlannedRun) -> dict:
    # Only what defines the run: nothing of the executor, the host or the clock, so every executor
    # stores the same bytes.
    return {"study": sweep.study, "cclab_version": store.version, "run_key": run.key,
            "scenario_hash": run.scenario_hash, "seed": run.seed, "replication": run.replication,
            "params": run.params_json, "source": "simulation"}


def _failure_record(sweep: Sweep, store: StudyStore, run: PlannedRun, outcome: dict, attempts: int) -> dict:
    record = {**_identity(sweep, store, run), "params": run.params, "error_type": outcome.get("error_type"),
              "error": outcome.get("error"), "attempts": attempts, "config": run.config}
    if outcome.get("traceback"):
        record["traceback"] = outcome["traceback"]
    return record


def run_sweep(sweep: Sweep, store: StudyStore, executor: Executor, retry_failed: bool = False,
              progress: Callable[[SweepProgress], None] | None = None) -> SweepReport:
    """Compute the runs of `sweep` missing from `store` (or, with retry_failed, those that failed before).

    Returns a report of what was done. KeyboardInterrupt (Ctrl-C; SIGTERM as its subclass
    cclab.cli.Terminated) stops the executor at once and is raised again; every run finished until then is
    already stored. While another process writes the
    study, a sweep whose runs are all stored reads them without the lock; one that would compute raises
    StoreLocked, naming the other process.
    """
    started = time.perf_counter()
    try:
        with store.lock():
            store.remove_temporary_files()
            report, todo = _plan_report(sweep, store, retry_failed)
            if todo:
                try:
                    _drive(sweep, store, executor, todo, report, progress)
                except BaseException:
                    executor.close(cancel=True)
                    raise
            executor.close()
    except StoreLocked as locked:
        # Another process is writing the study. A sweep with nothing to compute only reads, which the
        # store's atomic writes make safe (a summary file, written last, means a whole run): it goes on
        # without the lock instead of refusing (`cclab response` while a reproduction runs).
        report, todo = _plan_report(sweep, store, retry_failed)
        executor.close()
        if todo:
            raise StoreLocked(f"{len(todo)} of the {report.planned} runs asked for are not in the store, and "
                              f"{locked}", locked.study, locked.holder) from None
    report.wall_s = time.perf_counter() - started
    return report


def _plan_report(sweep: Sweep, store: StudyStore, retry_failed: bool) -> tuple[SweepReport, list[PlannedRun]]:
    """The sweep's report before anything runs, and the runs to compute: the missing ones, or with
    retry_failed those recorded as failed."""
    status = run_status(sweep, store)
    wanted = "failed" if retry_failed else "missing"
    todo = [run for run in sweep.runs if status[run.key] == wanted]
    counts = Counter(status.values())
    return SweepReport(planned=len(sweep.runs), already_stored=counts["stored"], already_failed=counts["failed"],
                       to_run=len(todo)), todo


def _drive(sweep: Sweep, store: StudyStore, executor: Executor, todo: Iterable[PlannedRun],
           report: SweepReport, progress: Callable[[SweepProgress], None] | None) -> None:
    queue = deque(todo)
    in_flight: dict = {}            # executor handle -> run
    attempts: Counter = Counter()   # run key -> times handed out

    def tell() -> None:
        if progress:
            progress(SweepProgress(total=report.to_run, done=report.done, failed=report.failed,
                                   running=min(len(in_flight), executor.slots())))

    tell()
    while queue or in_flight:
        window = max(2, WINDOW_PER_SLOT * executor.slots())
        while queue and len(in_flight) < window:
            run = queue.popleft()
            attempts[run.key] += 1
            in_flight[executor.submit(_task(sweep, run))] = run
        finished = executor.wait(list(in_flight), timeout=WAIT_S)
        for handle in finished:
            run = in_flight.pop(handle)
            outcome = executor.outcome(handle)
            if outcome["status"] == "ok":
                store.write_run(_identity(sweep, store, run), sweep.param_columns(run), run.config,
                                outcome["summary"], outcome["timeseries"], outcome["queue"],
                                outcome.get("loss_events"), outcome.get("connections"),
                                outcome.get("rtt_histogram"))
                report.done += 1
                report.compute_s.append(float(outcome.get("compute_s", 0.0)))
                report.cpu_s.append(float(outcome.get("cpu_s", 0.0)))
            elif outcome["status"] == "lost" and attempts[run.key] < MAX_ATTEMPTS:
                queue.appendleft(run)  # first in line: it has waited longest
                report.retried += 1
            else:
                record = _failure_record(sweep, store, run, outcome, attempts[run.key])
                store.write_failure(record)
                report.failed += 1
                report.failures.append(record)
        tell()
