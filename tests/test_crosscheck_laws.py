"""benchmarks/crosscheck_laws.py: ns-2 runs each built-in window law on crosscheck_sack1.py's cells, and each
cclab side runs the variant and recovery rule it names. Running it needs ns-2, so only the bookkeeping is
tested here."""

import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

import crosscheck_laws  # noqa: E402
import crosscheck_sack1  # noqa: E402


def test_ns2_runs_the_sack1_script_with_each_law_set_first():
    settings = {"hstcp": ["Agent/TCP set windowOption_ 8\n"],
                "aimd": ["Agent/TCP set increase_num_ 32\n", "Agent/TCP set decrease_num_ 0.875\n"]}
    assert set(crosscheck_laws.LAWS) == set(settings)
    for name, law in crosscheck_laws.LAWS.items():
        text = law.script.read_text()
        source = "source [file join [file dirname [info script]] sack1_dumbbell.tcl]"
        assert all(s in text and text.index(s) < text.index(source) for s in settings[name])
        cell = crosscheck_sack1.cells()[-1]
        assert crosscheck_sack1.ns2_command("ns", cell, law.script)[1] == str(law.script)
        assert law.csv.name == f"crosscheck-{name}.csv"


def test_each_cclab_side_runs_its_variant_under_its_rule_and_seed003_comes_first():
    cell = crosscheck_sack1.cells()[0]
    for law in crosscheck_laws.LAWS.values():
        assert next(iter(law.sides)) == "seed003" and law.sides["seed003"][1] == "sack"
        for side, (spec, recovery, note) in law.sides.items():
            assert side != "ns2" and note
            toml = crosscheck_sack1.cclab_toml(cell, recovery, spec)
            assert f"cc = {spec}\n" in toml and f'recovery = "{recovery}"' in toml
    assert crosscheck_laws.LAWS["hstcp"].sides["ns2-law"][:2] == ('{ name = "highspeed", variant = "ns2" }', "ns2-sack1")
    assert crosscheck_laws.LAWS["aimd"].sides["ns2-law"][:2] == ('{ name = "aimd", variant = "xu2004-ns2" }', "ns2-sack1")
    # ns-2's Low_P: a(38) = 38^2 p / (1/0.5 - 0.5) = 1
    assert abs(38 ** 2 * crosscheck_laws.NS2_LOW_P / 1.5 - 1) < 1e-12
