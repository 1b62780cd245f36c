"""The local testbed (cclab.live.testbed) with real kernel TCP: three network namespaces, the delay line,
htb + pfifo as the bottleneck. Needs root, network namespaces, /dev/net/tun and the htb and pfifo
qdiscs; outside CI a missing one skips this module with the reason, in CI it is an error (CI runs as root).

What holds: the path's round trip is the configured one; a real CUBIC flow's sampled cwnd shows slow start
(exponential growth while ssthresh is the kernel's "infinite") and CUBIC's multiplicative decrease at each
loss (ssthresh = 0.7 x cwnd, Linux tcp_cubic.c beta = 717/1024); `cclab compare` prints both and stores
both so that one query sees them; the testbed leaves nothing behind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from engine_required import in_ci


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "the testbed needs root (it creates network namespaces and qdiscs)"
    if not Path("/proc/self/ns/net").exists():
        return "this kernel has no network namespaces"
    if not Path("/dev/net/tun").exists():
        return "/dev/net/tun is missing (the delay line needs TUN)"
    if shutil.which("ip") is None or shutil.which("tc") is None:
        return "iproute2 (ip, tc) is not installed"
    return None


REASON = _missing()
if REASON is not None:
    if in_ci():
        raise RuntimeError(f"CI must run the testbed tests: {REASON}")
    pytest.skip(REASON, allow_module_level=True)

from cclab.live import netns  # noqa: E402
from cclab.live.runs import RunSpec, measure  # noqa: E402
from cclab.live.tcpinfo import CA_LOSS, CA_RECOVERY  # noqa: E402
from cclab.live.testbed import RECEIVER_ADDRESS, Testbed, TestbedConfig, _alive, running  # noqa: E402
from cclab.live.transfer import Server  # noqa: E402
from conftest import REPO  # noqa: E402

INFINITE_SSTHRESH = 0x7FFFFFFF   # TCP_INFINITE_SSTHRESH, include/net/tcp.h


@pytest.fixture(scope="module")
def cubic_run():
    # 10 Mbit/s, 10 ms each way (RTT 20 ms): BDP 16.7 packets of 1500 bytes, and 10 packets of buffer, so
    # the window peaks near 27 packets and CUBIC, in its Reno-friendly region at such windows, regains the
    # 30 % it gives up in well under a second: several losses in 3 s.
    config = TestbedConfig(name="cclabtest", rate_bps=10_000_000, delay_ns=10_000_000, buffer_packets=10)
    with Testbed.up(config) as bed:
        with netns.entered(config.receiver):
            server = Server("0.0.0.0", 0)
        server.start()
        try:
            run = measure(RunSpec(ccs=("cubic",), duration_ns=3_000_000_000, sample_interval_ns=2_000_000),
                          RECEIVER_ADDRESS, server.port, namespace=config.sender,
                          bottleneck=bed.bottleneck_counters, bottleneck_rate_bps=config.rate_bps)
            # The last segments (FIN, its ACK) may still be inside the 10 ms delay line when the transfer
            # returns: read its counters once it holds nothing (they drain within a delay).
            deadline = time.monotonic() + 2.0
            line = bed.delay_line_stats()
            while line["held"] and time.monotonic() < deadline:
                time.sleep(0.02)
                line = bed.delay_line_stats()
        finally:
            server.close()
    return run, line


def test_the_round_trip_is_the_configured_one(cubic_run):
    run, line = cubic_run
    # Configured: 2 x 10 ms. The kernel's min_rtt adds the serialisation of one packet at 10 Mbit/s
    # (1.2 ms) and the delay line's wake-up (tens of µs); a loaded machine may add a little more.
    min_rtt = float(run.flows["min_rtt_s"].iloc[0])
    assert 0.0200 <= min_rtt <= 0.0235, min_rtt
    assert line["packets_out"] == line["packets_in"] and line["drops_full"] == 0


def test_cubic_s_trace_shows_slow_start_and_loss_reductions(cubic_run):
    run, _ = cubic_run
    series = run.timeseries
    t, cwnd, ssthresh = (series[c].to_numpy() for c in ("time_s", "cwnd", "ssthresh"))
    srtt = float(run.flows["min_rtt_s"].iloc[0])

    # Slow start: while ssthresh is still infinite, cwnd grows from the initial 10 to 20 within 4 round
    # trips (doubling per RTT takes one; the additive increase of congestion avoidance would take 10).
    slow = ssthresh == INFINITE_SSTHRESH
    assert slow[0] and cwnd[0] == 10
    reached = t[slow & (cwnd >= 20)]
    assert reached.size, "cwnd never reached 20 in slow start"
    assert reached[0] - t[0] < 4 * srtt + 0.010, (reached[0] - t[0], srtt)

    # Loss reductions: at each entry into fast recovery (or the Loss state), ssthresh is 0.7 x the window
    # just before (717/1024, tcp_cubic.c; the last sample before the entry, 2 ms earlier, can miss a packet
    # or two of growth: 0.6-0.8). ssthresh also changes without a loss: HyStart ends slow start early with
    # ssthresh = cwnd, and a new reduction may begin and end between two samples while the state reads
    # Recovery throughout; neither is an entry, and neither is checked.
    states = series["ca_state"].to_numpy()
    in_loss = np.isin(states, (CA_RECOVERY, CA_LOSS))
    entries = np.flatnonzero(in_loss[1:] & ~in_loss[:-1]) + 1
    ratios = [ssthresh[i] / cwnd[i - 1] for i in entries]
    context = [(round(t[i], 3), int(cwnd[i - 1]), int(ssthresh[i - 1]), int(cwnd[i]), int(ssthresh[i]))
               for i in entries]
    assert len(ratios) >= 2, f"only {len(ratios)} loss reductions in 3 s: {context}"
    assert all(0.6 <= r <= 0.8 for r in ratios), (ratios, "t, cwnd and ssthresh before and at the entry:", context)
    row = run.flows.iloc[0]
    assert row["loss_events"] >= 2 and row["retransmissions"] >= 2
    assert run.bottleneck["drops"] >= 2     # the losses were the bottleneck's DropTail, counted by tc
    assert 0.85 <= run.bottleneck["utilization"] <= 1.02, run.bottleneck


def test_compare_prints_and_stores_both(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    store = tmp_path / "store"
    done = subprocess.run([sys.executable, "-m", "cclab", "compare", str(REPO / "examples" / "live-dumbbell.toml"),
                           "--set", "run.duration=3s", "--testbed-name", "cclabcmptest", "--store", str(store),
                           "--json"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = {(r["flow"], r["figure"]): r for r in json.loads(done.stdout)}
    goodput = rows[(0, "goodput Mbit/s")]
    # 20 Mbit/s for 3 s with a 40 ms round trip: both fill most of the link after slow start.
    assert 14 < goodput["simulated"] <= 20 and 14 < goodput["live"] <= 20
    assert goodput["difference"] == pytest.approx(goodput["live"] - goodput["simulated"])
    import cclab.results

    stored = cclab.results.query("SELECT source, cc, goodput_bps, kernel FROM runs ORDER BY source", store=store)
    assert list(stored["source"]) == ["live", "simulation"] and set(stored["cc"]) == {"cubic"}
    assert stored["kernel"].iloc[0] == os.uname().release
    assert running("cclabcmptest") is None and not Path("/run/netns/cclabcmptest-mid").exists()


def test_testbed_up_and_down_by_command_leave_nothing_behind():
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    cclab = [sys.executable, "-m", "cclab", "live", "testbed"]
    up = subprocess.run([*cclab, "up", "--name", "cclabcli", "--rate", "50Mbps", "--delay", "5ms", "--buffer", "30"],
                        capture_output=True, text=True, env=env, timeout=60)
    assert up.returncode == 0, up.stderr
    bed = running("cclabcli")
    assert bed is not None and bed.delay_line_pid
    status = subprocess.run([*cclab, "status", "--name", "cclabcli"], capture_output=True, text=True, env=env, timeout=60)
    assert json.loads(status.stdout)["bottleneck"]["drops"] == 0
    down = subprocess.run([*cclab, "down", "--name", "cclabcli"], capture_output=True, text=True, env=env, timeout=60)
    assert down.returncode == 0, down.stderr
    assert running("cclabcli") is None
    assert not any(Path(f"/run/netns/cclabcli-{side}").exists() for side in ("snd", "mid", "rcv"))
    # The delay line has exited (at most a zombie until init, its parent now, reaps it).
    assert not _alive(bed.delay_line_pid)
