"""Links that change over time and queue disciplines, as a scenario writes them: the engine config they
become, the errors a person can make, and short runs through the engine."""

import math

import pytest

import cclab
from cclab.errors import ScenarioError
from cclab.scenario import load_scenario


def dumbbell(**bottleneck) -> dict:
    base = {"rate": "10Mbps", "delay": "20ms", "queue": {"discipline": "droptail", "size": "1bdp"}}
    base.update(bottleneck)
    return {"network": {"bottleneck": base},
            "flows": [{"cc": "newreno", "access_delay": "1ms"}],
            "run": {"duration": "20s", "measure_from": "5s"}}


def problem(raw) -> str:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(raw)
    assert len(caught.value.problems) == 1, str(caught.value)
    return str(caught.value)


@pytest.mark.usefixtures("no_engine")
def test_schedules_loss_models_and_arq_reach_the_engine_config():
    raw = dumbbell(rate={"at": ["0s", "10s"], "value": ["10Mbps", "2Mbps"]},
                   delay={"at": ["0s", "250s"], "value": ["50ms", "100ms"]},
                   loss={"model": "gilbert-elliott", "p_good_to_bad": 0.01, "p_bad_to_good": 0.25},
                   arq={"loss_rate": 0.1, "retry_delay": "80ms", "max_attempts": 3},
                   reverse={"rate": "1Mbps", "delay": "30ms", "loss_rate": 0.01})
    b = load_scenario(raw).to_engine_config()["bottleneck"]
    assert b["rate_bps"] == 0 and b["delay_ns"] == 50_000_000
    assert b["models"] == {
        "rate_model": {"schedule": {"at_ns": [0, 10_000_000_000], "rate_bps": [10_000_000, 2_000_000]}},
        "delay_schedule": {"at_ns": [0, 250_000_000_000], "delay_ns": [50_000_000, 100_000_000]},
        "loss": {"gilbert_elliott": {"p_good_to_bad": 0.01, "p_bad_to_good": 0.25, "loss_good": 0.0, "loss_bad": 1.0}},
        "arq": {"loss": {"bernoulli": 0.1}, "retry_delay_ns": 80_000_000, "max_attempts": 3},
    }
    assert (b["reverse_rate_bps"], b["reverse_delay_ns"]) == (1_000_000, 30_000_000)
    assert b["reverse_models"] == {"loss": {"bernoulli": 0.01}}
    # 1 bdp refers to the schedule's first rate and the first delay: 10 Mbit/s x 100 ms / 12 kbit = 83.
    assert b["queue"]["limit_packets"] == 83


@pytest.mark.usefixtures("no_engine")
def test_a_relative_trace_path_is_read_from_the_scenario_folder(tmp_path):
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "link.down").write_text("1\n2\n3\n")
    scenario = tmp_path / "s.toml"
    scenario.write_text('''
[network.bottleneck]
rate = { trace = "traces/link.down", mean = "384kbps" }
delay = "150ms"
queue = { discipline = "droptail", size = "60" }
reverse = { rate = "64kbps" }
[[flows]]
cc = "newreno"
[run]
duration = "10s"
''')
    b = load_scenario(scenario).to_engine_config()["bottleneck"]
    assert b["models"]["rate_model"] == {"trace": {"path": str((tmp_path / "traces" / "link.down").resolve()),
                                                   "mean_bps": 384_000, "bytes_per_opportunity": 1500}}


@pytest.mark.usefixtures("no_engine")
@pytest.mark.parametrize("edit, expected", [
    (dict(rate={"at": ["0s", "10s"], "value": ["1Mbps"]}), "network.bottleneck.rate: at and value must be lists"),
    (dict(rate={"at": ["0s", "0s"], "value": ["1Mbps", "2Mbps"]}, reverse={"rate": "1Mbps"}),
     "network.bottleneck.rate.at.1: times are not increasing"),
    (dict(delay={"at": ["1s"], "value": ["10ms"]}), "network.bottleneck.delay.at.0: the schedule starts at 1 s"),
    (dict(rate={"trace": "no-such.trace"}), "network.bottleneck.rate.trace: trace file"),
    (dict(rate={"at": ["0s"], "value": ["1Mbps"]}), "network.bottleneck.reverse.rate: the way back needs its own rate"),
    (dict(loss={"model": "gilbert-elliott", "p_good_to_bad": 2, "p_bad_to_good": 0.1}),
     "network.bottleneck.loss.p_good_to_bad: 2 is not a probability"),
    (dict(loss={"model": "markov"}), "network.bottleneck.loss.model: {'model': 'markov'} is not a loss model"),
    (dict(loss_rate=0.01, loss={"model": "bernoulli", "rate": 0.1}), "network.bottleneck.loss: both loss_rate"),
    (dict(arq={"loss_rate": 0.1}), "network.bottleneck.arq.retry_delay: retry_delay is missing"),
    (dict(arq={"loss_rate": 0.1, "retry_delay": "80ms", "max_attempts": 0}),
     "network.bottleneck.arq.max_attempts: 0 is not a number of attempts"),
    (dict(queue={"discipline": "droptail"}), "network.bottleneck.queue.size: the queue has no size"),
])
def test_errors_name_the_field(edit, expected):
    assert expected in problem(dumbbell(**edit))


def test_queue_parameters_with_units_are_parsed_and_unknown_ones_named():
    raw = dumbbell(queue={"discipline": "codel", "size": "1bdp", "target": "2ms", "interval": "50ms"})
    queue = load_scenario(raw).to_engine_config()["bottleneck"]["queue"]
    assert queue["params"] == {"target_ns": 2_000_000, "interval_ns": 50_000_000}
    raw = dumbbell(queue={"discipline": "red", "size": "1bdp", "max_pp": 0.1})
    assert "network.bottleneck.queue.max_pp: unknown parameter 'max_pp' of red" in problem(raw)
    raw = dumbbell(queue={"discipline": "red", "size": "1bdp", "min_th": 30, "max_th": 10})
    with pytest.raises(ScenarioError) as caught:
        cclab.run(raw)
    assert "network.bottleneck.queue.max_th" in str(caught.value)


@pytest.mark.parametrize("discipline", ["red", "ared", "codel", "fq_codel", "pie"])
def test_every_discipline_runs_from_a_scenario_and_reports_early_drops(discipline):
    raw = dumbbell(queue={"discipline": discipline, "size": "1bdp"})
    raw["flows"][0]["count"] = 4
    result = cclab.run(raw)
    link = result.links.set_index("name").loc["bottleneck"]
    assert link["early_drops"] > 0
    assert link["utilization"] > 0.8


def test_a_trace_driven_bottleneck_runs(tmp_path):
    trace = tmp_path / "flat.trace"
    trace.write_text("".join(f"{ms}\n" for ms in range(1, 11)))   # 1500 B every ms: 12 Mbit/s
    raw = dumbbell(rate={"trace": str(trace)}, reverse={"rate": "12Mbps"},
                   queue={"discipline": "droptail", "size": "50"})
    result = cclab.run(raw)
    link = result.links.set_index("name").loc["bottleneck"]
    assert link["rate_bps"] == 12_000_000
    assert 0.9 < link["utilization"] <= 1.0


def test_sender_overhead_jitters_departures_but_keeps_their_order():
    # ns-2's overhead_: every data packet waits uniform [0, 8 us] at the sender. The run differs from
    # the one without (phases change) and stays deterministic.
    raw = dumbbell()
    raw["flows"][0]["count"] = 2
    plain = cclab.run(raw)
    raw["flows"][0]["overhead"] = "8us"
    jittered = cclab.run(raw)
    again = cclab.run(raw)
    assert jittered.summary == again.summary
    assert jittered.summary != plain.summary
    assert (jittered.flows["retransmissions"] <= jittered.flows["loss_events"] * 100).all()


def test_the_delayed_send_reading_of_overhead_batches_sends_and_is_deterministic():
    # ns-2's agents read overhead_ as a timer in front of the send decision (tcp/delayed_send.rs): at
    # 1 Gbit/s ACKs come 12 us apart, within reach of a 100-us timer, whose expiry sends what every ACK
    # since allowed at once. The per-packet reading holds each packet its own draw instead.
    raw = dumbbell(rate="1Gbps", queue={"discipline": "droptail", "size": "0.2bdp"})
    raw["flows"][0].update(count=2, overhead="100us")
    per_packet = cclab.run(raw)
    raw["flows"][0]["overhead_model"] = "delayed-send"
    flow = load_scenario(raw).to_engine_config()["flows"][0]
    assert flow["overhead_ns"] == 100_000 and flow["overhead_model"] == "delayed-send"
    delayed = cclab.run(raw)
    assert delayed.summary == cclab.run(raw).summary
    assert delayed.summary != per_packet.summary
    # The timers fire and release the sends: the two flows keep most of the link busy, as without.
    assert delayed.flows["goodput_bps"].sum() > 0.6e9 and per_packet.flows["goodput_bps"].sum() > 0.6e9


@pytest.mark.usefixtures("no_engine")
def test_bad_overhead_models_are_named():
    raw = dumbbell()
    raw["flows"][0].update(overhead="8us", overhead_model="ns2")
    message = problem(raw)
    assert "flows.0.overhead_model" in message and "delayed-send" in message and "per-packet" in message


def test_ecn_flows_over_an_ecn_queue_are_marked_not_dropped():
    raw = dumbbell(queue={"discipline": "red", "size": "1bdp", "ecn": True})
    raw["flows"][0].update(count=4, ecn=True)
    result = cclab.run(raw)
    link = result.links.set_index("name").loc["bottleneck"]
    assert link["ecn_marks"] > 0 and link["early_drops"] < link["ecn_marks"]
    assert result.flows["ecn_reductions"].sum() > 0


@pytest.mark.usefixtures("no_engine")
def test_outages_reach_the_engine_config_and_bad_ones_are_named():
    raw = dumbbell(outages={"rate": 0.05, "duration": {"lognormal": {"mean": "3s", "sigma": 0.8}}},
                   reverse={"rate": "10Mbps", "outages": {"gap": "10s", "duration": "1s"}})
    b = load_scenario(raw).to_engine_config()["bottleneck"]
    # 0.05 outages per second: exponential gaps of mean 20 s = 2e10 ns.
    assert b["models"]["outages"] == {"gap_ns": {"exponential": 2e10},
                                      "duration_ns": {"lognormal": {"sigma": 0.8, "mean": 3e9}}}
    assert b["reverse_models"]["outages"] == {"gap_ns": {"fixed": 10**10}, "duration_ns": {"fixed": 10**9}}
    assert "rate (per second) or gap" in problem(dumbbell(outages={"duration": "1s"}))
    assert "network.bottleneck.outages.rate" in problem(dumbbell(outages={"rate": -1, "duration": "1s"}))
    assert "network.bottleneck.outages.duration" in problem(dumbbell(outages={"rate": 1}))


@pytest.mark.usefixtures("no_engine")
def test_a_named_profile_fills_the_keys_the_table_does_not_give():
    # umts-2007-down gives rate, delay, queue, arq and outages; the table's own delay wins over it.
    raw = {"network": {"bottleneck": {"profile": "umts-2007-down", "delay": "10ms",
                                      "reverse": {"profile": "umts-2007-up"}}},
           "flows": [{"cc": "newreno"}], "run": {"duration": "20s"}}
    b = load_scenario(raw).to_engine_config()["bottleneck"]
    # The calibrated profiles draw the bearer rate per run (a rate model: the constant rate is 0).
    assert b["rate_bps"] == 0 and "drawn" in b["models"]["rate_model"] and b["delay_ns"] == 10_000_000
    assert "arq" in b["models"] and "outages" in b["models"]
    assert "drawn" in b["reverse_models"]["rate_model"] and "arq" in b["reverse_models"]
    assert "is not a link profile" in problem({**raw, "network": {"bottleneck": {"profile": "umts-1999"}}})


@pytest.mark.usefixtures("no_engine")
def test_none_takes_a_profiles_part_away():
    # Seed 002's uplink: the ACKs cross umts-2007-down without its stalls; the rest of the profile stays.
    raw = {"network": {"bottleneck": {"profile": "umts-2007-up",
                                      "reverse": {"profile": "umts-2007-down", "outages": "none"}}},
           "flows": [{"cc": "newreno"}], "run": {"duration": "20s"}}
    b = load_scenario(raw).to_engine_config()["bottleneck"]
    assert "outages" not in b["reverse_models"]
    assert "arq" in b["reverse_models"] and "drawn" in b["reverse_models"]["rate_model"]
    # A table without a profile may say it too; "none" of a part that cannot be absent is refused.
    assert "outages" not in load_scenario(dumbbell(outages="none")).to_engine_config()["bottleneck"].get("models", {})
    assert "network.bottleneck.delay" in problem(dumbbell(delay="none"))


@pytest.mark.usefixtures("no_engine")
def test_a_drawn_rate_reaches_the_engine_config():
    b = load_scenario(dumbbell(rate={"drawn": {"uniform": ["100kbps", "384kbps"]}},
                               queue={"discipline": "droptail", "size": "20"},
                               reverse={"rate": "64kbps"})).to_engine_config()["bottleneck"]
    assert b["models"]["rate_model"] == {"drawn": {"rate_bps": {"uniform": [100_000, 384_000]}}}
    assert "drawn" in problem(dumbbell(rate={"drawn": {"uniform": ["1kbps"]}}, reverse={"rate": "64kbps"}))


@pytest.mark.usefixtures("no_engine")
def test_a_rate_without_a_unit_in_an_empirical_file_is_named_with_its_line(tmp_path):
    # The line's own error, not "a bare number is the base unit", which a rate no longer allows.
    (tmp_path / "rates.cdf").write_text("100kbps 0.5\n384000 1\n")
    said = problem(dumbbell(rate={"drawn": {"empirical": str(tmp_path / "rates.cdf")}}, reverse={"rate": "64kbps"}))
    assert said == (f"scenario error: network.bottleneck.rate.drawn.empirical: {tmp_path / 'rates.cdf'}:2: "
                    "'384000' has no unit; use a number followed by bps, kbps, Mbps or Gbps (e.g. '384000bps')")


@pytest.mark.usefixtures("no_engine")
def test_a_bearer_rate_reaches_the_engine_config_and_its_errors_name_the_key():
    bearer = {"rates": ["64kbps", "128kbps", "384kbps"], "up_queue": "3KB", "up_delay": "1s", "idle": "2500ms"}
    b = load_scenario(dumbbell(rate={"bearer": bearer}, delay="200ms", reverse={"rate": "64kbps"})).to_engine_config()["bottleneck"]
    assert b["models"]["rate_model"] == {"bearer": {"rates_bps": [64_000, 128_000, 384_000], "up_queue_bytes": 3000,
                                                    "up_delay_ns": 1_000_000_000, "idle_ns": 2_500_000_000}}
    # A 'bdp' queue refers to the top rate: 384 kbit/s x 400 ms = 153,600 bit = 12.8 packets, rounded to 13.
    assert b["queue"]["limit_packets"] == 13
    assert "rates.1" in problem(dumbbell(rate={"bearer": {**bearer, "rates": ["64kbps", "64kbps"]}},
                                         reverse={"rate": "64kbps"}))
    assert "no 'idle'" in problem(dumbbell(rate={"bearer": {k: v for k, v in bearer.items() if k != "idle"}},
                                           reverse={"rate": "64kbps"}))
    assert "up_delay" in problem(dumbbell(rate={"bearer": {**bearer, "up_delay": "1"}}, reverse={"rate": "64kbps"}))


@pytest.mark.usefixtures("no_engine")
def test_a_bearer_step_down_is_optional_and_reaches_the_engine_only_when_set():
    bearer = {"rates": ["64kbps", "384kbps"], "up_queue": "3KB", "up_delay": "1s", "idle": "2500ms"}

    def config(extra: dict) -> dict:
        raw = dumbbell(rate={"bearer": {**bearer, **extra}}, delay="200ms", reverse={"rate": "64kbps"})
        return load_scenario(raw).to_engine_config()["bottleneck"]

    # Without the step down the engine config is what it was (stored run keys stay).
    assert "down_queue_bytes" not in config({})["models"]["rate_model"]["bearer"]
    down = config({"down_queue": "1500B", "down_delay": "2s"})["models"]["rate_model"]["bearer"]
    assert (down["down_queue_bytes"], down["down_delay_ns"]) == (1500, 2_000_000_000)
    # One of the two alone, a threshold above up_queue or 0, a bad duration: the message names the field.
    only = problem(dumbbell(rate={"bearer": {**bearer, "down_queue": "1KB"}}, delay="200ms",
                            reverse={"rate": "64kbps"}))
    assert "down_queue" in only and "down_delay" in only
    above = problem(dumbbell(rate={"bearer": {**bearer, "down_queue": "4KB", "down_delay": "2s"}},
                             delay="200ms", reverse={"rate": "64kbps"}))
    assert "rate.bearer.down_queue" in above and "up_queue (3000 B)" in above
    assert "down_queue" in problem(dumbbell(rate={"bearer": {**bearer, "down_queue": "0B", "down_delay": "2s"}},
                                            delay="200ms", reverse={"rate": "64kbps"}))
    assert "down_delay" in problem(dumbbell(rate={"bearer": {**bearer, "down_queue": "1KB", "down_delay": "2"}},
                                            delay="200ms", reverse={"rate": "64kbps"}))
    assert "unknown key 'down'" in problem(dumbbell(rate={"bearer": {**bearer, "down": "1KB"}},
                                                    delay="200ms", reverse={"rate": "64kbps"}))


def test_a_bearer_serves_more_when_more_flows_ask():
    # 1, 2 and 4 Mbit/s, one step up 500 ms after more than 6 KB (4 packets) wait, back after 1 s idle;
    # receivers' windows of 4 packets. One flow never leaves more than 3 packets waiting: it stays on
    # 1 Mbit/s. Four flows (16 packets) make it step up to 4 Mbit/s and get more than the middle rate.
    bearer = {"rates": ["1Mbps", "2Mbps", "4Mbps"], "up_queue": "6KB", "up_delay": "500ms", "idle": "1s"}
    raw = dumbbell(rate={"bearer": bearer}, queue={"discipline": "droptail", "size": "60"}, reverse={"rate": "20Mbps"})
    raw["flows"] = [{"cc": "newreno", "access_delay": "1ms", "rwnd": 4, "count": 1}]
    one = cclab.run(raw)
    raw["flows"][0]["count"] = 4
    four = cclab.run(raw)
    assert one.flows["goodput_bps"].sum() <= 1_000_000
    assert four.flows["goodput_bps"].sum() > 2_000_000
    assert one.summary["links"][0]["rate_bps"] == 4_000_000


def test_jains_index_is_undefined_when_the_link_carries_nothing_in_the_window():
    # The bottleneck's rate drops to zero before the measurement window: no flow delivers anything there,
    # so the index is 0/0, NaN in the engine's summary as in cclab.measures.jain_index, not a perfect 1.
    raw = dumbbell(rate={"at": ["0s", "5s"], "value": ["10Mbps", "0bps"]}, reverse={"rate": "10Mbps"})
    raw["flows"][0]["count"] = 2
    raw["run"] = {"duration": "8s", "measure_from": "6s"}
    result = cclab.run(raw)
    assert (result.flows["goodput_bps"] == 0).all()
    assert math.isnan(result.jain_index)
    assert result.summary["jain_index"] is None
