"""Hypothesis strategies for the scenario front's fuzzers (tests/test_fuzz_scenario.py).

`Schema(...).scenarios()` draws TOML documents biased toward the real schema (python/cclab/scenario.py,
link_models.py): the dumbbell (`[network.bottleneck]`) and networks of links (`[[network.links]]` with
routes), queue tables of every discipline the engine lists with random parameters, rate and delay
schedules, traces, loss models, ARQ tables and flows. Two flavours, drawn two to one:
- *clean*: plausible values only (good units, parameters near their defaults), so that most documents run
  and the engine is fuzzed with configs the front accepts;
- *dirty*: any value may be junk of any TOML type, any table may carry an unknown key, and quantities are
  numbers and unit words right or wrong, so that every error path is taken.
`to_toml` writes a drawn document as TOML text, so the file reader sees what the dict path sees.
"""

from __future__ import annotations

import datetime
import math
import re

from hypothesis import strategies as st

from cclab.units import BYTE_UNITS, DURATION_UNITS, RATE_UNITS

# --- junk: any TOML value --------------------------------------------------------------------------------

TOML_SCALARS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),       # TOML integers are 64-bit signed
    st.sampled_from([0, 1, -1, 2**31, 2**32, 2**53 + 1, 2**63 - 1, -(2**63)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=12),
    st.sampled_from(["", " ", "0", "1", "nan", "inf", "-1", "1e999", "Mbps", "bdp", "{}", "[]", "\n", "=", "."]),
    st.dates(min_value=datetime.date(1, 1, 1)),
    st.datetimes(),
    st.times(),
)

JUNK = st.recursive(
    TOML_SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6,
)

# --- quantities ------------------------------------------------------------------------------------------

NUMBER_TEXT = st.one_of(
    st.integers(min_value=0, max_value=10**4).map(str),
    st.decimals(min_value=0, max_value=10**4, places=3, allow_nan=False, allow_infinity=False).map(str),
    st.integers(min_value=-(10**20), max_value=10**25).map(str),
    st.builds(lambda m, e: f"{m}e{e}", st.integers(-9, 99), st.integers(-40, 40)),
    st.sampled_from(["0", "0.0", "-0", "+1", "1.", ".5", "-1", "1e-9", "1e400", "1e999999999", "-1e999999999",
                     "1e-999999999", "1E+3", "NaN", "Infinity", "-inf", "0x10", "1_000", "1..2", "", "e3", "½",
                     "١٠", "18446744073709551615", "18446744073709551616", "1.00000000000000000000000000001"]),
)

SPACES = st.sampled_from(["", "", "", " ", "  ", "\t", "\u00a0"])


def quantity(units: list[str]) -> st.SearchStrategy:
    """A number and a unit word, as people write them ('2.5 ms'), the word right or wrong."""
    words = st.one_of(st.sampled_from(units), st.sampled_from(["", "x", "bits", "ms ", " s", "kB/s", "µ", "Ms"]),
                      st.text(max_size=4))
    return st.builds(lambda lead, n, sp, u, tail: f"{lead}{n}{sp}{u}{tail}", SPACES, NUMBER_TEXT, SPACES, words,
                     SPACES)


RATE_WORDS = list(RATE_UNITS) + ["Tbps", "mbps", "bit/s"]
DURATION_WORDS = list(DURATION_UNITS) + ["h", "sec", "msec"]
QUEUE_WORDS = list(BYTE_UNITS) + ["", "packets", "pkts", "bdp", "BDP", "kbdp"]

RATE_TEXT = st.one_of(quantity(RATE_WORDS), st.integers(-5, 10**12), st.floats())
DURATION_TEXT = st.one_of(quantity(DURATION_WORDS), st.integers(-5, 10**12), st.floats())
QUEUE_SIZE_TEXT = st.one_of(quantity(QUEUE_WORDS), st.integers(-5, 10**7), st.floats())

# Values that make runnable scenarios.
GOOD_RATES = st.sampled_from(["1Mbps", "10Mbps", "100Mbps", "1Gbps", "384kbps", "64kbps", "2.5Mbps", "10Gbps",
                              "1500000", 12_000_000])
GOOD_DELAYS = st.sampled_from(["0s", "1ms", "2.5ms", "10ms", "50ms", "100us", "0.3ms", 0, "1 ms"])
GOOD_SIZES = st.sampled_from(["1", "2", "10", "100", "0.1bdp", "1bdp", "2.5bdp", "150KB", "64KiB", "1MB", "3000B",
                              5, "20 packets"])
GOOD_PROBABILITIES = st.one_of(st.just(0.0), st.floats(0, 0.3), st.sampled_from([0, 0.5]))


def nudged(default):
    """A value near a parameter's default: numbers scaled by 1/2..2 (0 stays small), booleans either way."""
    if isinstance(default, bool):
        return st.booleans()
    if isinstance(default, int):
        return st.integers(*sorted((default // 2, default * 2 or 1)))
    if isinstance(default, float):
        return st.floats(*sorted((default / 2, default * 2))) if default else st.floats(0, 1)
    return st.just(default)


def parameter_value(name: str) -> st.SearchStrategy:
    """Any value for a discipline's or an algorithm's parameter, from its name's unit suffix."""
    if name.endswith("_ns"):
        return st.one_of(st.integers(-1, 10**9), st.integers(0, 2**64 - 1), DURATION_TEXT)
    if name.endswith(("_bytes", "_packets")) or name in ("flows", "drop_batch"):
        return st.one_of(st.integers(-1, 100_000), st.just(0), st.integers(0, 2**64))
    return st.one_of(st.floats(-2, 2), st.floats(), st.integers(-3, 100), st.booleans(), st.text(max_size=6))


class Schema:
    """The scenario schema as strategies; `junk` says whether values may be anything (dirty) or not."""

    NODES = ["a", "b", "r1", "r2", "r3"]

    def __init__(self, algorithms: list[dict], queues: list[dict], trace_path: str, junk: bool):
        self.algorithms, self.queues, self.trace_path, self.junk = algorithms, queues, trace_path, junk
        self.rate = self.mostly(GOOD_RATES, RATE_TEXT)
        self.delay = self.mostly(GOOD_DELAYS, DURATION_TEXT)
        self.size = self.mostly(GOOD_SIZES, QUEUE_SIZE_TEXT)
        self.probability = self.mostly(GOOD_PROBABILITIES, st.one_of(st.floats(), st.integers(-1, 2)))

    def mostly(self, good: st.SearchStrategy, bad: st.SearchStrategy | None = None) -> st.SearchStrategy:
        """Clean: `good`. Dirty: `good` half the time, else `bad` or junk of any type."""
        if not self.junk:
            return good
        return st.one_of(good, good, *([bad] if bad is not None else []), JUNK)

    def table(self, required: dict, optional: dict) -> st.SearchStrategy:
        """A TOML table with these keys, optional ones present or not; dirty: now and then an unknown key."""
        base = st.fixed_dictionaries(required, optional=optional)
        if not self.junk:
            return base
        extra = st.dictionaries(st.sampled_from(["colour", "Rate", "size ", "", "name", "queue"]), JUNK, max_size=1)
        return st.one_of(base, base, st.builds(lambda a, b: {**b, **a}, base, extra))

    def few(self, optional: dict, most: int) -> st.SearchStrategy:
        """At most `most` of the optional keys (a table with every optional key is rarely what is meant)."""
        if not optional:
            return st.just({})
        keys = sorted(optional)
        return st.lists(st.sampled_from(keys), max_size=most, unique=True).flatmap(
            lambda chosen: st.fixed_dictionaries({k: optional[k] for k in chosen}))

    # --- links ---------------------------------------------------------------------------------------------

    def schedule(self, values: st.SearchStrategy) -> st.SearchStrategy:
        """{ at = [...], value = [...] }: clean, increasing from 0s and of equal length; dirty, anything."""
        good = st.integers(1, 4).flatmap(lambda n: st.fixed_dictionaries({
            "at": st.lists(st.integers(1, 3), min_size=n - 1, max_size=n - 1).map(
                lambda steps: ["0s"] + [f"{sum(steps[:i + 1])}ms" for i in range(len(steps))]),
            "value": st.lists(values, min_size=n, max_size=n),
        }))
        if not self.junk:
            return good
        odd = st.fixed_dictionaries({"at": self.mostly(st.lists(DURATION_TEXT, max_size=4)),
                                     "value": self.mostly(st.lists(values, max_size=4))})
        return st.one_of(good, good, odd)

    def link_rate(self) -> st.SearchStrategy:
        trace = self.table({"trace": self.mostly(st.just(self.trace_path), st.sampled_from(["no-such.trace", ""]))},
                           {"mean": self.rate, "bytes_per_opportunity": self.mostly(st.integers(1, 3000),
                                                                                    st.integers(-2, 70_000))})
        return st.one_of(self.rate, self.rate, self.schedule(st.one_of(GOOD_RATES, st.just("0bps"), self.rate)),
                         trace)

    def link_delay(self) -> st.SearchStrategy:
        return st.one_of(self.delay, self.delay, self.schedule(self.delay))

    def loss_model(self) -> st.SearchStrategy:
        p = self.probability
        models = [self.table({"model": st.just("bernoulli"), "rate": p}, {}),
                  self.table({"model": st.just("gilbert-elliott"), "p_good_to_bad": p, "p_bad_to_good": p},
                             {"loss_good": p, "loss_bad": p})]
        if self.junk:
            models.append(self.table({"model": st.sampled_from(["gilbert", "Bernoulli", ""])}, {"rate": p}))
        return self.mostly(st.one_of(*models))

    def arq(self) -> st.SearchStrategy:
        attempts = self.mostly(st.integers(1, 8), st.integers(-1, 8))
        tables = [self.table({"loss_rate": self.probability, "retry_delay": self.delay}, {"max_attempts": attempts}),
                  self.table({"loss": self.loss_model(), "retry_delay": self.delay}, {"max_attempts": attempts})]
        if self.junk:
            tables.append(self.table({}, {"loss_rate": self.probability, "loss": self.loss_model(),
                                          "retry_delay": self.delay, "max_attempts": attempts}))
        return self.mostly(st.one_of(*tables))

    def queue(self) -> st.SearchStrategy:
        """{ discipline = ..., size = ..., parameters } for every discipline the engine lists."""
        def for_discipline(entry: dict) -> st.SearchStrategy:
            defaults = {k: v for variant in entry["variants"] for k, v in (variant.get("parameters") or {}).items()}
            names = sorted({p["name"] for p in entry["parameters"]} | set(defaults))
            if self.junk:
                # A duration parameter may also be written without its _ns suffix and with a unit.
                spelled = {n: parameter_value(n) for n in names}
                spelled.update({n[:-3]: st.one_of(DURATION_TEXT, RATE_TEXT) for n in names if n.endswith("_ns")})
                params = self.few(spelled, 3)
            else:
                near = {n: nudged(defaults[n]) for n in names if defaults.get(n) is not None}
                near.update({n[:-3]: st.sampled_from(["1ms", "5ms", "20ms", "100ms"])
                             for n in names if n.endswith("_ns") and n[:-3] in ("target", "interval")})
                params = self.few(near, 1)
            variant = st.fixed_dictionaries({}, optional={"variant": self.mostly(
                st.sampled_from([v["name"] for v in entry["variants"]] or ["x"]))})
            return st.builds(lambda base, p, v: {**base, **p, **v},
                             self.table({"discipline": st.just(entry["name"]), "size": self.size}, {}), params, variant)
        every = [for_discipline(entry) for entry in self.queues]
        if self.junk:
            every.append(self.table({}, {"discipline": self.mostly(st.just("fifo")), "size": self.size}))
        return self.mostly(st.one_of(*every))

    def direction(self) -> st.SearchStrategy:
        return self.table({}, {"rate": self.link_rate(), "delay": self.link_delay(), "queue": self.queue(),
                               "loss_rate": self.probability, "loss": self.loss_model(), "arq": self.arq()})

    def link_options(self) -> dict:
        return {"loss_rate": self.probability, "loss": self.loss_model(), "arq": self.arq(),
                "reverse": self.direction()}

    # --- flows ---------------------------------------------------------------------------------------------

    def cc(self) -> st.SearchStrategy:
        names = [a["name"] for a in self.algorithms] + [alias for a in self.algorithms for alias in a.get("aliases") or []]

        def as_table(entry: dict) -> st.SearchStrategy:
            variants = [v["name"] for v in entry["variants"]]
            if self.junk:
                params = {p["name"]: parameter_value(p["name"]) for p in entry["parameters"]}
                params["variant"] = self.mostly(st.sampled_from(variants))
                chosen = self.few(params, 4)
            else:
                defaults = next(v["parameters"] for v in entry["variants"] if v["name"] == entry["default_variant"])
                near = {k: nudged(v) for k, v in defaults.items() if v is not None and not isinstance(v, str)}
                chosen = st.builds(lambda v, p: {**v, **p}, st.fixed_dictionaries({}, optional={
                    "variant": st.sampled_from(variants)}), self.few(near, 1))
            return st.builds(lambda p: {"name": entry["name"], **p}, chosen)
        bad = st.sampled_from(["tahoe", "", "CUBIC"]) if self.junk else None
        return self.mostly(st.one_of(st.sampled_from(names), *[as_table(a) for a in self.algorithms]), bad)

    def flow(self, route: st.SearchStrategy | None) -> st.SearchStrategy:
        # Starts and stops within the first milliseconds, so that the few ms the fuzzer runs see them.
        start = self.mostly(st.sampled_from(["0s", "1ms", "2ms", "0.5ms"]), DURATION_TEXT)
        optional = {
            "count": self.mostly(st.integers(1, 3), st.sampled_from([0, -1, 10**6, 2**40, 2**64])),
            "access_delay": self.mostly(st.one_of(GOOD_DELAYS, st.fixed_dictionaries(
                {"spread": st.lists(self.delay, min_size=2, max_size=2)})), DURATION_TEXT),
            "start": start, "start_jitter": start,
            "stop": self.mostly(st.sampled_from(["3ms", "4ms", "1s"]), DURATION_TEXT),
            "recovery": self.mostly(st.sampled_from(["sack", "newreno", "linux-2.6", "prr", "prr-rfc6937", "ns2-sack1"])),
            "delayed_ack": self.mostly(st.booleans()),
            "initial_cwnd": self.mostly(st.integers(1, 100), st.sampled_from([0, 2**31, 2**32, 2**63 - 1])),
            "rto_min": self.delay,
            "rwnd": self.mostly(st.integers(1, 10**6), st.sampled_from([0, 2**32, 2**63 - 1, 2**64])),
            "overhead": self.delay,
            "overhead_model": self.mostly(st.sampled_from(["per-packet", "delayed-send"])),
        }
        if self.junk:
            optional.update(src_access_delay=optional["access_delay"], dst_access_delay=optional["access_delay"])
        if route is not None:
            for key in ("access_delay", "src_access_delay", "dst_access_delay", "overhead"):
                optional.pop(key, None)  # allowed over links only when zero
            optional["ack_route"] = route
            return st.builds(lambda base, rest: {**base, **rest},
                             self.table({"cc": self.cc(), "route": route}, {}), self.few(optional, 4))
        return st.builds(lambda base, rest: {**base, **rest}, self.table({"cc": self.cc()}, {}),
                         self.few(optional, 4))

    def run(self) -> st.SearchStrategy:
        return self.table(
            {"duration": self.mostly(st.sampled_from(["1s", "10ms", "2000s", "5ms", "3ms"]), DURATION_TEXT)},
            {"measure_from": self.mostly(st.sampled_from(["0s", "1ms", "2ms"]), DURATION_TEXT),
             "seed": self.mostly(st.integers(0, 1000), st.sampled_from([-1, 2**64 - 1, 2**64])),
             "sample_interval": self.mostly(st.sampled_from(["0s", "1ms", "100ms", "10us"]), DURATION_TEXT)})

    def network_common(self) -> dict:
        return {"packet_size": self.mostly(st.sampled_from([1500, 1000, 576, 9000]),
                                           st.one_of(st.integers(-1, 70_000), st.sampled_from([41, 2**32]))),
                "header_size": self.mostly(st.sampled_from([40, 52]), st.integers(-1, 1600)),
                "ack_size": self.mostly(st.sampled_from([40, 64]), st.one_of(st.integers(-1, 70_000),
                                                                            st.sampled_from([2**32])))}

    # --- documents -----------------------------------------------------------------------------------------

    def dumbbell(self) -> st.SearchStrategy:
        bottleneck = st.builds(lambda base, rest: {**base, **rest},
                               self.table({"rate": self.link_rate(), "delay": self.link_delay(), "queue": self.queue()},
                                          {}),
                               self.few({"reverse_queue": self.queue(), **self.link_options()}, 2))
        if not self.junk:
            bottleneck = bottleneck.map(_reverse_rate_when_needed)
        network = self.table({"bottleneck": bottleneck}, {**self.network_common(), "access_rate": self.rate})
        return self.table({"network": network, "flows": self.mostly(st.lists(self.flow(None), min_size=1, max_size=3)),
                           "run": self.run()}, {})

    def links_network(self) -> st.SearchStrategy:
        """Links among a few nodes and flows routed over them: a chain a-r1-r2-b (so that routes exist)
        plus random links; routes along the chain, or (dirty) anywhere."""
        node = self.mostly(st.sampled_from(self.NODES))

        def link(ends: st.SearchStrategy) -> st.SearchStrategy:
            options = {"queue": self.queue(), **self.link_options()}
            if self.junk:  # one-way links and names make clashes and routes without a way back
                options.update(duplex=self.mostly(st.booleans()), name=self.mostly(st.sampled_from(["core", "r1-r2"])))
            return st.builds(lambda e, base, rest: {"from": e[0], "to": e[1], **base, **rest}, ends,
                             self.table({"rate": self.link_rate(), "delay": self.link_delay()}, {}),
                             self.few(options, 3))
        chain = [("a", "r1"), ("r1", "r2"), ("r2", "b")]
        ends = st.tuples(node, node)
        if not self.junk:  # a link beside the chain, between two other nodes
            ends = st.sampled_from([("r2", "r3"), ("r3", "b"), ("a", "r3")])
        links = st.builds(lambda fixed, extra: fixed + extra,
                          st.tuples(*[link(st.just(e)) for e in chain]).map(list),
                          st.lists(link(ends), max_size=1 if not self.junk else 2, unique_by=lambda l: repr((l["from"], l["to"]))))
        route = self.mostly(st.sampled_from([["a", "r1", "r2", "b"], ["r1", "r2"], ["a", "r1"]]),
                            st.one_of(st.just(["b", "r2", "r1", "a"]), st.lists(node, max_size=5)))
        node_table = self.table({}, {"processing_delay": self.delay, "processing_jitter": self.delay})
        names = st.sampled_from(self.NODES)
        if self.junk:
            names = st.one_of(names, st.text(max_size=3))
        network = self.table({"links": self.mostly(links)},
                             {**self.network_common(), "rtt": self.delay,
                              "bottleneck_link": self.mostly(st.sampled_from(["r1-r2", "a-r1"]), st.just("nope")),
                              "nodes": self.mostly(st.dictionaries(names, node_table, max_size=2))})
        return self.table({"network": network,
                           "flows": self.mostly(st.lists(self.flow(route), min_size=1, max_size=3)), "run": self.run()},
                          {})

    def scenarios(self) -> st.SearchStrategy:
        shapes = [self.dumbbell(), self.links_network()]
        if self.junk:
            shapes.append(st.dictionaries(st.sampled_from(["network", "flows", "run", "Network", "x"]), JUNK,
                                          max_size=4))
        return st.one_of(*shapes)


def _reverse_rate_when_needed(bottleneck: dict) -> dict:
    """A bottleneck whose rate follows a trace or schedule needs the rate of its way back."""
    if isinstance(bottleneck["rate"], dict) and not isinstance(bottleneck.get("reverse"), dict):
        return {**bottleneck, "reverse": {"rate": "1Mbps"}}
    if isinstance(bottleneck["rate"], dict) and "rate" not in bottleneck["reverse"]:
        return {**bottleneck, "reverse": {**bottleneck["reverse"], "rate": "1Mbps"}}
    return bottleneck


def scenarios(algorithms: list[dict], queues: list[dict], trace_path: str) -> st.SearchStrategy:
    """Clean and dirty documents, two to one (most dirty ones stop at the first bad value)."""
    clean = Schema(algorithms, queues, trace_path, junk=False).scenarios()
    return st.one_of(clean, clean, Schema(algorithms, queues, trace_path, junk=True).scenarios())


# --- --set ------------------------------------------------------------------------------------------------

SET_PATHS = [
    "run.seed", "run.duration", "run.measure_from", "run.sample_interval", "flows.0.cc", "flows.0.cc.name",
    "flows.0.cc.beta", "flows.0.count", "flows.1.cc", "flows.0.recovery", "flows.0.start", "flows.0.stop",
    "flows.0.initial_cwnd", "network.packet_size", "network.bottleneck.rate", "network.bottleneck.delay",
    "network.bottleneck.queue.size", "network.bottleneck.queue.discipline", "network.bottleneck.queue",
    "network.bottleneck.reverse.rate", "network.bottleneck.loss", "network.bottleneck.arq.max_attempts",
    "network.links.0.rate", "network.links", "flows", "run", "network", "flows.x", "flows.-1", "run.seed.x",
    "", ".", "a..b", " run . seed ",
]
SET_VALUES = st.one_of(
    st.sampled_from(["3", "cubic", '"cubic"', "200Mbps", "1bdp", "{ name = \"cubic\", beta = 0.8 }", "[1, 2]",
                     "true", "nan", "inf", "1979-05-27", "07:32:00", "1e400", "", "=", "\"unterminated",
                     "{ discipline = \"codel\", size = \"100\", target = \"5ms\" }", "a\nb = 1", "'lit'",
                     "{ at = [\"0s\"], value = [\"1Mbps\"] }", "5ms", "10ms", "linux-2.6"]),
    RATE_TEXT.map(str), DURATION_TEXT.map(str), st.text(max_size=10),
)
OVERRIDE = st.one_of(
    st.builds(lambda k, v: f"{k}={v}", st.sampled_from(SET_PATHS), SET_VALUES),
    st.text(max_size=20),
)


# --- TOML text -------------------------------------------------------------------------------------------

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _string(key)


def _string(text: str) -> str:
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        text = repr(value)
        return text if any(c in text for c in ".en") else text + ".0"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(str(k))} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML form for {value!r}")


def to_toml(document: dict) -> str:
    """The document as TOML text: one `key = value` line per top-level key, tables inline."""
    return "".join(f"{_key(str(k))} = {_value(v)}\n" for k, v in document.items())
