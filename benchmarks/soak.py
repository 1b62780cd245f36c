#!/usr/bin/env python3
"""Soak run: a long simulation checked for counter overflow, memory growth and packet conservation.

10 NewReno flows share a 10 Gbit/s dumbbell (5 ms one way, 1 BDP of DropTail buffer, SACK, time series off)
until the bottleneck has carried `--packets` data packets: 10^10 by default, about 12,000 s of simulated time
at 833,333 packets/s. The packets counted are the bottleneck's `packets_forwarded`, the data packets put on
its wire (the dumbbell's forward bottleneck carries data only; ACKs go the other way). Why 10 flows and not
the issue's 100: measured over 10 s simulated on this machine, 100 flows run at 2.7 M packets per wall
second, 10 flows at 4.2 M and one flow at 5.4 M, so 10^10 packets take about 62, 40 and 31 minutes of one idle
core; 10 flows keep every flow cycling through losses and recoveries (one flow at 1 BDP loses once a
minute) at two thirds of 100 flows' cost (`--flows 100` runs the issue's scenario).

The engine runs in the release example `crates/engine/examples/soak.rs`, a child process, which prints
the invariants' figures (totals, every flow's and every link's) at each of `--checkpoints` instants; this
script reads the child's resident memory (`/proc/PID/status`, VmRSS) every `--memory-every` seconds and checks:

- conservation, exactly, at every checkpoint and at the end: sent = received + dropped + in the network
  (all flows); per flow, delivered <= received <= sent and delivered <= new packets <= sent, the flows'
  counts adding up to the totals; per link, the bottleneck forwarded at least what the receivers got and
  at most that plus what is in the network, and forwarded + dropped + waiting <= sent, every queue within
  its limit;
- no counter overflow: every count (events, packets sent, received, dropped, delivered, forwarded, and each
  flow's) only grows from one checkpoint to the next (a wrapped u64 or u32 would fall back); at the end the
  bottleneck carried between 95 % and 100 % of what its rate allows in the time, each flow's goodput (bits counted in u64) agrees with its
  delivered packets, its mean RTT (a u128 sum of ns) lies within the path's range, windows stay within
  [1, 2^30] and no event was scheduled in the past;
- flat memory: after a warm-up (the first 10 % of the run's wall time: the connections' start, slow start
  and the buffer filling), the peak resident set of the last 10 % of the run is within 10 % of the peak of
  the early one (10 % to 20 % of the wall time).

    python3 benchmarks/soak.py                       # the full soak: >= 1e10 packets (~45 min; docs/benchmarks.md)
    python3 benchmarks/soak.py --packets 2e8         # a shorter one (a minute)
    python3 benchmarks/soak.py --json-out soak.json  # every checkpoint and memory sample
    python3 benchmarks/soak.py --check-json soak.json --markdown   # the checks again on a saved run, running
                                                     # nothing, and its row of docs/benchmarks.md's table

Exit status 0 when every check passes. The time series are off: they grow with simulated time by design.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from cclab.scenario import load_scenario  # noqa: E402

PACKET_SIZE = 1500
PAYLOAD_SIZE = 1460
RATE_BPS = 10 * 10**9
PACKETS_PER_S = RATE_BPS / (8 * PACKET_SIZE)  # 833,333.3 at the bottleneck
ONE_WAY_S = 0.005
ACCESS_MAX_S = 0.002
CWND_CEILING = 1 << 30
# The warm-up, early and late parts of the run for the memory check, as fractions of its wall time.
WARM_UP, EARLY_END, LATE_START = 0.1, 0.2, 0.9
MEMORY_GROWTH = 0.10


def scenario(flows: int, duration_ns: int) -> dict:
    return {
        "network": {"packet_size": PACKET_SIZE, "bottleneck": {
            "rate": "10Gbps", "delay": "5ms", "queue": {"discipline": "droptail", "size": "1bdp"}}},
        "flows": [{"cc": "newreno", "count": flows, "access_delay": {"spread": ["0.1ms", "2ms"]},
                   "start_jitter": "100ms"}],
        "run": {"duration": f"{duration_ns}ns", "measure_from": "0s", "seed": 1, "sample_interval": "0s"},
    }


def resident_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def sample_memory(process: subprocess.Popen, samples: list, started: float, every_s: float) -> None:
    while process.poll() is None:
        kib = resident_kib(process.pid)
        if kib is not None:
            samples.append((time.monotonic() - started, kib))
        time.sleep(every_s)


def memory_phases(samples: list) -> tuple[list, list]:
    """The resident sets (KiB) of the early part (after the warm-up) and of the late part of the run."""
    if not samples:
        return [], []
    wall = samples[-1][0]
    early = [kib for t, kib in samples if WARM_UP * wall < t <= EARLY_END * wall]
    late = [kib for t, kib in samples if t >= LATE_START * wall]
    return early, late


def check_line(where: str, line: dict) -> list[str]:
    """Conservation and bounds at one checkpoint."""
    problems = []
    if line["sent"] != line["received"] + line["dropped"] + line["in_network"]:
        problems.append(f"{where}: sent {line['sent']} != received {line['received']} + dropped "
                        f"{line['dropped']} + in network {line['in_network']}")
    flows = line["flows"]
    for name, total in (("sent", "sent"), ("received", "received"), ("delivered", "delivered"),
                        ("new_sent", "new_sent")):
        if sum(f[name] for f in flows) != line[total]:
            problems.append(f"{where}: the flows' {name} add up to {sum(f[name] for f in flows)}, not {line[total]}")
    for k, f in enumerate(flows):
        if not f["delivered"] <= f["received"] <= f["sent"] or not f["delivered"] <= f["new_sent"] <= f["sent"]:
            problems.append(f"{where}: flow {k} delivered {f['delivered']}, received {f['received']}, "
                            f"new {f['new_sent']}, sent {f['sent']}")
    bottleneck = next(link for link in line["links"] if link["name"] == "bottleneck")
    if not line["received"] <= bottleneck["forwarded"] <= line["received"] + line["in_network"]:
        problems.append(f"{where}: the bottleneck forwarded {bottleneck['forwarded']}, the receivers got "
                        f"{line['received']} with {line['in_network']} in the network")
    if bottleneck["forwarded"] + bottleneck["drops"] + bottleneck["waiting"] > line["sent"]:
        problems.append(f"{where}: the bottleneck saw more than was sent")
    if line["dropped"] != sum(link["drops"] + link["error_drops"] for link in line["links"]):
        problems.append(f"{where}: drops {line['dropped']} are not the links' drops")
    for link in line["links"]:
        if link["max_waiting"] >= link["limit_packets"]:
            problems.append(f"{where}: {link['name']} held {link['max_waiting']} of {link['limit_packets']}")
    if line["events_in_the_past"]:
        problems.append(f"{where}: {line['events_in_the_past']} events scheduled in the past")
    if not 1 <= line["cwnd_min"] <= line["cwnd_max"] <= CWND_CEILING:
        problems.append(f"{where}: cwnd from {line['cwnd_min']} to {line['cwnd_max']}")
    return problems


def check(lines: list[dict], samples: list, packets: int, duration_ns: int) -> list[str]:
    problems = []
    counts = ("events", "events_scheduled", "sent", "received", "dropped", "delivered", "new_sent",
              "bottleneck_forwarded")
    flow_counts = ("sent", "new_sent", "received", "delivered", "loss_events", "retransmissions", "timeouts")
    for i, line in enumerate(lines):
        where = f"checkpoint {i + 1} ({line['now_ns'] / 1e9:.1f} s)"
        problems += check_line(where, line)
        if i:
            before = lines[i - 1]
            for name in counts:
                if line[name] < before[name]:
                    problems.append(f"{where}: {name} fell from {before[name]} to {line[name]} (a wrap)")
            for k, (f, f0) in enumerate(zip(line["flows"], before["flows"])):
                for name in flow_counts:
                    if f[name] < f0[name]:
                        problems.append(f"{where}: flow {k}'s {name} fell from {f0[name]} to {f[name]} (a wrap)")
    last = lines[-1] if lines else None
    if last is None or last["now_ns"] != duration_ns:
        problems.append("the run did not reach its end")
        return problems
    seconds = last["now_ns"] / 1e9
    capacity = PACKETS_PER_S * seconds
    if last["bottleneck_forwarded"] < packets:
        problems.append(f"the bottleneck carried only {last['bottleneck_forwarded']} packets of the {packets} asked for")
    if not 0.95 * capacity <= last["bottleneck_forwarded"] <= capacity + 1:
        problems.append(f"the bottleneck carried {last['bottleneck_forwarded']} packets, its rate allows {capacity:.0f}")
    # A lone flow takes one event per packet (its packets and ACKs reach both bottlenecks ahead of time,
    # docs/benchmarks.md run 26), several flows two (their endpoints take packets at the hand-off, tie rule
    # R, run 30); fewer than one is impossible (the bottleneck's transmitter), more than 6 is a runaway.
    if not last["sent"] <= last["events"] <= 6 * last["sent"]:
        problems.append(f"{last['events']} events for {last['sent']} packets sent")
    max_rtt_s = 2 * (ONE_WAY_S + 2 * ACCESS_MAX_S) + 1 / PACKETS_PER_S * last["links"][0]["limit_packets"]
    for k, f in enumerate(last["flows"]):
        goodput = f["delivered"] * PAYLOAD_SIZE * 8 / seconds
        if abs(f["goodput_bps"] - goodput) > 1e-9 * goodput + 1:
            problems.append(f"flow {k}: goodput {f['goodput_bps']} bit/s, its delivered packets say {goodput}")
        if f["mean_rtt_s"] is None or not 2 * ONE_WAY_S <= f["mean_rtt_s"] <= max_rtt_s:
            problems.append(f"flow {k}: mean RTT {f['mean_rtt_s']} s, outside [{2 * ONE_WAY_S}, {max_rtt_s:.4f}]")
    early, late = memory_phases(samples)
    if not early or not late:
        problems.append("too few memory samples")
    elif max(late) > (1 + MEMORY_GROWTH) * max(early):
        problems.append(f"memory grew from a peak of {max(early) / 1024:.1f} MiB early in the run to "
                        f"{max(late) / 1024:.1f} MiB at its end")
    return problems


def run(flows: int, duration_ns: int, checkpoints: int, memory_every: float) -> tuple[list, list, float, int]:
    """Run the soak in a child process: its checkpoints, the memory samples (wall s, KiB), the wall time and
    the child's exit status."""
    config = load_scenario(scenario(flows, duration_ns)).to_engine_config()
    subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "cclab-engine", "--example", "soak"],
                   cwd=REPO, check=True)
    binary = REPO / "target" / "release" / "examples" / "soak"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.json"
        path.write_text(json.dumps(config))
        started = time.monotonic()
        process = subprocess.Popen([str(binary), str(path), str(checkpoints)], stdout=subprocess.PIPE, text=True)
        samples: list = []
        sampler = threading.Thread(target=sample_memory, args=(process, samples, started, memory_every),
                                   daemon=True)
        sampler.start()
        lines = []
        for text in process.stdout:
            line = json.loads(text)
            lines.append(line)
            rss = samples[-1][1] / 1024 if samples else float("nan")
            print(f"  {line['now_ns'] / 1e9:9.1f} s simulated  {line['wall_s']:8.1f} s wall  "
                  f"{line['bottleneck_forwarded']:>14,} forwarded  {line['sent']:>14,} sent  "
                  f"{line['in_network']:>7,} in the network  {rss:7.1f} MiB", flush=True)
        status = process.wait()
        sampler.join()
        return lines, samples, time.monotonic() - started, status


def markdown_row(lines: list, samples: list, wall: float, problems: list[str]) -> str:
    """The run as a row of docs/benchmarks.md's soak table."""
    last = lines[-1]
    early, late = memory_phases(samples)
    memory = f"{max(early) / 1024:.1f} / {max(late) / 1024:.1f} MiB" if early and late else "?"
    return (f"| {last['bottleneck_forwarded']:,} | {last['sent']:,} | {last['events']:,} | "
            f"{last['now_ns'] / 1e9:,.0f} s | {wall / 60:.0f} min | "
            f"{last['bottleneck_forwarded'] / last['wall_s'] / 1e6:.2f} M | {memory} | "
            f"{'all passed' if not problems else f'{len(problems)} failed'} at {len(lines)} checkpoints |")


def summarise(lines: list, samples: list, wall: float, packets: int, duration_ns: int,
              markdown: bool = False) -> list[str]:
    """Print the run's figures and return the checks' problems (none: every check passed)."""
    problems = check(lines, samples, packets, duration_ns)
    if lines:
        last = lines[-1]
        rate = last["bottleneck_forwarded"] / last["wall_s"]
        print(f"soak: engine {last['engine'][:12]}; {last['bottleneck_forwarded']:,} data packets over the "
              f"bottleneck ({last['sent']:,} sent, {last['events']:,} events, {last['events_scheduled']:,} "
              f"scheduled) in {last['now_ns'] / 1e9:,.0f} s simulated, "
              f"{wall:.0f} s wall: {rate / 1e6:.2f} M packets/s")
        print(f"soak: at the end {last['sent']:,} sent = {last['received']:,} received + {last['dropped']:,} "
              f"dropped + {last['in_network']:,} in the network")
    tenths = [max((kib for t, kib in samples if k * wall / 10 < t <= (k + 1) * wall / 10), default=0) / 1024
              for k in range(10)]
    print("soak: peak resident memory (MiB) in each tenth of the run: " + ", ".join(f"{m:.1f}" for m in tenths))
    early, late = memory_phases(samples)
    if early and late:
        print(f"soak: early peak (after the warm-up) {max(early) / 1024:.1f} MiB, late peak {max(late) / 1024:.1f} "
              f"MiB, over {len(samples)} samples; conservation checked at {len(lines)} checkpoints")
    for problem in problems:
        print(f"soak: FAILED: {problem}", file=sys.stderr)
    if not problems:
        print("soak: every check passed")
    if markdown and lines:
        print("| data packets over the bottleneck | data packets sent | events | simulated | wall | packets per "
              "wall s | resident memory, early / late peak | checks |\n|---:|---:|---:|---:|---:|---:|---:|---|")
        print(markdown_row(lines, samples, wall, problems))
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packets", type=float, default=1e10,
                        help="data packets the bottleneck must carry (default 1e10)")
    parser.add_argument("--flows", type=int, default=10, help="NewReno flows (default 10; the issue's 100 is slower)")
    parser.add_argument("--checkpoints", type=int, default=100)
    parser.add_argument("--memory-every", type=float, default=1.0, help="seconds between memory samples")
    parser.add_argument("--json-out", type=Path, help="write every checkpoint and memory sample here")
    parser.add_argument("--check-json", type=Path, help="run nothing: check a run saved by --json-out again")
    parser.add_argument("--markdown", action="store_true", help="also print the run as docs/benchmarks.md's table row")
    args = parser.parse_args()

    if args.check_json:
        saved = json.loads(args.check_json.read_text())
        problems = summarise(saved["checkpoints"], saved["memory_kib"], saved["wall_s"], saved["packets"],
                             saved["duration_ns"], args.markdown)
        return 1 if problems else 0
    packets = int(args.packets)
    # The bottleneck carries rate / (8 x packet size) packets per second once the flows fill it; their
    # staggered starts and the first slow start cost under a second, the sawtooth of 10 flows over a 1-BDP
    # buffer under 1 %: 2 % more time than the rate alone says, and a second.
    duration_ns = int(packets / PACKETS_PER_S * 1.02 * 1e9) + 10**9
    print(f"soak: {args.flows} flows, 10 Gbit/s, {duration_ns / 1e9:.0f} s simulated for >= {packets:.3g} data "
          f"packets over the bottleneck", flush=True)
    lines, samples, wall, status = run(args.flows, duration_ns, args.checkpoints, args.memory_every)
    if args.json_out:
        args.json_out.write_text(json.dumps({"packets": packets, "flows": args.flows, "duration_ns": duration_ns,
                                             "wall_s": wall, "status": status, "checkpoints": lines,
                                             "memory_kib": samples}, indent=1))
    if status != 0:
        print(f"soak: the engine exited with status {status}", file=sys.stderr)
        return 1
    return 1 if summarise(lines, samples, wall, packets, duration_ns, args.markdown) else 0


if __name__ == "__main__":
    sys.exit(main())
