"""--set KEY=VALUE: dotted paths into the raw TOML dict, values read as TOML literals when they are."""

import pytest

from cclab.errors import ScenarioError
from cclab.overrides import apply_overrides, parse_value
from cclab.scenario import load_scenario


@pytest.mark.parametrize("text, value", [
    ("3", 3), ("0.25", 0.25), ("true", True), ("false", False), ("cubic", "cubic"), ('"3"', "3"),
    ("200Mbps", "200Mbps"), ("1bdp", "1bdp"), ("", ""),
    ('{ name = "cubic", beta = 0.8 }', {"name": "cubic", "beta": 0.8}), ('["1ms", "2ms"]', ["1ms", "2ms"]),
    ("1979-05-27", "1979-05-27"),   # a TOML date is not a value any key takes: keep the text
    ("3\nextra = 1", "3\nextra = 1"),  # no smuggling a second key through a newline
])
def test_values(text, value):
    assert parse_value(text) == value


def test_paths_into_tables_and_lists(example_dict):
    apply_overrides(example_dict, ["flows.0.cc=cubic", "network.bottleneck.queue.size=1bdp", "run.seed=3",
                                   "network.bottleneck.reverse_queue.size=10"])
    assert example_dict["flows"][0]["cc"] == "cubic"
    assert example_dict["network"]["bottleneck"]["queue"] == {"discipline": "droptail", "size": "1bdp"}
    assert example_dict["network"]["bottleneck"]["reverse_queue"] == {"size": 10}
    assert example_dict["run"]["seed"] == 3


def test_a_star_sets_every_entry_of_a_list(example_dict, no_engine):
    # Three flows: `flows.*` reaches each, into nested tables too; a later indexed override still wins.
    example_dict["flows"] = [dict(example_dict["flows"][0]) for _ in range(3)]
    apply_overrides(example_dict, ["flows.*.recovery=ns2-sack1", 'flows.*.cc={ name = "cubic" }',
                                   "flows.*.cc.beta=0.8", "flows.2.recovery=prr"])
    assert [f["recovery"] for f in example_dict["flows"]] == ["ns2-sack1", "ns2-sack1", "prr"]
    assert [f["cc"] for f in example_dict["flows"]] == [{"name": "cubic", "beta": 0.8}] * 3
    # Each entry got its own copy: an indexed edit after a starred one changes that entry alone.
    apply_overrides(example_dict, ["flows.1.cc.beta=0.7"])
    assert [f["cc"]["beta"] for f in example_dict["flows"]] == [0.8, 0.7, 0.8]
    # A list with no entries, or none at all, takes nothing: one override fits every scenario of a study.
    empty = {"flows": []}
    assert apply_overrides(empty, ["flows.*.recovery=sack", "traffic.*.recovery=sack"]) == {"flows": []}
    # The values still go through the schema, each under its own index.
    with pytest.raises(ScenarioError, match="flows.0.recovery: 'tahoe' is not accepted"):
        load_scenario(example_dict, ["flows.*.recovery=tahoe"])


def test_cc_name_replaces_every_entry_running_that_algorithm_and_no_other(example_dict):
    # Flows of HighSpeed (by name, alias and table, whatever the variant) next to NewReno and a traffic
    # source without `cc` (newreno): `cc.highspeed=` reaches the three HighSpeed flows only.
    flow = example_dict["flows"][0]
    example_dict["flows"] = [{**flow, "cc": "highspeed"}, {**flow, "cc": "hstcp"},
                             {**flow, "cc": {"name": "highspeed", "variant": "rfc3649", "max_ssthresh": 100}},
                             {**flow, "cc": "newreno"}]
    example_dict["traffic"] = [{"size": "50KB", "load": 0.2}]
    ns2 = '{ name = "highspeed", variant = "ns2" }'
    apply_overrides(example_dict, [f"cc.highspeed={ns2}"])
    assert [f["cc"] for f in example_dict["flows"]] == [{"name": "highspeed", "variant": "ns2"}] * 3 + ["newreno"]
    assert "cc" not in example_dict["traffic"][0]
    # Each entry its own table; newreno reaches the traffic entry that runs it by default.
    apply_overrides(example_dict, ["flows.0.cc.variant=rfc3649", "cc.newreno=cubic"])
    assert [f["cc"] for f in example_dict["flows"]][:2] == [{"name": "highspeed", "variant": "rfc3649"},
                                                            {"name": "highspeed", "variant": "ns2"}]
    assert example_dict["flows"][3]["cc"] == "cubic" and example_dict["traffic"][0]["cc"] == "cubic"
    # A scenario without the algorithm takes nothing; an unknown one, or a deeper key, is an error.
    before = [dict(f) for f in example_dict["flows"]]
    apply_overrides(example_dict, ["cc.bic=cubic"])
    assert example_dict["flows"] == before
    with pytest.raises(ScenarioError, match="cc.hstcpp: 'hstcpp' is not a known algorithm"):
        apply_overrides(example_dict, ["cc.hstcpp=cubic"])
    with pytest.raises(ScenarioError, match="cc.NAME=SPEC"):
        apply_overrides(example_dict, ["cc.highspeed.variant=ns2"])


def test_later_overrides_win_and_values_are_validated(example_dict, no_engine):
    scenario = load_scenario(example_dict, ["run.seed=3", "run.seed=4",
                                            'flows.0.cc={ name = "cubic", beta = 0.8 }'])
    assert scenario.run.seed == 4
    assert scenario.flows[0].cc == {"name": "cubic", "beta": 0.8}
    with pytest.raises(ScenarioError, match="run.seed: 'three' is not an integer"):
        load_scenario(example_dict, ["run.seed=three"])


def test_overrides_of_a_loaded_scenario(example, no_engine):
    base = load_scenario(example)
    assert load_scenario(base, ["run.seed=5"]).run.seed == 5
    assert base.run.seed == 1


@pytest.mark.parametrize("item, line", [
    ("flows.1.cc=cubic", "scenario error: flows.1: index 1 is out of range; flows has 1 entry; use an index from 0 to 0"),
    ("flows.first.cc=cubic", "scenario error: flows.first: flows is a list, indexed by number or *, not 'first'; use flows.0 to flows.0, or flows.* for every entry"),
    ("run.seed.value=3", "scenario error: run.seed.value: run.seed is the value 1, not a table or list, so it has no key 'value'; use --set run.seed=VALUE to replace it"),
    ("run.seed", "scenario error: --set: 'run.seed' is not KEY=VALUE; use KEY=VALUE with a dotted key, e.g. run.seed=3, flows.0.cc=cubic or flows.*.cc=cubic"),
    ("run..seed=1", "scenario error: --set: 'run..seed=1' is not KEY=VALUE"),
])
def test_bad_paths_name_the_key(example_dict, item, line):
    with pytest.raises(ScenarioError) as caught:
        apply_overrides(example_dict, [item])
    assert str(caught.value).startswith(line)


def test_unknown_key_is_reported_by_the_schema_under_its_name(example_dict, no_engine):
    with pytest.raises(ScenarioError) as caught:
        load_scenario(example_dict, ["run.sed=3"])
    assert str(caught.value) == "scenario error: run.sed: unknown key 'sed'; use one of duration, measure_from, seed, sample_interval, record_loss_events, rtt_histogram"


def test_cc_name_changes_a_studys_runs_of_that_algorithm_only():
    # Seed 003's utilisation part: each row runs two high-speed flows of its protocol beside NewReno.
    from conftest import REPO
    from cclab.experiment import load_experiment, plan_experiment

    experiment = load_experiment(REPO / "python" / "cclab" / "studies" / "seed003" / "utilisation.toml")
    plain = plan_experiment(experiment)
    ns2 = plan_experiment(experiment, overrides=['cc.highspeed={ name = "highspeed", variant = "ns2" }',
                                                 'cc.aimd={ name = "aimd", variant = "xu2004-ns2" }'])
    changed = {}
    for a, b in zip(plain.runs, ns2.runs):
        pairs = zip(a.run.config["flows"], b.run.config["flows"])
        changed.setdefault(a.run.params["row"], set()).update(
            (x["cc"]["name"], y["cc"].get("variant")) for x, y in pairs if x["cc"] != y["cc"])
    assert changed == {"AIMD": {("aimd", "xu2004-ns2")}, "BIC": set(), "HSTCP": {("highspeed", "ns2")}, "STCP": set()}
