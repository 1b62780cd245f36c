"""cclab's traffic models against ns-2.35 TCP-Linux: reverse-path bulk traffic, and fixed-size transfers
arriving at a fixed rate. Prints Markdown tables for docs/validation.md.

    python3 benchmarks/traffic_crosscheck.py           # needs `ns` (Debian's ns2) and cclab installed

Both simulators run the same dumbbell: a DropTail bottleneck, hosts on 100 Mbit/s access links with 1 ms
each way, 1500-byte packets (1460 payload), NewReno as Linux 2.6.22 (cclab: variant linux-2.6.22 with
recovery linux-2.6, ns-2.35's TCP-Linux stand-in), SACK receivers acknowledging every packet.

1. Reverse-path bulk traffic: one flow left to right and one right to left on 10 Mbit/s, 20 ms each way,
   50-packet queues; goodput over [20 s, 100 s].
2. Transfers of 30 packets (43,800 bytes), one every `interval` from 0.5 s, on 10 Mbit/s, 25 ms each way:
   at 100 ms (35 % offered, 100-packet queue), and at 45 ms (78 %) with a 30-packet queue (no loss:
   transfers overlap, queues form) and an 8-packet queue (losses and recovery).
   Completion times (first packet to last acknowledgement): mean, percentiles, largest, and transfer by
   transfer (cclab's `records = true` keeps one row per connection; the k-th arrival against ns-2's k-th).
   In cclab they come from a [[traffic]] source (fixed inter-arrival, fixed size); in ns-2 from one agent
   pair per transfer, `$ftp produce 30` at its start time and the agent's `done` callback.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TCL = ROOT / "benchmarks" / "ns2" / "traffic.tcl"
PAYLOAD = 1460
CC = {"name": "newreno", "variant": "linux-2.6.22"}


def ns2(mode: str, **params) -> list[dict]:
    args = ["ns", str(TCL), f"mode={mode}"] + [f"{k}={v}" for k, v in params.items()]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    # TCP-Linux's select_ca prints "cmd select_ca ..." to stdout, sometimes without its newline, so a
    # line may start with "cmd": take the key=value pairs wherever they are.
    rows = []
    for line in out.splitlines():
        pairs = re.findall(r"(\w+)=(\S+)", line)
        if pairs:
            rows.append(dict(pairs))
    return rows


def dumbbell(rate: str, delay: str, queue: int) -> dict:
    return {"packet_size": 1500, "access_rate": "100Mbps",
            "bottleneck": {"rate": rate, "delay": delay, "queue": {"size": str(queue)}}}


def reverse_path() -> list[tuple]:
    import cclab

    flow = {"cc": CC, "recovery": "linux-2.6", "access_delay": "1ms"}
    scenario = {"network": dumbbell("10Mbps", "20ms", 50),
                "flows": [dict(flow), dict(flow, direction="reverse")],
                "run": {"duration": "100s", "measure_from": "20s", "sample_interval": "0s"}}
    ours = cclab.run(scenario).summary["flows"]
    theirs = ns2("reverse", rate_mbps=10, delay_ms=20, buffer=50, access_ms=1, access_mbps=100,
                 duration=100, measure_from=20)
    return [(("forward", "reverse")[i], ours[i]["goodput_bps"], float(theirs[i]["goodput_bps"])) for i in range(2)]


def quantile(values: list[float], q: float) -> float:
    """The smallest value with at least ceil(q n) values at or below it (cclab's rule)."""
    ordered = sorted(values)
    return ordered[min(len(ordered), max(1, math.ceil(q * len(ordered)))) - 1]


def transfers(interval_s: float, queue: int, count: int = 500) -> dict:
    import cclab

    first, packets = 0.5, 30
    stop = first + count * interval_s  # arrivals in [first, stop): exactly `count`
    duration = stop + 10
    scenario = {"network": dumbbell("10Mbps", "25ms", queue),
                "traffic": [{"group": "transfers", "size": f"{packets * PAYLOAD}B", "cc": CC, "recovery": "linux-2.6",
                             "inter_arrival": {"fixed": f"{round(interval_s * 1e6)}us"}, "start": f"{first}s",
                             "stop": f"{stop - interval_s / 2:.6f}s", "access_delay": "1ms", "records": True}],
                "run": {"duration": f"{duration}s", "sample_interval": "0s"}}
    result = cclab.run(scenario)
    group = result.summary["groups"][0]
    rows = ns2("transfers", rate_mbps=10, delay_ms=25, buffer=queue, access_ms=1, access_mbps=100, packets=packets,
               interval=interval_s, first=first, count=count, duration=duration)
    times = [float(r["done"]) - float(r["start"]) for r in rows if float(r["done"]) >= 0]
    # cclab's per-connection records (exact times, not the group's histogram), in order of arrival.
    records = result.connections.sort_values("start_s")
    ours = [t for t in records["completion_time_s"] if t == t]
    per_transfer = [abs(a - b) for a, b in zip(records["completion_time_s"], times)] if len(ours) == len(times) else []
    return {
        "interval": interval_s, "queue": queue,
        "completed": (group["flows_completed"], len(times)),
        "drops": result.bottleneck["drops"],
        "mean": (sum(ours) / len(ours), sum(times) / len(times)),
        "p50": (quantile(ours, 0.5), quantile(times, 0.5)),
        "p90": (quantile(ours, 0.9), quantile(times, 0.9)),
        "p99": (quantile(ours, 0.99), quantile(times, 0.99)),
        "max": (max(ours), max(times)),
        "within_1ms": sum(d <= 1e-3 for d in per_transfer),
    }


def diff(ours: float, theirs: float) -> str:
    return f"{100 * (ours - theirs) / theirs:+.2f} %"


def main() -> None:
    if shutil.which("ns") is None:
        sys.exit("ns-2 is not installed (apt-get install ns2)")
    print("### Reverse-path bulk traffic (10 Mbit/s, 20 ms, 50-packet queues, goodput over 20-100 s)\n")
    print("| flow | cclab kbit/s | ns-2.35 kbit/s | difference |")
    print("|---|---:|---:|---:|")
    for name, ours, theirs in reverse_path():
        print(f"| {name} | {ours / 1e3:,.1f} | {theirs / 1e3:,.1f} | {diff(ours, theirs)} |")
    for interval, queue in ((0.1, 100), (0.045, 30), (0.045, 8)):
        r = transfers(interval, queue)
        load = 30 * PAYLOAD * 8 / interval / 10e6
        print(f"\n### 30-packet transfers every {interval * 1e3:g} ms ({100 * load:.0f} % offered, {queue}-packet queue)\n")
        print("| figure | cclab | ns-2.35 | difference |")
        print("|---|---:|---:|---:|")
        print(f"| transfers completed | {r['completed'][0]} | {r['completed'][1]} | |")
        print(f"| bottleneck drops | {r['drops']} | | |")
        for key in ("mean", "p50", "p90", "p99", "max"):
            ours, theirs = r[key]
            print(f"| completion time {key}, ms | {ours * 1e3:.3f} | {theirs * 1e3:.3f} | {diff(ours, theirs)} |")
        print(f"| transfers whose own times differ by at most 1 ms | {r['within_1ms']} of {r['completed'][1]} | | |")


if __name__ == "__main__":
    main()
