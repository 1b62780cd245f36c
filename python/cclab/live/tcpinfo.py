"""The kernel's `struct tcp_info` (include/uapi/linux/tcp.h) and BBR's `struct tcp_bbr_info`
(include/uapi/linux/inet_diag.h), decoded from the bytes getsockopt returns into numpy columns.

The sampler keeps the raw bytes of every sample (one getsockopt and one list append each) and decodes
them all at once here, with a numpy structured dtype over the concatenated records: no Python per sample.
The struct only grows at its end, and getsockopt returns as many bytes as the running kernel has (up to
the length asked for); a field beyond what the kernel returned is missing (NaN), never misread. Offsets
are those of the uapi header, verified against Linux 6.18 (tcpi_total_rto and its neighbours, at 240,
came with 6.7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # numpy is imported by the decoders, so that the socket options above cost nothing to import
    import numpy as np

TCP_INFO = 11          # getsockopt(IPPROTO_TCP, ...) option numbers, linux/tcp.h
TCP_CONGESTION = 13
TCP_CC_INFO = 26
TCP_NOTSENT_LOWAT = 25
REQUEST_BYTES = 256    # more than any kernel's struct tcp_info so far (6.18: 248)

# (name, numpy type, byte offset); times in µs, rates in bytes/s, windows in packets (segments).
FIELDS = [
    ("state", "u1", 0), ("ca_state", "u1", 1), ("retransmits", "u1", 2), ("probes", "u1", 3),
    ("backoff", "u1", 4), ("options", "u1", 5), ("app_limited_flags", "u1", 7),
    ("rto_us", "<u4", 8), ("snd_mss", "<u4", 16), ("rcv_mss", "<u4", 20),
    ("unacked", "<u4", 24), ("sacked", "<u4", 28), ("lost", "<u4", 32), ("retrans", "<u4", 36),
    ("pmtu", "<u4", 60), ("rtt_us", "<u4", 68), ("rttvar_us", "<u4", 72), ("snd_ssthresh", "<u4", 76),
    ("snd_cwnd", "<u4", 80), ("advmss", "<u4", 84), ("reordering", "<u4", 88),
    ("total_retrans", "<u4", 100), ("pacing_rate", "<u8", 104), ("max_pacing_rate", "<u8", 112),
    ("bytes_acked", "<u8", 120), ("bytes_received", "<u8", 128), ("segs_out", "<u4", 136),
    ("segs_in", "<u4", 140), ("notsent_bytes", "<u4", 144), ("min_rtt_us", "<u4", 148),
    ("data_segs_in", "<u4", 152), ("data_segs_out", "<u4", 156), ("delivery_rate", "<u8", 160),
    ("busy_time_us", "<u8", 168), ("rwnd_limited_us", "<u8", 176), ("sndbuf_limited_us", "<u8", 184),
    ("delivered", "<u4", 192), ("delivered_ce", "<u4", 196), ("bytes_sent", "<u8", 200),
    ("bytes_retrans", "<u8", 208), ("dsack_dups", "<u4", 216), ("reord_seen", "<u4", 220),
    ("rcv_ooopack", "<u4", 224), ("snd_wnd", "<u4", 228), ("rcv_wnd", "<u4", 232),
    ("total_rto", "<u2", 240), ("total_rto_recoveries", "<u2", 242), ("total_rto_time_ms", "<u4", 244),
]
SIZES = {"u1": 1, "<u2": 2, "<u4": 4, "<u8": 8}

# tcpi_ca_state values (include/net/tcp.h, enum tcp_ca_state).
CA_OPEN, CA_DISORDER, CA_CWR, CA_RECOVERY, CA_LOSS = 0, 1, 2, 3, 4

BBR_BYTES = 20         # struct tcp_bbr_info: bw_lo, bw_hi (bytes/s), min_rtt (µs), pacing_gain, cwnd_gain (<<8)
BBR_UNIT = 256         # the gains are fixed point, 1.0 = 256 (net/ipv4/tcp_bbr.c, BBR_SCALE = 8)


def decode(records: list[bytes]) -> dict[str, np.ndarray]:
    """The samples' fields as columns: 8-, 16- and 32-bit integers as int64, 64-bit ones as float64, and
    float64 with NaN for a field past the end of what the kernel returned."""
    import numpy as np

    if not records:
        return {name: np.array([], dtype=np.int64) for name, _, _ in FIELDS}
    width = max(len(r) for r in records)
    lengths = np.fromiter((len(r) for r in records), dtype=np.int64, count=len(records))
    raw = np.frombuffer(b"".join(r.ljust(width, b"\0") for r in records), dtype=np.uint8).reshape(-1, width)
    columns: dict[str, np.ndarray] = {}
    for name, kind, offset in FIELDS:
        size = SIZES[kind]
        if offset + size > width:
            columns[name] = np.full(len(records), np.nan)
            continue
        values = raw[:, offset:offset + size].copy().view(kind).reshape(-1)
        if kind == "<u8":
            # 64-bit counters and rates as float64 (exact to 2^53 bytes); all ones is the kernel's "unlimited"
            # (max_pacing_rate by default), which is no number.
            values = np.where(values == np.iinfo(np.uint64).max, np.nan, values.astype(np.float64))
        else:
            values = values.astype(np.int64)
        present = lengths >= offset + size
        columns[name] = values if present.all() else np.where(present, values.astype(float), np.nan)
    return columns


def decode_bbr(records: list[bytes | None]) -> dict[str, np.ndarray]:
    """BBR's estimates per sample (NaN where the flow is not BBR): bottleneck bandwidth (bit/s), min RTT (s),
    pacing and cwnd gains (plain numbers; pacing gain tells the mode: 2.89 startup, 0.35 drain, 1.25 / 0.75 /
    1 probe-bw's cycle, 1 probe-rtt with cwnd at 4)."""
    import numpy as np

    n = len(records)
    out = {name: np.full(n, np.nan) for name in ("bbr_bw_bps", "bbr_min_rtt_s", "bbr_pacing_gain", "bbr_cwnd_gain")}
    for i, record in enumerate(records):   # only BBR flows have a record; a few thousand per run
        if record is None or len(record) < BBR_BYTES:
            continue
        bw_lo, bw_hi, min_rtt, pacing_gain, cwnd_gain = np.frombuffer(record[:BBR_BYTES], dtype="<u4")
        out["bbr_bw_bps"][i] = ((int(bw_hi) << 32) | int(bw_lo)) * 8.0
        out["bbr_min_rtt_s"][i] = min_rtt / 1e6
        out["bbr_pacing_gain"][i] = pacing_gain / BBR_UNIT
        out["bbr_cwnd_gain"][i] = cwnd_gain / BBR_UNIT
    return out
