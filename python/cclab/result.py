"""What a run returns: the engine's summary and time series as dicts and pandas DataFrames."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd


@dataclass(frozen=True)
class Result:
    config: dict                # the engine config that was run (docs/engine-interface.md)
    summary: dict               # the engine summary, as returned
    flows: pd.DataFrame         # one row per flow: goodput_bps, loss_events, ...
    bottleneck: dict            # utilization, drops, mean_queue_packets, ...
    timeseries: pd.DataFrame    # one row per flow per sample: time_s, flow, cwnd, ...
    queue: pd.DataFrame         # one row per sample: time_s, queue_packets, queue_bytes, drops
    links: pd.DataFrame         # one row per link with a queue: name, utilization, drops, mean queue, ...
    link_series: pd.DataFrame   # one row per such link per sample: time_s, link, queue_packets, ...

    @classmethod
    def from_engine(cls, config: dict, summary: dict, series: dict, link_series: dict | None = None) -> "Result":
        # The engine hands back columns (dict of lists), which pandas takes without a per-row loop.
        return cls(
            config=config,
            summary=summary,
            flows=pd.DataFrame(summary.get("flows", [])),
            bottleneck=dict(summary.get("bottleneck", {})),
            timeseries=pd.DataFrame(series.get("flows", {})),
            queue=pd.DataFrame(series.get("queue", {})),
            links=pd.DataFrame(summary.get("links", [])),
            link_series=pd.DataFrame(link_series or {}),
        )

    @property
    def jain_index(self) -> float:
        return self.summary.get("jain_index", math.nan)

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
        (out / "summary.json").write_text(self.summary_json() + "\n", encoding="utf-8")
        (out / "config.json").write_text(json.dumps(self.config, indent=2) + "\n", encoding="utf-8")
        return out


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    return value
