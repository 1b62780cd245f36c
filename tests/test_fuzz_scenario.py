"""Fuzzing the scenario front (hypothesis): any TOML document, any `--set`, any unit string.

Whatever goes in, one of two things must come out:
- a valid engine config, which the engine accepts (or rejects with a `field: message` that the runner turns
  into a ScenarioError naming that field) and runs for a few ms of simulated time without a panic; or
- one ScenarioError (or, for a single unit string, one BadValue) whose every line names a field.
Never a traceback, never a Rust panic. The documents are drawn by tests/fuzz_strategies.py.

The in-suite size is small (the `ci` profile in conftest.py: a few seconds in all). A long run:

    CCLAB_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest tests/test_fuzz_scenario.py --hypothesis-profile=fuzz

Every crash the fuzzers found has a regression test at the end of this file (docs/testing.md lists them).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from engine_required import need

need("cclab._engine")

import cclab.engine  # noqa: E402  (after the engine check)
from cclab import runner  # noqa: E402
from cclab.errors import BadValue, ScenarioError, field_path  # noqa: E402
from cclab.scenario import load_scenario  # noqa: E402
from cclab.units import parse_duration, parse_queue_size, parse_rate  # noqa: E402

import fuzz_strategies as fs  # noqa: E402

ENGINE = cclab.engine.load_engine()
ALGORITHMS = cclab.engine.algorithm_list()
QUEUES = cclab.engine.queue_list()

# A small Mahimahi trace (one delivery opportunity per line, in ms) for `rate = { trace = ... }`.
_TRACE_DIR = Path(tempfile.mkdtemp(prefix="cclab-fuzz-"))
TRACE = _TRACE_DIR / "tiny.trace"
TRACE.write_text("1\n1\n2\n3\n5\n8\n")

# Simulated time each accepted scenario runs: enough for flows to start, a few RTTs of the fast cases.
HORIZON_NS = 5_000_000
# At most this many samples per flow, so that a 1 ns sample interval does not make a slow example.
MAX_SAMPLES = 2_000

EXAMPLE_TOML = Path(__file__).resolve().parents[1] / "examples" / "seed000-newreno.toml"
SECTIONS = {"network", "flows", "run"}


def check_error(error: ScenarioError, document: dict | None, file: str | None = None, overrides=()) -> None:
    """Every problem names a field: a key of the document or of an override, a section, --set or the file;
    one line each."""
    lines = str(error).split("\n")
    assert len(lines) == len(error.problems), str(error)
    for problem, line in zip(error.problems, lines):
        assert problem.field, f"a problem without a field: {line}"
        assert problem.message.strip(), f"a problem without a message: {line}"
        assert line.startswith(f"scenario error: {problem.field}: "), line
        known = SECTIONS | {field_path((key,)) for key in document or ()} | {"--set"} | {
            field_path((o.partition("=")[0].split(".")[0].strip(),)) for o in overrides}
        assert any(problem.field == head or problem.field.startswith(head + ".") for head in known) \
            or problem.field == file, f"{problem.field!r} is not a field: {line}"
        assert problem.field not in ("config", "engine config"), f"the engine could not read the config: {line}"


def run_briefly(config: dict) -> str:
    """Build the simulation as the runner does and run it a few ms; read every result it offers."""
    text = json.dumps(config, allow_nan=False)  # NaN or infinity would not be JSON the engine reads
    try:
        simulation = runner._build(ENGINE, config)
    except ScenarioError as exc:
        check_error(exc, None)
        assert exc.field.split(".")[0] in SECTIONS, str(exc)
        return "rejected by the engine"
    assert json.loads(text) == config
    horizon = min(config["run"]["duration_ns"], HORIZON_NS)
    interval = config["run"]["sample_interval_ns"]
    if interval:
        horizon = min(horizon, interval * MAX_SAMPLES)
    simulation.run_until(horizon)
    assert simulation.now_ns == horizon
    summary = json.loads(simulation.summary_json())
    assert len(summary["flows"]) == len(config["flows"])
    simulation.timeseries()
    simulation.link_series()
    return "ran " + ("links" if "topology" in config else "dumbbell")


def outcome(source, overrides=(), document: dict | None = None, file: str | None = None) -> str:
    try:
        config = load_scenario(source, overrides).to_engine_config()
    except ScenarioError as exc:
        check_error(exc, document if document is not None else source if isinstance(source, dict) else None, file,
                    overrides)
        # The statistics (--hypothesis-show-statistics) then say which fields the errors were about.
        event("error: " + exc.field.split(".")[-1] if exc.field.split(".")[0] in SECTIONS else "error: other")
        return "error"
    event("accepted: " + run_briefly(config))
    return "ran"


FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])


# --- whole documents -------------------------------------------------------------------------------------

@FUZZ
@given(fs.scenarios(ALGORITHMS, QUEUES, str(TRACE)))
def test_any_scenario_document_runs_or_names_its_fields(document):
    outcome(document)


@FUZZ
@given(fs.scenarios(ALGORITHMS, QUEUES, str(TRACE)))
def test_any_scenario_file_runs_or_names_its_fields(tmp_path_factory, document):
    path = tmp_path_factory.mktemp("toml") / "scenario.toml"
    path.write_text(fs.to_toml(document), encoding="utf-8")
    outcome(path, document=document, file=str(path))


@FUZZ
@given(st.one_of(st.text(max_size=200), st.binary(max_size=100).map(lambda b: b.decode("latin-1")),
                 st.builds(lambda a, b: a + b, st.just(EXAMPLE_TOML.read_text()), st.text(max_size=40))))
def test_any_text_is_a_scenario_or_one_error_about_the_file(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("toml") / "junk.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    outcome(path, file=str(path))


# --- --set -------------------------------------------------------------------------------------------------

@FUZZ
@given(st.lists(fs.OVERRIDE, min_size=1, max_size=3))
def test_any_override_of_the_example_runs_or_names_its_field(overrides):
    document = load_scenario(EXAMPLE_TOML)._raw
    outcome(document, overrides)


@FUZZ
@given(fs.scenarios(ALGORITHMS, QUEUES, str(TRACE)), st.lists(fs.OVERRIDE, min_size=1, max_size=2))
def test_any_override_of_any_document_runs_or_names_its_field(document, overrides):
    outcome(document, overrides)


# --- unit strings ------------------------------------------------------------------------------------------

def parsed_or_bad(parse, value):
    try:
        return parse(value)
    except BadValue as exc:
        assert exc.message.strip() and "\n" not in str(exc), str(exc)
        return None


@FUZZ
@given(st.one_of(fs.RATE_TEXT, fs.JUNK))
def test_any_rate_is_a_positive_integer_or_bad_value(value):
    bps = parsed_or_bad(parse_rate, value)
    assert bps is None or (isinstance(bps, int) and 0 < bps < 2**64)


@FUZZ
@given(st.one_of(fs.DURATION_TEXT, fs.JUNK))
def test_any_duration_is_a_non_negative_integer_or_bad_value(value):
    ns = parsed_or_bad(parse_duration, value)
    assert ns is None or (isinstance(ns, int) and 0 <= ns < 2**64)


@FUZZ
@given(st.one_of(fs.QUEUE_SIZE_TEXT, fs.JUNK), st.integers(1, 10**12), st.integers(0, 10**12),
       st.integers(41, 65_535), st.integers(1, 65_535))
def test_any_queue_size_resolves_to_limits_or_bad_value(value, rate_bps, delay_ns, packet_size, ack_size):
    size = parsed_or_bad(parse_queue_size, value)
    if size is None:
        return
    limits = parsed_or_bad(lambda s: s.limits(rate_bps, delay_ns, packet_size, ack_size), size)
    if limits is not None:
        packets, limit_bytes = limits
        assert isinstance(packets, int) and 1 <= packets < 2**64
        assert limit_bytes is None or (isinstance(limit_bytes, int) and packet_size <= limit_bytes < 2**64)


# --- regressions: every crash the fuzzers found, smallest form first ----------------------------------------

def _one_error(source, overrides=()) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(source, overrides)
    check_error(caught.value, source if isinstance(source, dict) else None, None, overrides)
    return caught.value


def _example() -> dict:
    return load_scenario(EXAMPLE_TOML)._raw


def test_regression_two_unknown_top_level_keys_name_the_first():
    # Found: field '' printed as "(top level)", naming no field.
    error = _one_error({**_example(), "Network": [], "x": []})
    assert error.field == "Network" and error.message == "unknown keys 'Network', 'x'"


def test_regression_an_empty_key_is_named_as_toml_writes_it():
    # Found: `"" = 0` gave the field '' ("(top level)").
    assert _one_error({**_example(), "": 0}).field == '""'


def test_regression_a_huge_count_is_refused_before_any_flow_is_made():
    # Found: count = 2^40 built a list of 2^40 flow configs and the machine ran out of memory.
    assert _one_error(_example(), ["flows.0.count=1099511627776"]).field == "flows.0.count"
    # Entries that are each allowed must not add up to more than the engine can hold either.
    flows = [{"cc": "newreno", "count": 300_000}, {"cc": "newreno", "count": 300_000}]
    assert _one_error({**_example(), "flows": flows}).field == "flows"


@pytest.mark.parametrize("text", ["1e999999999Mbps", "1e400Mbps", "18446744073709551616bps", "-1e999999999Mbps"])
def test_regression_rates_beyond_the_engine_are_bad_values(text):
    # Found: decimal.Overflow escaped as a traceback (1e999999999), and 1e400 Mbit/s reached the engine,
    # whose JSON reader refused it under the field "config".
    with pytest.raises(BadValue):
        parse_rate(text)
    assert _one_error(_example(), [f"network.bottleneck.rate={text}"]).field == "network.bottleneck.rate"


@pytest.mark.parametrize("text", ["1e-999999999s", "1e999999999s", "1e30s", "1.00000000000000000000000000001s"])
def test_regression_durations_are_exact_or_bad_values(text):
    # Found: 1e-999999999s underflowed to 0 ns silently; 1e30 s is more ns than a u64 holds; and a 30-digit
    # number lost its last digit in Decimal's 28-digit arithmetic, so it looked whole.
    with pytest.raises(BadValue):
        parse_duration(text)


def test_regression_a_huge_bdp_multiple_is_refused_at_once():
    # Found: 1e999999999bdp made a Fraction with a billion-digit numerator (minutes of CPU, gigabytes).
    with pytest.raises(BadValue):
        parse_queue_size("1e999999999bdp")
    with pytest.raises(BadValue, match="more than the engine counts"):
        parse_queue_size("1e25bdp").limits(10**12, 10**12, 1500, 40)


@pytest.mark.parametrize("override, field", [
    ("flows.0.initial_cwnd=4294967296", "flows.0.initial_cwnd"),
    ("flows.0.initial_cwnd=1000001", "flows.0.initial_cwnd"),
    ("network.packet_size=4294967296", "network.packet_size"),
    ("network.ack_size=65536", "network.ack_size"),
    ("flows.0.rwnd=18446744073709551616", "flows.0.rwnd"),
])
def test_regression_integers_beyond_the_engine_types_name_their_field(override, field):
    # Found: values past u32 or u64 reached the engine, whose JSON reader refused them as "config".
    assert _one_error(_example(), [override]).field == field


def test_regression_a_rate_schedule_may_have_an_outage():
    # Found: "0bps" in a schedule, the README's own example of an outage, was refused as not positive.
    schedule = '{ at = ["0s", "1ms"], value = ["10Mbps", "0bps"] }'
    config = load_scenario(_example(), [f"network.bottleneck.rate={schedule}",
                                        "network.bottleneck.reverse={ rate = \"10Mbps\" }",
                                        "network.bottleneck.queue.size=100", "run.duration=3ms",
                                        "run.measure_from=0s"]).to_engine_config()
    assert config["bottleneck"]["models"]["rate_model"]["schedule"]["rate_bps"] == [10_000_000, 0]
    run_briefly(config)


@pytest.mark.parametrize("trace", ["x" * 5000, {"a": 1}, 3, ""])
def test_regression_a_trace_that_is_no_file_name_is_a_bad_value(trace):
    # Found: a 5000-character name raised OSError (File name too long) from Path.is_file.
    rate = {"trace": trace}
    error = _one_error(_example(), [f"network.bottleneck.rate={fs._value(rate)}",
                                    "network.bottleneck.reverse={ rate = \"1Mbps\" }"])
    assert error.field == "network.bottleneck.rate.trace"
