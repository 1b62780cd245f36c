"""Quantities as people write them ("200Mbps", "2.5ms", "0.1bdp") -> integers in base units.

The engine only takes integers: bits per second, nanoseconds, bytes, packets. Parsing goes through
`Decimal` and `Fraction`, never binary floats, so "1.5Gbps" is exactly 1_500_000_000 and "2.5ms" exactly
2_500_000 ns on every machine. Every failure is a `BadValue` that names what would have been accepted.

Every result fits the engine's integers (u64): a larger one is refused here, where the message can name the
value, rather than by the engine's JSON reader. Exponents are bounded before any arithmetic, so "1e999999999"
is refused at once instead of becoming a number of a billion digits (found by tests/test_fuzz_scenario.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from math import floor

from .errors import BadValue

# Decimal multipliers: network rates are SI (1 Mbit/s = 10^6 bit/s), never powers of two.
RATE_UNITS = {"bps": 1, "kbps": 10**3, "Kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9}
RATE_ACCEPTED = "a number followed by bps, kbps, Mbps or Gbps"

DURATION_UNITS = {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9, "min": 60 * 10**9}
DURATION_ACCEPTED = "a number followed by ns, us, ms, s or min"

# Byte sizes: SI prefixes (KB = 1000 B) and binary ones (KiB = 1024 B), both in use for buffers.
BYTE_UNITS = {
    "B": 1, "KB": 10**3, "kB": 10**3, "MB": 10**6, "GB": 10**9,
    "KiB": 2**10, "MiB": 2**20, "GiB": 2**30,
}
PACKET_UNITS = ("", "packets", "pkts")
QUEUE_ACCEPTED = ("a number of packets (100), a multiple of the bandwidth-delay product (0.1bdp) "
                  "or a number of bytes (150KB, 1MB, 64KiB)")

# The engine's integers are u64: nanoseconds (584 years), bit/s, bytes and packets all stop here.
U64_MAX = 2**64 - 1
# No quantity a person means has more than 30 digits either side of the point; bounding the exponent keeps
# the exact arithmetic below (Fraction) small whatever is written.
MAX_EXPONENT = 30

_QUANTITY = re.compile(r"^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*([^\s\d.+-].*?)?\s*$")


def _split(value: str) -> tuple[Decimal, str] | None:
    """'2.5 ms' -> (Decimal('2.5'), 'ms'); None when it is not a number followed by a word."""
    match = _QUANTITY.match(value)
    if not match:
        return None
    try:
        return Decimal(match.group(1)), match.group(2) or ""
    except InvalidOperation:
        return None


def _number(value, what: str, accepted: str) -> tuple[Decimal, str]:
    """Any accepted input (int, float, str) -> (number, unit word). Booleans are not numbers."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise BadValue(f"{value!r} is not {what}", accepted)
    if isinstance(value, (int, float)):
        if value != value or value in (float("inf"), float("-inf")):
            raise BadValue(f"{value!r} is not {what}", accepted)
        number, unit = Decimal(value), ""
    else:
        parts = _split(value)
        if parts is None:
            raise BadValue(f"{value!r} is not {what}", accepted)
        number, unit = parts
    if number != 0 and abs(number.adjusted()) > MAX_EXPONENT:
        raise BadValue(f"{value!r} is too {'large' if number.adjusted() > 0 else 'small'} to be {what}", accepted)
    return number, unit


def _scaled(number: Decimal, factor: int) -> Fraction:
    """number x factor, exactly (Decimal arithmetic would round to 28 digits)."""
    return Fraction(number) * factor


def _whole(amount: Decimal | Fraction, value, what: str, accepted: str) -> int:
    if amount != int(amount):
        raise BadValue(f"{value!r} is not a whole number of {what}", accepted)
    if amount > U64_MAX:
        # 2^64 - 1 nanoseconds, said as a person would: 18,446,744,073 s, about 584 years.
        limit = (f"at most {U64_MAX // 10**9:,} s (about {U64_MAX / 1e9 / 86400 / 365.25:.0f} years)"
                 if what == "nanoseconds" else f"at most {U64_MAX:,} {what}")
        raise BadValue(f"{value!r} is longer than the engine counts" if what == "nanoseconds"
                       else f"{value!r} is more {what} than the engine counts", limit)
    return int(amount)


def parse_rate(value, allow_zero: bool = False) -> int:
    """'200Mbps' -> 200_000_000 bit/s. Zero may be written without a unit; anything else needs one. Must be
    > 0, or >= 0 with `allow_zero` (a step of a rate schedule, where 0 is an outage)."""
    number, unit = _number(value, "a rate", RATE_ACCEPTED)
    if unit == "" and number != 0:
        # ns-2 reads a bare number as bit/s, and so did cclab until session 13: `rate = 10` meant for 10 Mbit/s
        # then failed far from its cause (a 1-bdp queue of 0.00001 packets at "10 bit/s"). The example keeps
        # the number as written, with the unit it most likely lacks: bit/s for a thousand or more (ns-2's
        # habit: 384000), Mbit/s below.
        written = value.strip() if isinstance(value, str) else format(number.normalize(), "f")
        guess = "bps" if abs(number) >= 1000 else "Mbps"
        raise BadValue(f"{value!r} has no unit", f"{RATE_ACCEPTED} (e.g. '{written}{guess}')")
    if unit not in RATE_UNITS and unit != "":
        raise BadValue(f"{value!r} is not a rate", RATE_ACCEPTED)
    bps = _whole(_scaled(number, RATE_UNITS.get(unit, 1)), value, "bits per second", RATE_ACCEPTED)
    if bps < 0 or (bps == 0 and not allow_zero):
        raise BadValue(f"{value!r} is not a positive rate", RATE_ACCEPTED)
    return bps


def parse_duration(value) -> int:
    """'2.5ms' -> 2_500_000 ns. Zero may be written without a unit; anything else needs one."""
    number, unit = _number(value, "a duration", DURATION_ACCEPTED)
    if unit == "" and number != 0:
        # '50' could mean seconds or milliseconds; guessing would silently skew a result.
        raise BadValue(f"{value!r} has no unit", DURATION_ACCEPTED)
    if unit not in DURATION_UNITS and unit != "":
        raise BadValue(f"{value!r} is not a duration", DURATION_ACCEPTED)
    if number < 0:
        raise BadValue(f"{value!r} is negative", "a duration of at least 0")
    return _whole(_scaled(number, DURATION_UNITS.get(unit, 1)), value, "nanoseconds", DURATION_ACCEPTED)


BYTES_ACCEPTED = "a number of bytes (500KB, 1MB, 64KiB, or 1500 / '1500B')"


def parse_byte_size(value) -> int:
    """'500KB' -> 500_000 bytes (SI; KiB for 1024). A bare number is bytes. Must be >= 1."""
    number, unit = _number(value, "a size in bytes", BYTES_ACCEPTED)
    if unit not in BYTE_UNITS and unit != "":
        raise BadValue(f"{value!r} is not a size in bytes", BYTES_ACCEPTED)
    size = _whole(number * BYTE_UNITS.get(unit, 1), value, "bytes", BYTES_ACCEPTED)
    if size < 1:
        raise BadValue(f"{value!r} is not a positive size", BYTES_ACCEPTED)
    return size


@dataclass(frozen=True)
class QueueSize:
    """A queue size as written: `amount` packets, bandwidth-delay products or bytes.

    Kept unresolved because a 'bdp' size needs the bottleneck rate and delay, which belong to the
    table around it; `limits()` turns it into the engine's two limits once those are known.
    """

    kind: str  # "packets", "bdp" or "bytes"
    amount: Decimal
    text: str  # as written, for messages

    def limits(self, rate_bps: int, delay_ns: int, packet_size: int, ack_size: int) -> tuple[int, int | None]:
        """-> (limit_packets, limit_bytes or None)."""
        if self.kind == "packets":
            return int(self.amount), None
        if self.kind == "bdp":
            # BDP of the bottleneck's round-trip propagation delay, in data packets:
            #   k * rate [bit/s] * 2 * delay [ns] / 1e9 / (8 * packet_size [B])
            packets = (Fraction(self.amount) * rate_bps * 2 * delay_ns) / (10**9 * 8 * packet_size)
            rounded = floor(packets + Fraction(1, 2))  # half up, not Python's half-to-even
            if rounded > U64_MAX:
                raise BadValue(f"{self.text!r} is {float(packets):.3g} packets, more than the engine counts",
                               "a smaller multiple")
            if rounded < 1:
                raise BadValue(f"{self.text!r} is {float(packets):.3g} packets at {rate_bps} bit/s and "
                               f"{delay_ns} ns one way, less than one packet",
                               "a larger multiple, or a size in packets")
            return rounded, None
        limit_bytes = int(self.amount)
        if limit_bytes < packet_size:
            raise BadValue(f"{self.text!r} cannot hold one {packet_size}-byte packet",
                           f"at least {packet_size}B")
        # The byte limit is the one meant to bind, for data packets and for the far smaller ACKs of
        # a reverse queue alike, so the packet limit counts packets of the smallest size that fit.
        return limit_bytes // min(ack_size, packet_size), limit_bytes


def parse_queue_size(value) -> QueueSize:
    """100 / '100' -> packets, '0.1bdp' -> BDP multiple, '150KB' / '64KiB' -> bytes."""
    number, unit = _number(value, "a queue size", QUEUE_ACCEPTED)
    if number < 0:
        raise BadValue(f"{value!r} is negative", QUEUE_ACCEPTED)
    if unit in PACKET_UNITS:
        packets = _whole(number, value, "packets", QUEUE_ACCEPTED)
        if packets < 1:
            raise BadValue(f"{value!r} is an empty queue", "at least 1 packet")
        return QueueSize("packets", Decimal(packets), str(value))
    if unit == "bdp":
        if number <= 0:
            raise BadValue(f"{value!r} is an empty queue", "a positive multiple such as 0.1bdp")
        return QueueSize("bdp", number, str(value))
    if unit in BYTE_UNITS:
        size = _whole(_scaled(number, BYTE_UNITS[unit]), value, "bytes", QUEUE_ACCEPTED)
        return QueueSize("bytes", Decimal(size), str(value))
    raise BadValue(f"{value!r} is not a queue size", QUEUE_ACCEPTED)
