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
from .engine import (algorithm_names, algorithm_parameters, canonical_algorithm, parameter_defaults, queue_names,
                     queue_parameters)
from .distributions import Drawn, parse_distribution
from .errors import BadValue, ScenarioError, scenario_error_from_validation
from .overrides import apply_overrides
from .red_thresholds import check_red_thresholds
from .link_models import (Arq, BearerRate, DelaySchedule, DrawnRate, Outages, RateSchedule, TraceRate, apply_profile, parse_arq,
                          parse_link_delay, parse_link_rate, parse_loss_model, parse_outages, scenario_dir)
from .units import QueueSize, parse_byte_size, parse_duration, parse_queue_size, parse_rate

MS = 10**6  # nanoseconds in a millisecond, for defaults
U64_MAX = 2**64 - 1
U32_MAX = 2**32 - 1  # the engine's windows are u32 packets
# The engine's event ids have 21 bits and a dumbbell flow has 4 links (config.rs): at most this many flows.
# Checked here so that `count = 1e12` is an error, not a list of a trillion flows (tests/test_fuzz_scenario.py).
MAX_FLOWS = ((1 << 21) - 1 - 2) // 4
# Time-series rows a run may keep, at about 60 bytes each in the engine (and as much again in pandas): 3 GB.
# The longest series of the studies, seed 003's 20000 s at 100 ms, is 200000 rows per flow.
MAX_SAMPLE_ROWS = 50_000_000
MAX_PACKET_SIZE = 65_535  # bytes: an IP packet (the engine's limit)
# The initial window leaves at once into the first hop; the engine refuses more (config.rs MAX_INITIAL_CWND),
# as a window of 5e7 packets took 4.8 GB there (tests/config_fuzz.rs).
MAX_INITIAL_CWND = 1_000_000

Rate = Annotated[int, BeforeValidator(parse_rate)]          # bit/s
Duration = Annotated[int, BeforeValidator(parse_duration)]  # ns
ByteSize = Annotated[int, BeforeValidator(parse_byte_size)]  # bytes


class _Table(BaseModel):
    """A TOML table: no unknown keys, no type coercion ('1500' is not 1500), immutable once read."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _known_keys_only(cls, data: Any) -> Any:
        # Checked here rather than left to extra="forbid" so the message can list the accepted keys.
        if isinstance(data, dict):
            keys = [field.alias or name for name, field in cls.model_fields.items()]
            unknown = [key for key in data if key not in keys]
            if unknown:
                accepted = "one of " + ", ".join(keys)
                if len(unknown) == 1:
                    raise BadValue(f"unknown key {unknown[0]!r}", accepted, subpath=(unknown[0],))
                # Named at the first of them, so that the line names a field even at the top level.
                raise BadValue("unknown keys " + ", ".join(repr(k) for k in unknown), accepted,
                               subpath=(unknown[0],))
        return data


# --- network -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class QueueSpec:
    """A queue as written: its discipline, its size (resolved against its link later) and the
    discipline's own parameters, already in the engine's units (durations in ns, rates in bit/s)."""

    discipline: str
    size: QueueSize
    params: Mapping[str, Any]

    def engine_config(self, rate_bps: int, one_way_delay_ns: int, packet_size: int, ack_size: int,
                      field: str = "queue") -> dict:
        """`field`, the queue's dotted path, names it in a warning; an error names the key inside it."""
        packets, limit_bytes = self.size.limits(rate_bps, one_way_delay_ns, packet_size, ack_size)
        check_red_thresholds(self.discipline, self.params, packets, limit_bytes, packet_size, field)
        config = {"discipline": self.discipline, "limit_packets": packets, "limit_bytes": limit_bytes}
        if self.params:
            config["params"] = dict(self.params)
        return config


QUEUE_EXAMPLE = '{ discipline = "droptail", size = "1bdp" } (see `cclab queues`)'


def parse_queue(value: Any) -> QueueSpec:
    """{ discipline = "red", size = "1bdp", max_p = 0.1, target_delay = "5ms" } -> QueueSpec.

    A parameter the engine names `x_ns` may be written `x` with a duration ("5ms"), one named `x_bps`
    as `x` with a rate; anything else is passed as written, and the engine checks its range.
    """
    if isinstance(value, QueueSpec):
        return value
    if not isinstance(value, dict):
        raise BadValue(f"{value!r} is not a queue", QUEUE_EXAMPLE)
    table = dict(value)
    discipline = table.pop("discipline", "droptail")
    names = queue_names()
    if discipline not in names:
        raise BadValue(f"{discipline!r} is not a known queue discipline", "one of " + ", ".join(names),
                       subpath=("discipline",))
    if "size" not in table:
        raise BadValue("the queue has no size", 'a size: packets ("100"), bytes ("150KB") or "k bdp"',
                       subpath=("size",))
    try:
        size = parse_queue_size(table.pop("size"))
    except BadValue as exc:
        raise BadValue(exc.message, exc.accepted, subpath=("size",)) from None
    known = queue_parameters(discipline)
    params: dict[str, Any] = {}
    for key, item in table.items():
        try:
            if known is not None and key not in known and key != "variant":
                if f"{key}_ns" in known:
                    params[f"{key}_ns"] = parse_duration(item)
                    continue
                if f"{key}_bps" in known:
                    params[f"{key}_bps"] = parse_rate(item)
                    continue
                accepted = sorted({k[:-3] if k.endswith(("_ns")) else k for k in known} | {"variant"})
                raise BadValue(f"unknown parameter {key!r} of {discipline}",
                               "one of discipline, size, " + ", ".join(accepted))
        except BadValue as exc:
            raise BadValue(exc.message, exc.accepted, subpath=(key,)) from None
        params[key] = item
    defaults = parameter_defaults("queue", discipline)
    for key, item in params.items():
        if key in table:  # written by the person as the engine names it (not converted from a duration)
            check_parameter_type(key, item, defaults.get(key),
                                 key[:-3] if key.endswith("_ns") else None)
    return QueueSpec(discipline, size, params)


def check_parameter_type(key: str, value: Any, default: Any, duration_key: str | None = None) -> None:
    """Refuse a value of the wrong type for an engine parameter, naming it: the engine's own message
    ('red: invalid type: string "5ms", expected f64') does not say which parameter. The type is the
    default's (None: unknown, not checked); ranges stay the engine's to judge."""
    if default is None or isinstance(default, (str, list, dict)):
        return
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise BadValue(f"{value!r} is not true or false", "true or false", subpath=(key,))
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (isinstance(default, int)
                                                                            and not isinstance(value, int)):
        whole = isinstance(default, int)
        unit = {"_ns": " of nanoseconds", "_us": " of microseconds", "_ms": " of milliseconds",
                "_bytes": " of bytes"}.get("_" + key.rsplit("_", 1)[-1], "") if "_" in key else ""
        accepted = f"a {'whole number' if whole else 'number'}{unit}, without quotes (default {default!r})"
        if duration_key is not None:
            accepted += f", or {duration_key} = \"5ms\" with a unit"
        raise BadValue(f"{value!r} is not a {'whole number' if whole else 'number'}", accepted, subpath=(key,))


QueueField = Annotated[InstanceOf[QueueSpec], BeforeValidator(parse_queue)]


LinkRate = Annotated[Any, BeforeValidator(parse_link_rate)]      # bit/s, or a TraceRate / RateSchedule
LinkDelay = Annotated[Any, BeforeValidator(parse_link_delay)]    # ns, or a DelaySchedule
LossModel = Annotated[dict, BeforeValidator(parse_loss_model)]   # the engine's loss model
ArqField = Annotated[InstanceOf[Arq], BeforeValidator(parse_arq)]
OutagesField = Annotated[InstanceOf[Outages], BeforeValidator(parse_outages)]
# The keys a named link profile may fill in (link_models.apply_profile).
PROFILE_KEYS = ("rate", "delay", "queue", "loss_rate", "loss", "arq", "outages")
Probability = Annotated[float, Field(ge=0.0, lt=1.0)]


@dataclass(frozen=True)
class OneWayLink:
    """One direction of a link, resolved: what the engine builds as one link."""

    name: str
    source: str
    target: str
    rate: Any                   # bit/s, TraceRate or RateSchedule
    delay: Any                  # ns or DelaySchedule
    queue: QueueSpec | None
    loss_rate: float
    loss: dict | None
    arq: Arq | None
    outages: Outages | None = None

    def nominal_rate(self, where: tuple) -> int:
        """The rate a 'bdp' queue size refers to: the rate, or a schedule's first rate."""
        if isinstance(self.rate, RateSchedule):
            return self.rate.rate_bps[0]
        if isinstance(self.rate, DrawnRate):
            return max(1, round(self.rate.mean_bps))
        if isinstance(self.rate, BearerRate):
            return self.rate.peak_bps
        if isinstance(self.rate, TraceRate):
            raise BadValue("a 'bdp' size needs a rate, and this link's rate follows a trace",
                           "a size in packets or bytes", subpath=(*where, "queue", "size"))
        return self.rate

    def engine_models(self) -> dict:
        models: dict[str, Any] = {}
        if not isinstance(self.rate, int):
            models["rate_model"] = self.rate.engine()
        if isinstance(self.delay, DelaySchedule):
            models["delay_schedule"] = self.delay.engine()
        if self.loss is not None:
            models["loss"] = self.loss
        if self.arq is not None:
            models["arq"] = self.arq.engine()
        if self.outages is not None:
            models["outages"] = self.outages.engine()
        return models

    def engine_rate(self) -> int:
        return self.rate if isinstance(self.rate, int) else 0

    def engine_delay(self) -> int:
        return self.delay if isinstance(self.delay, int) else self.delay.delay_ns[0]


class LinkDirectionSpec(_Table):
    """What the reverse direction of a link does differently (an asymmetric line: UMTS up and down)."""

    rate: LinkRate | None = None
    delay: LinkDelay | None = None
    queue: QueueField | None = None
    loss_rate: Probability | None = None
    loss: LossModel | None = None
    arq: ArqField | None = None
    outages: OutagesField | None = None

    @model_validator(mode="before")
    @classmethod
    def _profile(cls, data: Any) -> Any:
        return apply_profile(data, PROFILE_KEYS)


def _one_way(name: str, source: str, target: str, spec, reverse: LinkDirectionSpec | None = None) -> OneWayLink:
    """The link `spec` describes from `source` to `target`, with `reverse`'s values where it gives them."""
    def pick(key):
        override = getattr(reverse, key) if reverse is not None else None
        return override if override is not None else getattr(spec, key)
    return OneWayLink(name, source, target, pick("rate"), pick("delay"), pick("queue"), float(pick("loss_rate")),
                      pick("loss"), pick("arq"), pick("outages"))


class BottleneckSpec(_Table):
    rate: LinkRate
    delay: LinkDelay                     # one way
    queue: QueueField
    reverse_queue: QueueField | None = None  # None: the same as `queue`
    loss_rate: Probability = 0.0         # packet error rate, forward direction
    loss: LossModel | None = None        # a loss model instead (forward direction)
    arq: ArqField | None = None          # link-layer retransmission (forward direction)
    outages: OutagesField | None = None  # stalls independent of the load (forward direction)
    reverse: LinkDirectionSpec | None = None   # the way back, where it differs (rate, delay, queue, ...)

    @model_validator(mode="before")
    @classmethod
    def _profile(cls, data: Any) -> Any:
        # `profile = "umts-2007-down"`: a named profile's keys where the table gives none.
        return apply_profile(data, PROFILE_KEYS)

    @model_validator(mode="after")
    def _check(self) -> "BottleneckSpec":
        if self.reverse is not None and self.reverse.queue is not None and self.reverse_queue is not None:
            raise BadValue("the reverse queue is given twice", "either reverse_queue or reverse.queue",
                           subpath=("reverse_queue",))
        if self.loss is not None and self.loss_rate > 0:
            raise BadValue("both loss_rate and a loss model are given", "one of them", subpath=("loss",))
        if not isinstance(self.rate, int) and (self.reverse is None or self.reverse.rate is None):
            raise BadValue("the way back needs its own rate when the bottleneck's follows a trace or schedule",
                           'reverse = { rate = "..." }', subpath=("reverse", "rate"))
        return self

    def directions(self) -> tuple[OneWayLink, OneWayLink]:
        """The bottleneck and its way back. Loss settings apply to the forward direction unless the
        reverse table gives its own; rate and delay are shared unless it overrides them."""
        back = self.reverse or LinkDirectionSpec()
        forward = OneWayLink("bottleneck", "left", "right", self.rate, self.delay, self.queue,
                             float(self.loss_rate), self.loss, self.arq, self.outages)
        reverse = OneWayLink("bottleneck.reverse", "right", "left",
                             back.rate if back.rate is not None else self.rate,
                             back.delay if back.delay is not None else self.delay,
                             self.reverse_queue or back.queue or self.queue,
                             float(back.loss_rate or 0.0), back.loss, back.arq, back.outages)
        return forward, reverse


class LinkSpec(_Table):
    """A link between two nodes: by default duplex, each direction its own one-way link and queue."""

    name: str | None = None                 # default "from-to"; the reverse is "to-from" (or NAME.reverse)
    from_: str = Field(alias="from")
    to: str
    rate: LinkRate
    delay: LinkDelay                        # one way
    queue: QueueField | None = None         # None: an unbounded FIFO that never drops (a host's access line)
    loss_rate: Probability = 0.0            # random packet errors, each direction
    loss: LossModel | None = None           # a loss model instead, each direction
    arq: ArqField | None = None             # link-layer retransmission, each direction
    outages: OutagesField | None = None     # stalls independent of the load, each direction (own draws)
    duplex: bool = True
    reverse: LinkDirectionSpec | None = None

    @model_validator(mode="before")
    @classmethod
    def _profile(cls, data: Any) -> Any:
        return apply_profile(data, PROFILE_KEYS)

    @model_validator(mode="after")
    def _check(self) -> "LinkSpec":
        if self.from_ == self.to:
            raise BadValue(f"the link joins {self.to!r} to itself", "two different node names", subpath=("to",))
        if self.reverse is not None and not self.duplex:
            raise BadValue("a one-way link has no reverse direction", "duplex = true, or no reverse table",
                           subpath=("reverse",))
        if self.loss is not None and self.loss_rate > 0:
            raise BadValue("both loss_rate and a loss model are given", "one of them", subpath=("loss",))
        return self

    def directions(self) -> list[OneWayLink]:
        """Each one-way link this entry makes."""
        out = [_one_way(self.name or f"{self.from_}-{self.to}", self.from_, self.to, self)]
        if self.duplex:
            reverse_name = f"{self.name}.reverse" if self.name else f"{self.to}-{self.from_}"
            out.append(_one_way(reverse_name, self.to, self.from_, self, self.reverse))
        return out


class NodeSpec(_Table):
    # Each packet a node sends waits processing_delay + uniform [0, processing_jitter] first, in order
    # (ns-2's per-packet `overhead_`, which seed 001 sets to break phase effects).
    processing_delay: Duration = 0
    processing_jitter: Duration = 0


class NetworkSpec(_Table):
    packet_size: Annotated[int, Field(gt=0, le=MAX_PACKET_SIZE)] = 1500   # bytes on the wire of a data packet
    header_size: Annotated[int, Field(ge=0)] = 40     # bytes of headers inside packet_size
    ack_size: Annotated[int, Field(gt=0, le=MAX_PACKET_SIZE)] = 40        # bytes on the wire of a pure ACK
    access_rate: Rate | None = None                   # dumbbell: None means 10 x the bottleneck rate
    bottleneck: BottleneckSpec | None = None          # the dumbbell preset ...
    links: list[LinkSpec] | None = None               # ... or a network of links, with routes in [[flows]]
    nodes: dict[str, NodeSpec] = {}
    rtt: Duration | None = None                       # links: the round trip a 'bdp' queue size refers to
    bottleneck_link: str | None = None                # links: the link the summary's bottleneck describes

    # The engine topology of a network of links, built once while validating (the model is frozen, so it
    # cannot go stale); engine_topology() hands out copies.
    _topology: dict | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _check(self) -> "NetworkSpec":
        if self.header_size >= self.packet_size:
            # Blame the field the person wrote: a small packet_size under the default 40-byte headers is a
            # packet_size problem, not a header_size one.
            if "header_size" in self.model_fields_set:
                raise BadValue(f"{self.header_size} leaves no payload in a {self.packet_size}-byte packet",
                               f"fewer than {self.packet_size} bytes", subpath=("header_size",))
            raise BadValue(f"{self.packet_size} bytes leave no payload after the {self.header_size} bytes of headers "
                           "(header_size)", f"more than {self.header_size} bytes", subpath=("packet_size",))
        if (self.bottleneck is None) == (self.links is None):
            raise BadValue("both a bottleneck and links are given" if self.bottleneck else "there is no network",
                           "either [network.bottleneck] (the dumbbell) or [[network.links]] with a route per flow")
        if self.bottleneck is not None:
            for key in ("nodes", "rtt", "bottleneck_link"):
                if key in self.model_fields_set:
                    raise BadValue(f"{key} belongs to a network of links", "[[network.links]] instead of a bottleneck",
                                   subpath=(key,))
            # Resolve both queue sizes now, so a 'bdp' that rounds to nothing is reported when loading.
            self.queue_limits("queue")
            self.queue_limits("reverse_queue")
        else:
            if self.access_rate is not None:
                raise BadValue("access_rate belongs to the dumbbell", "a rate on each link", subpath=("access_rate",))
            self._topology = self._build_topology()
        return self

    @property
    def access_rate_bps(self) -> int:
        # Access links ten times faster than the bottleneck never become the bottleneck themselves.
        # A scheduled rate counts by its highest step; a trace's peak is not known before the engine reads
        # it, and 1 Gbit/s is above the peak of any cellular trace (set access_rate otherwise).
        if self.bottleneck is None:
            return 0
        if self.access_rate is not None:
            return self.access_rate
        rate = self.bottleneck.rate
        if isinstance(rate, RateSchedule):
            return 10 * max(rate.rate_bps)
        if isinstance(rate, BearerRate):
            return 10 * rate.peak_bps
        if isinstance(rate, (TraceRate, DrawnRate)):
            return 10**9
        return 10 * rate

    def queue_limits(self, which: str) -> dict:
        """Engine queue config for 'queue' or 'reverse_queue' of the bottleneck."""
        forward, reverse = self.bottleneck.directions()
        link = forward if which == "queue" else reverse
        used = which if getattr(self.bottleneck, which) is not None else "queue"
        if which == "reverse_queue" and self.bottleneck.reverse is not None and self.bottleneck.reverse.queue is not None:
            used = "reverse.queue"
        where = ("bottleneck",)
        try:
            rate = link.nominal_rate(where) if link.queue.size.kind == "bdp" else 1
            # 'bdp' is the bottleneck's round trip: rate x 2 x one-way delay (seed 000).
            return link.queue.engine_config(rate, forward.engine_delay(), self.packet_size, self.ack_size,
                                            f"network.bottleneck.{used}")
        except BadValue as exc:
            raise BadValue(exc.message, exc.accepted,
                           subpath=("bottleneck", *used.split("."), *(exc.subpath or ("size",)))) from None

    def engine_topology(self) -> dict:
        """The engine's `topology`: every one-way link, node settings and the reported bottleneck. A copy,
        so that whoever edits the engine config it goes into cannot change this network's."""
        return copy.deepcopy(self._topology)

    def link_ends(self) -> set[tuple[str, str]]:
        """(from, to) of every one-way link of a network of links: the hops a route may take."""
        return {(link["from"], link["to"]) for link in (self._topology or {"links": []})["links"]}

    def _build_topology(self) -> dict:
        links = []
        names: dict[str, int] = {}
        ends: dict[tuple[str, str], int] = {}
        for index, spec in enumerate(self.links or []):
            for link in spec.directions():
                where = ("links", index)
                if link.name in names:
                    raise BadValue(f"the link name {link.name!r} is used twice", "unique link names",
                                   subpath=(*where, "name"))
                if (link.source, link.target) in ends:
                    raise BadValue(f"a second link from {link.source!r} to {link.target!r}",
                                   "one link per direction between two nodes", subpath=(*where, "to"))
                names[link.name], ends[(link.source, link.target)] = index, index
                engine_queue = None
                if link.queue is not None:
                    if link.queue.size.kind == "bdp" and self.rtt is None:
                        raise BadValue(f"{link.queue.size.text!r} needs a round trip to refer to",
                                       'network.rtt (e.g. "100ms"), or a size in packets or bytes',
                                       subpath=(*where, "queue", "size"))
                    rate = link.nominal_rate(where) if link.queue.size.kind == "bdp" else 1
                    try:
                        engine_queue = link.queue.engine_config(rate, (self.rtt or 0) // 2, self.packet_size,
                                                                self.ack_size, f"network.links.{index}.queue")
                    except BadValue as exc:
                        raise BadValue(exc.message, exc.accepted,
                                       subpath=(*where, "queue", *(exc.subpath or ("size",)))) from None
                entry = {"name": link.name, "from": link.source, "to": link.target, "rate_bps": link.engine_rate(),
                         "delay_ns": link.engine_delay(), "queue": engine_queue, "loss_rate": link.loss_rate}
                models = link.engine_models()
                if models:
                    entry["models"] = models
                links.append(entry)
        nodes_known = {n for pair in ends for n in pair}
        for node in self.nodes:
            if node not in nodes_known:
                raise BadValue(f"no link touches node {node!r}", "a node named by a link's from or to",
                               subpath=("nodes", node))
        if self.bottleneck_link is not None and self.bottleneck_link not in names:
            raise BadValue(f"no link is named {self.bottleneck_link!r}", "one of " + ", ".join(names),
                           subpath=("bottleneck_link",))
        return {
            "links": links,
            "nodes": {name: {"processing_delay_ns": n.processing_delay, "processing_jitter_ns": n.processing_jitter}
                      for name, n in self.nodes.items()},
            "bottleneck": self.bottleneck_link,
        }


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

    Parameters must be ones the engine lists for the algorithm, of the type of its default; the engine
    owns their meaning, defaults and ranges, and rejects a value out of range.
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
    known = algorithm_parameters(table["name"])
    defaults = parameter_defaults("algorithm", table["name"])
    for key, item in table.items():
        if key in ("name", "variant"):
            continue
        if known is not None and key not in known:
            # Said at load, as for a queue's parameters: a sweep then refuses the spec before its first run
            # instead of recording the typo as failed runs that --retry-failed cannot mend.
            raise BadValue(f"unknown parameter {key!r} of {table['name']}",
                           "one of name, variant" + "".join(f", {k}" for k in sorted(known))
                           + f" (`cclab algorithms {table['name']}`)", subpath=(key,))
        check_parameter_type(key, item, defaults.get(key))
    return table


AccessDelayField = Annotated[InstanceOf[AccessDelay], BeforeValidator(parse_access_delay)]


def parse_start(value: Any) -> int | Drawn:
    """'10s' -> 10 s in ns; a distribution table ({ uniform = ["0s", "100s"] }) -> Drawn (ns)."""
    if isinstance(value, dict):
        return parse_distribution(value, parse_duration, "duration")
    return parse_duration(value)


StartField = Annotated[Any, BeforeValidator(parse_start)]                     # ns, or a Drawn in ns
DrawnDuration = Annotated[InstanceOf[Drawn], BeforeValidator(lambda v: parse_distribution(v, parse_duration, "duration"))]


class PacingSpec(_Table):
    """At most `burst` packets back to back, then the next waits gap + uniform [0, jitter] from run.seed
    (seed 003: "no more than two packets are sent in burst", with a random delay between them)."""

    burst: Annotated[int, Field(ge=1)]
    gap: Duration = 0
    jitter: Duration = 0

    def engine(self) -> dict:
        return {"burst": self.burst, "gap_ns": self.gap, "jitter_ns": self.jitter}


class FlowSpec(_Table):
    cc: Annotated[dict[str, Any], BeforeValidator(parse_cc)]
    count: Annotated[int, Field(ge=1, le=MAX_FLOWS)] = 1  # this entry stands for `count` identical flows
    access_delay: AccessDelayField | None = None         # each side; None with src/dst: 0
    src_access_delay: AccessDelayField | None = None     # sender <-> left router, one way
    dst_access_delay: AccessDelayField | None = None     # right router <-> receiver, one way
    start: StartField = 0                                # or drawn: { uniform = ["0s", "100s"] }, from run.seed
    start_jitter: Duration = 0                           # start at start + uniform [0, jitter], from run.seed
    stop: Duration | None = None                         # None: sends until the end of the run
    duration: DrawnDuration | None = None                # stops writing at start + this ("20s", { exponential = "20s" })
    group: str | None = None                             # the summary's `groups` count the flow under this name
    pacing: PacingSpec | None = None                     # { burst = 2, gap = "1ms", jitter = "0.1ms" }
    # Loss recovery: RFC 6675 SACK, RFC 6582 NewReno, or "linux-2.6": ns-2.35 TCP-Linux / Linux 2.6
    # rate-halving (cwnd = the algorithm's min_cwnd at entry, ~1 packet per 2 ACKs, ssthresh at exit),
    # with ns-2's retransmission timer (RTO = max(rto_min, SRTT + 4 RTTVAR), 1 ms ticks) and loss marking
    # (a hole is lost once the highest SACK lies 4 or more above it). "prr": Proportional Rate Reduction
    # on RFC 6675's loss marking, as Linux 4.3 and later (slow-start bound only after a retransmission is
    # acknowledged, else one out per one delivered); "prr-rfc6937": RFC 6937 PRR-SSRB (Linux 3.2-4.2);
    # "ns2-sack1": ns-2.35's Agent/TCP/Sack1, the agent counts the packets in flight itself, lost ones
    # included (outstanding - 3 at entry, -1 per ACK, -2 per partial ACK), and sends every hole below the
    # highest SACK once; a timeout goes back N, and the timer is Agent/TCP's (10 ms ticks, one timed packet
    # per round trip, RTO = max(rto_min, srtt + 4 rttvar); ns-2.35's minrto_ is 200 ms, ns-2.26's 1 s);
    # the window grows once per new ACK, whatever it covers, as ns-2's agents open it.
    recovery: Literal["sack", "newreno", "linux-2.6", "prr", "prr-rfc6937", "ns2-sack1"] = "sack"
    delayed_ack: bool = False
    # With delayed ACKs, acknowledge the first N in-order segments at once, as Linux's receiver does at a
    # connection's start (quick-ACK mode, at most 16). 0: none, ns-2's DelAck.
    quick_acks: Annotated[int, Field(ge=0, le=1_000_000)] = 0
    # F-RTO, spurious-timeout detection (RFC 5682; Linux 2.6.2x tcp_frto): "basic" (sysctl 1), "sack" (2,
    # Linux's default from 2.6.24; without SACK, i.e. recovery = "newreno", it is the basic one), "off".
    # A timeout resends the head only; two new segments then tell a late window from a lost one.
    frto: Literal["off", "basic", "sack"] = "off"
    # What a spurious timeout costs: "halve" (the algorithm's fast-recovery reduction, at once; Linux's
    # tcp_frto_response 0 and 1) or "undo" (window and ssthresh as before the timeout; response 2).
    frto_response: Literal["halve", "undo"] = "halve"
    initial_cwnd: Annotated[int, Field(ge=1, le=MAX_INITIAL_CWND)] = 2   # packets
    rto_min: Duration = 200 * MS
    rwnd: Annotated[int, Field(ge=1, le=U64_MAX)] = 1_000_000_000  # packets; large enough never to limit
    # Linux snd_cwnd_clamp, packets: cwnd stops growing there, but (unlike rwnd) new data still goes out
    # past a hole in recovery. ns-2.35 TCP-Linux's window_ is this, not rwnd (seed 001 sets it to 10000).
    # Compound clamps only its loss-based part, as its module does. None: no clamp.
    cwnd_clamp: Annotated[int, Field(ge=1, le=U32_MAX)] | None = None
    ecn: bool = False                                    # ECN-capable (RFC 3168): needs a queue with ecn = true to matter
    overhead: Duration = 0                               # ns-2's overhead_: waits drawn from uniform [0, overhead], as overhead_model says
    # "per-packet" (dumbbell): each packet waits its own draw after the send decision, in order, on the
    # sender's access link. "delayed-send": ns-2's agents (TcpAgent::send_much), a send decision that finds
    # room in the window arms a timer of one draw, and what the window allows at its expiry leaves then.
    # Either has no effect while overhead is 0.
    overhead_model: Literal["per-packet", "delayed-send"] = "per-packet"
    route: list[str] | None = None                       # links: nodes from the sender to the receiver
    ack_route: list[str] | None = None                   # links: the ACKs' way back (default: route reversed)
    # Dumbbell: "reverse" sends right to left (data on bottleneck.reverse, ACKs on the bottleneck); the
    # sender's access link (src_access_delay) is then on the right. Over links the route says it.
    direction: Literal["forward", "reverse"] = "forward"
    # A finite transfer of this many payload bytes ("500KB"), ending when its last byte is acknowledged;
    # sent as ceil(size / payload) full segments (payload = packet_size - header_size). None: bulk.
    size: ByteSize | None = None

    @model_validator(mode="after")
    def _check(self) -> "FlowSpec":
        if self.route is not None and len(self.route) < 2:
            raise BadValue("a route names at least two nodes", "the nodes from the sender to the receiver",
                           subpath=("route",))
        if self.route is not None and self.direction != "forward":
            raise BadValue("over links the route gives the direction", "the route's nodes from the sender to "
                           "the receiver, and no direction", subpath=("direction",))
        if self.route is not None:
            dumbbell_only = ["access_delay", "src_access_delay", "dst_access_delay"]
            if self.overhead_model == "per-packet":
                dumbbell_only.append("overhead")
            for key in dumbbell_only:
                if getattr(self, key) not in (None, 0):
                    raise BadValue(f"{key} belongs to the dumbbell; over links a flow's delays are its links'",
                                   "a route without access delays", subpath=(key,))
        if self.access_delay is not None and (self.src_access_delay or self.dst_access_delay):
            # Both would set the same link; refusing is clearer than a silent precedence rule.
            raise BadValue("access_delay is given together with src_access_delay/dst_access_delay",
                           "either access_delay or src_access_delay and dst_access_delay",
                           subpath=("access_delay",))
        if isinstance(self.start, Drawn) and self.start_jitter:
            raise BadValue("a drawn start takes no start_jitter", "either start = { ... } or start_jitter",
                           subpath=("start_jitter",))
        if self.frto == "off" and self.frto_response != "halve":
            raise BadValue("frto_response answers a spurious timeout, which only F-RTO finds",
                           "frto = \"basic\" or \"sack\" with it, or no frto_response", subpath=("frto_response",))
        if self.duration is not None and self.stop is not None:
            raise BadValue("both stop and duration are given", "one of them", subpath=("duration",))
        if self.stop is not None and self.stop <= self.earliest_start + self.start_jitter:
            raise BadValue("the flow may stop before it starts", "a stop later than start + start_jitter",
                           subpath=("stop",))
        return self

    @property
    def earliest_start(self) -> int:
        """ns; a drawn start's lowest value where it has one (0 otherwise)."""
        if isinstance(self.start, Drawn):
            return self.start.engine["uniform"][0] if "uniform" in self.start.engine else 0
        return self.start

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
            "start_ns": 0 if isinstance(self.start, Drawn) else self.start,
            "start_jitter_ns": self.start_jitter,
            "stop_ns": self.stop,
            "recovery": self.recovery,
            "delayed_ack": self.delayed_ack,
            **({"quick_acks": self.quick_acks} if self.quick_acks else {}),
            **({"frto": self.frto} if self.frto != "off" else {}),
            **({"frto_response": self.frto_response} if self.frto_response != "halve" else {}),
            "initial_cwnd": self.initial_cwnd,
            "rto_min_ns": self.rto_min,
            "rwnd_packets": self.rwnd,
            **({"cwnd_clamp_packets": self.cwnd_clamp} if self.cwnd_clamp is not None else {}),
            **({"overhead_ns": self.overhead} if self.overhead else {}),
            **({"overhead_model": self.overhead_model} if self.overhead_model != "per-packet" else {}),
            **({"ecn": True} if self.ecn else {}),
            **({"route": list(self.route)} if self.route is not None else {}),
            **({"ack_route": list(self.ack_route)} if self.ack_route is not None else {}),
            **({"direction": self.direction} if self.direction != "forward" else {}),
            **({"size_bytes": self.size} if self.size is not None else {}),
            **({"start_draw_ns": self.start.engine} if isinstance(self.start, Drawn) else {}),
            **({"duration_draw_ns": self.duration.engine} if self.duration is not None else {}),
            **({"group": self.group} if self.group is not None else {}),
            **({"pacing": self.pacing.engine()} if self.pacing is not None else {}),
        } for i in range(self.count)]


# --- traffic ---------------------------------------------------------------------------------------------

# Presets of [[traffic]] (docs/engine-interface.md, README "Traffic"). "web": ns-2.35's web-traffic example
# (tcl/ex/web-traffic.tcl, PagePool/WebTraf) draws object sizes from a Pareto II of shape 1.2 and mean 10
# packets; here a Pareto (type I) of the same shape and mean, 10 payloads of 1460 bytes, arriving as a
# Poisson process at the offered load. Shape 1.1-1.5 is the usual range for web transfer sizes (fact sheet
# ../shared/docs/network-models.md, "Background traffic").
TRAFFIC_PRESETS = {
    "web": {"size": {"pareto": {"shape": 1.2, "mean": "14600B"}}},
}

SizeDistribution = Annotated[InstanceOf[Drawn], BeforeValidator(lambda v: parse_distribution(v, parse_byte_size, "size"))]


def _apply_preset(data: Any) -> Any:
    """A [[traffic]] table with `preset = "web"`: the preset's keys where the table gives none."""
    if not isinstance(data, dict) or "preset" not in data:
        return data
    name = data["preset"]
    if name not in TRAFFIC_PRESETS:
        raise BadValue(f"{name!r} is not a traffic preset", "one of " + ", ".join(TRAFFIC_PRESETS),
                       subpath=("preset",))
    return {**TRAFFIC_PRESETS[name], **data}


class TrafficSpec(_Table):
    """Connections that arrive during the run: each a transfer of a drawn size that ends when its last byte
    is acknowledged. Arrivals are Poisson at an offered load (a fraction of the capacity of the slowest
    link on the route, in payload bits) or at a rate, or follow any inter-arrival distribution."""

    group: str                                           # the summary's `groups` report it under this name
    preset: Literal["web"] | None = None                 # fills size (see TRAFFIC_PRESETS)
    size: SizeDistribution                               # payload bytes: "50KB" or { pareto = {...} }
    load: Annotated[float, Field(gt=0)] | None = None    # offered load, fraction of the route's capacity
    arrival_rate: Annotated[float, Field(gt=0)] | None = None   # connections per second (Poisson)
    inter_arrival: DrawnDuration | None = None           # or any distribution of the gaps
    start: Duration = 0                                  # first arrival
    stop: Duration | None = None                         # no arrival from then on
    cc: Annotated[dict[str, Any], BeforeValidator(parse_cc)] = {"name": "newreno"}
    direction: Literal["forward", "reverse"] = "forward"
    access_delay: AccessDelayField | None = None         # dumbbell: each side of every connection
    src_access_delay: AccessDelayField | None = None
    dst_access_delay: AccessDelayField | None = None
    route: list[str] | None = None                       # links: nodes from the sender to the receiver
    ack_route: list[str] | None = None
    recovery: Literal["sack", "newreno", "linux-2.6", "prr", "prr-rfc6937", "ns2-sack1"] = "sack"
    delayed_ack: bool = False
    initial_cwnd: Annotated[int, Field(ge=1)] = 2
    rto_min: Duration = 200 * MS
    rwnd: Annotated[int, Field(ge=1)] = 1_000_000_000
    pacing: PacingSpec | None = None
    records: bool = False                                # one row per connection in Result.connections

    @model_validator(mode="before")
    @classmethod
    def _preset(cls, data: Any) -> Any:
        return _apply_preset(data)

    @model_validator(mode="after")
    def _check(self) -> "TrafficSpec":
        given = [key for key in ("load", "arrival_rate", "inter_arrival") if getattr(self, key) is not None]
        if len(given) != 1:
            raise BadValue("arrivals are given " + ("twice: " + ", ".join(given) if given else "nowhere"),
                           "one of load (a fraction of capacity), arrival_rate (per second) or inter_arrival",
                           subpath=(given[-1],) if given else ())
        if self.route is not None and self.direction != "forward":
            raise BadValue("over links the route gives the direction", "no direction", subpath=("direction",))
        if self.stop is not None and self.stop <= self.start:
            raise BadValue("arrivals stop before they start", "a stop after start", subpath=("stop",))
        return self

    def engine_source(self, access_rate_bps: int) -> dict:
        src = self.src_access_delay or self.access_delay or AccessDelay(0, 0)
        dst = self.dst_access_delay or self.access_delay or AccessDelay(0, 0)
        flow = {
            "cc": dict(self.cc), "recovery": self.recovery, "delayed_ack": self.delayed_ack,
            "initial_cwnd": self.initial_cwnd, "rto_min_ns": self.rto_min, "rwnd_packets": self.rwnd,
        }
        if self.pacing is not None:
            flow["pacing"] = self.pacing.engine()
        if self.route is not None:
            flow["route"] = list(self.route)
            if self.ack_route is not None:
                flow["ack_route"] = list(self.ack_route)
        else:
            flow.update(src_access_delay_ns=src.last_ns, dst_access_delay_ns=dst.last_ns,
                        access_rate_bps=access_rate_bps)
            if self.direction != "forward":
                flow["direction"] = self.direction
        source = {"group": self.group, "flow": flow, "size_bytes": self.size.engine, "start_ns": self.start,
                  "stop_ns": self.stop}
        if self.records:
            source["records"] = True
        if self.load is not None:
            source["offered_load"] = self.load
        elif self.arrival_rate is not None:
            source["inter_arrival_ns"] = {"exponential": 1e9 / self.arrival_rate}
        else:
            source["inter_arrival_ns"] = self.inter_arrival.engine
        return source


# --- run ---------------------------------------------------------------------------------------------

class RunSpec(_Table):
    duration: Duration
    measure_from: Duration = 0                       # summary figures cover [measure_from, duration]
    seed: Annotated[int, Field(ge=0, le=2**64 - 1)] = 1
    sample_interval: Duration = 100 * MS             # 0 disables the time series
    # Keep the start time of every loss event of the scenario's flows (Result.loss_events, seed 003's
    # synchronisation ratio): 8 bytes per event, so memory grows with simulated time; off by default.
    record_loss_events: bool = False
    # Count every RTT measurement of the scenario's flows over the measurement window in a histogram per
    # flow (Result.rtt_histogram: the ACK-weighted distribution, to within 1.6 %; the time series' rtt_s
    # samples weigh time instead): at most 30 KB a flow whatever the run's length; off by default.
    rtt_histogram: bool = False

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
    flows: list[FlowSpec] = []
    traffic: list[TrafficSpec] = []
    run: RunSpec

    # The TOML dict it was validated from, so overrides can be applied to a loaded scenario again.
    _raw: dict = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _some_flows(self) -> "Scenario":
        if not self.flows and not self.traffic:
            raise BadValue("there are no flows", "at least one [[flows]] or [[traffic]] table", subpath=("flows",))
        return self

    @model_validator(mode="after")
    def _check(self) -> "Scenario":
        total = sum(flow.count for flow in self.flows)
        if total > MAX_FLOWS:
            raise BadValue(f"{total} flows in all", f"at most {MAX_FLOWS} flows (the sum of every count)",
                           subpath=("flows",))
        over_links = self.network.links is not None
        hops = set()
        if over_links:
            hops = self.network.link_ends()
        for index, flow in enumerate(self.flows):
            if over_links and flow.route is not None:
                self._check_route(index, "route", flow.route, hops)
                back = flow.ack_route if flow.ack_route is not None else flow.route[::-1]
                self._check_route(index, "ack_route", back, hops, retraced=flow.ack_route is None)
            if over_links and flow.route is None:
                raise BadValue("a flow over [[network.links]] needs a route",
                               'route = ["sender", "router", ..., "receiver"]', subpath=("flows", index, "route"))
            if not over_links and (flow.route is not None or flow.ack_route is not None):
                raise BadValue("routes belong to a network of links; the dumbbell routes its flows itself",
                               "no route with [network.bottleneck]", subpath=("flows", index, "route"))
            if flow.earliest_start + flow.start_jitter >= self.run.duration:
                what = "start" if flow.start_jitter == 0 else "start + start_jitter"
                value = _seconds(flow.earliest_start) if flow.start_jitter == 0 else f"{what} = {_seconds(flow.earliest_start + flow.start_jitter)}"
                raise BadValue(f"{value} is not before the end of the run at {_seconds(self.run.duration)}",
                               f"a {what} before run.duration",
                               subpath=("flows", index, "start"))
        for index, source in enumerate(self.traffic):
            if over_links and source.route is None:
                raise BadValue("connections over [[network.links]] need a route",
                               'route = ["sender", "router", ..., "receiver"]', subpath=("traffic", index, "route"))
            if not over_links and (source.route is not None or source.ack_route is not None):
                raise BadValue("routes belong to a network of links; the dumbbell routes its connections itself",
                               "no route with [network.bottleneck]", subpath=("traffic", index, "route"))
            if over_links:
                for key, nodes in (("route", source.route), ("ack_route", source.ack_route or source.route[::-1])):
                    for hop in zip(nodes, nodes[1:]):
                        if hop not in hops:
                            raise BadValue(f"no link from {hop[0]!r} to {hop[1]!r}", "a route along [[network.links]]",
                                           subpath=("traffic", index, key))
        return self

    @model_validator(mode="after")
    def _series_fit(self) -> "Scenario":
        """Refuse a time series too long to keep: sample_interval = "1ns" over half a second ran the engine
        out of memory (an abort with a Rust backtrace) after filling every byte of the machine. After _check,
        which refuses more flows than the engine holds, so that a huge count is named as that."""
        interval = self.run.sample_interval
        if interval == 0:
            return self
        # Each sample is a row per scenario flow, one for the bottleneck's queue and one per link with a queue.
        links = (2 if self.network.bottleneck is not None
                 else sum(1 for link in self.network.engine_topology()["links"] if link["queue"] is not None))
        series = sum(flow.count for flow in self.flows) + 1 + links
        rows = self.run.duration // interval * series
        if rows > MAX_SAMPLE_ROWS:
            shortest = -(-self.run.duration * series // MAX_SAMPLE_ROWS)  # ns, rounded up
            raise BadValue(f"sampling {series} series (the flows and the queues) every {_short(interval)} for "
                           f"{_seconds(self.run.duration)} keeps {rows:.2g} rows, more than the "
                           f"{MAX_SAMPLE_ROWS // 10**6} million a run may (about 60 bytes each)",
                           f"an interval of at least {_short(shortest)}, or \"0s\" for no time series",
                           subpath=("run", "sample_interval"))
        return self

    @staticmethod
    def _check_route(index: int, key: str, nodes: list[str], hops: set, retraced: bool = False) -> None:
        for hop in zip(nodes, nodes[1:]):
            if hop not in hops:
                why = " for the ACKs, which retrace the route unless ack_route is given" if retraced else ""
                raise BadValue(f"no link from {hop[0]!r} to {hop[1]!r}{why}",
                               "a route along [[network.links]] (add the link, or make it duplex)",
                               subpath=("flows", index, key))

    def to_engine_config(self) -> dict:
        """The engine config of docs/engine-interface.md: integers in base units, nothing implicit."""
        network = self.network
        if network.bottleneck is not None:
            forward, reverse = network.bottleneck.directions()
            bottleneck = {
                "rate_bps": forward.engine_rate(),
                "delay_ns": forward.engine_delay(),
                "queue": network.queue_limits("queue"),
                "reverse_queue": network.queue_limits("reverse_queue"),
                "loss_rate": float(network.bottleneck.loss_rate),
            }
            if forward.engine_models():
                bottleneck["models"] = forward.engine_models()
            if network.bottleneck.reverse is not None:
                bottleneck["reverse_rate_bps"] = reverse.engine_rate()
                bottleneck["reverse_delay_ns"] = reverse.engine_delay()
                models = reverse.engine_models()
                if reverse.loss_rate > 0:
                    models["loss"] = {"bernoulli": reverse.loss_rate}
                if models:
                    bottleneck["reverse_models"] = models
            where = {"bottleneck": bottleneck}
        else:
            where = {"topology": network.engine_topology()}
        return {
            "packet_size": network.packet_size,
            "header_size": network.header_size,
            "ack_size": network.ack_size,
            **where,
            "flows": [config for flow in self.flows for config in flow.engine_flows(network.access_rate_bps)],
            **({"traffic": [t.engine_source(network.access_rate_bps) for t in self.traffic]} if self.traffic else {}),
            "run": {
                "duration_ns": self.run.duration,
                "measure_from_ns": self.run.measure_from,
                "seed": self.run.seed,
                "sample_interval_ns": self.run.sample_interval,
                # Only when on, so the configs (and stored runs' keys) of runs without it stay as they were.
                **({"record_loss_events": True} if self.run.record_loss_events else {}),
                **({"rtt_histogram": True} if self.run.rtt_histogram else {}),
            },
        }


def _seconds(ns: int) -> str:
    return f"{ns / 1e9:g} s"


def _short(ns: int) -> str:
    """A duration in the largest unit that leaves it at least 1: '40ns', '520us', '1.5ms'."""
    for unit, size in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns >= size:
            return f"{ns / size:g}{unit}"
    return f"{ns}ns"


def read_toml(path: str | Path) -> dict:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(str(path), f"cannot be read ({exc.strerror or exc})", "a readable TOML file") from None
    except UnicodeDecodeError as exc:  # a binary file, or text saved in another encoding
        raise ScenarioError(str(path), f"is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})",
                            "a TOML file saved as UTF-8") from None
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
    # Relative trace files are read from the scenario file's folder (else the working directory).
    token = scenario_dir.set(Path(source).resolve().parent if isinstance(source, (str, Path)) else None)
    try:
        scenario = Scenario.model_validate(raw)
    except ValidationError as exc:
        raise scenario_error_from_validation(exc) from None
    finally:
        scenario_dir.reset(token)
    scenario._raw = raw
    return scenario
