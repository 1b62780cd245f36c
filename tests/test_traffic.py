"""Traffic in a scenario: flows in either direction, finite transfers, drawn starts and lives, groups."""

import math

import pytest

from cclab.errors import ScenarioError
from cclab.scenario import load_scenario

pytestmark = pytest.mark.usefixtures("no_engine")


def one_problem(raw) -> str:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(raw)
    assert len(caught.value.problems) == 1, str(caught.value)
    return str(caught.value)


def engine_flow(example_dict, **keys) -> dict:
    example_dict["flows"][0].update(keys)
    return load_scenario(example_dict).to_engine_config()["flows"][0]


def test_plain_flows_keep_their_engine_config(example_dict):
    # None of the new keys appear unless given, so stored scenario hashes do not change.
    flow = engine_flow(example_dict)
    assert not {"direction", "size_bytes", "start_draw_ns", "duration_draw_ns", "group"} & set(flow)


def test_a_reverse_flow(example_dict):
    assert engine_flow(example_dict, direction="reverse")["direction"] == "reverse"


def test_a_transfer_size_in_bytes(example_dict):
    assert engine_flow(example_dict, size="500KB")["size_bytes"] == 500_000
    assert engine_flow(example_dict, size="64KiB")["size_bytes"] == 65_536


def test_drawn_start_and_duration(example_dict):
    flow = engine_flow(example_dict, start={"uniform": ["0s", "100s"]}, duration={"exponential": "20s"},
                       rwnd=64, group="small")
    assert flow["start_ns"] == 0
    assert flow["start_draw_ns"] == {"uniform": [0, 100_000_000_000]}
    assert flow["duration_draw_ns"] == {"exponential": 2e10}
    assert flow["group"] == "small"
    assert flow["rwnd_packets"] == 64
    # A plain duration is a fixed life.
    assert engine_flow(example_dict, duration="5s")["duration_draw_ns"] == {"fixed": 5_000_000_000}


def test_distribution_tables(example_dict):
    flow = engine_flow(example_dict, duration={"pareto": {"shape": 1.5, "mean": "2s"}})
    assert flow["duration_draw_ns"] == {"pareto": {"shape": 1.5, "mean": 2e9}}
    flow = engine_flow(example_dict, duration={"lognormal": {"mean": "2s", "sigma": 0.5}})
    assert flow["duration_draw_ns"] == {"lognormal": {"sigma": 0.5, "mean": 2e9}}
    flow = engine_flow(example_dict, duration={"empirical": {"values": ["1s", "3s"], "cdf": [0.5, 1]}})
    assert flow["duration_draw_ns"] == {"empirical": {"values": [1e9, 3e9], "cdf": [0.5, 1.0]}}


@pytest.mark.parametrize("keys, start", [
    ({"size": "0B"}, "scenario error: flows.0.size: '0B' is not a positive size"),
    ({"size": "5 parsecs"}, "scenario error: flows.0.size: '5 parsecs' is not a size in bytes"),
    ({"direction": "sideways"}, "scenario error: flows.0.direction"),
    ({"duration": {"pareto": {"shape": 1.0, "mean": "2s"}}},
     "scenario error: flows.0.duration.pareto.shape: shape 1.0 gives an infinite mean"),
    ({"duration": {"poisson": "2s"}}, "scenario error: flows.0.duration.poisson: 'poisson' is not a distribution"),
    ({"start": {"uniform": ["5s", "1s"]}}, "scenario error: flows.0.start.uniform: the range"),
    ({"start": {"uniform": ["0s", "1s"]}, "start_jitter": "1s"}, "scenario error: flows.0.start_jitter: a drawn start"),
    ({"stop": "1500s", "duration": "1s"}, "scenario error: flows.0.duration: both stop and duration"),
])
def test_errors_name_the_field(example_dict, keys, start):
    example_dict["flows"][0].update(keys)
    assert one_problem(example_dict).startswith(start)


def test_direction_belongs_to_the_dumbbell():
    raw = {
        "network": {"links": [{"from": "a", "to": "b", "rate": "10Mbps", "delay": "1ms"}]},
        "flows": [{"cc": "newreno", "route": ["a", "b"], "direction": "reverse"}],
        "run": {"duration": "1s"},
    }
    assert one_problem(raw).startswith("scenario error: flows.0.direction: over links the route gives the direction")


# --- [[traffic]] ---------------------------------------------------------------------------------------

def with_traffic(example_dict, **keys) -> dict:
    example_dict["traffic"] = [{"group": "web", **keys}]
    return load_scenario(example_dict).to_engine_config()


def test_a_source_at_an_offered_load(example_dict):
    config = with_traffic(example_dict, load=0.3, size={"exponential": "50KB"}, access_delay="2ms",
                          direction="reverse")
    (source,) = config["traffic"]
    assert source["offered_load"] == 0.3
    assert source["size_bytes"] == {"exponential": 50_000.0}
    assert source["flow"]["direction"] == "reverse"
    assert source["flow"]["src_access_delay_ns"] == 2_000_000
    assert source["flow"]["cc"] == {"name": "newreno"}
    assert "inter_arrival_ns" not in source


def test_an_arrival_rate_is_poisson(example_dict):
    (source,) = with_traffic(example_dict, arrival_rate=50, size="20KB")["traffic"]
    assert source["inter_arrival_ns"] == {"exponential": 2e7}
    assert source["size_bytes"] == {"fixed": 20_000}


def test_the_web_preset(example_dict):
    (source,) = with_traffic(example_dict, preset="web", load=0.2)["traffic"]
    assert source["size_bytes"] == {"pareto": {"shape": 1.2, "mean": 14_600.0}}
    # A size given beside the preset wins.
    (source,) = with_traffic(example_dict, preset="web", load=0.2, size="1KB")["traffic"]
    assert source["size_bytes"] == {"fixed": 1000}


def test_no_traffic_no_key(example_dict):
    assert "traffic" not in load_scenario(example_dict).to_engine_config()


def test_traffic_alone_is_a_scenario(example_dict):
    del example_dict["flows"]
    config = with_traffic(example_dict, load=0.3, size="50KB")
    assert config["flows"] == [] and len(config["traffic"]) == 1


@pytest.mark.parametrize("keys, start", [
    ({"size": "50KB"}, "scenario error: traffic.0: arrivals are given nowhere"),
    ({"size": "50KB", "load": 0.3, "arrival_rate": 5}, "scenario error: traffic.0.arrival_rate: arrivals are given twice"),
    ({"load": 0.3}, "scenario error: traffic.0.size"),
    ({"preset": "video", "load": 0.3}, "scenario error: traffic.0.preset: 'video' is not a traffic preset"),
    ({"size": {"pareto": {"shape": 0.9, "mean": "5KB"}}, "load": 0.3},
     "scenario error: traffic.0.size.pareto.shape: shape 0.9 gives an infinite mean"),
    ({"size": "50KB", "load": 0.3, "route": ["a", "b"]}, "scenario error: traffic.0.route: routes belong to a network"),
])
def test_traffic_errors_name_the_field(example_dict, keys, start):
    example_dict["traffic"] = [{"group": "web", **keys}]
    assert one_problem(example_dict).startswith(start)


def test_store_rows_hold_flows_and_groups():
    from cclab.store import summary_table

    summary = {"flows": [{"flow": 0, "goodput_bps": 1.0, "start_s": 0.0, "completion_time_s": 0.2}],
               "groups": [{"group": "web", "flows_created": 10, "goodput_bps": 5.0}],
               "bottleneck": {"utilization": 0.5}, "jain_index": 1.0}
    table = summary_table({"run_key": "k"}, {}, summary, {}).to_pydict()
    assert table["kind"] == ["flow", "group"]
    # A figure a row does not have is NaN, as the store keeps missing numbers.
    assert table["completion_time_s"][0] == 0.2 and math.isnan(table["completion_time_s"][1])
    assert table["group"] == [None, "web"]
    assert table["flows_created"][1] == 10


def test_pacing(example_dict):
    flow = engine_flow(example_dict, pacing={"burst": 2, "gap": "1ms", "jitter": "0.1ms"})
    assert flow["pacing"] == {"burst": 2, "gap_ns": 1_000_000, "jitter_ns": 100_000}
    (source,) = with_traffic(example_dict, load=0.1, size="10KB", pacing={"burst": 2})["traffic"]
    assert source["flow"]["pacing"] == {"burst": 2, "gap_ns": 0, "jitter_ns": 0}


def test_pacing_needs_a_burst(example_dict):
    example_dict["flows"][0]["pacing"] = {"burst": 0}
    assert one_problem(example_dict).startswith("scenario error: flows.0.pacing.burst")


def test_an_empirical_size_file(example_dict, tmp_path):
    # Sizes as a CDF file beside the scenario: `value cdf` lines, '#' comments, bare numbers in bytes.
    (tmp_path / "sizes.cdf").write_text("# bytes cdf\n1000 0.5\n5KB 0.9\n100000, 1\n")
    scenario_file = tmp_path / "s.toml"
    scenario_file.write_text(
        '[network]\npacket_size = 1500\n[network.bottleneck]\nrate = "10Mbps"\ndelay = "10ms"\nqueue = { size = "50" }\n'
        '[[traffic]]\ngroup = "files"\nload = 0.2\nsize = { empirical = "sizes.cdf" }\n[run]\nduration = "1s"\n')
    (source,) = load_scenario(scenario_file).to_engine_config()["traffic"]
    assert source["size_bytes"] == {"empirical": {"values": [1000.0, 5000.0, 100000.0], "cdf": [0.5, 0.9, 1.0]}}


def test_an_empirical_file_that_is_not_text(example_dict, tmp_path):
    # A binary file named by mistake: before, the codec's own message ("'utf-8' codec can't decode ...").
    (tmp_path / "sizes.bin").write_bytes(b"1000 0.5\n\xd0\xff\n")
    example_dict["traffic"] = [{"group": "files", "load": 0.2, "size": {"empirical": str(tmp_path / "sizes.bin")}}]
    assert one_problem(example_dict) == (
        f"scenario error: traffic.0.size.empirical: {str(tmp_path / 'sizes.bin')!r} is not UTF-8 text (byte 0xd0 at "
        "offset 9); use a text file of `value cdf` lines")


def test_an_empirical_file_that_does_not_end_at_1(example_dict, tmp_path):
    (tmp_path / "bad.cdf").write_text("1000 0.5\n2000 0.8\n")
    example_dict["traffic"] = [{"group": "files", "load": 0.2, "size": {"empirical": str(tmp_path / "bad.cdf")}}]
    assert one_problem(example_dict).startswith("scenario error: traffic.0.size.empirical: the cdf runs from 0.5 to 0.8")
