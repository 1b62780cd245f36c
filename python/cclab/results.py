"""Stored sweep results as one table: DuckDB views over the store's Parquet files, and DataFrames.

    import cclab.results
    runs = cclab.results.load("sweep-table1-newreno-cubic")      # DataFrame, one row per flow of each run
    cclab.results.query("SELECT cc, avg(goodput_bps) FROM runs GROUP BY cc")

The views, each over every matching file (read_parquet with a glob and union_by_name, so studies that
swept different fields still read as one table, the missing columns as NULL):

    runs        one row per flow of each run: study, cclab_version, run_key, scenario_hash, seed,
                replication, params (JSON of the swept values), one column per swept field (named by
                its dotted key: quote it in SQL, "flows.0.cc"), then the flow's figures (flow, cc,
                goodput_bps, ...), the bottleneck's (bottleneck_utilization, ...) and the run's
                (jain_index, events, duration_s, measure_from_s)
    timeseries  study, run_key, time_s, flow, cwnd, ... (join to runs on run_key)
    queue       study, run_key, time_s, queue_packets, queue_bytes, drops
    loss_events study, run_key, flow, time_ns: the start of every loss event of each flow
    rtt_histogram study, run_key, flow, low_ns, high_ns, count: every RTT measurement of each flow over the
                measurement window, one row per histogram bucket (runs with run.rtt_histogram = true;
                cclab.analysis.rtt_histogram reads it)
    connections study, run_key, group, start_s, end_s, size_bytes, bytes, completion_time_s,
                retransmissions, timeouts: one row per connection of the [[traffic]] sources with
                records = true (completed, then alive: end_s and completion_time_s NaN)
    failures    study, run_key, seed, replication, params, error_type, error, attempts

By default only the results of this cclab version and engine build are seen (another may compute
different numbers); all_versions=True reads every version, told apart by cclab_version.
"""

from __future__ import annotations

import glob
import json
from pathlib import Path

import pandas as pd

from .errors import CclabError
from .store import (CONNECTIONS, FAILURES, LOSS_EVENTS, QUEUE, RTT_HISTOGRAM, SUMMARY, TIMESERIES, resolve_root,
                    results_version, version_folder)
from .sweep import STUDY_NAME

FAILURE_COLUMNS = ["study", "cclab_version", "run_key", "scenario_hash", "seed", "replication", "params",
                   "error_type", "error", "attempts"]


# View -> the store's kind of file behind it (cclab.store); `failures` is read from JSON records.
PARQUET_VIEWS = {"runs": SUMMARY, "timeseries": TIMESERIES, "queue": QUEUE, "loss_events": LOSS_EVENTS,
                 "connections": CONNECTIONS, "rtt_histogram": RTT_HISTOGRAM}


class ResultsError(CclabError):
    """Nothing to query, or a query DuckDB refuses."""


def _pattern(root: Path, study: str | None, kind: str, all_versions: bool) -> str:
    if study is not None and not STUDY_NAME.match(study):
        raise ResultsError(f"{study!r} is not a study name; use the name `cclab sweep` printed "
                           "(letters, digits, '.', '_' and '-')")
    version = "cclab-*" if all_versions else version_folder(results_version())
    suffix = "*.json" if kind == FAILURES else "*.parquet"
    return str(root / (study or "*") / version / kind / suffix)


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def studies(store: str | Path | None = None, all_versions: bool = False) -> list[str]:
    """Names of the studies with stored runs."""
    root = resolve_root(store)
    found = {Path(path).parents[2].name for path in glob.glob(_pattern(root, None, SUMMARY, all_versions))}
    return sorted(found)


def connect(store: str | Path | None = None, study: str | None = None, all_versions: bool = False):
    """An in-memory DuckDB connection with the views runs, timeseries, queue, loss_events, connections,
    rtt_histogram and failures (a view with no file behind it in the store is absent).

    `study` limits every view to one study; `store` defaults to $CCLAB_STORE, else the user data folder.
    """
    import duckdb

    root = resolve_root(store)
    connection = duckdb.connect()
    for view, kind in PARQUET_VIEWS.items():
        pattern = _pattern(root, study, kind, all_versions)
        if not glob.glob(pattern):
            if view == "runs":
                connection.close()
                which = f"study {study!r}" if study else "any study"
                version = "" if all_versions else f" by cclab {results_version()}"
                raise ResultsError(f"no runs of {which} stored{version} in {root}; run `cclab sweep FILE"
                                   f" --store {root}` first" + ("" if all_versions else ", or pass --all-versions"))
            continue
        connection.execute(f"CREATE VIEW {view} AS SELECT * FROM "
                           f"read_parquet({_sql_text(pattern)}, union_by_name = true)")
    connection.register("failures", _failures_frame(_pattern(root, study, FAILURES, all_versions)))
    return connection


def _failures_frame(pattern: str) -> pd.DataFrame:
    records = []
    for path in sorted(glob.glob(pattern)):
        record = json.loads(Path(path).read_text(encoding="utf-8"))
        record["params"] = json.dumps(record.get("params"), sort_keys=True)
        records.append({column: record.get(column) for column in FAILURE_COLUMNS})
    return pd.DataFrame(records, columns=FAILURE_COLUMNS)


def query(sql: str, store: str | Path | None = None, study: str | None = None,
          all_versions: bool = False) -> pd.DataFrame:
    """Run `sql` over the views of `connect` and return the answer as a DataFrame."""
    import duckdb

    connection = connect(store, study, all_versions)
    try:
        return connection.execute(sql).df()
    except duckdb.CatalogException as exc:
        # A view of ours without files behind it is absent, and DuckDB then suggests a table of its own
        # catalogue ("Did you mean pg_collation?"): say which tables there are, and why one is not.
        missing = next((view for view in WHY_ABSENT if f"Table with name {view} does not exist" in str(exc)), None)
        if missing is None:
            raise ResultsError("the query failed: " + _lines(exc)) from None
        present = [row[0] for row in connection.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal "
                                                        "ORDER BY view_name").fetchall()]
        raise ResultsError(f"no stored run kept {missing} ({WHY_ABSENT[missing]}); the tables here are "
                           + ", ".join(sorted({*present, "failures"}))) from None
    except duckdb.Error as exc:
        raise ResultsError("the query failed: " + _lines(exc)) from None
    finally:
        connection.close()


# The views a run stores files for only when asked, and how to ask (every run stores the others).
WHY_ABSENT = {
    "loss_events": "runs keep them with run.record_loss_events = true",
    "connections": "runs keep them with records = true on a [[traffic]] source",
    "rtt_histogram": "runs keep it with run.rtt_histogram = true",
}


def _lines(exc: Exception) -> str:
    # DuckDB's message spans lines (the query, a caret under the fault); the CLI prints each as an error
    # line, so blank ones are dropped.
    return "\n".join(line for line in str(exc).splitlines() if line.strip())


def load(study: str | None = None, store: str | Path | None = None, all_versions: bool = False) -> pd.DataFrame:
    """Every stored run of `study` (or of all studies) as a DataFrame: the `runs` table, one row per flow,
    in a stable order (study, parameters, replication, flow)."""
    return query("SELECT * FROM runs ORDER BY study, params, replication, flow", store, study, all_versions)
