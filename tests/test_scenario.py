"""Scenario validation and the engine config it produces (docs/engine-interface.md)."""

import pytest

from cclab.engine import algorithm_names

from cclab.errors import ScenarioError
from cclab.scenario import load_scenario

pytestmark = pytest.mark.usefixtures("no_engine")  # the static algorithm list, whatever is built


def one_problem(raw, overrides=()) -> str:
    """Load a bad scenario; it must fail with exactly one problem, returned as its line."""
    with pytest.raises(ScenarioError) as caught:
        load_scenario(raw, overrides)
    assert len(caught.value.problems) == 1, str(caught.value)
    line = str(caught.value)
    assert "\n" not in line
    return line


# --- the example -------------------------------------------------------------------------------------

def test_example_file_gives_the_contract_config(example):
    config = load_scenario(example).to_engine_config()
    assert config == {
        "packet_size": 1500, "header_size": 40, "ack_size": 40,
        "bottleneck": {
            "rate_bps": 200_000_000, "delay_ns": 50_000_000,
            "queue": {"discipline": "droptail", "limit_packets": 167, "limit_bytes": None},
            "reverse_queue": {"discipline": "droptail", "limit_packets": 167, "limit_bytes": None},
            "loss_rate": 0.0,
        },
        "flows": [{
            "cc": {"name": "newreno"}, "src_access_delay_ns": 2_500_000, "dst_access_delay_ns": 2_500_000,
            "access_rate_bps": 2_000_000_000, "start_ns": 0, "start_jitter_ns": 0, "stop_ns": None, "recovery": "sack",
            "delayed_ack": False, "initial_cwnd": 2, "rto_min_ns": 200_000_000, "rwnd_packets": 1_000_000_000,
        }],
        "run": {"duration_ns": 2_000_000_000_000, "measure_from_ns": 1_000_000_000_000, "seed": 1,
                "sample_interval_ns": 100_000_000},
    }


def test_one_bdp_queue(example):
    config = load_scenario(example, ["network.bottleneck.queue.size=1bdp"]).to_engine_config()
    assert config["bottleneck"]["queue"]["limit_packets"] == 1667
    assert config["bottleneck"]["reverse_queue"]["limit_packets"] == 1667


def test_dict_source_is_not_modified(example_dict):
    before = repr(example_dict)
    load_scenario(example_dict, ["run.seed=7"])
    assert repr(example_dict) == before


# --- optional keys -----------------------------------------------------------------------------------

def test_network_options(example_dict):
    example_dict["network"].update(header_size=52, ack_size=64, access_rate="1Gbps")
    bottleneck = example_dict["network"]["bottleneck"]
    bottleneck.update(loss_rate=0.01, reverse_queue={"size": 1000})
    bottleneck["queue"]["size"] = "150KB"
    config = load_scenario(example_dict).to_engine_config()
    assert (config["header_size"], config["ack_size"]) == (52, 64)
    assert config["flows"][0]["access_rate_bps"] == 1_000_000_000
    assert config["bottleneck"]["loss_rate"] == 0.01
    assert config["bottleneck"]["queue"] == {"discipline": "droptail", "limit_packets": 150_000 // 64,
                                             "limit_bytes": 150_000}
    assert config["bottleneck"]["reverse_queue"] == {"discipline": "droptail", "limit_packets": 1000,
                                                     "limit_bytes": None}


def test_flow_options(example_dict):
    example_dict["flows"] = [{
        "cc": {"name": "cubic", "variant": "linux-2.6.22", "beta": 0.8}, "count": 2,
        "src_access_delay": "1ms", "dst_access_delay": "3ms", "start": "1s", "stop": "10s",
        "recovery": "newreno", "delayed_ack": True, "initial_cwnd": 10, "rto_min": "1s", "rwnd": 64,
    }, {"cc": "reno"}]
    flows = load_scenario(example_dict).to_engine_config()["flows"]
    assert len(flows) == 3
    assert flows[0] == flows[1] == {
        "cc": {"name": "cubic", "variant": "linux-2.6.22", "beta": 0.8},
        "src_access_delay_ns": 1_000_000, "dst_access_delay_ns": 3_000_000, "access_rate_bps": 2_000_000_000,
        "start_ns": 1_000_000_000, "start_jitter_ns": 0, "stop_ns": 10_000_000_000, "recovery": "newreno", "delayed_ack": True,
        "initial_cwnd": 10, "rto_min_ns": 1_000_000_000, "rwnd_packets": 64,
    }
    # 'reno' is an alias of NewReno; no access delay given means none.
    assert flows[2]["cc"] == {"name": "newreno"}
    assert flows[2]["src_access_delay_ns"] == flows[2]["dst_access_delay_ns"] == 0


def test_run_options(example_dict):
    example_dict["run"] = {"duration": "20s", "seed": 9, "sample_interval": "0"}
    run = load_scenario(example_dict).to_engine_config()["run"]
    assert run == {"duration_ns": 20 * 10**9, "measure_from_ns": 0, "seed": 9, "sample_interval_ns": 0}


def test_spread_of_access_delays(example_dict):
    # Seed 000 with N = 10 flows: flow i has 2.5 * (i + 1) / N ms on each side.
    example_dict["flows"] = [{"cc": "newreno", "count": 10, "access_delay": {"spread": ["0.25ms", "2.5ms"]}}]
    flows = load_scenario(example_dict).to_engine_config()["flows"]
    expected = [250_000 * (i + 1) for i in range(10)]
    assert [f["src_access_delay_ns"] for f in flows] == expected
    assert [f["dst_access_delay_ns"] for f in flows] == expected


def test_spread_rounds_to_whole_nanoseconds_and_one_flow_takes_the_last(example_dict):
    example_dict["flows"] = [{"cc": "newreno", "count": 3, "src_access_delay": {"spread": ["0ns", "1ns"]}},
                             {"cc": "newreno", "access_delay": {"spread": ["1ms", "2.5ms"]}}]
    flows = load_scenario(example_dict).to_engine_config()["flows"]
    assert [f["src_access_delay_ns"] for f in flows[:3]] == [0, 1, 1]  # 0, 0.5 (half up), 1
    assert flows[3]["src_access_delay_ns"] == 2_500_000


# --- errors: one line naming the field and what is accepted ------------------------------------------

def test_unknown_key(example_dict):
    example_dict["network"]["bottleneck"]["bogus"] = 1
    assert one_problem(example_dict) == ("scenario error: network.bottleneck.bogus: unknown key 'bogus'; "
                                         "use one of rate, delay, queue, reverse_queue, loss_rate, loss, arq, outages, reverse")


def test_misspelt_rate(example_dict):
    example_dict["network"]["bottleneck"]["rate"] = "200Mbs"
    assert one_problem(example_dict) == ("scenario error: network.bottleneck.rate: '200Mbs' is not a rate; "
                                         "use a number followed by bps, kbps, Mbps or Gbps")


@pytest.mark.parametrize("rate", ["10", 10])
def test_a_rate_without_a_unit_names_the_field_the_value_and_the_units(example_dict, rate):
    example_dict["network"]["bottleneck"]["rate"] = rate
    assert one_problem(example_dict) == (f"scenario error: network.bottleneck.rate: {rate!r} has no unit; "
                                         "use a number followed by bps, kbps, Mbps or Gbps (e.g. '10Mbps')")


def test_a_rate_without_a_unit_in_an_override_is_the_same_error(example_dict):
    assert one_problem(example_dict, ["network.bottleneck.rate=10"]) == (
        "scenario error: network.bottleneck.rate: 10 has no unit; "
        "use a number followed by bps, kbps, Mbps or Gbps (e.g. '10Mbps')")


def test_negative_delay(example_dict):
    example_dict["network"]["bottleneck"]["delay"] = "-50ms"
    assert one_problem(example_dict) == ("scenario error: network.bottleneck.delay: '-50ms' is negative; "
                                         "use a duration of at least 0")


def test_unknown_algorithm(example_dict):
    example_dict["flows"][0]["cc"] = "tahoe-vegas"
    message = one_problem(example_dict)
    assert message.startswith("scenario error: flows.0.cc: 'tahoe-vegas' is not a known algorithm; use one of ")
    offered = message.split("use one of ", 1)[1].split(", ")
    assert set(offered) == set(algorithm_names()) and "newreno" in offered and "reno" in offered


def test_unknown_algorithm_in_a_table(example_dict):
    example_dict["flows"][0]["cc"] = {"name": "bbr3", "gain": 2}
    assert one_problem(example_dict).startswith("scenario error: flows.0.cc.name: 'bbr3' is not a known algorithm")


def test_queue_of_zero_packets(example_dict):
    example_dict["network"]["bottleneck"]["queue"]["size"] = 0
    assert one_problem(example_dict) == ("scenario error: network.bottleneck.queue.size: 0 is an empty queue; "
                                         "use at least 1 packet")


def test_queue_that_rounds_to_zero_packets(example_dict):
    example_dict["network"]["bottleneck"]["queue"]["size"] = "0.0001bdp"
    line = one_problem(example_dict)
    assert line.startswith("scenario error: network.bottleneck.queue.size: '0.0001bdp' is 0.167 packets")


@pytest.mark.parametrize("edit, start", [
    (lambda d: d.update(flows=[]), "scenario error: flows: there are no flows; use at least one [[flows]] or [[traffic]] table"),
    # Without [[flows]] a scenario may still have [[traffic]]; with neither it has no flows.
    (lambda d: d.pop("flows"), "scenario error: flows: there are no flows; use at least one [[flows]] or [[traffic]] table"),
    (lambda d: d["run"].update(measure_from="2000s"), "scenario error: run.measure_from: 2000 s is not before"),
    (lambda d: d["run"].update(duration="0s"), "scenario error: run.duration: the run lasts no time"),
    (lambda d: d["network"].update(packet_size="1500"), "scenario error: network.packet_size: '1500' is not an integer"),
    (lambda d: d["network"].update(header_size=1500), "scenario error: network.header_size: 1500 leaves no payload"),
    # Only packet_size written: it is the field to blame, not the default header_size.
    (lambda d: d["network"].update(packet_size=20), "scenario error: network.packet_size: 20 bytes leave no payload "
                                                    "after the 40 bytes of headers (header_size); use more than 40 bytes"),
    (lambda d: d["run"].update(duration="1e12s"), "scenario error: run.duration: '1e12s' is longer than the engine "
                                                  "counts; use at most 18,446,744,073 s (about 585 years)"),
    (lambda d: d["network"]["bottleneck"].update(loss_rate=1.0), "scenario error: network.bottleneck.loss_rate: 1.0 is too large"),
    (lambda d: d["network"]["bottleneck"]["queue"].update(discipline="red"), "scenario error: network.bottleneck.queue.discipline: 'red' is not a known queue discipline; use one of droptail"),
    (lambda d: d["flows"][0].update(recovery="tahoe"),
     "scenario error: flows.0.recovery: 'tahoe' is not accepted; use one of 'sack', 'newreno', 'linux-2.6', 'prr', 'prr-rfc6937' or 'ns2-sack1'"),
    (lambda d: d["flows"][0].update(frto="yes"),
     "scenario error: flows.0.frto: 'yes' is not accepted; use one of 'off', 'basic' or 'sack'"),
    (lambda d: d["flows"][0].update(frto="sack", frto_response="eifel"),
     "scenario error: flows.0.frto_response: 'eifel' is not accepted; use one of 'halve' or 'undo'"),
    (lambda d: d["flows"][0].update(frto_response="undo"),
     "scenario error: flows.0.frto_response: frto_response answers a spurious timeout, which only F-RTO finds; "
     "use frto = \"basic\" or \"sack\" with it"),
    (lambda d: d["flows"][0].update(delayed_ack="yes"), "scenario error: flows.0.delayed_ack: 'yes' is not a boolean; use true or false"),
    (lambda d: d["flows"][0].update(count=0), "scenario error: flows.0.count: 0 is too small; use a number of at least 1"),
    (lambda d: d["flows"][0].update(cwnd_clamp=0), "scenario error: flows.0.cwnd_clamp: 0 is too small; use a number of at least 1"),
    (lambda d: d["flows"][0].update(cwnd_clamp=2**32), "scenario error: flows.0.cwnd_clamp: 4294967296 is too large; use a number of at most 4294967295"),
    (lambda d: d["flows"][0].update(src_access_delay="1ms"), "scenario error: flows.0.access_delay: access_delay is given together"),
    (lambda d: d["flows"][0].update(start="3000s"), "scenario error: flows.0.start: 3000 s is not before the end"),
    (lambda d: d["flows"][0].update(start="5s", stop="1s"), "scenario error: flows.0.stop: the flow may stop before it starts"),
    (lambda d: d["flows"][0].update(start="1s", start_jitter="2s", stop="2s"),
     "scenario error: flows.0.stop: the flow may stop before it starts; use a stop later than start + start_jitter"),
    (lambda d: d["flows"][0].update(access_delay={"spread": ["1ms"]}), "scenario error: flows.0.access_delay: is not an access delay"),
    (lambda d: d["flows"][0].update(cc={"beta": 0.8}), "scenario error: flows.0.cc.name: the algorithm table has no name"),
    (lambda d: d.update(extra={}), "scenario error: extra: unknown key 'extra'; use one of network, flows, traffic, run"),
])
def test_other_errors(example_dict, edit, start):
    edit(example_dict)
    assert one_problem(example_dict).startswith(start)


def test_cwnd_clamp_reaches_the_engine_config_only_when_given(example_dict):
    assert "cwnd_clamp_packets" not in load_scenario(example_dict).to_engine_config()["flows"][0]
    example_dict["flows"][0]["cwnd_clamp"] = 10000
    assert load_scenario(example_dict).to_engine_config()["flows"][0]["cwnd_clamp_packets"] == 10000


def test_linux_2_6_recovery_reaches_the_engine_config(example_dict):
    example_dict["flows"][0]["recovery"] = "linux-2.6"
    assert load_scenario(example_dict).to_engine_config()["flows"][0]["recovery"] == "linux-2.6"


def test_several_problems_give_one_line_each(example_dict):
    example_dict["network"]["bottleneck"]["rate"] = "fast"
    example_dict["run"]["seed"] = -1
    with pytest.raises(ScenarioError) as caught:
        load_scenario(example_dict)
    lines = str(caught.value).splitlines()
    assert [line.split(":")[1].strip() for line in lines] == ["network.bottleneck.rate", "run.seed"]


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(ScenarioError, match="cannot be read"):
        load_scenario(tmp_path / "absent.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[network\n")
    with pytest.raises(ScenarioError, match="is not valid TOML"):
        load_scenario(broken)


def test_algorithm_names_come_from_the_engine_when_built(example_dict, fake_engine):
    # The fake engine has newreno and cubic only; 'reno' still works as an alias.
    example_dict["flows"][0]["cc"] = "reno"
    assert load_scenario(example_dict).flows[0].cc == {"name": "newreno"}
    example_dict["flows"][0]["cc"] = "vegas"
    assert one_problem(example_dict).endswith("use one of newreno, cubic, reno")


# --- the time series' size -----------------------------------------------------------------------------

def test_a_time_series_too_long_to_keep_is_refused(example):
    # sample_interval = "1ns" over half a second filled the machine's memory, then the engine aborted with a
    # Rust backtrace. One flow, the bottleneck's queue and the dumbbell's two queued links: 4 series.
    line = one_problem(example, ["run.sample_interval=1ns", "run.duration=0.5s", "run.measure_from=0s"])
    assert line == ("scenario error: run.sample_interval: sampling 4 series (the flows and the queues) every 1ns "
                    "for 0.5 s keeps 2e+09 rows, more than the 50 million a run may (about 60 bytes each); use an "
                    'interval of at least 40ns, or "0s" for no time series')
    # The interval it names is accepted, and so are the studies' longest series and no series at all.
    load_scenario(example, ["run.sample_interval=40ns", "run.duration=0.5s", "run.measure_from=0s"])
    load_scenario(example, ["run.sample_interval=100ms", "run.duration=20000s"])
    load_scenario(example, ["run.sample_interval=0s", "run.duration=20000s"])
