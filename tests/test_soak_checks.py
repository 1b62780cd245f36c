"""The soak run's checks (benchmarks/soak.py) on checkpoints made by hand: they pass on a consistent run and
each one fails on the fault it is there to catch. The soak itself is a benchmark (an hour), not a test."""

import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

import soak  # noqa: E402

SECOND = 10**9


def checkpoint(half: bool) -> dict:
    """Two flows after 1 s (or 0.5 s with every count halved). At 1 s: sent 420,000 + 400,000 = 820,000 =
    received 419,500 + 399,700 + dropped 300 + in the network 500. The bottleneck forwarded 819,600, between
    what the receivers got (819,200) and that plus the network (819,700), within 95-100 % of the 833,333
    packets its 10 Gbit/s allow in 1 s; forwarded + dropped + waiting = 819,950 <= 820,000 sent. Goodput
    is delivered x 1460 B x 8 / 1 s: 419,000 x 11,680 = 4,893,920,000 bit/s and 399,500 x 11,680 =
    4,666,160,000 bit/s (the same at 0.5 s with half the packets)."""
    k = 2 if half else 1
    flows = [
        {"sent": 420_000 // k, "new_sent": 419_000 // k, "received": 419_500 // k, "delivered": 419_000 // k,
         "goodput_bps": 4_893_920_000.0, "delivered_bps": 0.0, "mean_rtt_s": 0.015, "loss_events": 4 // k,
         "retransmissions": 300 // k, "timeouts": 0, "cwnd": 5000},
        {"sent": 400_000 // k, "new_sent": 399_500 // k, "received": 399_700 // k, "delivered": 399_500 // k,
         "goodput_bps": 4_666_160_000.0, "delivered_bps": 0.0, "mean_rtt_s": 0.016, "loss_events": 6 // k,
         "retransmissions": 200 // k, "timeouts": 0, "cwnd": 100},
    ]
    return {
        "engine": "1ee98dd7c0e2d8da", "now_ns": SECOND // k, "wall_s": 1.0 / k,
        "events": 3_280_000 // k, "events_scheduled": 3_280_000 // k + 50,
        "events_in_the_past": 0, "pending_events": 50,
        "sent": 820_000 // k, "received": 819_200 // k, "dropped": 300 // k, "in_network": 500 // k,
        "delivered": 818_500 // k, "new_sent": 818_500 // k, "cwnd_min": 100, "cwnd_max": 5000,
        "queue_max_packets": 8332, "queue_limit_packets": 8333,
        "bottleneck_forwarded": 819_600 // k, "bottleneck_drops": 300 // k,
        "flows": flows,
        "links": [
            {"name": "bottleneck", "forwarded": 819_600 // k, "drops": 300 // k, "error_drops": 0,
             "waiting": 50, "max_waiting": 8332, "limit_packets": 8333},
            {"name": "bottleneck.reverse", "forwarded": 819_000 // k, "drops": 0, "error_drops": 0,
             "waiting": 0, "max_waiting": 1, "limit_packets": 8333},
        ],
    }


def flat_memory(late_kib: int = 10_000) -> list:
    """A sample a second for 100 s at 10,000 KiB, the last 10 s at `late_kib`."""
    return [(float(t), 10_000 if t < 90 else late_kib) for t in range(1, 101)]


def problems(lines, samples=None) -> list[str]:
    return soak.check(lines, flat_memory() if samples is None else samples, 800_000, SECOND)


def test_a_consistent_run_passes():
    assert problems([checkpoint(half=True), checkpoint(half=False)]) == []


def test_a_counter_that_falls_back_is_a_wrap():
    lines = [checkpoint(half=True), checkpoint(half=False)]
    lines[0]["flows"][1]["retransmissions"] = 2**32 - 1  # then 200 at the end: a u32 that wrapped
    assert problems(lines) == ["checkpoint 2 (1.0 s): flow 1's retransmissions fell from 4294967295 to 200 (a wrap)"]


def test_a_packet_missing_from_the_census_breaks_conservation():
    lines = [checkpoint(half=True), checkpoint(half=False)]
    lines[1]["in_network"] -= 1
    assert problems(lines)[0] == "checkpoint 2 (1.0 s): sent 820000 != received 819200 + dropped 300 + in network 499"


def test_flows_that_do_not_add_up_to_the_totals_are_caught():
    lines = [checkpoint(half=True), checkpoint(half=False)]
    lines[1]["flows"][0]["received"] -= 1
    assert "checkpoint 2 (1.0 s): the flows' received add up to 819199, not 819200" in problems(lines)


def test_a_goodput_that_disagrees_with_the_delivered_packets_is_caught():
    lines = [checkpoint(half=True), checkpoint(half=False)]
    lines[1]["flows"][0]["goodput_bps"] -= 2.0**64  # a u64 bit count that wrapped once over the 1 s
    assert [p for p in problems(lines) if p.startswith("flow 0: goodput")]


def test_memory_more_than_10_percent_above_its_early_peak_fails():
    lines = [checkpoint(half=True), checkpoint(half=False)]
    assert problems(lines, flat_memory(late_kib=11_000)) == []  # 10 % above: the limit itself
    assert problems(lines, flat_memory(late_kib=11_001)) == [
        "memory grew from a peak of 9.8 MiB early in the run to 10.7 MiB at its end"]


def test_a_run_short_of_its_packets_or_of_its_end_fails():
    lines = [checkpoint(half=True), checkpoint(half=False)]
    assert soak.check(lines, flat_memory(), 900_000, SECOND) == [
        "the bottleneck carried only 819600 packets of the 900000 asked for"]
    assert soak.check(lines[:1], flat_memory(), 800_000, SECOND) == ["the run did not reach its end"]
