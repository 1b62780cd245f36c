"""The scenario model: a TOML file (plus --set overrides) -> validated `Scenario` -> engine config.

The models mirror the TOML tables one to one, so every pydantic error location is the dotted key a
person wrote (`network.bottleneck.rate`). Quantities are parsed to integers in base units as soon as
they are read (see `units`); `Scenario.to_engine_config()` only rearranges them into the JSON
document of docs/engine-interface.md.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from fractions import Fraction
from math import floor
from pathlib import Path
from typing import Annotated, Any, Literal, Mapping, Sequence

from pydantic import (BaseModel, BeforeValidator, ConfigDict, Field, InstanceOf, PrivateAttr, ValidationError,
                      field_validator, model_validator)

from . import _toml
from .engine import algorithm_names, canonical_algorithm
from .errors import BadValue, ScenarioError, scenario_error_from_validation
from .overrides import apply_overrides
from .units import QueueSize, parse_duration, parse_queue_size, parse_rate

MS = 10**6  # nanoseconds in a millisecond, for defaults

Rate = Annotated[int, BeforeValidator(parse_rate)]          # bit/s
Duration = Annotated[int, BeforeValidator(parse_duration)]  # ns


class _Table(BaseModel):
    """A TOML table: no unknown keys, no type coercion ('1500' is not 1500), immutable once read."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _known_keys_only(cls, data: Any) -> Any:
        # Checked here rather than left to extra="forbid" so the message can list the accepted keys.
        if isinstance(data, dict):
            unknown = [key for key in data if key not in cls.model_fields]
            if unknown:
                accepted = "one of " + ", ".join(cls.model_fields)
                if len(unknown) == 1:
                    raise BadValue(f"unknown key {unknown[0]!r}", accepted, subpath=(unknown[0],))
                raise BadValue("unknown keys " + ", ".join(repr(k) for k in unknown), accepted)
        return data


# --- network -----------------------------------------------------------------------------------------

class QueueSpec(_Table):
    discipline: Literal["droptail"] = "droptail"
    size: Annotated[InstanceOf[QueueSize], BeforeValidator(parse_queue_size)]


class BottleneckSpec(_Table):
    rate: Rate
    delay: Duration                      # one way
    queue: QueueSpec
    reverse_queue: QueueSpec | None = None   # None: the same as `queue`
    loss_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0  # packet error rate, forward direction


class NetworkSpec(_Table):
    packet_size: Annotated[int, Field(gt=0)] = 1500   # bytes on the wire of a data packet
    header_size: Annotated[int, Field(ge=0)] = 40     # bytes of headers inside packet_size
    ack_size: Annotated[int, Field(gt=0)] = 40        # bytes on the wire of a pure ACK
    access_rate: Rate | None = None                   # None: 10 x the bottleneck rate
    bottleneck: BottleneckSpec

    @model_validator(mode="after")
    def _check(self) -> "NetworkSpec":
        if self.header_size >= self.packet_size:
            raise BadValue(f"{self.header_size} leaves no payload in a {self.packet_size}-byte packet",
                           f"fewer than {self.packet_size} bytes", subpath=("header_size",))
        # Resolve both queue sizes now, so a 'bdp' that rounds to nothing is reported when loading.
        self.queue_limits("queue")
        self.queue_limits("reverse_queue")
        return self

    @property
    def access_rate_bps(self) -> int:
        # Access links ten times faster than the bottleneck never become the bottleneck themselves.
        return self.access_rate if self.access_rate is not None else 10 * self.bottleneck.rate

    def queue_limits(self, which: str) -> dict:
        """Engine queue config for 'queue' or 'reverse_queue' of the bottleneck."""
        spec = getattr(self.bottleneck, which) or self.bottleneck.queue
        used = which if getattr(self.bottleneck, which) is not None else "queue"
        try:
            packets, limit_bytes = spec.size.limits(self.bottleneck.rate, self.bottleneck.delay,
                                                    self.packet_size, self.ack_size)
        except BadValue as exc:
            raise BadValue(exc.message, exc.accepted, subpath=("bottleneck", used, "size")) from None
        return {"discipline": spec.discipline, "limit_packets": packets, "limit_bytes": limit_bytes}


# --- flows -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AccessDelay:
    """One-way access delay in ns: fixed (first == last) or spread evenly over replicated flows."""

    first_ns: int
    last_ns: int

    def for_flow(self, index: int, count: int) -> int:
        if count == 1:
            # Anchored at the last value, as seed 000 places flow i of N at last * (i + 1) / N.
            return self.last_ns
        # Exact arithmetic, rounded half up to whole ns like every other quantity (see units).
        offset = Fraction(index * (self.last_ns - self.first_ns), count - 1)
        return self.first_ns + floor(offset + Fraction(1, 2))


def parse_access_delay(value: Any) -> AccessDelay:
    if isinstance(value, dict):
        spread = value.get("spread")
        if set(value) != {"spread"} or not isinstance(spread, list) or len(spread) != 2:
            raise BadValue("is not an access delay",
                           'a duration ("2.5ms") or { spread = ["0.25ms", "2.5ms"] }')
        return AccessDelay(parse_duration(spread[0]), parse_duration(spread[1]))
    delay = parse_duration(value)
    return AccessDelay(delay, delay)


def parse_cc(value: Any) -> dict:
    """'cubic' or { name = "cubic", variant = ..., beta = 0.8 } -> {"name": "cubic", ...}.

    Parameters other than the name are passed through untouched: the engine owns their meaning,
    defaults and ranges, and rejects what it does not know.
    """
    if isinstance(value, str):
        table, where = {"name": value}, ()
    elif isinstance(value, dict):
        table, where = dict(value), ("name",)
        if not isinstance(table.get("name"), str):
            raise BadValue("the algorithm table has no name",
                           'a table such as { name = "cubic", beta = 0.8 }', subpath=where)
    else:
        raise BadValue(f"{value!r} is not an algorithm", 'a name ("newreno") or a table with a name')
    names = algorithm_names()
    if table["name"] not in names:
        raise BadValue(f"{table['name']!r} is not a known algorithm", "one of " + ", ".join(names),
                       subpath=where)
    table["name"] = canonical_algorithm(table["name"])
    return table


AccessDelayField = Annotated[InstanceOf[AccessDelay], BeforeValidator(parse_access_delay)]


class FlowSpec(_Table):
    cc: Annotated[dict[str, Any], BeforeValidator(parse_cc)]
    count: Annotated[int, Field(ge=1)] = 1               # this entry stands for `count` identical flows
    access_delay: AccessDelayField | None = None         # each side; None with src/dst: 0
    src_access_delay: AccessDelayField | None = None     # sender <-> left router, one way
    dst_access_delay: AccessDelayField | None = None     # right router <-> receiver, one way
    start: Duration = 0
    start_jitter: Duration = 0                           # start at start + uniform [0, jitter], from run.seed
    stop: Duration | None = None                         # None: sends until the end of the run
    # Loss recovery: RFC 6675 SACK, RFC 6582 NewReno, or "linux-2.6": ns-2.35 TCP-Linux / Linux 2.6
    # rate-halving (cwnd = the algorithm's min_cwnd at entry, ~1 packet per 2 ACKs, ssthresh at exit),
    # with ns-2's retransmission timer (RTO = max(rto_min, SRTT + 4 RTTVAR), 1 ms ticks) and loss marking
    # (a hole is lost once the highest SACK lies 4 or more above it).
    recovery: Literal["sack", "newreno", "linux-2.6"] = "sack"
    delayed_ack: bool = False
    initial_cwnd: Annotated[int, Field(ge=1)] = 2        # packets
    rto_min: Duration = 200 * MS
    rwnd: Annotated[int, Field(ge=1)] = 1_000_000_000    # packets; large enough never to limit

    @model_validator(mode="after")
    def _check(self) -> "FlowSpec":
        if self.access_delay is not None and (self.src_access_delay or self.dst_access_delay):
            # Both would set the same link; refusing is clearer than a silent precedence rule.
            raise BadValue("access_delay is given together with src_access_delay/dst_access_delay",
                           "either access_delay or src_access_delay and dst_access_delay",
                           subpath=("access_delay",))
        if self.stop is not None and self.stop <= self.start + self.start_jitter:
            raise BadValue("the flow may stop before it starts", "a stop later than start + start_jitter",
                           subpath=("stop",))
        return self

    def engine_flows(self, access_rate_bps: int) -> list[dict]:
        """This entry as `count` engine flow configs."""
        zero = AccessDelay(0, 0)
        src = self.src_access_delay or self.access_delay or zero
        dst = self.dst_access_delay or self.access_delay or zero
        return [{
            "cc": dict(self.cc),
            "src_access_delay_ns": src.for_flow(i, self.count),
            "dst_access_delay_ns": dst.for_flow(i, self.count),
            "access_rate_bps": access_rate_bps,
            "start_ns": self.start,
            "start_jitter_ns": self.start_jitter,
            "stop_ns": self.stop,
            "recovery": self.recovery,
            "delayed_ack": self.delayed_ack,
            "initial_cwnd": self.initial_cwnd,
            "rto_min_ns": self.rto_min,
            "rwnd_packets": self.rwnd,
        } for i in range(self.count)]


# --- run ---------------------------------------------------------------------------------------------

class RunSpec(_Table):
    duration: Duration
    measure_from: Duration = 0                       # summary figures cover [measure_from, duration]
    seed: Annotated[int, Field(ge=0, le=2**64 - 1)] = 1
    sample_interval: Duration = 100 * MS             # 0 disables the time series

    @model_validator(mode="after")
    def _check(self) -> "RunSpec":
        if self.duration <= 0:
            raise BadValue("the run lasts no time", "a positive duration", subpath=("duration",))
        if self.measure_from >= self.duration:
            raise BadValue(f"{_seconds(self.measure_from)} is not before the end of the run at "
                           f"{_seconds(self.duration)}", "a time before run.duration", subpath=("measure_from",))
        return self


# --- scenario ----------------------------------------------------------------------------------------

class Scenario(_Table):
    network: NetworkSpec
    flows: list[FlowSpec]
    run: RunSpec

    # The TOML dict it was validated from, so overrides can be applied to a loaded scenario again.
    _raw: dict = PrivateAttr(default_factory=dict)

    @field_validator("flows")
    @classmethod
    def _some_flows(cls, flows: list[FlowSpec]) -> list[FlowSpec]:
        if not flows:
            raise BadValue("there are no flows", "at least one [[flows]] table")
        return flows

    @model_validator(mode="after")
    def _check(self) -> "Scenario":
        for index, flow in enumerate(self.flows):
            if flow.start + flow.start_jitter >= self.run.duration:
                what = "start" if flow.start_jitter == 0 else "start + start_jitter"
                value = _seconds(flow.start) if flow.start_jitter == 0 else f"{what} = {_seconds(flow.start + flow.start_jitter)}"
                raise BadValue(f"{value} is not before the end of the run at {_seconds(self.run.duration)}",
                               f"a {what} before run.duration",
                               subpath=("flows", index, "start"))
        return self

    def to_engine_config(self) -> dict:
        """The engine config of docs/engine-interface.md: integers in base units, nothing implicit."""
        network = self.network
        return {
            "packet_size": network.packet_size,
            "header_size": network.header_size,
            "ack_size": network.ack_size,
            "bottleneck": {
                "rate_bps": network.bottleneck.rate,
                "delay_ns": network.bottleneck.delay,
                "queue": network.queue_limits("queue"),
                "reverse_queue": network.queue_limits("reverse_queue"),
                "loss_rate": float(network.bottleneck.loss_rate),
            },
            "flows": [config for flow in self.flows for config in flow.engine_flows(network.access_rate_bps)],
            "run": {
                "duration_ns": self.run.duration,
                "measure_from_ns": self.run.measure_from,
                "seed": self.run.seed,
                "sample_interval_ns": self.run.sample_interval,
            },
        }


def _seconds(ns: int) -> str:
    return f"{ns / 1e9:g} s"


def read_toml(path: str | Path) -> dict:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(str(path), f"cannot be read ({exc.strerror or exc})", "a readable TOML file") from None
    try:
        return _toml.loads(text)
    except _toml.TOMLDecodeError as exc:
        raise ScenarioError(str(path), f"is not valid TOML ({exc})") from None


def load_scenario(source: "str | Path | Mapping | Scenario", overrides: Sequence[str] = ()) -> Scenario:
    """A validated Scenario from a TOML path or an already-parsed dict, after `--set` overrides."""
    if isinstance(source, Scenario):
        if not overrides:
            return source
        source = source._raw
    raw = copy.deepcopy(dict(source)) if isinstance(source, Mapping) else read_toml(source)
    apply_overrides(raw, overrides)
    try:
        scenario = Scenario.model_validate(raw)
    except ValidationError as exc:
        raise scenario_error_from_validation(exc) from None
    scenario._raw = raw
    return scenario
