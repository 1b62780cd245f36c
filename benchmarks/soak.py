#!/usr/bin/env python3
"""Soak run: a long simulation checked for counter overflow, memory growth and packet conservation.

100 NewReno flows share a 10 Gbit/s dumbbell (5 ms one way, 1 BDP of DropTail buffer, SACK, time series off)
for as long as it takes to send `--packets` data packets: 10^10 by default, 12,000 s of simulated time at
833,333 packets/s. The engine runs in the release example `crates/engine/examples/soak.rs`, which prints
the invariants' figures at each of `--checkpoints` instants; this script samples the process's resident
memory meanwhile and checks:

- conservation, exactly, at every checkpoint and at the end: sent = received + dropped + in the network;
- no counter overflow: every count (events, packets sent, received, dropped, delivered, forwarded) only
  grows from one checkpoint to the next, the last ones are at least what the rate says (a wrapped u64 or
  u32 would fall back), windows stay within [1, 2^30], and no event was scheduled in the past;
- flat memory: the resident set's peak in the second half of the run is at most 5 % + 4 MiB above its
  peak in the first half (which holds the connections' start, slow start and the buffers filling).

    python3 benchmarks/soak.py                       # the full soak: >= 1e10 packets (hours; see docs/benchmarks.md)
    python3 benchmarks/soak.py --packets 2e8         # a shorter one (minutes)
    python3 benchmarks/soak.py --json-out soak.json  # every checkpoint and memory sample

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
RATE_BPS = 10 * 10**9
FLOWS = 100
CWND_CEILING = 1 << 30


def scenario(duration_ns: int) -> dict:
    return {
        "network": {"packet_size": PACKET_SIZE, "bottleneck": {
            "rate": "10Gbps", "delay": "5ms", "queue": {"discipline": "droptail", "size": "1bdp"}}},
        "flows": [{"cc": "newreno", "count": FLOWS, "access_delay": {"spread": ["0.1ms", "2ms"]},
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


def check(lines: list[dict], samples: list, packets: int, duration_ns: int) -> list[str]:
    problems = []
    counts = ("events", "sent", "received", "dropped", "delivered", "new_sent", "bottleneck_forwarded")
    for i, line in enumerate(lines):
        where = f"checkpoint {i + 1} ({line['now_ns'] / 1e9:.1f} s)"
        if line["sent"] != line["received"] + line["dropped"] + line["in_network"]:
            problems.append(f"{where}: sent {line['sent']} != received {line['received']} + dropped "
                            f"{line['dropped']} + in network {line['in_network']}")
        if line["events_in_the_past"]:
            problems.append(f"{where}: {line['events_in_the_past']} events scheduled in the past")
        if not 1 <= line["cwnd_min"] <= line["cwnd_max"] <= CWND_CEILING:
            problems.append(f"{where}: cwnd from {line['cwnd_min']} to {line['cwnd_max']}")
        if line["queue_max_packets"] >= line["queue_limit_packets"]:
            problems.append(f"{where}: a queue held {line['queue_max_packets']} of {line['queue_limit_packets']}")
        if i:
            for name in counts:
                if line[name] < lines[i - 1][name]:
                    problems.append(f"{where}: {name} fell from {lines[i - 1][name]} to {line[name]} (a wrap)")
    last = lines[-1] if lines else None
    if last is None or last["now_ns"] != duration_ns:
        problems.append("the run did not reach its end")
    elif last["sent"] < packets:
        problems.append(f"only {last['sent']} packets sent of the {packets} asked for")
    first = [kib for t, kib in samples if t <= 0.5 * samples[-1][0]] if samples else []
    second = [kib for t, kib in samples if t > 0.5 * samples[-1][0]] if samples else []
    if first and second and max(second) > 1.05 * max(first) + 4096:
        problems.append(f"memory grew from {max(first) / 1024:.1f} MiB in the first half to "
                        f"{max(second) / 1024:.1f} MiB in the second")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packets", type=float, default=1e10, help="data packets to send (default 1e10)")
    parser.add_argument("--checkpoints", type=int, default=100)
    parser.add_argument("--memory-every", type=float, default=1.0, help="seconds between memory samples")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()

    packets = int(args.packets)
    # The bottleneck sends rate / (8 x packet size) packets per second; the flows' staggered starts and the
    # first slow start take a few hundred ms, so 1 % more time than the rate alone says.
    duration_ns = int(packets * PACKET_SIZE * 8 / RATE_BPS * 1.01 * 1e9) + 10**9
    config = load_scenario(scenario(duration_ns)).to_engine_config()
    print(f"soak: {FLOWS} flows, 10 Gbit/s, {duration_ns / 1e9:.0f} s simulated for >= {packets:.3g} data packets",
          flush=True)
    subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "cclab-engine", "--example", "soak"],
                   cwd=REPO, check=True)
    binary = REPO / "target" / "release" / "examples" / "soak"

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.json"
        path.write_text(json.dumps(config))
        started = time.monotonic()
        process = subprocess.Popen([str(binary), str(path), str(args.checkpoints)], stdout=subprocess.PIPE, text=True)
        samples: list = []
        sampler = threading.Thread(target=sample_memory, args=(process, samples, started, args.memory_every),
                                   daemon=True)
        sampler.start()
        lines = []
        for text in process.stdout:
            line = json.loads(text)
            lines.append(line)
            rss = samples[-1][1] / 1024 if samples else float("nan")
            print(f"  {line['now_ns'] / 1e9:9.1f} s simulated  {line['wall_s']:8.1f} s wall  "
                  f"{line['sent']:>14,} sent  {line['in_network']:>7,} in the network  {rss:7.1f} MiB", flush=True)
        status = process.wait()
        sampler.join()
        wall = time.monotonic() - started
    if status != 0:
        print(f"soak: the engine exited with status {status}", file=sys.stderr)
        return 1

    problems = check(lines, samples, packets, duration_ns)
    last = lines[-1]
    rate = last["sent"] / last["wall_s"]
    peak = max(kib for _, kib in samples) / 1024 if samples else float("nan")
    print(f"soak: {last['sent']:,} data packets ({last['events']:,} events) in {wall:.0f} s wall: "
          f"{rate / 1e6:.2f} M packets/s; 1e10 packets would take {1e10 / rate / 3600:.1f} h here")
    print(f"soak: peak resident memory {peak:.1f} MiB over {len(samples)} samples; conservation checked at "
          f"{len(lines)} checkpoints")
    if args.json_out:
        args.json_out.write_text(json.dumps({"packets": packets, "duration_ns": duration_ns, "wall_s": wall,
                                             "checkpoints": lines, "memory_kib": samples,
                                             "problems": problems}, indent=1))
    for problem in problems:
        print(f"soak: FAILED: {problem}", file=sys.stderr)
    if not problems:
        print("soak: every check passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
