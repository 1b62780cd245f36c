"""Networks of links: the parking-lot example, routes, per-link figures, and the errors a person can make."""

import copy

import pytest

from cclab.errors import ScenarioError
from cclab.scenario import load_scenario
from conftest import REPO, run_cli

PARKING_LOT = REPO / "examples" / "parking-lot.toml"


def small_network() -> dict:
    """Two hosts and a router, as the TOML reader returns it."""
    return {
        "network": {"rtt": "100ms", "links": [
            {"from": "a", "to": "r", "rate": "1Gbps", "delay": "1ms"},
            {"from": "r", "to": "b", "rate": "10Mbps", "delay": "20ms",
             "queue": {"discipline": "droptail", "size": "1bdp"}},
        ]},
        "flows": [{"cc": "newreno", "route": ["a", "r", "b"]}],
        "run": {"duration": "10s"},
    }


def problem(raw) -> str:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(raw)
    assert len(caught.value.problems) == 1, str(caught.value)
    return str(caught.value)


@pytest.mark.usefixtures("no_engine")
def test_duplex_links_become_two_one_way_links_with_their_own_queues():
    config = load_scenario(small_network()).to_engine_config()
    links = config["topology"]["links"]
    assert [(l["name"], l["from"], l["to"]) for l in links] == [
        ("a-r", "a", "r"), ("r-a", "r", "a"), ("r-b", "r", "b"), ("b-r", "b", "r")]
    # 1 bdp = 10 Mbit/s x 100 ms / (8 x 1500 B) = 83.3 -> 83 packets, in each direction of r-b.
    assert links[2]["queue"] == {"discipline": "droptail", "limit_packets": 83, "limit_bytes": None}
    assert links[3]["queue"] == links[2]["queue"]
    assert links[0]["queue"] is None
    assert config["flows"][0]["route"] == ["a", "r", "b"]
    assert "bottleneck" not in config


@pytest.mark.usefixtures("no_engine")
def test_the_topology_is_built_once_per_load_and_handed_out_as_copies(monkeypatch):
    # Loading checks the network, then the routes against its links, then makes the engine config: one
    # build serves all three.
    from cclab.scenario import NetworkSpec

    builds = []
    build = NetworkSpec._build_topology
    monkeypatch.setattr(NetworkSpec, "_build_topology", lambda self: builds.append(1) or build(self))
    scenario = load_scenario(small_network())
    config = scenario.to_engine_config()
    assert len(builds) == 1
    assert scenario.network.link_ends() == {("a", "r"), ("r", "a"), ("r", "b"), ("b", "r")}
    # Editing one engine config leaves the next one as it was.
    config["topology"]["links"][0]["rate_bps"] = 1
    assert scenario.to_engine_config()["topology"]["links"][0]["rate_bps"] == 10**9
    assert len(builds) == 1


@pytest.mark.usefixtures("no_engine")
def test_reverse_direction_overrides_and_one_way_links():
    raw = small_network()
    raw["network"]["links"][1]["reverse"] = {"rate": "1Mbps", "queue": {"size": "20"}}
    raw["network"]["links"][0]["duplex"] = False
    raw["network"]["links"].append({"from": "r", "to": "a", "rate": "1Gbps", "delay": "3ms", "duplex": False})
    links = load_scenario(raw).to_engine_config()["topology"]["links"]
    by_name = {l["name"]: l for l in links}
    assert by_name["b-r"]["rate_bps"] == 1_000_000 and by_name["b-r"]["queue"]["limit_packets"] == 20
    assert by_name["b-r"]["delay_ns"] == 20_000_000
    assert by_name["r-a"]["delay_ns"] == 3_000_000


@pytest.mark.usefixtures("no_engine")
@pytest.mark.parametrize("edit, expected", [
    (lambda d: d["network"].pop("rtt"),
     "network.links.1.queue.size: '1bdp' needs a round trip to refer to"),
    (lambda d: d["network"]["links"].append(copy.deepcopy(d["network"]["links"][0])),
     "network.links.2.name: the link name 'a-r' is used twice"),
    (lambda d: d["network"]["links"][0].update(to="a"), "network.links.0.to: the link joins 'a' to itself"),
    (lambda d: d["flows"][0].pop("route"), "flows.0.route: a flow over [[network.links]] needs a route"),
    (lambda d: d["flows"][0].update(access_delay="1ms"), "flows.0.access_delay: access_delay belongs to the dumbbell"),
    (lambda d: d["network"].update(bottleneck={"rate": "1Mbps", "delay": "1ms", "queue": {"size": "10"}}),
     "network: both a bottleneck and links are given"),
    (lambda d: d["network"].update(nodes={"x": {"processing_delay": "8us"}}), "network.nodes.x: no link touches node 'x'"),
    (lambda d: d["network"].update(bottleneck_link="r-c"), "network.bottleneck_link: no link is named 'r-c'"),
    (lambda d: d["network"]["links"][0].update(frm="a"), "network.links.0.frm: unknown key 'frm'; use one of name, from, to,"),
])
def test_errors_name_the_field(edit, expected):
    raw = small_network()
    edit(raw)
    assert expected in problem(raw)


def test_parking_lot_runs_and_reports_every_queued_link():
    import cclab
    result = cclab.run(PARKING_LOT, ["run.duration=30s", "run.measure_from=10s"])
    links = result.links.set_index("name")
    assert list(links.index) == ["r1-r2", "r2-r1", "r2-r3", "r3-r2", "r3-r4", "r4-r3"]
    for hop in ("r1-r2", "r2-r3", "r3-r4"):
        assert links.loc[hop, "utilization"] > 0.9
    # The summary's bottleneck is the link named by network.bottleneck_link.
    assert result.bottleneck["packets_forwarded"] == links.loc["r1-r2", "packets_forwarded"]
    series = result.link_series
    assert set(series["link"]) == set(links.index)
    assert len(series) == 6 * len(result.queue)
    goodput = result.flows["goodput_bps"].tolist()
    assert goodput[0] < min(goodput[1:]), "the long flow crosses three drop points"


def test_queues_command_lists_droptail():
    done = run_cli("queues", "--json")
    assert done.returncode == 0, done.stderr
    assert "droptail" in done.stdout


def test_route_through_a_missing_link_is_one_clear_line(tmp_path):
    text = PARKING_LOT.read_text().replace('route = ["s1", "r2", "r3", "d1"]', 'route = ["s1", "r2", "r4", "d1"]')
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    done = run_cli("run", str(bad))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: scenario error: flows.2.route: no link from 'r2' to 'r4'; use a route along [[network.links]] (add the link, or make it duplex)"]
