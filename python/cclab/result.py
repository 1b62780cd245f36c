"""What a run returns: the engine's summary and time series as dicts and pandas DataFrames.

The DataFrames are built on first use, and pandas is imported then: `cclab run` prints its tables from
the summary alone, and should not pay pandas' import (a quarter of a second) for frames it never shows.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd


class Figures(dict):
    """A summary's figures by key. Keys are the engine's JSON keys, in its (American) spelling throughout:
    `utilization`, as in the summary, `--json` and the stored column `bottleneck_utilization`. The British
    spelling the prose uses is the likeliest wrong key, so it gets a KeyError that names the right one."""

    SPELLINGS = {"utilisation": "utilization"}

    def __missing__(self, key):
        right = self.SPELLINGS.get(key)
        if right is not None and right in self:
            raise KeyError(f"{key!r}: the key is spelled {right!r}, as in the engine's summary and the stored "
                           f"columns")
        raise KeyError(f"{key!r}: not a figure of the summary; it has {', '.join(sorted(self))}")


@dataclass(frozen=True)
class Result:
    config: dict                # the engine config that was run (docs/engine-interface.md)
    summary: dict               # the engine summary, as returned
    bottleneck: dict            # utilization, drops, mean_queue_packets, ...
    # The engine's columnar series as it hands them over: {"flows": {column: numpy array}, "queue": {...}},
    # and the queue samples of every link with a queue, {column: array or list} (sim.link_series()).
    series: Mapping[str, Mapping[str, "np.ndarray"]]
    link_columns: Mapping[str, Any] = field(default_factory=dict)
    # One entry per connection of the [[traffic]] sources with records = true, {column: array}.
    connection_columns: Mapping[str, Any] = field(default_factory=dict)
    # Start time of every loss event of the scenario's flows, {"flow": array, "time_ns": array}
    # (sim.loss_events()); empty unless the run had run.record_loss_events.
    loss_event_columns: Mapping[str, Any] = field(default_factory=dict)
    # Every RTT measurement of the scenario's flows over the measurement window, one row per histogram
    # bucket, {"flow", "low_ns", "high_ns", "count"} (sim.rtt_histogram()); empty unless run.rtt_histogram.
    rtt_histogram_columns: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_engine(cls, config: dict, summary: dict, series: dict, link_series: dict | None = None,
                    connection_records: dict | None = None, loss_events: dict | None = None,
                    rtt_histogram: dict | None = None) -> "Result":
        return cls(config=config, summary=summary, bottleneck=Figures(summary.get("bottleneck", {})), series=series,
                   link_columns=link_series or {}, connection_columns=connection_records or {},
                   loss_event_columns=loss_events or {}, rtt_histogram_columns=rtt_histogram or {})

    # cached_property stores into the instance __dict__ directly, which a frozen dataclass allows.
    @cached_property
    def flows(self) -> pd.DataFrame:
        """One row per flow: goodput_bps, loss_events, ...; a finite transfer (or a flow with a drawn start,
        a duration or a group) also has start_s, end_s, size_bytes, bytes and completion_time_s."""
        return _typed_frame(self.summary.get("flows", []), FLOW_COLUMNS)

    @cached_property
    def groups(self) -> pd.DataFrame:
        """One row per group of flows: flows created, completed and alive, bytes, share of capacity,
        completion-time mean and percentiles (empty when no flow has a group)."""
        return _typed_frame(self.summary.get("groups", []), GROUP_COLUMNS)

    @cached_property
    def connections(self) -> pd.DataFrame:
        """One row per connection of the traffic sources that keep records (`records = true`): group,
        start_s, end_s, size_bytes, bytes, completion_time_s, retransmissions, timeouts; completed ones
        first, then those alive at the end (end and completion NaN)."""
        # Without any source keeping records the engine is not asked, and there are no columns to hand.
        return _frame(self.connection_columns) if self.connection_columns else _typed_frame([], CONNECTION_COLUMNS)

    @cached_property
    def timeseries(self) -> pd.DataFrame:
        """One row per flow per sample: time_s, flow, cwnd, ... (integers int64, numbers float64)."""
        return _frame(self.series.get("flows") or {})

    @cached_property
    def queue(self) -> pd.DataFrame:
        """One row per sample: time_s, queue_packets, queue_bytes, drops."""
        return _frame(self.series.get("queue") or {})

    @cached_property
    def links(self) -> pd.DataFrame:
        """One row per link with a queue: name, utilization, drops, mean queue, ..."""
        import pandas as pd

        return pd.DataFrame(self.summary.get("links", []))

    @cached_property
    def link_series(self) -> pd.DataFrame:
        """One row per link with a queue per sample: time_s, link, queue_packets, ..."""
        return _frame(self.link_columns)

    @cached_property
    def loss_events(self) -> pd.DataFrame:
        """One row per loss event of the scenario's flows: flow, time_ns (entry into fast recovery, or a
        timeout outside recovery), ordered by flow then time; the whole run, not only the measurement window.
        Empty unless the scenario set run.record_loss_events = true."""
        return _frame(self.loss_event_columns)

    @cached_property
    def rtt_histogram(self) -> pd.DataFrame:
        """One row per histogram bucket with RTT measurements, per flow: flow, low_ns, high_ns, count (every
        measurement over the measurement window, one per ACK that gave one: ACK-weighted; see
        `cclab.analysis.rtt_histogram`). Empty unless the scenario set run.rtt_histogram = true."""
        return _frame(self.rtt_histogram_columns)

    def rtt_quantiles(self, probabilities: "tuple[float, ...]" = (0.1, 0.5, 0.9, 0.99)) -> pd.DataFrame:
        """Per flow, the quantiles of every RTT measurement (ms, within 0.8 %), its exact minimum and the
        number of measurements: columns flow, measurements, min_ms, then p10_ms, p50_ms, ... as asked."""
        import pandas as pd

        from .analysis.rtt_histogram import quantiles_ms

        rows = self._rtt_rows()
        for p in probabilities:
            # Outside (0, 1] the rank clips to the first or last measurement: a "p150" column holding the
            # maximum, which reads as a measured quantile.
            if not 0 < p <= 1:
                raise ValueError(f"rtt_quantiles: {p!r} is not a probability; use numbers in (0, 1], e.g. 0.5 "
                                 "for the median")
        out = []
        for flow in sorted(int(f) for f in self.flows["flow"]) if "flow" in self.flows else []:
            mine = rows[rows["flow"] == flow]
            values = quantiles_ms(mine["low_ns"], mine["high_ns"], mine["count"], probabilities)
            record = {"flow": flow, "measurements": int(mine["count"].sum()),
                      "min_ms": float(mine["low_ns"].iloc[0]) / 1e6 if len(mine) else float("nan")}
            record.update({f"p{100 * p:g}_ms": float(v) for p, v in zip(probabilities, values)})
            out.append(record)
        return pd.DataFrame(out)

    def rtt_cdf(self, flow: int) -> pd.DataFrame:
        """The CDF of one flow's RTT measurements: rtt_ms (each bucket's upper bound) and cdf, exact there."""
        import pandas as pd

        from .analysis.rtt_histogram import cdf

        rows = self._rtt_rows()
        known = sorted(int(f) for f in self.flows["flow"]) if "flow" in self.flows else []
        if flow not in known:
            # Not an empty frame: a flow number that does not exist is a mistake, not a flow without samples.
            raise ValueError(f"rtt_cdf: {flow!r} is not a flow of this run; use one of "
                             f"{', '.join(map(str, known)) or '(none)'}")
        mine = rows[rows["flow"] == flow]
        x, p = cdf(mine["low_ns"], mine["high_ns"], mine["count"])
        return pd.DataFrame({"rtt_ms": x, "cdf": p})

    def _rtt_rows(self) -> pd.DataFrame:
        if not self.config["run"].get("rtt_histogram"):
            raise ValueError("the run kept no RTT histogram: run it with run.rtt_histogram = true")
        return self.rtt_histogram

    def synchronisation(self, threshold: int, flows: "list[int] | None" = None, start_ns: int | None = None,
                        end_ns: int | None = None):
        """Seed 003's synchronisation ratio (Section III, `cclab.analysis.synchronisation`) of the given flows
        (default: every scenario flow) over [start_ns, end_ns) (default: the measurement window)."""
        from .analysis.synchronisation import SynchronisationError, loss_times_by_flow, synchronisation_ratio

        if not self.config["run"].get("record_loss_events"):
            raise SynchronisationError("the run kept no loss-event times: run it with run.record_loss_events = true")
        if flows is None:
            flows = sorted(int(f) for f in self.flows["flow"]) if "flow" in self.flows else []
        run = self.config["run"]
        start = run["measure_from_ns"] if start_ns is None else start_ns
        end = run["duration_ns"] if end_ns is None else end_ns
        return synchronisation_ratio(loss_times_by_flow(self.loss_event_columns, flows), threshold, start, end)

    @property
    def jain_index(self) -> float:
        # The engine writes an undefined index (no flow delivered anything) as JSON null.
        value = self.summary.get("jain_index")
        return math.nan if value is None else value

    def summary_json(self, indent: int | None = 2) -> str:
        """The summary as strict JSON: NaN/inf (e.g. no RTT sample) become null, which JSON can hold."""
        return json.dumps(_json_safe(self.summary), indent=indent, allow_nan=False)

    def to_parquet(self, directory: str | Path) -> Path:
        """Write summary.parquet (per flow), timeseries.parquet, queue.parquet, summary.json and
        config.json (what was run, so the directory is reproducible on its own) into `directory`."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        self.flows.to_parquet(out / "summary.parquet", index=False)
        self.timeseries.to_parquet(out / "timeseries.parquet", index=False)
        self.queue.to_parquet(out / "queue.parquet", index=False)
        self.links.to_parquet(out / "links.parquet", index=False)
        self.link_series.to_parquet(out / "link_series.parquet", index=False)
        if not self.groups.empty:
            self.groups.to_parquet(out / "groups.parquet", index=False)
        if self.connection_columns:
            self.connections.to_parquet(out / "connections.parquet", index=False)
        if self.rtt_histogram_columns:
            self.rtt_histogram.to_parquet(out / "rtt_histogram.parquet", index=False)
        (out / "summary.json").write_text(self.summary_json() + "\n", encoding="utf-8")
        (out / "config.json").write_text(json.dumps(self.config, indent=2) + "\n", encoding="utf-8")
        return out


# The columns every flow of `Result.flows` has (the engine summary's FlowSummary; a flow's life, when it
# has one, follows them), so that a run with only traffic sources has them too. mean_rtt_s is missing for
# a flow without an RTT sample, and a float all the same.
FLOW_COLUMNS = {
    "flow": "int64", "cc": str, "goodput_bps": "float64", "delivered_bps": "float64", "loss_events": "int64",
    "timeouts": "int64", "retransmissions": "int64", "ecn_reductions": "int64", "packets_sent": "int64",
    "mean_rtt_s": "float64", "final_cwnd": "int64",
}
# The columns of `Result.groups` (the engine summary's GroupSummary) and `Result.connections` (the engine's
# ConnectionRecords), with their dtypes, so that a run without groups or records gives frames with the same
# columns as any other, and `res.connections["completion_time_s"]` works on an empty result. `str` is what
# pandas makes of a column of names (object before pandas 3). The completion times are floats even when
# every one is missing (no transfer completed): the summary's nulls would otherwise make them object.
GROUP_COLUMNS = {
    "group": str, "flows_created": "int64", "flows_completed": "int64", "flows_stopped": "int64",
    "flows_alive": "int64", "flows_refused": "int64", "bytes": "int64", "goodput_bps": "float64",
    "share_of_capacity": "float64", "completed_in_window": "int64", "completion_time_mean_s": "float64",
    "completion_time_p50_s": "float64", "completion_time_p90_s": "float64", "completion_time_p99_s": "float64",
}
CONNECTION_COLUMNS = {
    "group": str, "start_s": "float64", "end_s": "float64", "size_bytes": "int64", "bytes": "int64",
    "completion_time_s": "float64", "retransmissions": "int64", "timeouts": "int64",
}


def _typed_frame(rows: list[dict], columns: Mapping[str, Any]) -> pd.DataFrame:
    """Rows as a DataFrame with `columns` (name -> dtype) first and in that order; a column the engine
    adds later is kept after them, with the type pandas gives it."""
    import pandas as pd

    frame = pd.DataFrame(rows)
    typed = {name: pd.Series(frame[name] if name in frame else [], dtype=dtype, name=name)
             for name, dtype in columns.items()}
    extra = [name for name in frame.columns if name not in columns]
    return pd.concat([pd.DataFrame(typed), frame[extra]], axis=1) if extra else pd.DataFrame(typed)


def _frame(columns: Mapping[str, Any]) -> pd.DataFrame:
    """A DataFrame over the engine's numpy columns (one copy into pandas' blocks, no per-sample work)."""
    import pandas as pd

    return pd.DataFrame(dict(columns))


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    return value
