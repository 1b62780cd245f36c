"""units: what people write -> integers in base units, and the errors for what cannot be read."""

import pytest

from cclab.errors import BadValue, CclabError
from cclab.units import parse_duration, parse_queue_size, parse_rate


@pytest.mark.parametrize("text, bps", [
    ("200Mbps", 200_000_000), ("1Gbps", 1_000_000_000), ("10kbps", 10_000), ("10Kbps", 10_000),
    ("1.5Gbps", 1_500_000_000), ("100bps", 100), ("2.5 Mbps", 2_500_000), ("2e8bps", 200_000_000),
])
def test_rates(text, bps):
    assert parse_rate(text) == bps
    assert isinstance(parse_rate(text), int)


@pytest.mark.parametrize("text", ["200Mbs", "200MBps", "fast", "", "1.5bps", "0Mbps", "-1Mbps", True, None, [1]])
def test_bad_rates_name_the_accepted_units(text):
    with pytest.raises(BadValue) as caught:
        parse_rate(text)
    assert "bps, kbps, Mbps or Gbps" in str(caught.value) or "positive" in str(caught.value)


@pytest.mark.parametrize("value, example", [("10", "10Mbps"), (10, "10Mbps"), (" 2.5 ", "2.5Mbps"),
                                            (2e8, "200000000bps"), ("1e6", "1e6bps"), ("384000", "384000bps")])
def test_a_rate_without_a_unit_is_an_error_with_an_example(value, example):
    # A bare number was bit/s (ns-2's convention), so `rate = 10` meant for 10 Mbit/s became 10 bit/s and
    # failed far downstream (a queue of 0.00001 packets). Every rate now carries its unit, as durations do;
    # the example keeps the number as written, in Mbit/s below a thousand and bit/s from there.
    with pytest.raises(BadValue) as caught:
        parse_rate(value)
    assert caught.value.message == f"{value!r} has no unit"
    assert caught.value.accepted == f"a number followed by bps, kbps, Mbps or Gbps (e.g. '{example}')"


def test_a_zero_rate_may_go_without_a_unit():
    # 0 bit/s is 0 in every unit: an outage in a rate schedule, as "0" is a zero duration.
    assert parse_rate("0", allow_zero=True) == parse_rate(0, allow_zero=True) == 0
    with pytest.raises(BadValue, match="is not a positive rate"):
        parse_rate(0)


def test_rate_message_is_the_documented_one():
    with pytest.raises(BadValue) as caught:
        parse_rate("200Mbs")
    assert str(caught.value) == "'200Mbs' is not a rate; use a number followed by bps, kbps, Mbps or Gbps"
    assert isinstance(caught.value, CclabError) and isinstance(caught.value, ValueError)


@pytest.mark.parametrize("text, ns", [
    ("50ms", 50_000_000), ("2.5ms", 2_500_000), ("2000s", 2_000_000_000_000), ("1us", 1_000),
    ("10ns", 10), ("1min", 60_000_000_000), ("0", 0), (0, 0), ("0.1s", 100_000_000), ("1e3ms", 10**9),
])
def test_durations(text, ns):
    assert parse_duration(text) == ns


@pytest.mark.parametrize("text, fragment", [
    ("-5ms", "negative"), ("50", "has no unit"), (50, "has no unit"), ("5 parsecs", "is not a duration"),
    ("0.5ns", "whole number of nanoseconds"), (False, "is not a duration"),
])
def test_bad_durations(text, fragment):
    with pytest.raises(BadValue) as caught:
        parse_duration(text)
    assert fragment in caught.value.message
    assert caught.value.accepted


# 200 Mbit/s, 50 ms one way, 1500-byte packets: one BDP is 200e6 * 0.1 / 12000 = 1666.67 packets.
LINK = dict(rate_bps=200_000_000, delay_ns=50_000_000, packet_size=1500, ack_size=40)


@pytest.mark.parametrize("text, limits", [
    (100, (100, None)), ("100", (100, None)), ("100packets", (100, None)),
    ("0.1bdp", (167, None)), ("1bdp", (1667, None)), ("2bdp", (3333, None)),
    # Bytes: the byte limit binds; the packet limit counts the smallest packets (40-byte ACKs) that fit.
    ("150KB", (3750, 150_000)), ("1MB", (25_000, 1_000_000)), ("64KiB", (1638, 65_536)),
])
def test_queue_sizes(text, limits):
    assert parse_queue_size(text).limits(**LINK) == limits


def test_bdp_rounds_half_up():
    # A link where k * BDP lands exactly on .5: 12000 bit/s, 0.5 s one way: BDP = 12000 * 1 / 12000 = 1 packet; 2.5 BDP = 2.5 -> 3, not 2.
    assert parse_queue_size("2.5bdp").limits(12_000, 500_000_000, 1500, 40) == (3, None)


@pytest.mark.parametrize("text, fragment", [
    (0, "empty queue"), ("0", "empty queue"), ("0bdp", "empty queue"), ("-3", "negative"),
    ("1.5", "whole number of packets"), ("100Kb", "is not a queue size"), ("lots", "is not a queue size"),
])
def test_bad_queue_sizes(text, fragment):
    with pytest.raises(BadValue) as caught:
        parse_queue_size(text)
    assert fragment in caught.value.message


def test_queue_sizes_that_hold_less_than_a_packet():
    with pytest.raises(BadValue, match="less than one packet"):
        parse_queue_size("0.0001bdp").limits(**LINK)
    with pytest.raises(BadValue, match="cannot hold one 1500-byte packet"):
        parse_queue_size("1KB").limits(**LINK)
