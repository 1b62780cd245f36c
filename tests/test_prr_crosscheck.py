"""benchmarks/prr_crosscheck.py's reading of an ns-3 trace and its per-episode measures, on traces written
by hand (no simulator runs)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import prr_crosscheck as pc  # noqa: E402

MS = 1_000_000  # ns

# One recovery, payload 1000 bytes, times in ms from a first segment at 10 ms:
# - 10 ms: segments 0-4 (sequence 1..5000), cwnd 5, RTO 200 ms;
# - 60 ms: the third duplicate ACK: CA_RECOVERY, ssthresh 2 (2000 bytes), segment 0 retransmitted at once;
# - 80 ms: a new segment (5); 90 ms: two new ones at one instant (6, 7);
# - 100 ms: the ACK that covers the recovery point 5001 (HighTxMark at entry), then CA_OPEN.
TRACE = """\
10000000 0 rto 200000000
10000000 0 cwnd 5000
10000000 0 ssthresh 4294967295
10000000 0 tx 1 1000
10000000 0 tx 1001 1000
10000000 0 tx 2001 1000
10000000 0 tx 3001 1000
10000000 0 tx 4001 1000
10000000 0 inflight 5000
50000000 0 ack 1
55000000 0 ack 1
60000000 0 ack 1
60000000 0 state 1
60000000 0 state 3
60000000 0 ssthresh 2000
60000000 0 cwnd 2000
60000000 0 tx 1 1000
60000000 0 inflight 2000
80000000 0 ack 1
80000000 0 tx 5001 1000
90000000 0 ack 1
90000000 0 tx 6001 1000
90000000 0 tx 7001 1000
90000000 0 inflight 3000
100000000 0 ack 5001
100000000 0 state 0
100000000 0 inflight 2000
"""


def episodes(text, tmp_path):
    path = tmp_path / "t.tr"
    path.write_text(text)
    trace = pc.read_ns3_trace(path, goodput_bps=0.0, payload=1000)
    dumbbell = pc.Path_(rate_bps=10_000_000, delay_ns=20 * MS, access_ns=MS, buffer=20, payload=1000)
    return trace, pc.episodes_of(trace, "ns-3", "PRR", "ns3::TcpPrrRecovery", dumbbell)


def test_one_recovery_is_measured_from_the_fast_retransmit_to_the_covering_ack(tmp_path):
    trace, found = episodes(TRACE, tmp_path)
    # Times count from the first data segment (10 ms): sends at 0 (5 new), 50 (1 retransmitted), 70, 80 (2).
    assert trace.send_t.tolist() == [0, 50 * MS, 70 * MS, 80 * MS]
    assert trace.send_new.tolist() == [5, 0, 1, 2]
    assert trace.send_retx.tolist() == [0, 1, 0, 0]
    [e] = found
    assert (e.entry_s, e.duration_ms, e.rto) == (0.05, 40.0, False)        # 50 ms to 90 ms
    assert (e.sent, e.retx, e.burst) == (4, 1, 2)                           # 1 + 1 + 2; two at 80 ms
    # Gaps: entry to its retransmission 0, then 20 ms (to 70), 10 ms (to 80), 10 ms (to the exit at 90).
    assert e.silence_ms == pytest.approx(20.0)
    # The first half ends at 70 ms: only the retransmission went out before it, 1 of 4.
    assert e.first_half == pytest.approx(0.25)
    # RTO at entry 200 ms; ssthresh and cwnd 2000 bytes = 2 segments; pipe 2000 bytes after the exit ACK.
    assert (e.rto_ms, e.ssthresh, e.cwnd_exit, e.pipe_exit) == (200.0, 2.0, 2.0, 2.0)


def test_a_timeout_before_the_covering_ack_marks_the_episode(tmp_path):
    with_timeout = TRACE.replace("90000000 0 ack 1\n", "90000000 0 ack 1\n95000000 0 state 4\n")
    _, [e] = episodes(with_timeout, tmp_path)
    assert e.rto


def test_an_episode_never_recovered_in_the_run_is_left_out(tmp_path):
    unfinished = TRACE.replace("100000000 0 ack 5001\n", "")
    _, found = episodes(unfinished, tmp_path)
    assert found == []


def test_an_acks_trip_back_is_three_propagation_delays_and_three_serialisations():
    # 40 bytes at 10 Mbit/s: 32 us on the bottleneck, 3.2 us on each access link at 100 Mbit/s.
    dumbbell = pc.Path_(rate_bps=10_000_000, delay_ns=20 * MS, access_ns=MS, buffer=20, payload=1460)
    assert dumbbell.ack_trip_ns() == 20 * MS + 2 * MS + 32_000 + 2 * 3_200


def test_a_group_prints_its_mean_and_range_or_one_value():
    assert pc.fmt([1.0, 3.0], 1) == "2.0 (1.0-3.0)"
    assert pc.fmt([4.0, 4.0], 1) == "4.0"
    assert pc.fmt([], 1) == "-"
