"""Dask worker plugins for the clusters `cclab sweep --cluster local:N` starts itself.

A module of its own because it imports distributed, which the rest of cclab imports only when a sweep
goes to Dask; workers unpickle the plugin by reference to this module.
"""

from __future__ import annotations

import signal
import threading

from distributed.diagnostics.plugin import WorkerPlugin


class IgnoreInterrupt(WorkerPlugin):
    """Ctrl-C in a terminal signals the whole foreground process group, the local cluster's worker
    processes included. The `cclab sweep` process alone handles it (it closes the cluster); without
    this, every worker would also print a KeyboardInterrupt traceback on its way out."""

    name = "cclab-ignore-interrupt"

    def setup(self, worker) -> None:
        # The worker's event loop runs in the main thread of its process, where signals are set.
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
