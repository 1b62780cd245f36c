"""Links that change over time, as a scenario writes them: trace-driven or scheduled rates, scheduled
delays, bursty loss and link-layer ARQ. Each parser turns the TOML value into a small frozen object whose
`engine()` is the engine config's form (docs/engine-interface.md); the engine's `net/capacity.rs`,
`net/delay.rs`, `net/loss.rs` and `net/arq.rs` give them their meaning.

    rate  = "100Mbps"                                   constant
    rate  = { trace = "UMTS.down", mean = "384kbps" }   Mahimahi trace (scaled to a mean rate if given)
    rate  = { at = ["0s", "20s"], value = ["10Mbps", "2Mbps"] }    piecewise constant (0bps: outage)
    rate  = { drawn = { uniform = ["100kbps", "384kbps"] } }       constant in a run, drawn from its seed
    rate  = { bearer = { rates = ["64kbps", "128kbps", "384kbps"], up_queue = "3KB", up_delay = "1s", idle = "3s" } }
                                      a rate that follows the demand (UMTS channel switching, net/bearer.rs);
                                      down_queue = "1KB", down_delay = "2s" add a step down on low demand
    delay = "10ms"  or  { at = ["0s", "250s"], value = ["50ms", "100ms"] }   (packets on the wire keep theirs)
    loss  = { model = "gilbert-elliott", p_good_to_bad = 0.01, p_bad_to_good = 0.3, loss_bad = 0.5 }
    arq   = { loss_rate = 0.1, retry_delay = "80ms", max_attempts = 4 }     (or loss = { ... } inside)
    outages = { rate = 0.05, duration = { exponential = "2s" } }    stalls independent of the load
    profile = "umts-2007-down"        a named profile's keys (cclab/link_profiles/), where the table has none
    outages = "none"                  no stalls (also arq, loss), even where the profile has them
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import BadValue
from .units import parse_byte_size, parse_duration, parse_rate

# The folder relative trace paths are read from: the scenario file's, while it is being loaded.
scenario_dir: ContextVar[Path | None] = ContextVar("scenario_dir", default=None)

RATE_ACCEPTED = ('a rate ("10Mbps"), { trace = "FILE", mean = "1Mbps" }, '
                 '{ at = ["0s", "10s"], value = ["10Mbps", "2Mbps"] }, { drawn = {...} } or { bearer = {...} }')
BEARER_ACCEPTED = ('{ bearer = { rates = ["64kbps", "128kbps", "384kbps"], up_queue = "3KB", up_delay = "1s", '
                   'idle = "3s" } }, optionally with down_queue = "1KB" and down_delay = "2s"')
DELAY_ACCEPTED = 'a duration ("10ms") or { at = ["0s", "250s"], value = ["50ms", "100ms"] }'


def _schedule(value: dict, parse, what: str, accepted: str) -> tuple[list[int], list[int]]:
    """{ at = [...], value = [...] } -> (times in ns, values), checked: same length, starts at 0, sorted."""
    if set(value) != {"at", "value"}:
        raise BadValue(f"is not a {what} schedule", accepted)
    at, values = value["at"], value["value"]
    if not isinstance(at, list) or not isinstance(values, list) or not at or len(at) != len(values):
        raise BadValue("at and value must be lists of the same, non-zero length", accepted)
    times = []
    for index, item in enumerate(at):
        try:
            times.append(parse_duration(item))
        except BadValue as exc:
            raise BadValue(exc.message, exc.accepted, subpath=("at", index)) from None
    if times[0] != 0:
        raise BadValue(f"the schedule starts at {times[0] / 1e9:g} s", "a first time of 0s", subpath=("at", 0))
    for index in range(1, len(times)):
        if times[index] <= times[index - 1]:
            raise BadValue("times are not increasing", "a sorted list of distinct times", subpath=("at", index))
    parsed = []
    for index, item in enumerate(values):
        try:
            parsed.append(parse(item))
        except BadValue as exc:
            raise BadValue(exc.message, exc.accepted, subpath=("value", index)) from None
    return times, parsed


@dataclass(frozen=True)
class TraceRate:
    path: str                        # absolute
    mean_bps: int | None             # scale the trace to this mean rate (None: as recorded)
    bytes_per_opportunity: int

    def engine(self) -> dict:
        return {"trace": {"path": self.path, "mean_bps": self.mean_bps,
                          "bytes_per_opportunity": self.bytes_per_opportunity}}


@dataclass(frozen=True)
class DrawnRate:
    """A rate constant for the run, drawn once by the engine from the run's seed (conditions that differ from
    one run to the next): `rate = { drawn = { uniform = ["100kbps", "384kbps"] } }`."""

    distribution: dict                # engine distribution, bit/s
    mean_bps: float

    def engine(self) -> dict:
        return {"drawn": {"rate_bps": self.distribution}}


@dataclass(frozen=True)
class BearerRate:
    """A rate that follows the demand (engine `net/bearer.rs`, UMTS R99 dedicated-channel switching): it starts
    on the lowest of `rates_bps`, steps up one rate `up_delay_ns` after an arrival leaves more than
    `up_queue_bytes` waiting, and falls back to the lowest after `idle_ns` with nothing to send. With
    `down_queue_bytes` and `down_delay_ns` (off when None) it also steps down one rate once fewer than
    `down_queue_bytes` have waited for `down_delay_ns` (3GPP TS 25.331 event 4b)."""

    rates_bps: tuple[int, ...]        # increasing
    up_queue_bytes: int
    up_delay_ns: int
    idle_ns: int
    down_queue_bytes: int | None = None
    down_delay_ns: int | None = None

    @property
    def peak_bps(self) -> int:
        return self.rates_bps[-1]

    def engine(self) -> dict:
        bearer = {"rates_bps": list(self.rates_bps), "up_queue_bytes": self.up_queue_bytes,
                  "up_delay_ns": self.up_delay_ns, "idle_ns": self.idle_ns}
        # Only when set, so that the run keys of bearers without a step down stay what they were.
        if self.down_queue_bytes is not None:
            bearer.update(down_queue_bytes=self.down_queue_bytes, down_delay_ns=self.down_delay_ns)
        return {"bearer": bearer}


def _parse_bearer(value: Any) -> BearerRate:
    keys = {"rates", "up_queue", "up_delay", "idle"}
    optional = {"down_queue", "down_delay"}
    if not isinstance(value, dict) or not keys <= set(value) <= keys | optional:
        missing = sorted(keys - set(value)) if isinstance(value, dict) else []
        unknown = sorted(set(value) - keys - optional) if isinstance(value, dict) else []
        what = f"unknown key {unknown[0]!r}" if unknown else f"no {missing[0]!r}" if missing else "not a table"
        raise BadValue(f"the bearer has {what}", BEARER_ACCEPTED)
    given = optional & set(value)
    if len(given) == 1:
        (alone,) = given
        (other,) = optional - given
        raise BadValue(f"the bearer's {alone} needs {other} (a step down on low demand takes both)",
                       'both, e.g. down_queue = "1KB", down_delay = "2s", or neither', subpath=(alone,))
    rates = value["rates"]
    if not isinstance(rates, list) or not rates:
        raise BadValue("the bearer's rates are not a list", 'lowest first, e.g. ["64kbps", "384kbps"]',
                       subpath=("rates",))
    parsed = []
    for index, item in enumerate(rates):
        try:
            rate = parse_rate(item)
        except BadValue as exc:
            raise BadValue(exc.message, exc.accepted, subpath=("rates", index)) from None
        if rate <= 0 or (parsed and rate <= parsed[-1]):
            raise BadValue(f"{item!r} is not above the rate before it", "positive rates, lowest first",
                           subpath=("rates", index))
        parsed.append(rate)
    fields: dict[str, int | None] = {"down_queue": None, "down_delay": None}
    for key, parse in (("up_queue", parse_byte_size), ("up_delay", parse_duration), ("idle", parse_duration),
                       ("down_queue", parse_byte_size), ("down_delay", parse_duration)):
        if key not in value:
            continue
        try:
            fields[key] = parse(value[key])
        except BadValue as exc:
            raise BadValue(exc.message, exc.accepted, subpath=(key,)) from None
    down_queue = fields["down_queue"]
    if down_queue is not None and not 1 <= down_queue <= fields["up_queue"]:
        raise BadValue(f"down_queue is {down_queue} B", f"1 B to up_queue ({fields['up_queue']} B): below it "
                       "demand is low, above up_queue it asks for a step up", subpath=("down_queue",))
    return BearerRate(tuple(parsed), fields["up_queue"], fields["up_delay"], fields["idle"],
                      down_queue, fields["down_delay"])


@dataclass(frozen=True)
class RateSchedule:
    at_ns: tuple[int, ...]
    rate_bps: tuple[int, ...]

    def engine(self) -> dict:
        return {"schedule": {"at_ns": list(self.at_ns), "rate_bps": list(self.rate_bps)}}


def parse_link_rate(value: Any) -> "int | TraceRate | RateSchedule | DrawnRate | BearerRate":
    if isinstance(value, (TraceRate, RateSchedule, DrawnRate, BearerRate)):
        return value
    if not isinstance(value, dict):
        rate = parse_rate(value)
        if rate <= 0:
            raise BadValue(f"{value!r} is no rate", "a positive rate")
        return rate
    if "bearer" in value:
        if set(value) != {"bearer"}:
            raise BadValue("a bearer rate has one key", BEARER_ACCEPTED)
        try:
            return _parse_bearer(value["bearer"])
        except BadValue as exc:
            raise BadValue(exc.message, exc.accepted, subpath=("bearer", *exc.subpath)) from None
    if "drawn" in value:
        if set(value) != {"drawn"}:
            raise BadValue("a drawn rate has one key", '{ drawn = { uniform = ["100kbps", "384kbps"] } }')
        drawn = _distribution_at(value, "drawn", parse_rate, "rate")
        if drawn.mean <= 0:
            raise BadValue("the drawn rate's mean is 0", "a distribution of positive rates", subpath=("drawn",))
        return DrawnRate(drawn.engine, drawn.mean)
    if "trace" in value:
        unknown = set(value) - {"trace", "mean", "bytes_per_opportunity"}
        if unknown:
            raise BadValue(f"unknown key {sorted(unknown)[0]!r} of a trace rate",
                           "trace, mean, bytes_per_opportunity", subpath=(sorted(unknown)[0],))
        if not isinstance(value["trace"], str) or not value["trace"]:
            raise BadValue(f"{value['trace']!r} is not a file name", 'a path such as "UMTS-driving.down"',
                           subpath=("trace",))
        path = Path(value["trace"])
        if not path.is_absolute():
            path = (scenario_dir.get() or Path.cwd()) / path
        try:
            found = path.is_file()
        except (OSError, ValueError):  # a name too long for the file system (found by the fuzzer), a NUL
            found = False
        if not found:
            raise BadValue(f"trace file {str(path)!r} does not exist",
                           "a Mahimahi trace: one delivery time in ms per line", subpath=("trace",))
        mean = None
        if "mean" in value:
            try:
                mean = parse_rate(value["mean"])
            except BadValue as exc:
                raise BadValue(exc.message, exc.accepted, subpath=("mean",)) from None
        size = value.get("bytes_per_opportunity", 1500)
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise BadValue(f"{size!r} is not a number of bytes", "a whole number of bytes such as 1500",
                           subpath=("bytes_per_opportunity",))
        return TraceRate(str(path.resolve()), mean, size)
    # A step may be 0 bit/s, an outage (README); rejecting it was found by tests/test_fuzz_scenario.py.
    times, rates = _schedule(value, lambda step: parse_rate(step, allow_zero=True), "rate", RATE_ACCEPTED)
    return RateSchedule(tuple(times), tuple(rates))


@dataclass(frozen=True)
class DelaySchedule:
    at_ns: tuple[int, ...]
    delay_ns: tuple[int, ...]

    def engine(self) -> dict:
        return {"at_ns": list(self.at_ns), "delay_ns": list(self.delay_ns)}


def parse_link_delay(value: Any) -> "int | DelaySchedule":
    if isinstance(value, DelaySchedule):
        return value
    if not isinstance(value, dict):
        return parse_duration(value)
    times, delays = _schedule(value, parse_duration, "delay", DELAY_ACCEPTED)
    return DelaySchedule(tuple(times), tuple(delays))


def _probability(table: dict, key: str, default: float | None = None) -> float:
    value = table.get(key, default)
    if value is None:
        raise BadValue(f"{key} is missing", "a probability in [0, 1]", subpath=(key,))
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise BadValue(f"{value!r} is not a probability", "a number in [0, 1]", subpath=(key,))
    return float(value)


GE_KEYS = ("p_good_to_bad", "p_bad_to_good", "loss_good", "loss_bad")
LOSS_ACCEPTED = ('{ model = "gilbert-elliott", p_good_to_bad = ..., p_bad_to_good = ..., loss_good = 0, '
                 'loss_bad = 1 } or { model = "bernoulli", rate = ... }')


def parse_loss_model(value: Any) -> dict:
    """-> the engine's loss model: {"bernoulli": p} or {"gilbert_elliott": {...}}."""
    if not isinstance(value, dict) or value.get("model") not in ("bernoulli", "gilbert-elliott"):
        raise BadValue(f"{value!r} is not a loss model", LOSS_ACCEPTED,
                       subpath=("model",) if isinstance(value, dict) else ())
    allowed = {"model", "rate"} if value["model"] == "bernoulli" else {"model", *GE_KEYS}
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise BadValue(f"unknown key {unknown[0]!r} of a {value['model']} loss model", ", ".join(sorted(allowed)),
                       subpath=(unknown[0],))
    if value["model"] == "bernoulli":
        return {"bernoulli": _probability(value, "rate")}
    return {"gilbert_elliott": {
        "p_good_to_bad": _probability(value, "p_good_to_bad"),
        "p_bad_to_good": _probability(value, "p_bad_to_good"),
        "loss_good": _probability(value, "loss_good", 0.0),
        "loss_bad": _probability(value, "loss_bad", 1.0),
    }}


@dataclass(frozen=True)
class Arq:
    loss: dict               # engine loss model of each attempt
    retry_delay_ns: int
    max_attempts: int

    def engine(self) -> dict:
        return {"loss": self.loss, "retry_delay_ns": self.retry_delay_ns, "max_attempts": self.max_attempts}


ARQ_ACCEPTED = '{ loss_rate = 0.1, retry_delay = "80ms", max_attempts = 4 } (or loss = { model = ... })'


def parse_arq(value: Any) -> Arq:
    if isinstance(value, Arq):
        return value
    if not isinstance(value, dict):
        raise BadValue(f"{value!r} is not a link-layer ARQ", ARQ_ACCEPTED)
    unknown = sorted(set(value) - {"loss_rate", "loss", "retry_delay", "max_attempts"})
    if unknown:
        raise BadValue(f"unknown key {unknown[0]!r} of an ARQ", "loss_rate or loss, retry_delay, max_attempts",
                       subpath=(unknown[0],))
    if ("loss_rate" in value) == ("loss" in value):
        raise BadValue("an ARQ needs the loss of each attempt", "either loss_rate or loss = { model = ... }")
    if "loss" in value:
        try:
            loss = parse_loss_model(value["loss"])
        except BadValue as exc:
            raise BadValue(exc.message, exc.accepted, subpath=("loss", *exc.subpath)) from None
    else:
        loss = {"bernoulli": _probability(value, "loss_rate")}
    if "retry_delay" not in value:
        raise BadValue("retry_delay is missing", "the link-layer round trip, e.g. \"80ms\"", subpath=("retry_delay",))
    try:
        retry = parse_duration(value["retry_delay"])
    except BadValue as exc:
        raise BadValue(exc.message, exc.accepted, subpath=("retry_delay",)) from None
    attempts = value.get("max_attempts", 4)
    if not isinstance(attempts, int) or isinstance(attempts, bool) or attempts < 1:
        raise BadValue(f"{attempts!r} is not a number of attempts", "a whole number of at least 1",
                       subpath=("max_attempts",))
    return Arq(loss, retry, attempts)


@dataclass(frozen=True)
class Outages:
    """Stalls of the transmitter drawn on the clock, independent of the load (engine `net/outage.rs`):
    a gap, an outage, a gap, ... Each is an engine distribution in ns."""

    gap: dict                # time from the end of one outage to the start of the next
    duration: dict           # length of one outage
    mean_gap_ns: float
    mean_duration_ns: float

    def engine(self) -> dict:
        return {"gap_ns": self.gap, "duration_ns": self.duration}

    @property
    def rate_per_s(self) -> float:
        """Outages per second of the run, in the long run: 1 / (mean gap + mean duration)."""
        return 1e9 / (self.mean_gap_ns + self.mean_duration_ns)


OUTAGES_ACCEPTED = ('{ rate = 0.05, duration = { lognormal = { mean = "3s", sigma = 0.8 } } } '
                    '(rate: outages per second, Poisson; or gap = a distribution of the time between them)')


def parse_outages(value: Any) -> Outages:
    """`rate` (per second: exponential gaps of mean 1/rate) or `gap` (any distribution), and `duration`."""
    if isinstance(value, Outages):
        return value
    if not isinstance(value, dict):
        raise BadValue(f"{value!r} is not an outage process", OUTAGES_ACCEPTED)
    unknown = sorted(set(value) - {"rate", "gap", "duration"})
    if unknown:
        raise BadValue(f"unknown key {unknown[0]!r} of an outage process", "rate or gap, duration",
                       subpath=(unknown[0],))
    if ("rate" in value) == ("gap" in value):
        raise BadValue("the outages need their frequency", "either rate (per second) or gap (a distribution)")
    if "rate" in value:
        rate = value["rate"]
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not rate > 0:
            raise BadValue(f"{rate!r} is not a rate", "a number of outages per second above 0", subpath=("rate",))
        gap = {"exponential": 1e9 / float(rate)}
        mean_gap = 1e9 / float(rate)
    else:
        drawn = _distribution_at(value, "gap", parse_duration, "duration")
        if drawn.mean <= 0:
            raise BadValue("the mean gap is 0", "a gap of mean above 0", subpath=("gap",))
        gap, mean_gap = drawn.engine, drawn.mean
    if "duration" not in value:
        raise BadValue("duration is missing", 'a duration or distribution, e.g. { exponential = "2s" }',
                       subpath=("duration",))
    duration = _distribution_at(value, "duration", parse_duration, "duration")
    return Outages(gap, duration.engine, mean_gap, duration.mean)


def _distribution_at(table: dict, key: str, parse, what: str):
    """`table[key]` parsed as a distribution of `what` (cclab.distributions), its errors naming the key."""
    from .distributions import parse_distribution  # distributions imports this module

    try:
        return parse_distribution(table[key], parse, what)
    except BadValue as exc:
        raise BadValue(exc.message, exc.accepted, subpath=(key, *exc.subpath)) from None


# --- named link profiles -----------------------------------------------------------------------------

PROFILES_DIR = Path(__file__).parent / "link_profiles"


def profile_names() -> list[str]:
    return sorted(path.stem for path in PROFILES_DIR.glob("*.toml"))


def load_profile(name: Any) -> dict:
    """The keys of a named one-way link profile (`cclab/link_profiles/NAME.toml`, written by `cclab
    calibrate`): rate, delay, queue, arq, outages as a scenario writes them."""
    from . import _toml

    if not isinstance(name, str) or not (PROFILES_DIR / f"{name}.toml").is_file():
        raise BadValue(f"{name!r} is not a link profile", "one of " + ", ".join(profile_names()))
    data = _toml.loads((PROFILES_DIR / f"{name}.toml").read_text(encoding="utf-8"))
    return {key: value for key, value in data.items() if key != "calibration"}


# The parts of a link it may be without: `outages = "none"` in a table takes a profile's stalls away (seed
# 002's downlink carrying only the ACKs of uplink flows: docs/reproductions/seed002.md).
REMOVABLE = ("loss", "arq", "outages")


def apply_profile(data: Any, keys: tuple[str, ...]) -> Any:
    """A link table with `profile = "NAME"`: the profile's keys (those in `keys`) where the table gives
    none, so that `--set` and the file's own keys win over the profile. A removable part (REMOVABLE) given
    as "none" is left out, profile or not: the link has none of it."""
    if not isinstance(data, dict):
        return data
    merged: dict = {}
    if "profile" in data:
        try:
            profile = load_profile(data["profile"])
        except BadValue as exc:
            raise BadValue(exc.message, exc.accepted, subpath=("profile",)) from None
        merged = {key: value for key, value in profile.items() if key in keys}
    merged.update({key: value for key, value in data.items() if key != "profile"})
    return {key: value for key, value in merged.items() if not (key in REMOVABLE and value == "none")}
