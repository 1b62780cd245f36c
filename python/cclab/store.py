"""The result store: every run of every sweep, as Parquet files that DuckDB reads as one table.

Layout, under the store root (`--store`, else $CCLAB_STORE, else a folder in the user's data directory)::

    <study>/cclab-<version>/summary/<key>.parquet      one row per flow: swept parameters, seed, figures
    <study>/cclab-<version>/timeseries/<key>.parquet   the run's per-flow time series
    <study>/cclab-<version>/queue/<key>.parquet        the run's bottleneck queue series
    <study>/cclab-<version>/loss_events/<key>.parquet  the start of every loss event of each flow (flow, time_ns)
    <study>/cclab-<version>/rtt_histogram/<key>.parquet  every RTT measurement of each flow, as a histogram
                                                       (flow, low_ns, high_ns, count; runs with run.rtt_histogram)
    <study>/cclab-<version>/connections/<key>.parquet  one row per connection of the [[traffic]] sources with
                                                       records = true (only runs that have such connections)
    <study>/cclab-<version>/failures/<key>.json        why a run failed (removed once it succeeds)
    <study>/cclab-<version>/.lock                      held by the sweep writing this study, whose command,
                                                       pid and start time it holds (JSON), for the
                                                       message another writer gets

A run's key is `<scenario hash>-<seed>` (see `cclab.sweep.scenario_hash`), and the cclab version is part of
the path, so a new version never mixes its results with an old one's. A run counts as stored once its
summary file exists; the summary is written last.

Every file is written atomically: to a hidden temporary file in the same folder, fsync'ed, then renamed
over the final name with os.replace (and the folder fsync'ed), so a reader or a crash only ever sees a
whole file or none. Temporary files left by a killed sweep (`.<name>.<pid>.tmp`) never match the
`*.parquet` globs, and the next sweep of the study removes them while it holds the lock.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import CclabError

STORE_ENV = "CCLAB_STORE"
SUMMARY, TIMESERIES, QUEUE, FAILURES = "summary", "timeseries", "queue", "failures"
LOSS_EVENTS = "loss_events"
RTT_HISTOGRAM = "rtt_histogram"
CONNECTIONS = "connections"
TEMP_SUFFIX = ".tmp"
# Parquet key-value metadata: what was run, so a summary file is reproducible on its own.
CONFIG_METADATA_KEY = b"cclab.config"
PARAMS_METADATA_KEY = b"cclab.params"


class StoreError(CclabError):
    """The store cannot be used: unreadable, or another sweep is writing the same study."""


class StoreLocked(StoreError):
    """Another process holds a study's write lock. `holder` names it as that process wrote it into the
    lock file ("`cclab reproduce seed003 --only table2-3` (pid 4242, since 2026-11-24 13:02:11 UTC)"), or
    is "" when the file does not say (a cclab from before holders wrote their names, or a holder between
    taking the lock and writing its name)."""

    def __init__(self, message: str, study: str, holder: str):
        super().__init__(message)
        self.study = study
        self.holder = holder


def default_store_root() -> Path:
    """$CCLAB_STORE, else <user data dir>/cclab/store (platformdirs: ~/.local/share/cclab/store on Linux)."""
    env = os.environ.get(STORE_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return platformdirs.user_data_path("cclab", appauthor=False) / "store"


def resolve_root(store: str | Path | None) -> Path:
    return Path(store).expanduser() if store is not None else default_store_root()


def results_version() -> str:
    """The version results are filed under: cclab's and the engine source fingerprint, so a run computed by
    one engine build is never reused by another (sweeps and reproductions both recompute after a change)."""
    from . import __version__
    from .engine import engine_source_hash

    return f"{__version__}+engine.{engine_source_hash()[:12]}"


def version_folder(version: str) -> str:
    """'0.1.0' -> 'cclab-0.1.0'; anything unsafe in a folder name (a '/' in a local version) becomes '_'."""
    return "cclab-" + re.sub(r"[^A-Za-z0-9._+-]", "_", version)


# --- atomic files ------------------------------------------------------------------------------------

def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that `path` is always either absent, the old file, or all of `data`."""
    directory = path.parent
    directory.mkdir(parents=True, exist_ok=True)
    temp = directory / f".{path.name}.{os.getpid()}{TEMP_SUFFIX}"
    try:
        descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view):]
            os.fsync(descriptor)  # the bytes are on disk before the name points at them
        finally:
            os.close(descriptor)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_directory(directory)  # and the rename itself survives a power cut


def _fsync_directory(directory: Path) -> None:
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:  # not possible on every platform (Windows); the rename is still atomic
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def parquet_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


# --- tables ------------------------------------------------------------------------------------------

def summary_table(identity: Mapping[str, Any], params: Mapping[str, Any], summary: Mapping[str, Any],
                  config: Mapping[str, Any]) -> pa.Table:
    """One row per flow (and per group of flows, if any): the run's identity, its swept parameters, the
    flow's figures (a finite transfer's start_s, end_s, bytes, completion_time_s), the bottleneck's figures
    (prefixed bottleneck_) and the run-wide figures (jain_index, events, ...)."""
    flows = list(summary.get("flows") or [])
    groups = list(summary.get("groups") or [])
    if groups:
        # Groups of flows (traffic sources' connections, named [[flows]]) get a row each after the flows'
        # rows; `kind` tells them apart ("flow" or "group"), and is absent from runs without groups.
        flows = [{"kind": "flow", **flow} for flow in flows] + [{"kind": "group", **group} for group in groups]
    if not flows:
        raise ValueError("the engine summary has no flows")
    run_wide = {key: value for key, value in summary.items()
                if key not in ("flows", "bottleneck", "groups") and not isinstance(value, (dict, list))}
    bottleneck = {f"bottleneck_{key}": value for key, value in (summary.get("bottleneck") or {}).items()}
    shared = {**identity, **params}
    columns: dict[str, list] = {name: [value] * len(flows) for name, value in shared.items()}
    flow_keys = list(dict.fromkeys(key for flow in flows for key in flow))
    for key in flow_keys:
        columns[key] = [flow.get(key) for flow in flows]
    for name, value in {**bottleneck, **run_wide}.items():
        columns.setdefault(name, [value] * len(flows))
    arrays = {name: _array(values) for name, values in columns.items()}
    table = pa.table(arrays)
    metadata = {CONFIG_METADATA_KEY: json.dumps(config, sort_keys=True).encode(),
                PARAMS_METADATA_KEY: json.dumps(dict(params), sort_keys=True, default=str).encode()}
    return table.replace_schema_metadata(metadata)


def _array(values: list) -> pa.Array:
    """A column with a stable type: integers stay int64, numbers with a fraction or a missing value are
    float64 (a missing figure is NaN, as the engine means it), text is string."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pa.array(values, pa.bool_())
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present) and len(present) == len(values):
        return pa.array(values, pa.int64())
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pa.array([math.nan if v is None else float(v) for v in values], pa.float64())
    return pa.array(values)


def series_table(identity: Mapping[str, Any], columns: Mapping[str, Any]) -> pa.Table:
    """A columnar engine series with the run's study and key in front, so series of many runs can be read
    as one table and joined to `runs` on run_key. The engine's columns are numpy arrays (integers int64,
    numbers float64 with NaN where the engine has none), which Arrow takes without a per-sample step;
    the identity columns are repeated in C too (a series can have millions of samples)."""
    length = len(next(iter(columns.values()))) if columns else 0
    arrays = {name: pa.repeat(pa.scalar(value, pa.string()), length) for name, value in identity.items()}
    for name, values in columns.items():
        arrays[name] = pa.array(values) if len(values) else pa.array([], pa.float64())
    return pa.table(arrays)


# --- one study of one cclab version ------------------------------------------------------------------

@dataclass(frozen=True)
class StudyStore:
    """The part of the store holding one study's runs for one cclab version."""

    root: Path
    study: str
    version: str

    @property
    def folder(self) -> Path:
        return self.root / self.study / version_folder(self.version)

    def path(self, kind: str, key: str) -> Path:
        suffix = ".json" if kind == FAILURES else ".parquet"
        return self.folder / kind / f"{key}{suffix}"

    def _names(self, kind: str, suffix: str) -> set[str]:
        try:
            entries = os.listdir(self.folder / kind)
        except FileNotFoundError:
            return set()
        except OSError as exc:
            raise StoreError(f"the store folder {self.folder / kind} cannot be read ({exc.strerror or exc})") from None
        return {name[: -len(suffix)] for name in entries if name.endswith(suffix) and not name.startswith(".")}

    def stored_keys(self) -> set[str]:
        """Keys of the runs whose results are complete (their summary file exists)."""
        return self._names(SUMMARY, ".parquet")

    def failed_keys(self) -> set[str]:
        """Keys with a failure record and no results."""
        return self._names(FAILURES, ".json") - self.stored_keys()

    def failure(self, key: str) -> dict:
        return json.loads(self.path(FAILURES, key).read_text(encoding="utf-8"))

    def write_run(self, identity: Mapping[str, Any], params: Mapping[str, Any], config: Mapping[str, Any],
                  summary: Mapping[str, Any], timeseries_parquet: bytes, queue_parquet: bytes,
                  loss_events_parquet: bytes | None = None, connections_parquet: bytes | None = None,
                  rtt_histogram_parquet: bytes | None = None) -> None:
        """Store a finished run: series first and the summary last, so a summary means a complete run.

        The series arrive as Parquet bytes made by the worker (`series_table`), so the one process that
        writes the store never converts millions of samples itself."""
        key = identity["run_key"]
        write_atomic(self.path(TIMESERIES, key), timeseries_parquet)
        write_atomic(self.path(QUEUE, key), queue_parquet)
        if loss_events_parquet is not None:
            write_atomic(self.path(LOSS_EVENTS, key), loss_events_parquet)
        if connections_parquet is not None:
            write_atomic(self.path(CONNECTIONS, key), connections_parquet)
        if rtt_histogram_parquet is not None:
            write_atomic(self.path(RTT_HISTOGRAM, key), rtt_histogram_parquet)
        write_atomic(self.path(SUMMARY, key), parquet_bytes(summary_table(identity, params, summary, config)))
        self.path(FAILURES, key).unlink(missing_ok=True)

    def write_failure(self, record: Mapping[str, Any]) -> None:
        text = json.dumps(dict(record), indent=2, sort_keys=True, default=str) + "\n"
        write_atomic(self.path(FAILURES, record["run_key"]), text.encode("utf-8"))

    def remove_temporary_files(self) -> int:
        """Remove what a killed writer left half-written; call only while holding the lock."""
        removed = 0
        for kind in (SUMMARY, TIMESERIES, QUEUE, LOSS_EVENTS, CONNECTIONS, RTT_HISTOGRAM, FAILURES):
            folder = self.folder / kind
            if not folder.is_dir():
                continue
            for entry in folder.iterdir():
                if entry.name.startswith(".") and entry.name.endswith(TEMP_SUFFIX):
                    entry.unlink(missing_ok=True)
                    removed += 1
        return removed

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Only one sweep writes a study at a time; the kernel drops the lock if its holder is killed."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"the store folder {self.folder} cannot be created ({exc.strerror or exc}); "
                             f"use --store DIR or set {STORE_ENV}") from None
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no advisory locks, one sweep at a time by hand
            yield
            return
        descriptor = os.open(self.folder / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder_text(descriptor)
                raise StoreLocked(f"{holder or 'another cclab sweep'} is writing study {self.study!r} in "
                                  f"{self.root}; wait for it to finish or use another --store",
                                  self.study, holder) from None
            # Who holds it, for the message of the next writer that finds it taken (read only then).
            os.ftruncate(descriptor, 0)
            os.pwrite(descriptor, json.dumps(_holder_record()).encode(), 0)
            yield
        finally:
            os.close(descriptor)  # closing releases the lock


def _holder_record() -> dict:
    """What a lock holder writes into the lock file: its command line, pid and start time."""
    command = " ".join([Path(sys.argv[0]).name] + sys.argv[1:]) if sys.argv and sys.argv[0] else "python"
    return {"command": command, "pid": os.getpid(),
            "since": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}


def _holder_text(descriptor: int) -> str:
    """The holder of a taken lock as a person reads it, from the lock file ("" if it does not say)."""
    try:
        record = json.loads(os.pread(descriptor, 4096, 0).decode() or "{}")
        return f"`{record['command']}` (pid {int(record['pid'])}, since {record['since']})"
    except (OSError, ValueError, KeyError, TypeError):
        return ""
