"""Sweep specs: expansion, derived seeds, scenario hashes, and bad specs refused before anything runs."""

from pathlib import Path

import pytest

from cclab.sweep import SweepError, derive_seed, load_sweep, scenario_hash
from conftest import EXAMPLE, REPO, run_cli

TABLE1 = REPO / "examples" / "sweep-table1-newreno-cubic.toml"


def write_sweep(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "study.toml"
    path.write_text(f'base = "{EXAMPLE.as_posix()}"\n' + text, encoding="utf-8")
    return path


def sweep_error(path: Path) -> str:
    with pytest.raises(SweepError) as caught:
        load_sweep(path)
    return str(caught.value)


# --- the example, as written -----------------------------------------------------------------

def test_example_sweep_expands_to_eight_runs():
    sweep = load_sweep(TABLE1)
    assert sweep.study == "sweep-table1-newreno-cubic"
    assert (len(sweep.runs), sweep.points, sweep.replications) == (8, 4, 2)
    assert sweep.fields == ["flows.0.start_jitter", "flows.0.cc", "network.bottleneck.queue.size", "run.duration",
                            "run.measure_from"]
    first = sweep.runs[0]
    assert first.params == {"flows.0.start_jitter": "1s", "flows.0.cc": "newreno",
                            "network.bottleneck.queue.size": "0.1bdp", "run.duration": "60s", "run.measure_from": "30s"}
    # The start is drawn from the run's seed, so the replications of a point differ (the scenario draws
    # nothing else: without it, two replications were the same run twice).
    assert first.config["flows"][0]["start_jitter_ns"] == 10**9
    assert first.config["run"]["duration_ns"] == 60 * 10**9
    assert first.config["bottleneck"]["queue"]["limit_packets"] == 167
    # Points in the order written (first field outermost), replications innermost.
    assert [(r.params["flows.0.cc"], r.params["network.bottleneck.queue.size"], r.replication)
            for r in sweep.runs] == [(cc, size, rep) for cc in ("newreno", "cubic")
                                     for size in ("0.1bdp", "1bdp") for rep in (0, 1)]
    assert sweep.runs[6].config["bottleneck"]["queue"]["limit_packets"] == 1667
    assert sweep.runs[6].config["flows"][0]["cc"] == {"name": "cubic"}
    # Every run has its own seed and key; replications share the scenario hash.
    assert len({r.seed for r in sweep.runs}) == 8 and len({r.key for r in sweep.runs}) == 8
    assert sweep.runs[0].scenario_hash == sweep.runs[1].scenario_hash != sweep.runs[2].scenario_hash


def test_expansion_is_the_same_every_time():
    one, two = load_sweep(TABLE1), load_sweep(TABLE1)
    assert [(r.key, r.config) for r in one.runs] == [(r.key, r.config) for r in two.runs]


# --- seeds and hashes ---------------------------------------------------------------------------------

def test_derived_seed_is_pinned():
    # The documented scheme (docs/sweeps.md); a change here changes every stored key, so it must be a
    # visible diff: BLAKE2b-64 of the canonical JSON, top bit cleared.
    import hashlib
    text = '{"base_seed":1,"params":{"flows.0.cc":"cubic"},"replication":0}'
    expected = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") & (2**63 - 1)
    assert derive_seed(1, {"flows.0.cc": "cubic"}, 0) == expected


def test_derived_seed_depends_on_base_seed_params_and_replication_only():
    params = {"a.b": "1bdp", "c": 2}
    seed = derive_seed(7, params, 3)
    assert 0 <= seed < 2**63
    assert derive_seed(7, {"c": 2, "a.b": "1bdp"}, 3) == seed  # order of the fields does not matter
    assert derive_seed(8, params, 3) != seed
    assert derive_seed(7, params, 4) != seed
    assert derive_seed(7, {"a.b": "1bdp", "c": 3}, 3) != seed


def test_scenario_hash_ignores_the_seed_and_written_units():
    sweep = load_sweep(TABLE1)
    config = dict(sweep.runs[0].config)
    other_seed = {**config, "run": {**config["run"], "seed": 12345}}
    assert scenario_hash(config) == scenario_hash(other_seed)
    assert config["run"]["seed"] == sweep.runs[0].seed  # and the hash did not modify the config


def test_base_seed_defaults_to_the_scenario_and_can_be_set(tmp_path):
    default = load_sweep(write_sweep(tmp_path, '[grid]\n"flows.0.cc" = ["cubic"]\n'))
    assert default.base_seed == 1
    assert default.runs[0].seed == derive_seed(1, {"flows.0.cc": "cubic"}, 0)
    seeded = load_sweep(write_sweep(tmp_path, 'seed = 99\n[grid]\n"flows.0.cc" = ["cubic"]\n'))
    assert seeded.runs[0].seed == derive_seed(99, {"flows.0.cc": "cubic"}, 0) != default.runs[0].seed


# --- zip, tables, embedded [sweep] ---------------------------------------------------------------------

def test_zip_varies_fields_together_and_multiplies_with_the_grid(tmp_path):
    sweep = load_sweep(write_sweep(tmp_path, """
study = "rtt"
[zip]
"network.bottleneck.rate" = ["10Mbps", "100Mbps", "1Gbps"]
"network.bottleneck.delay" = ["5ms", "10ms", "20ms"]
[grid]
"flows.0.cc" = ["newreno", { name = "cubic", variant = "linux-2.6.22" }]
"""))
    assert sweep.study == "rtt" and len(sweep.runs) == 6
    pairs = [(r.config["bottleneck"]["rate_bps"], r.config["bottleneck"]["delay_ns"]) for r in sweep.runs]
    assert pairs[::2] == [(10**7, 5 * 10**6), (10**8, 10 * 10**6), (10**9, 20 * 10**6)]
    assert sweep.runs[1].config["flows"][0]["cc"] == {"name": "cubic", "variant": "linux-2.6.22"}
    # A table value becomes one text column (its canonical JSON); numbers stay numbers.
    columns = sweep.param_columns(sweep.runs[1])
    assert columns["flows.0.cc"] == '{"name":"cubic","variant":"linux-2.6.22"}'
    assert sweep.param_columns(sweep.runs[0])["flows.0.cc"] == "newreno"


def test_several_zip_groups(tmp_path):
    sweep = load_sweep(write_sweep(tmp_path, """
[[zip]]
"network.bottleneck.rate" = ["10Mbps", "20Mbps"]
"network.bottleneck.delay" = ["5ms", "10ms"]
[[zip]]
"run.duration" = ["10s", "20s"]
"run.measure_from" = ["5s", "10s"]
"""))
    assert len(sweep.runs) == 4


def test_sweep_table_inside_a_scenario_file(tmp_path):
    path = tmp_path / "scenario.toml"
    path.write_text(EXAMPLE.read_text() + """
[sweep]
replications = 3
[sweep.grid]
"flows.0.cc" = ["newreno", "cubic"]
""", encoding="utf-8")
    sweep = load_sweep(path)
    assert len(sweep.runs) == 6 and sweep.study == "scenario"
    assert sweep.runs[0].config["run"]["duration_ns"] == 2000 * 10**9


def test_numeric_columns_keep_their_type(tmp_path):
    sweep = load_sweep(write_sweep(tmp_path, '[grid]\n"network.bottleneck.loss_rate" = [0, 0.01]\n'))
    assert [sweep.param_columns(r)["network.bottleneck.loss_rate"] for r in sweep.runs] == [0.0, 0.01]


# --- bad specs: one clear error before anything runs -----------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ('[grid]\n"flows.0.bogus" = ["x"]\n', 'flows.0.bogus: unknown key \'bogus\''),
    ('[grid]\n', "the grid is empty"),
    ('[grid]\n"flows.0.cc" = []\n', 'grid."flows.0.cc": the list is empty'),
    ('[grid]\n"network.bottleneck.rate" = ["10Mbps", "10ms"]\n',
     "\"network.bottleneck.rate\" = \"10ms\": scenario error: network.bottleneck.rate: '10ms' is not a rate"),
    ('[grid]\n"network.bottleneck.rate" = ["10Mbps", "10"]\n',
     "\"network.bottleneck.rate\" = \"10\": scenario error: network.bottleneck.rate: '10' has no unit; use a "
     "number followed by bps, kbps, Mbps or Gbps (e.g. '10Mbps')"),
    ('[grid]\n"network.bottleneck.queue.size" = ["1bdp", "2Mbps"]\n',
     "network.bottleneck.queue.size: '2Mbps' is not a queue size"),
    ('[grid]\n"flows.3.cc" = ["cubic"]\n', "flows.3: index 3 is out of range"),
    ('[grid]\n"run.seed" = [1, 2]\n', "seeds are derived"),
    ('[grid]\n"flows.0.cc" = "cubic"\n', "is not a list"),
    ('[grid]\n"flows.0.cc" = ["cubic", "cubic"]\n', "listed twice"),
    ('[zip]\n"run.duration" = ["10s", "20s"]\n"run.measure_from" = ["5s"]\n', "zipped lists differ in length"),
    ('replications = 0\n[grid]\n"flows.0.cc" = ["cubic"]\n', "replications: 0 is not accepted"),
    ('repetitions = 2\n[grid]\n"flows.0.cc" = ["cubic"]\n', "repetitions: unknown key"),
    ('study = "a/b"\n[grid]\n"flows.0.cc" = ["cubic"]\n', "study: 'a/b' is not accepted"),
    # Valid alone, invalid together with the base scenario's measure_from = 1000s: blamed on the point.
    ('[grid]\n"run.duration" = ["60s"]\n', "run.measure_from: 1000 s is not before the end of the run at 60 s"),
])
def test_bad_specs(tmp_path, text, expected):
    message = sweep_error(write_sweep(tmp_path, text))
    assert message.startswith("sweep error: ")
    assert expected in message, message


def test_a_bad_value_is_reported_once_not_per_point(tmp_path):
    message = sweep_error(write_sweep(tmp_path, """
[grid]
"flows.0.cc" = ["newreno", "cubic", "newreno:x"]
"network.bottleneck.queue.size" = ["1bdp", "2bdp", "3bdp", "4bdp"]
"""))
    lines = message.splitlines()
    assert len(lines) == 2, message
    assert "'newreno:x' is not a known algorithm" in lines[0]
    assert lines[1].endswith("4 of 12 parameter points are invalid; nothing was run")


def test_missing_base(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('base = "nowhere.toml"\n[grid]\n"flows.0.cc" = ["cubic"]\n')
    assert "base: cannot be read" in sweep_error(path)


def test_not_a_sweep(tmp_path):
    assert "is neither a sweep file" in sweep_error(EXAMPLE)


def test_cli_bad_spec_is_one_error_and_runs_nothing(tmp_path):
    path = write_sweep(tmp_path, '[grid]\n"network.bottleneck.queue.size" = ["1bdp", "1 parsec"]\n')
    store = tmp_path / "store"
    process = run_cli("sweep", str(path), "--store", str(store))
    assert process.returncode == 2, process.stderr
    assert "Traceback" not in process.stderr
    lines = process.stderr.splitlines()
    assert lines[0].startswith("error: sweep error: ") and "'1 parsec' is not a queue size" in lines[0]
    assert not store.exists()  # nothing started, nothing created
