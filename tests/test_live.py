"""Live measurement on loopback (cclab.live, issue 17): no root, no namespace. The server and the client's
flows run in this process (the server in threads), the killed client in a process of its own.

What holds: the goodput reported is the bytes the server counted over the time it counted them, and those
bytes are all that was sent; the kernel's own count (tcpi_bytes_acked) agrees to the byte; the sampler
sees every flow; and the server carries on after a client is killed in the middle of a transfer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from cclab.live.runs import RunSpec, campaign, measure
from cclab.live.system import LiveError, available_congestion_controls, check_congestion_control, require_root
from cclab.live.tcpinfo import decode
from cclab.live.transfer import Server
from conftest import REPO


@pytest.fixture
def server():
    running = Server("127.0.0.1", 0).start()
    yield running
    running.close()


def test_goodput_is_the_bytes_received_over_the_time_they_took(server):
    # Two fixed-size flows of 3 MB, reno and cubic: the server must count exactly 3,000,000 payload bytes
    # each. The kernel's bytes_acked counts every sequence number the receiver acknowledged (Linux
    # tcp_snd_una_update): the SYN's and the FIN's, one each (RFC 793), the header line (its JSON, known
    # here) and the payload: so 3,000,000 + header + 2, to the byte.
    spec = RunSpec(ccs=("reno", "cubic"), flows=2, duration_ns=None, size_bytes=3_000_000, sample_interval_ns=2_000_000)
    run = measure(spec, "127.0.0.1", server.port, run_id="abcdef012345")
    flows = run.flows.set_index("flow")
    for flow in (0, 1):
        row = flows.loc[flow]
        header = len(json.dumps({"cclab": 1, "run": "abcdef012345", "flow": flow})) + 1
        assert row["bytes"] == row["bytes_sent"] == 3_000_000
        assert row["bytes_acked"] == 3_000_000 + header + 2
        assert row["goodput_bps"] == pytest.approx(row["bytes"] * 8 / row["transfer_s"], rel=1e-12)
        assert 0 < row["transfer_s"] <= run.duration_s
    assert list(flows["cc"]) == ["newreno", "cubic"] and list(flows["kernel_cc"]) == ["reno", "cubic"]
    # The server counts a flow once its reply is sent, in its own thread: the client may read the reply
    # first (under load it did), so wait for the counts to settle.
    deadline = time.monotonic() + 10
    while (server.completed < 2 or server.receiving) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.completed == 2 and server.broken == 0 and server.receiving == 0
    assert run.summary()["source"] == "live" and run.summary()["kernel"] == os.uname().release


def test_the_sampler_sees_every_flow_every_few_ms_at_little_cost(server):
    # 2 flows for 1 s sampled every 5 ms: about 200 rounds of 2 samples. Under load a round can be late
    # (skipped rounds are not caught up), so at least half are asked for, and time never goes backwards.
    run = measure(RunSpec(ccs=("cubic",), flows=2, duration_ns=1_000_000_000), "127.0.0.1", server.port)
    series = run.timeseries
    assert set(series["flow"]) == {0, 1}
    per_flow = series.groupby("flow").size()
    assert (per_flow >= 100).all(), per_flow
    assert np.all(np.diff(series["time_s"].to_numpy()) >= 0)
    assert (series["cwnd"] >= 1).all() and (series["snd_mss"] > 0).all()
    # The sampler's own CPU time is reported; at 400 getsockopt calls a second it is a few percent of a
    # core at most even on a loaded machine (docs/live.md has the measured figure).
    assert 0 < run.sampler["cpu_share"] < 0.10, run.sampler


def test_the_server_survives_a_client_killed_mid_transfer(server):
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    client = subprocess.Popen([sys.executable, "-m", "cclab", "live", "client", "127.0.0.1", "--port", str(server.port),
                               "--duration", "30s", "--no-store"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while server.receiving == 0 and time.monotonic() < deadline:
            assert client.poll() is None, client.stderr.read().decode()
            time.sleep(0.02)
        assert server.receiving == 1
        time.sleep(0.2)
        client.send_signal(signal.SIGKILL)
        client.wait(10)
    finally:
        client.kill()
        client.stderr.close()
    deadline = time.monotonic() + 10
    while server.receiving and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.receiving == 0 and server.completed + server.broken == 1
    # And the next client is served as if nothing happened.
    run = measure(RunSpec(ccs=("cubic",), duration_ns=None, size_bytes=1_000_000), "127.0.0.1", server.port)
    assert int(run.flows["bytes"].iloc[0]) == 1_000_000


def test_runs_rotate_across_algorithms_within_each_repetition():
    # Seed 002, Section 3: rotate the algorithms and repeat, so each repetition goes through all of them.
    a, b, c = (RunSpec(ccs=(name,)) for name in ("reno", "cubic", "bbr"))
    order = [(rep, spec.ccs[0]) for rep, spec in campaign([a, b, c], 2)]
    assert order == [(0, "reno"), (0, "cubic"), (0, "bbr"), (1, "reno"), (1, "cubic"), (1, "bbr")]


def test_tcp_info_fields_past_the_kernel_s_struct_are_missing_not_misread():
    # A 104-byte record (a kernel of ~4.1 ends at tcpi_total_retrans, offset 100) with cwnd 17 at offset 80:
    # cwnd is read, the pacing rate (offset 104) is NaN, as is total_rto (offset 240).
    old = bytearray(104)
    old[80:84] = (17).to_bytes(4, "little")
    new = bytearray(248)
    new[80:84] = (42).to_bytes(4, "little")
    new[240:242] = (3).to_bytes(2, "little")
    columns = decode([bytes(old), bytes(new)])
    assert list(columns["snd_cwnd"]) == [17, 42]
    assert np.isnan(columns["pacing_rate"][0]) and np.isnan(columns["total_rto"][0])
    assert columns["total_rto"][1] == 3


def test_errors_say_what_to_do(monkeypatch):
    missing = next((name for name in ("vegas", "westwood", "htcp", "bic", "highspeed")
                    if name not in available_congestion_controls()), None)
    if missing is None:
        pytest.skip("every candidate congestion control is loaded in this kernel: none to miss")
    with pytest.raises(LiveError, match=f"modprobe tcp_{missing}"):
        check_congestion_control(missing)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(LiveError, match="needs root.*sudo"):
        require_root("the local testbed")


def test_a_client_without_a_server_says_so():
    with pytest.raises(LiveError, match="is `cclab live server` running there"):
        measure(RunSpec(ccs=("cubic",), duration_ns=100_000_000), "127.0.0.1", 1)


def test_compare_says_how_long_the_live_run_takes_before_it_starts(example, capsys, monkeypatch):
    # The live half runs in real time, and the example's run.duration is 2000 s: `cclab compare` sat
    # silent for half an hour. It now says so first (here the testbed is stubbed out: it needs root).
    import cclab.live.compare
    from cclab.cli import main
    from cclab.errors import CclabError

    def no_testbed(*_args, **_kwargs):
        raise CclabError("stopped by the test")

    monkeypatch.setattr(cclab.live.compare, "compare", no_testbed)
    with pytest.raises(SystemExit):
        main(["compare", str(example), "--set", "run.duration=90s"])
    assert capsys.readouterr().err.splitlines() == [
        f"{example.name}: simulating, then 90 s of real traffic on the testbed (run.duration; --set "
        "run.duration=30s for a shorter run)", "error: stopped by the test"]
