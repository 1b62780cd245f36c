"""The report model (`cclab.reproduction_report`): findings checked in several parts make one finding, every
finding not checked says why, and quick mode shows no differences from the paper."""

from __future__ import annotations

from cclab.claims import ClaimResult
from cclab.experiment import ClaimSpec
from cclab.reproduction_report import Cell, FINDING_MARK, Reference, counts_text, findings

BOTH = "STCP starves NewReno (under 10 % of the link) in both placements"


def test_a_statement_checked_in_two_parts_is_one_finding_holding_where_checked():
    # Seed 000 Table II in quick mode: the placement with STCP on host B is checked (quick = true), the other
    # only on full runs. Before, the report listed the statement twice, "not checked" and "holds".
    merged = findings([ClaimResult(BOTH, "not checked", "checked on full runs only"),
                       ClaimResult(BOTH, "holds", "host_a at most 20,000: 1 comparisons")])
    assert len(merged) == 1
    assert merged[0].status == "partly checked"
    assert merged[0].reason == ("part 1 not checked: checked on full runs only; "
                                "part 2 holds: host_a at most 20,000: 1 comparisons")


def test_the_parts_are_named_by_what_sets_them_apart():
    # Seed 000 Table II: the two parts differ by their rows; seed 001 Figure 3's by their cells' coordinates.
    rows = [ClaimSpec(text=BOTH, metric="host_b", rows=["A: STCP, B: NewReno"], at_most=20000),
            ClaimSpec(text=BOTH, metric="host_a", rows=["A: NewReno, B: STCP"], at_most=20000, quick=True)]
    merged = findings([ClaimResult(BOTH, "not checked", "checked on full runs only"),
                       ClaimResult(BOTH, "holds", "host_a at most 20,000: 1 comparisons")], rows)
    assert merged[0].reason == ("part 1 (rows A: STCP, B: NewReno) not checked: checked on full runs only; "
                                "part 2 (rows A: NewReno, B: STCP) holds: host_a at most 20,000: 1 comparisons")
    where = [ClaimSpec(text="large queue", metric="utilisation", where={"qsize": 0.5, "delay": [20, 50]},
                       at_least=0.95),
             ClaimSpec(text="large queue", metric="utilisation", where={"qsize": 0.5, "delay": 100.0},
                       at_least=0.95)]
    merged = findings([ClaimResult("large queue", "holds", "a"), ClaimResult("large queue", "fails", "b")], where)
    assert merged[0].reason == ("part 1 (where delay=[20, 50], qsize=0.5) holds: a; "
                                "part 2 (where delay=100, qsize=0.5) FAILS: b")


def test_any_failing_part_fails_the_finding_and_all_holding_parts_hold_it():
    fails = findings([ClaimResult(BOTH, "holds", "a: 1 comparisons"),
                      ClaimResult(BOTH, "fails", "host_a at most 20,000: X @ Y: 25,000 not <= 20,000")])
    assert [(f.status, f.reason) for f in fails] == [
        ("fails", "part 1 holds: a: 1 comparisons; part 2 FAILS: host_a at most 20,000: X @ Y: 25,000 not <= 20,000")]
    holds = findings([ClaimResult(BOTH, "holds", "a: 1 comparisons"), ClaimResult(BOTH, "holds", "b: 1 comparisons")])
    assert [f.status for f in holds] == ["holds"]


def test_parts_not_checked_for_one_reason_say_it_once_and_order_is_kept():
    merged = findings([ClaimResult("first", "holds", "x at least 1: 4 comparisons"),
                       ClaimResult(BOTH, "not checked", "checked on full runs only"),
                       ClaimResult(BOTH, "not checked", "checked on full runs only")])
    assert [(f.text, f.status, f.reason) for f in merged] == [
        ("first", "holds", "x at least 1: 4 comparisons"), (BOTH, "not checked", "checked on full runs only")]


def test_a_finding_not_checked_always_has_a_reason():
    merged = findings([ClaimResult("no detail", "not checked", "")])
    assert merged[0].reason == "no reason recorded"


def test_counts_name_the_partly_checked_only_when_there_are_some():
    counts = {status: 0 for status in FINDING_MARK}
    assert counts_text({**counts, "holds": 3, "not checked": 2}) == "3 hold, 0 fail, 2 not checked"
    assert counts_text({**counts, "holds": 8, "not checked": 27, "partly checked": 1}) == (
        "8 hold, 0 fail, 27 not checked, 1 hold where checked (the rest not checked)")


def test_a_cell_reads_cclab_first_then_the_references_with_the_tolerance_it_is_held_to():
    references = (Reference("paper", "162,113.4", "+1.8%", "±5%"), Reference("ns-2", "162,378.1", ""))
    value = Cell("165,095.0", "", references, "ok", "at least 150,000.0")
    assert value.lines() == ["165,095.0", "paper 162,113.4 +1.8% (tolerance ±5%)", "ns-2 162,378.1",
                             "at least 150,000.0"]
