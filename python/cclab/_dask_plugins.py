"""Dask worker plugins for the clusters `cclab sweep --cluster local:N` starts itself.

A module of its own because it imports distributed, which the rest of cclab imports only when a sweep
goes to Dask; workers unpickle the plugin by reference to this module.
"""

from __future__ import annotations

import logging
import signal
import threading

from distributed.diagnostics.plugin import WorkerPlugin


class IgnoreStopSignals(WorkerPlugin):
    """Ctrl-C in a terminal signals the whole foreground process group, and a service manager's stop sends
    SIGTERM to the whole group too, the local cluster's worker processes included. The `cclab sweep` process
    alone handles them: it cancels the runs and closes the cluster, whose nannies stop their workers with a
    message and then SIGKILL, never SIGINT or SIGTERM. Without this, every worker printed a KeyboardInterrupt
    traceback on its way out, and one killed by SIGTERM died under a finished run that the scheduler was
    handing over ("Couldn't gather keys" logged as an error) and was started again by its nanny, while the
    cluster closed. A worker still goes when the sweep is killed outright: distributed ends a worker process
    whose parent has gone (distributed.process.AsyncProcess)."""

    name = "cclab-ignore-stop-signals"

    def setup(self, worker) -> None:
        # The worker's event loop runs in the main thread of its process, where signals are set.
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)


def quiet_for_shutdown() -> dict[str, int]:
    """Raise every distributed logger of this process to CRITICAL, and return their levels before: run on the
    local cluster's workers, and in the sweep's own process (scheduler and nannies; restored with
    `restore_levels` once the cluster is closed), just before the sweep closes the cluster it started.
    Closing races the workers' heartbeats, and a heartbeat that meets the scheduler's closed connection is
    logged as an error with its traceback ("Failed to communicate with scheduler during heartbeat"), which
    a stopped sweep then printed after its own message; what the sweep says of its runs comes from cclab
    (their outcomes), not from these logs."""
    levels = {}
    for name in ["distributed", *logging.root.manager.loggerDict]:
        if (name == "distributed" or name.startswith("distributed.")) and name not in levels:
            levels[name] = logging.getLogger(name).level
            logging.getLogger(name).setLevel(logging.CRITICAL)
    return levels


def restore_levels(levels: dict[str, int]) -> None:
    """Put back the logger levels `quiet_for_shutdown` changed, so that a later sweep in the same process
    (the Python API, a notebook) logs as before."""
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)
