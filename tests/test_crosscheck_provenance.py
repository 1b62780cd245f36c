"""The cross-check caches' provenance (benchmarks/provenance.py): a row made by another engine or another
version of an ns-2 script is stale, left out unless asked for, and a report says what made its rows."""

import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

import crosscheck  # noqa: E402
import provenance  # noqa: E402
from provenance import ENGINE, NS2_SCRIPT, describe, ns2_script_hash  # noqa: E402


def test_the_script_hash_covers_the_script_and_common_tcl(tmp_path, monkeypatch):
    script, common = tmp_path / "dumbbell.tcl", tmp_path / "common.tcl"
    script.write_text("source common.tcl\n")
    common.write_text("proc usage {} {}\n")
    monkeypatch.setattr(provenance, "COMMON_TCL", common)
    first = ns2_script_hash(script)
    assert first.startswith("dumbbell.tcl@") and len(first) == len("dumbbell.tcl@") + 12
    common.write_text("proc usage {msg} {}\n")
    second = ns2_script_hash(script)
    script.write_text("source common.tcl\n# a comment\n")
    assert len({first, second, ns2_script_hash(script)}) == 3


def test_agent_dumbbell_tcl_counts_only_for_the_scripts_that_source_it(tmp_path, monkeypatch):
    common, agent = tmp_path / "common.tcl", tmp_path / "agent_dumbbell.tcl"
    plain, sourcing = tmp_path / "dumbbell.tcl", tmp_path / "sack1_dumbbell.tcl"
    common.write_text("proc usage {} {}\n")
    agent.write_text("proc agent_flows {class} {}\n")
    plain.write_text("source common.tcl\n")
    sourcing.write_text("source common.tcl\nsource agent_dumbbell.tcl\n")
    monkeypatch.setattr(provenance, "COMMON_TCL", common)
    monkeypatch.setattr(provenance, "AGENT_TCL", agent)
    before = ns2_script_hash(plain), ns2_script_hash(sourcing)
    agent.write_text("proc agent_flows {class delay} {}\n")
    # dumbbell.tcl's rows (every cached reference) stay fresh; the sourcing script's go stale.
    assert ns2_script_hash(plain) == before[0] and ns2_script_hash(sourcing) != before[1]


def test_a_script_that_sources_sack1_dumbbell_tcl_goes_stale_with_it_and_a_mention_does_not(tmp_path, monkeypatch):
    common, agent, sack1 = tmp_path / "common.tcl", tmp_path / "agent_dumbbell.tcl", tmp_path / "sack1_dumbbell.tcl"
    wrapper, mention = tmp_path / "hstcp_sack1_dumbbell.tcl", tmp_path / "fast_dumbbell.tcl"
    common.write_text("proc usage {} {}\n")
    agent.write_text("proc agent_flows {class} {}\n")
    sack1.write_text("source common.tcl\nsource agent_dumbbell.tcl\n")
    wrapper.write_text("Agent/TCP set windowOption_ 8\nsource [file join [file dirname [info script]] sack1_dumbbell.tcl]\n")
    mention.write_text("# the same flows as sack1_dumbbell.tcl\nsource agent_dumbbell.tcl\n")
    for name, path in [("COMMON_TCL", common), ("AGENT_TCL", agent), ("SACK1_TCL", sack1)]:
        monkeypatch.setattr(provenance, name, path)
    before = {p: ns2_script_hash(p) for p in (sack1, wrapper, mention)}
    sack1.write_text("source common.tcl\nsource agent_dumbbell.tcl\n# changed\n")
    assert ns2_script_hash(wrapper) != before[wrapper] and ns2_script_hash(mention) == before[mention]
    # What sack1_dumbbell.tcl sources counts for the wrapper too.
    middle = ns2_script_hash(wrapper)
    agent.write_text("proc agent_flows {class delay} {}\n")
    assert ns2_script_hash(wrapper) != middle


def test_every_script_in_the_repository_has_a_hash():
    for name in ("dumbbell.tcl", "aqm.tcl", "parkinglot.tcl", "traffic.tcl", "fast_dumbbell.tcl", "substream.tcl",
                 "sack1_dumbbell.tcl", "hstcp_sack1_dumbbell.tcl", "aimd_sack1_dumbbell.tcl"):
        assert ns2_script_hash(REPO / "benchmarks" / "ns2" / name).startswith(f"{name}@")


def test_stale_rows_are_left_out_unless_asked_for(tmp_path):
    path = tmp_path / "cache.csv"
    rows = [{"key": "s/reno", "flow": "0", "status": "ok", ENGINE: "aaaa"},
            {"key": "s/cubic", "flow": "0", "status": "ok", ENGINE: "bbbb"},
            {"key": "s/bic", "flow": "0", "status": "error 1", ENGINE: "aaaa"}]
    crosscheck.append_cache(path, rows)
    assert list(crosscheck.read_cache(path, ENGINE, "aaaa")) == ["s/reno"]
    assert sorted(crosscheck.read_cache(path, ENGINE, "aaaa", allow_stale=True)) == ["s/cubic", "s/reno"]
    assert list(crosscheck.read_cache(path, ENGINE, "cccc")) == []


def test_a_report_names_what_made_its_rows():
    rows = [{ENGINE: "aaaa"}, {ENGINE: "aaaa"}, {ENGINE: ""}]
    assert describe(rows[:2], ENGINE, "aaaa") == "engine aaaa (current)"
    assert describe(rows, ENGINE, "bbbb") == ("engine aaaa (2 rows), unrecorded (1 rows); "
                                               "STALE: the current engine is bbbb")
    assert describe([], NS2_SCRIPT, "x.tcl@1") == "no rows (ns-2 script now x.tcl@1)"
