"""benchmarks/crosscheck_sack1.py: its cells are the ones docs/validation.md's Sack1 section describes, its cclab
scenarios carry each cell's error rate and seed, and its cache keeps each side's rows apart by that side's
stamp. Running it needs ns-2, so only the bookkeeping is tested here."""

import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

import crosscheck_sack1  # noqa: E402
from provenance import ENGINE, NS2_SCRIPT  # noqa: E402


def test_the_cells_have_the_buffers_and_error_rates_the_docs_name():
    cells = crosscheck_sack1.cells()
    assert len({c.id for c in cells}) == len(cells) == 24
    shape = [(c.scenario.flows, c.scenario.rtt_ms, c.scenario.buffer, c.loss_rate) for c in cells]
    # 1, 2 and 4 flows at 100 Mbit/s, RTT 20 and 100 ms, 0.1 and 1 BDP, over [100, 200] s ...
    assert shape[:4] == [(1, 20, 17, 0.0), (1, 20, 167, 0.0), (1, 100, 83, 0.0), (1, 100, 833, 0.0)]
    assert [c.scenario.flows for c in cells[:12]] == [1] * 4 + [2] * 4 + [4] * 4
    assert all((c.scenario.rate_mbps, c.scenario.duration, c.scenario.measure_from) == (100, 200, 100)
               for c in cells[:12])
    # ... then one flow at 1 BDP with packet errors, over [100, 1000] s.
    # 1e-2 gives a window of about 12 packets and timeouts: it tests the timer (ns2-sack1's is Sack1's).
    assert shape[12:18] == [(1, 20, 167, 1e-4), (1, 100, 833, 1e-4), (1, 20, 167, 1e-3), (1, 100, 833, 1e-3),
                          (1, 20, 167, 1e-2), (1, 100, 833, 1e-2)]
    assert all((c.scenario.duration, c.scenario.measure_from) == (1000, 100) for c in cells[12:18])
    assert cells[12].id == "f1-r100-rtt20-b1-d1000m100/per=0.0001"
    # ... then large windows from 0 s, the slow-start overshoot included: 1 and 2 flows at 1 Gbit/s, RTT 100 ms,
    # 4 flows at 500 Mbit/s, 2 flows at 2.5 Gbit/s and RTT 40 ms (seed 003's Table 3 rate).
    big = [(c.scenario.flows, c.scenario.rate_mbps, c.scenario.rtt_ms, c.scenario.buffer, c.scenario.duration,
            c.scenario.measure_from, c.loss_rate) for c in cells[18:]]
    assert big == [(1, 1000, 100, 833, 60, 0, 0.0), (1, 1000, 100, 8333, 60, 0, 0.0), (2, 1000, 100, 833, 60, 0, 0.0),
                   (2, 1000, 100, 8333, 60, 0, 0.0), (4, 500, 100, 417, 100, 0, 0.0), (2, 2500, 40, 8333, 40, 0, 0.0)]


def test_the_error_cells_run_again_with_seeds_2_to_10():
    extra = crosscheck_sack1.seed_cells()
    assert len(extra) == 6 * 9 and {c.seed for c in extra} == set(range(2, 11))
    assert all(c.loss_rate > 0 for c in extra)
    assert len({c.id for c in extra + crosscheck_sack1.cells()}) == 54 + 24


def test_the_cclab_scenario_carries_the_error_rate_seed_and_rule():
    cell = crosscheck_sack1.seed_cells()[0]
    toml = crosscheck_sack1.cclab_toml(cell, "linux-2.6")
    assert f"loss_rate = {cell.loss_rate!r}\n" in toml and f"seed = {cell.seed}\n" in toml
    assert 'recovery = "linux-2.6"' in toml and 'variant = "linux-2.6.22"' in toml
    command = crosscheck_sack1.ns2_command("ns", cell)
    assert f"stream={cell.seed}" in command and "seed=1" in command and f"per={cell.loss_rate:g}" in command


def test_each_cclab_flow_starts_when_ns2s_handshake_would_end():
    # 2 flows at 2.5 Gbit/s, access 1.25 and 2.5 ms a side, bottleneck 20 ms: a SYN and its ACK of 40 bytes
    # each cross two access links at 25 Gbit/s (12.8 ns each) and the bottleneck (128 ns) one way:
    # 2 x (2 x 12.8 + 128) = 307.2 ns of transmission, then 2 x (20 + 2 x 1.25) = 45 ms of propagation.
    cell = crosscheck_sack1.cells()[-1]
    toml = crosscheck_sack1.cclab_toml(cell, "ns2-sack1")
    assert toml.count("[[flows]]") == 2 and "count =" not in toml
    assert 'access_delay = "1250000ns"\nstart = "45000307ns"' in toml
    assert 'access_delay = "2500000ns"\nstart = "50000307ns"' in toml
    assert toml.count('recovery = "ns2-sack1"') == 2


def test_each_side_reads_only_rows_with_its_current_stamp(tmp_path):
    path = tmp_path / "sack1.csv"
    row = {"scenario": "s", "flow": 0, "status": "ok"}
    crosscheck_sack1.append_rows(path, [
        {**row, "key": "s/ns2", "side": "ns2", NS2_SCRIPT: "sack1_dumbbell.tcl@new"},
        {**row, "key": "s/sack", "side": "sack", ENGINE: "new"},
        {**row, "key": "s/prr", "side": "prr", ENGINE: "old"},
        {**row, "key": "s/newreno", "side": "newreno", NS2_SCRIPT: "new"},
    ])
    stamps = {"ns2": (NS2_SCRIPT, "sack1_dumbbell.tcl@new"), "cclab": (ENGINE, "new")}
    assert list(crosscheck_sack1.read_rows(path, stamps)) == [("s", "ns2"), ("s", "sack")]


def test_a_finished_run_is_kept_stamped_by_its_side(tmp_path):
    path, cache = tmp_path / "laws.csv", {}
    stamps = {"ns2": (NS2_SCRIPT, "hstcp_sack1_dumbbell.tcl@abc"), "cclab": (ENGINE, "e1")}
    cell = crosscheck_sack1.cells()[0]
    row = {"flow": 0, "goodput_bps": 1.0, "status": "ok"}
    crosscheck_sack1.keep_rows(path, cache, cell, "ns2", [row], stamps)
    crosscheck_sack1.keep_rows(path, cache, cell, "ns2-law", [row], stamps)
    assert cache[(cell.id, "ns2")][0][NS2_SCRIPT] == "hstcp_sack1_dumbbell.tcl@abc"
    assert cache[(cell.id, "ns2-law")][0][ENGINE] == "e1"
    assert set(crosscheck_sack1.read_rows(path, stamps)) == {(cell.id, "ns2"), (cell.id, "ns2-law")}


def test_the_ns2_agent_side_runs_ns2s_window_under_the_sack1_rule_and_the_rules_keep_linuxs():
    import tomllib

    from cclab.scenario import load_scenario

    sides = crosscheck_sack1.CCLAB_SIDES
    assert crosscheck_sack1.SIDES == ["ns2", *crosscheck_sack1.RECOVERY_RULES, "ns2-agent"]
    assert {sides[rule] for rule in crosscheck_sack1.RECOVERY_RULES} == {
        (rule, crosscheck_sack1.SPEC) for rule in crosscheck_sack1.RECOVERY_RULES}
    cell = crosscheck_sack1.cells()[8]  # 4 flows on 17 packets
    flows = load_scenario(tomllib.loads(crosscheck_sack1.cclab_toml(cell, *sides["ns2-agent"]))).to_engine_config()["flows"]
    assert {(f["recovery"], f["cc"]["name"], f["cc"]["variant"]) for f in flows} == {("ns2-sack1", "newreno", "ns2")}
