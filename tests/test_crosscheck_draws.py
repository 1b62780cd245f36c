"""benchmarks/crosscheck_draws.py: each draw of a cell is a shifted access delay or a seed of ns-2's random
send wait, and both simulators get the same wait. The ns-2 wrapper runs only where ns-2 is installed."""

import shutil
import subprocess
import sys
import tomllib

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

import crosscheck as cc  # noqa: E402
import crosscheck_draws  # noqa: E402
import crosscheck_sack1  # noqa: E402

from cclab.scenario import load_scenario  # noqa: E402


def base_cell():
    return {c.id: c for c in crosscheck_sack1.cells()}[crosscheck_draws.DEFAULT_CELL]


def test_a_shift_moves_every_access_delay_by_k_microseconds_on_one_seed():
    cells = crosscheck_draws.draw_cells(base_cell(), 4, 1.0, None)
    base = base_cell().scenario.access_ms
    assert [round((c.scenario.access_ms - base) * 1e3, 9) for c in cells] == [0, 1, 2, 3]
    assert {c.seed for c in cells} == {1}
    assert len({c.id for c in cells}) == 4


def test_without_a_shift_draw_k_is_seed_k_and_a_duration_measures_from_zero():
    cells = crosscheck_draws.draw_cells(base_cell(), 3, 0.0, 30)
    assert [c.seed for c in cells] == [1, 2, 3]
    assert {(c.scenario.duration, c.scenario.measure_from) for c in cells} == {(30, 0)}
    assert {c.scenario.access_ms for c in cells} == {base_cell().scenario.access_ms}


def test_cclab_gets_ns2s_delayed_send_on_every_flow_and_nothing_without_it():
    cell = base_cell()
    spec, recovery = '{ name = "aimd", variant = "xu2004-ns2" }', "ns2-sack1"
    plain = crosscheck_sack1.cclab_toml(cell, recovery, spec)
    assert plain == crosscheck_sack1.cclab_toml(cell, recovery, spec, 0)
    assert "overhead" not in plain
    waited = tomllib.loads(crosscheck_sack1.cclab_toml(cell, recovery, spec, 100_000))
    assert [(f["overhead"], f["overhead_model"]) for f in waited["flows"]] == [("100000ns", "delayed-send")] * 2
    flows = load_scenario(waited).to_engine_config()["flows"]
    assert {(f["overhead_ns"], f["overhead_model"]) for f in flows} == {(100_000, "delayed-send")}


def test_a_flow_under_five_percent_of_the_total_counts_as_locked_out():
    def run(*goodputs):
        return [{"goodput_bps": g, "timeouts": t} for t, g in enumerate(goodputs)]

    line = crosscheck_draws.summarise([run(90e6, 4e6), run(50e6, 40e6), run(60e6, 2e6)])
    # totals 94, 90 and 62 Mbit/s: mean 82, deviations 12, 8, -20, sample variance 608 / 2
    assert line == "| 82.00 ± 17.44 | 1 (1-1) | 2 of 3 |"


@pytest.mark.skipif(shutil.which("ns") is None, reason="needs ns-2 (apt-get install ns2)")
def test_the_ns2_wrapper_passes_the_other_keys_through_and_sets_the_wait():
    import dataclasses

    cell = crosscheck_sack1.Cell(dataclasses.replace(base_cell().scenario, duration=2, measure_from=0))
    law = REPO / "benchmarks" / "ns2" / "aimd_sack1_dumbbell.tcl"
    ns = shutil.which("ns")

    def flows(script, extra=()):
        cmd = crosscheck_sack1.ns2_command(ns, cell, script, extra)
        out = subprocess.run(cmd, cwd=REPO / "benchmarks", capture_output=True, text=True, check=True).stdout
        return [(f["flow"], f["packets_sent"]) for f in cc.parse_kv_lines(out)]

    direct = flows(law)
    assert len(direct) == 2
    wrapper = crosscheck_draws.OVERHEAD_TCL
    assert flows(wrapper, ("script=aimd_sack1_dumbbell.tcl", "overhead_us=0")) == direct
    assert flows(wrapper, ("script=aimd_sack1_dumbbell.tcl", "overhead_us=100")) != direct


def test_renos_sides_are_crosscheck_sack1s_with_their_rule_and_window():
    reno = crosscheck_draws.LAWS["reno"]
    assert reno.script == crosscheck_sack1.SACK1_TCL
    assert {side: (spec, rule) for side, (spec, rule, _) in reno.sides.items()} == {
        side: (spec, rule) for side, (rule, spec) in crosscheck_sack1.CCLAB_SIDES.items()}
    assert set(crosscheck_draws.LAWS) == {"aimd", "hstcp", "reno"}
