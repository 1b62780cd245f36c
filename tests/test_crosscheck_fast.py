"""benchmarks/crosscheck_fast.py: its cells are the ones docs/validation.md's FAST section describes, and its
cache keeps each side's rows apart by that side's stamp. Running it needs the ns-2 build_fast.sh makes, so
only the bookkeeping is tested here."""

import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

import crosscheck_fast  # noqa: E402
from provenance import ENGINE, NS2_SCRIPT  # noqa: E402


def test_the_cells_have_the_buffers_the_docs_name():
    cells = crosscheck_fast.cells()
    assert len({c.id for c in cells}) == len(cells) == 12
    buffers = [(c.scenario.flows, c.scenario.rate_mbps, c.scenario.rtt_ms, c.scenario.buffer, c.mi_off) for c in cells]
    # 0.1 and 1 BDP at 100 Mbit/s (RTT 20 and 100 ms), and the 110-ms RTT's 0.1 and 1 BDP at 200 Mbit/s.
    assert buffers[:4] == [(1, 100, 20, 17, False), (1, 100, 20, 167, False), (1, 100, 100, 83, False),
                           (1, 100, 100, 833, False)]
    assert buffers[8:10] == [(1, 200, 100, 183, False), (1, 200, 100, 1833, False)]
    assert buffers[10:] == [(1, 100, 20, 17, True), (1, 200, 100, 183, True)]
    assert cells[10].id.endswith("/mi=0")


def test_each_side_reads_only_rows_with_its_current_stamp(tmp_path):
    path = tmp_path / "fast.csv"
    row = {"scenario": "s", "flow": 0, "status": "ok"}
    crosscheck_fast.append_rows(path, [
        {**row, "key": "s/ns2", "side": "ns2", NS2_SCRIPT: "fast_dumbbell.tcl@new"},
        {**row, "key": "s/cclab", "side": "cclab", ENGINE: "old"},
    ])
    stamps = {"ns2": (NS2_SCRIPT, "fast_dumbbell.tcl@new"), "cclab": (ENGINE, "new")}
    assert list(crosscheck_fast.read_rows(path, stamps)) == [("s", "ns2")]
