"""PRR against RFC 6675's classic recovery, in cclab and in ns-3.37, episode by episode.

Goodput cannot tell the recovery rules apart (docs/validation.md: under 2 % on ten flows): the halving is
the algorithm's under every rule. What the rule decides is *when* a recovery's segments leave. RFC 6675
(`sack` in cclab, `ns3::TcpClassicRecovery` with SACK in ns-3) sets cwnd = ssthresh at entry and sends
nothing until pipe has fallen below it, half a window of ACKs later, then one segment per ACK; PRR
(RFC 6937; `prr` in cclab, `ns3::TcpPrrRecovery` in ns-3, the default) sends about ssthresh / RecoverFS
segments per segment delivered from the first ACK on. After a burst of losses pipe falls far below
ssthresh: RFC 6675 then sends the difference as fast as ACKs free it, PRR no more than the ACK delivered
(+1, and the credit saved up, on a "safe" ACK: Linux 4.3+, cclab's `prr`, ns-3.37's default bound). So the
measures are, per recovery episode (from the fast retransmit to the ACK that covers the recovery point):

- `silence_ms`: the longest time in the episode with no segment sent (RFC 6675: about half the recovery
  round trip after one loss; PRR: a few ACK intervals);
- `first_half`: the share of the episode's segments sent in its first half (RFC 6675 near 0 after one
  loss; PRR about 1/2);
- `burst`: the most segments sent at one instant, i.e. on one ACK;
- `sent`, `retx`, `duration_ms`, `rto` (a timeout before the recovery point was acknowledged),
  `rto_ms` (the timeout in force at entry), and `ssthresh`, `cwnd_exit`, `pipe_exit` (packets, once the
  exit ACK is processed), where both rules should end with cwnd = ssthresh.

The scenario is one NewReno flow on benchmarks/suite.py's dumbbell (benchmarks/ns3/dumbbell.cc), aligned
in both: SACK on, no delayed ACKs, no timestamps, `--payloads` bytes of payload in packets 40 bytes
longer, initial window 2, minimum RTO 200 ms, access links at 10x the bottleneck. Its first episode is
slow start's overshoot (a DropTail overflow: a burst of losses); the later ones are congestion avoidance's
overflows (one loss each). cclab's DropTail limit counts the packet on the wire and ns-3's does not, so
cclab gets `--buffer` + 1. The table groups per payload and buffer the first episode, the second, and the
mean (range) of the third on, which repeat once the sawtooth is steady.

How each simulator is observed:
- ns-3: `dumbbell.cc --trace`, the sender's trace sources (every segment, ACK, cwnd, ssthresh, pipe, RTO
  and congestion state, with its time). An episode starts at CA_RECOVERY and ends on the first ACK that
  covers the recovery point (HighTxMark at entry).
- cclab: the Python API stepped every `--step-us` (`Simulation.run_until`): the sender's counters from the
  summary after each step (segments and retransmissions sent, timeouts), the time series at the same
  interval (cwnd, ssthresh, pipe, RTO, the receiver's in-order count) and the exact loss-event times. A
  step's segments count as sent at its end, so times are to within a step (100 us: a twelfth of a 1500-
  byte packet's time at 10 Mbit/s; a recovery sends only on ACKs, which come at most one per packet time).
  The episode ends when the receiver's in-order count reaches the recovery point (snd_nxt at entry), plus
  the ACK's one-way trip (no queue on the way back for one flow): when the sender leaves Recovery.

Usage (about 3 min on 2 shared cores with the defaults):
    .venv/bin/python benchmarks/prr_crosscheck.py [--buffers 5 20 60] [--payloads 1460 536] \
        [--duration 30] [--csv benchmarks/prr-crosscheck.csv] [--keep-traces DIR]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from suite import NS3_BINARY, NS3_SOURCE, ns3_available  # noqa: E402  (benchmarks/ is not a package)

HEADER = 40                  # TCP/IP, no options (timestamps off): payload + 40 = packet
ACK_BYTES = 40
ACCESS_FACTOR = 10
# ns-3's TcpSocketState::TcpCongState_t
CA_RECOVERY, CA_LOSS = 3, 4

# (label, simulator, recovery): the rules compared. ns-3.37's TcpPrrRecovery with its default
# ReductionBound (SSRB) is Linux 4.3's rule, cclab's `prr`; cclab's `prr-rfc6937` (SSRB on every ACK) has
# no ns-3 counterpart.
RULES = [
    ("RFC 6675", "ns-3", "ns3::TcpClassicRecovery"),
    ("RFC 6675", "cclab", "sack"),
    ("PRR", "ns-3", "ns3::TcpPrrRecovery"),
    ("PRR", "cclab", "prr"),
    ("PRR-SSRB", "cclab", "prr-rfc6937"),
]


@dataclass
class Path_:
    """The dumbbell: bottleneck rate (bit/s), one-way delays (ns), DropTail buffer (packets waiting),
    segment payload (bytes)."""
    rate_bps: int
    delay_ns: int
    access_ns: int
    buffer: int
    payload: int

    def ack_trip_ns(self) -> int:
        """An ACK's one-way time, receiver to sender, with no queue: three propagation delays and three
        serialisations of 40 bytes (the access links at 10x the bottleneck rate)."""
        serial = ACK_BYTES * 8 * 10**9 // self.rate_bps
        return self.delay_ns + 2 * self.access_ns + serial + 2 * serial // ACCESS_FACTOR


@dataclass
class Trace:
    """One run, in packets and ns from the first data segment: every sending instant with how many
    segments left then (new, retransmitted), each recovery episode, and the window state over time."""
    send_t: np.ndarray          # ns, ascending, one entry per instant (or cclab step) with sends
    send_new: np.ndarray
    send_retx: np.ndarray
    episodes: list = field(default_factory=list)   # (entry ns, end ns, rto: bool)
    window_t: np.ndarray = None  # ns
    cwnd: np.ndarray = None      # packets (ns-3: bytes / payload)
    ssthresh: np.ndarray = None
    pipe: np.ndarray = None
    rto_ms: np.ndarray = None    # the retransmission timeout in force
    goodput_bps: float = 0.0


@dataclass
class Episode:
    simulator: str
    rule: str
    recovery: str
    payload: int
    buffer: int
    index: int
    entry_s: float
    duration_ms: float
    rto: bool
    sent: int
    retx: int
    silence_ms: float
    first_half: float
    burst: int
    rto_ms: float
    ssthresh: float
    cwnd_exit: float
    pipe_exit: float


# ------------------------------------------------------------------------------------------------ ns-3

def run_ns3(path: Path_, recovery: str, duration_s: float, workdir: Path) -> Trace:
    out = workdir / f"ns3-{recovery.split('::')[1]}-{path.buffer}-{path.payload}.tr"
    cmd = [str(NS3_BINARY), "--cc=TcpNewReno", f"--rateMbps={path.rate_bps / 1e6:g}",
           f"--delayMs={path.delay_ns / 1e6:g}", f"--accessMs={path.access_ns / 1e6:g}",
           f"--buffer={path.buffer}", "--flows=1", f"--duration={duration_s:g}", f"--payload={path.payload}",
           f"--trace={out}", "--ns3::TcpSocketBase::MinRto=+200ms",
           f"--ns3::TcpL4Protocol::RecoveryType={recovery}"]
    stdout = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    goodput = float(stdout.split("goodput_bps=")[1].split()[0])
    return read_ns3_trace(out, goodput, path.payload)


def read_ns3_trace(path: Path, goodput_bps: float, payload: int) -> Trace:
    sends: dict[int, list[int]] = {}        # time -> [new, retransmitted]
    acks_t, acks = [], []
    window = {"cwnd": [], "ssthresh": [], "inflight": [], "rto": []}
    states = []
    highest = 1                              # the next new byte (data starts at sequence 1)
    first_tx = None
    for line in path.read_text().split("\n"):
        if not line:
            continue
        t, _flow, what, value, *rest = line.split()
        t, value = int(t), int(value)
        if what == "tx":
            first_tx = t if first_tx is None else first_tx
            end = value + int(rest[0])
            slot = sends.setdefault(t, [0, 0])
            if value < highest:
                slot[1] += 1
            else:
                slot[0] += 1
                highest = end
        elif what == "ack":
            acks_t.append(t)
            acks.append(value)
        elif what == "state":
            states.append((t, value, highest))
        else:
            window[what].append((t, value))
    t0 = first_tx
    acks_t, acks = np.array(acks_t) - t0, np.array(acks)
    episodes = []
    for i, (t, state, high) in enumerate(states):
        if state != CA_RECOVERY:
            continue
        # Recovered: the first ACK at or after entry that covers the recovery point (HighTxMark).
        later = np.nonzero((acks_t >= t - t0) & (acks >= high))[0]
        end = int(acks_t[later[0]]) if len(later) else None
        if end is None:
            continue
        rto = any(s == CA_LOSS and t <= ts <= end + t0 for ts, s, _ in states[i + 1:])
        episodes.append((t - t0, end, rto))
    times = np.array(sorted(sends))
    counts = np.array([sends[k] for k in times]).reshape(-1, 2)

    def series(name, unit):
        rows = np.array(window[name]).reshape(-1, 2)
        return rows[:, 0] - t0, rows[:, 1] / unit

    cwnd_t, cwnd = series("cwnd", payload)
    ss_t, ssthresh = series("ssthresh", payload)
    pipe_t, pipe = series("inflight", payload)
    rto_t, rto = series("rto", 1e6)
    # One time axis: every change of any of them, each carried forward.
    axis = np.unique(np.concatenate([cwnd_t, ss_t, pipe_t, rto_t]))
    carry = lambda at, values: values[np.maximum(np.searchsorted(at, axis, side="right") - 1, 0)]
    return Trace(send_t=times - t0, send_new=counts[:, 0], send_retx=counts[:, 1], episodes=episodes,
                 window_t=axis, cwnd=carry(cwnd_t, cwnd), ssthresh=carry(ss_t, ssthresh),
                 pipe=carry(pipe_t, pipe), rto_ms=carry(rto_t, rto), goodput_bps=goodput_bps)


# ----------------------------------------------------------------------------------------------- cclab

def run_cclab(path: Path_, recovery: str, duration_s: float, step_ns: int) -> Trace:
    from cclab.engine import load_engine
    from cclab.scenario import load_scenario

    raw = {
        "network": {"packet_size": path.payload + HEADER, "access_rate": f"{ACCESS_FACTOR * path.rate_bps}bps",
                    "bottleneck": {"rate": f"{path.rate_bps}bps", "delay": f"{path.delay_ns}ns",
                                   # cclab's limit counts the packet on the wire, ns-3's does not
                                   "queue": {"discipline": "droptail", "size": path.buffer + 1}}},
        "flows": [{"cc": "newreno", "access_delay": f"{path.access_ns}ns", "recovery": recovery,
                   "initial_cwnd": 2, "rto_min": "200ms", "delayed_ack": False}],
        "run": {"duration": f"{duration_s:g}s", "measure_from": "0s", "seed": 1,
                "sample_interval": f"{step_ns}ns", "record_loss_events": True},
    }
    sim = load_engine().Simulation(json.dumps(load_scenario(raw).to_engine_config()))
    end = int(duration_s * 1e9)
    steps = []                                # (t, packets_sent, retransmissions, timeouts)
    t = 0
    while t < end:
        t = min(t + step_ns, end)
        sim.run_until(t)
        flow = json.loads(sim.summary_json())["flows"][0]
        steps.append((t, flow["packets_sent"], flow["retransmissions"], flow["timeouts"]))
    steps = np.array(steps, dtype=np.int64)
    sent = np.diff(steps[:, 1], prepend=0)
    retx = np.diff(steps[:, 2], prepend=0)
    new_total = steps[:, 1] - steps[:, 2]     # snd_nxt after each step
    series = sim.timeseries()["flows"]
    sample_t = np.rint(series["time_s"] * 1e9).astype(np.int64)
    delivered = series["delivered"]
    trip = path.ack_trip_ns()
    episodes = []
    for entry in sim.loss_events()["time_ns"]:
        k = np.searchsorted(steps[:, 0], entry)          # the step holding the entry
        timeouts_before = steps[k - 1, 3] if k > 0 else 0
        if steps[k, 3] > timeouts_before:
            continue                                     # a timeout outside recovery, not a fast recovery
        point = new_total[k]                              # the recovery point: snd_nxt at entry
        reached = np.nonzero((sample_t >= entry) & (delivered >= point))[0]
        if not len(reached):
            continue
        done = int(sample_t[reached[0]]) + trip
        j = min(np.searchsorted(steps[:, 0], done), len(steps) - 1)
        rto = bool(steps[j, 3] > timeouts_before)
        episodes.append((int(entry), done, rto))
    has = sent > 0
    summary = json.loads(sim.summary_json())["flows"][0]
    return Trace(send_t=steps[has, 0], send_new=(sent - retx)[has], send_retx=retx[has], episodes=episodes,
                 window_t=sample_t, cwnd=series["cwnd"].astype(float), ssthresh=series["ssthresh"].astype(float),
                 pipe=series["in_flight"].astype(float), rto_ms=series["rto_s"] * 1e3,
                 goodput_bps=summary["goodput_bps"])


# ---------------------------------------------------------------------------------------------- measures

def episodes_of(trace: Trace, simulator: str, rule: str, recovery: str, path: Path_) -> list[Episode]:
    """The measures of each episode of `trace` (see the module's docstring)."""
    out = []
    for index, (entry, end, rto) in enumerate(trace.episodes):
        inside = (trace.send_t >= entry) & (trace.send_t <= end)
        t = trace.send_t[inside]
        n = trace.send_new[inside] + trace.send_retx[inside]
        sent = int(n.sum())
        edges = np.concatenate([[entry], t, [end]])
        half = entry + (end - entry) / 2
        at = lambda when, values: values[max(np.searchsorted(trace.window_t, when, side="right") - 1, 0)]
        out.append(Episode(
            simulator=simulator, rule=rule, recovery=recovery, payload=path.payload, buffer=path.buffer, index=index,
            entry_s=entry / 1e9, duration_ms=(end - entry) / 1e6, rto=rto, sent=sent,
            retx=int(trace.send_retx[inside].sum()),
            silence_ms=float(np.diff(edges).max()) / 1e6,
            first_half=float(n[t < half].sum()) / sent if sent else 0.0,
            burst=int(n.max()) if len(n) else 0,
            rto_ms=float(at(entry, trace.rto_ms)),
            # once the exit ACK is processed (ssthresh: the episode's, unless a timeout replaced it)
            ssthresh=float(at(end, trace.ssthresh)), cwnd_exit=float(at(end, trace.cwnd)),
            pipe_exit=float(at(end, trace.pipe))))
    return out


def fmt(values: list[float], digits: int) -> str:
    if not values:
        return "-"
    mean = statistics.fmean(values)
    if len(values) == 1 or max(values) - min(values) < 10 ** -digits:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def table(episodes: list[Episode]) -> str:
    """Markdown: per payload and buffer, the slow-start episode, the next one (the first after slow
    start's aftermath) and the mean (range) of the third on, which repeat once the sawtooth is steady."""
    head = ("| payload | buffer | episode | simulator | rule | n | RTO | RTO ms at entry | duration ms | sent "
            "| retx | silence ms | first half | burst | ssthresh | cwnd at exit | pipe at exit |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    groups = (("1st (slow start)", lambda e: e.index == 0), ("2nd", lambda e: e.index == 1),
              ("3rd on", lambda e: e.index >= 2))
    for payload, buffer in sorted({(e.payload, e.buffer) for e in episodes}):
        for which, pick in groups:
            for rule, simulator, recovery in RULES:
                chosen = [e for e in episodes if (e.payload, e.buffer) == (payload, buffer)
                          and e.simulator == simulator and e.recovery == recovery and pick(e)]
                if not chosen:
                    continue
                col = lambda name, digits: fmt([float(getattr(e, name)) for e in chosen], digits)
                lines.append(
                    f"| {payload} | {buffer} | {which} | {simulator} | {rule} ({recovery.replace('ns3::Tcp', '')}) "
                    f"| {len(chosen)} | {sum(e.rto for e in chosen)} | {col('rto_ms', 0)} "
                    f"| {col('duration_ms', 1)} | {col('sent', 1)} | {col('retx', 1)} | {col('silence_ms', 1)} "
                    f"| {col('first_half', 2)} | {col('burst', 1)} | {col('ssthresh', 1)} "
                    f"| {col('cwnd_exit', 1)} | {col('pipe_exit', 1)} |")
    return "\n".join(lines)


def provenance() -> dict[str, str]:
    """What made the numbers: cclab's engine fingerprint, the ns-3 program's hash and ns-3's version."""
    from cclab.engine import load_engine

    ns3 = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libns3-dev"], capture_output=True, text=True)
    return {"engine": load_engine().source_hash(),
            "ns3_program": f"dumbbell.cc@{hashlib.sha256(NS3_SOURCE.read_bytes()).hexdigest()[:12]}",
            "ns3": ns3.stdout.strip() or "unknown"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--buffers", type=int, nargs="+", default=[5, 20, 60],
                        help="bottleneck DropTail buffers, packets waiting (ns-3's MaxSize)")
    parser.add_argument("--rate-mbps", type=float, default=10)
    parser.add_argument("--delay-ms", type=float, default=20, help="bottleneck one-way delay")
    parser.add_argument("--access-ms", type=float, default=1, help="each access link's one-way delay")
    parser.add_argument("--payloads", type=int, nargs="+", default=[1460, 536],
                        help="segment payloads, bytes (packets are 40 bytes more)")
    parser.add_argument("--duration", type=float, default=30, help="simulated seconds")
    parser.add_argument("--step-us", type=int, default=100, help="cclab's observation step")
    parser.add_argument("--csv", type=Path, help="write every episode's measures here")
    parser.add_argument("--keep-traces", type=Path, help="keep ns-3's trace files in this directory")
    o = parser.parse_args(argv)
    if not ns3_available():
        print("ns-3 is not available (apt-get install ns3 libns3-dev, and g++)", file=sys.stderr)
        return 2
    episodes: list[Episode] = []
    goodput = []
    with tempfile.TemporaryDirectory() as scratch:
        workdir = o.keep_traces or Path(scratch)
        workdir.mkdir(parents=True, exist_ok=True)
        for payload in o.payloads:
            for buffer in o.buffers:
                path = Path_(int(o.rate_mbps * 1e6), int(o.delay_ms * 1e6), int(o.access_ms * 1e6), buffer,
                             payload)
                for rule, simulator, recovery in RULES:
                    if simulator == "ns-3":
                        trace = run_ns3(path, recovery, o.duration, workdir)
                    else:
                        trace = run_cclab(path, recovery, o.duration, o.step_us * 1000)
                    found = episodes_of(trace, simulator, rule, recovery, path)
                    episodes += found
                    goodput.append((payload, buffer, simulator, recovery, trace.goodput_bps, len(found),
                                    sum(e.rto for e in found)))
    stamp = provenance()
    print(f"cclab engine {stamp['engine']}, ns-3 {stamp['ns3']} ({stamp['ns3_program']}); "
          f"{o.rate_mbps:g} Mbit/s, {o.delay_ms:g} ms + 2 x {o.access_ms:g} ms one way, {o.duration:g} s\n")
    print(table(episodes))
    print()
    print("| payload | buffer | simulator | recovery | goodput Mbit/s | episodes | with RTO |")
    print("|---|---|---|---|---|---|---|")
    for payload, buffer, simulator, recovery, bps, n, rtos in goodput:
        print(f"| {payload} | {buffer} | {simulator} | {recovery} | {bps / 1e6:.3f} | {n} | {rtos} |")
    if o.csv:
        with o.csv.open("w", newline="") as f:
            writer = csv.writer(f)
            names = [x.name for x in fields(Episode)]
            writer.writerow(names + list(stamp))
            for e in episodes:
                writer.writerow([getattr(e, n) for n in names] + list(stamp.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
