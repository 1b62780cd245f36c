"""Live runs into the result store (cclab.store), beside simulations, so `cclab results query` and
`cclab.results.load` read both as one table.

A live run is filed like a sweep's run: study / cclab-<version> / summary|timeseries|queue / <key>.parquet,
under the same version as this build's simulations, so the default queries see both. Its rows carry
`source = 'live'` (a simulation's carry 'simulation'), the host, kernel, destination and UTC start time,
the run's parameters as live.* columns, and the same per-flow figures as a simulation (goodput_bps,
delivered_bps, loss_events, timeouts, retransmissions, packets_sent, mean_rtt_s, final_cwnd) with seed 002's
RTT and queueing-time distributions and retransmission percentage beside them. A live run is never the
same twice, so its key is unique (`live-<UTC time>-<run id>`) and nothing is ever skipped as stored. The
queue series is empty: the sender cannot see the path's queue (the testbed's bottleneck counters are in
the bottleneck_* columns).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow as pa

from ..store import StudyStore, parquet_bytes, resolve_root, results_version, series_table
from .runs import LiveRun, spec_params

EMPTY_QUEUE = {"time_s": [], "queue_packets": [], "queue_bytes": [], "drops": []}


def run_key(run: LiveRun) -> str:
    stamp = run.started_at.replace("-", "").replace(":", "").replace("+0000", "Z").replace("+00:00", "Z")
    return f"live-{stamp}-{run.run_id}"


def store_live_run(run: LiveRun, study: str, store: str | Path | None = None, extra: dict | None = None) -> Path:
    """Write `run` into `study` of the store; returns its summary file. `extra` is more run-wide context
    (the testbed's configuration, say), kept in the stored config."""
    study_store = StudyStore(resolve_root(store), study, results_version())
    params = spec_params(run.spec)
    params["live.destination"] = run.destination
    description = {"live": {**params, **(extra or {})}}
    key = run_key(run)
    identity = {"study": study, "cclab_version": study_store.version, "run_key": key,
                "scenario_hash": hashlib.blake2b(json.dumps(description, sort_keys=True, default=str).encode(),
                                                 digest_size=16).hexdigest(),
                "seed": 0, "replication": run.replication, "params": json.dumps(params, sort_keys=True),
                "source": "live"}
    small = {"study": study, "run_key": key}
    series = parquet_bytes(series_table(small, run.series))
    queue = parquet_bytes(pa.table({"study": pa.array([], pa.string()), "run_key": pa.array([], pa.string()),
                                    **{name: pa.array([], pa.float64()) for name in EMPTY_QUEUE}}))
    with study_store.lock():
        study_store.write_run(identity, params, description, run.summary(), series, queue)
    return study_store.path("summary", key)
