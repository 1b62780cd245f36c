"""Traffic in a scenario: flows in either direction, finite transfers, drawn starts and lives, groups."""

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
