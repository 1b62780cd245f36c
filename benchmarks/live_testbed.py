#!/usr/bin/env python3
"""The live testbed measured: the delay line's accuracy and the rate it sustains, the sampler's cost, and
simulated against real reno / cubic / bbr on a grid of rates and buffers (docs/live.md has the results).

Needs root (the testbed). Every part prints a Markdown table; --json-out keeps the raw numbers.

    sudo .venv/bin/python benchmarks/live_testbed.py                   # everything (~10 min)
    sudo .venv/bin/python benchmarks/live_testbed.py --only delay,rate,sampler
    sudo .venv/bin/python benchmarks/live_testbed.py --only compare --duration 20s --rates 10,50 --buffers 0.25,1

Parts:
- delay: connect() to a closed port of the receiver (SYN out, RST back: one round trip, no application in
  the loop) 200 times, 10 ms apart, on an unshaped idle testbed at each one-way delay: the round trip
  against the configured 2 x delay. Then the delay line's own lateness counters under a bulk flow at
  10, 50 and 100 Mbit/s (shaped: the line is not the bottleneck).
- rate: one and four cubic flows over an unshaped testbed (1 ms one way): the goodput the delay line
  passes, with its lateness meanwhile.
- sampler: one cubic flow at 100 Mbit/s, 10 ms one way, sampled every 1, 5 and 1000 ms (the last as good
  as none), alternating, 3 times: goodput and the sampler's CPU share.
- compare: `cclab compare`'s two runs for each algorithm x rate x buffer (in BDPs of the path's round trip),
  RTT 40 ms (bottleneck 15 ms + 2 x 2.5 ms access each way), the live run repeated (--repeat, default 3)
  in seed 002's rotation.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from cclab.live import netns  # noqa: E402
from cclab.live.runs import RunSpec, measure  # noqa: E402
from cclab.live.testbed import RECEIVER_ADDRESS, Testbed, TestbedConfig  # noqa: E402
from cclab.live.transfer import Server  # noqa: E402
from cclab.units import parse_duration  # noqa: E402

NAME = "cclabbench"


def probe_rtts(bed: Testbed, count: int = 200, gap_s: float = 0.01) -> list[float]:
    """Round trips (s) of SYN -> RST to a closed port of the receiver, from the sender's namespace."""
    rtts = []
    for _ in range(count):
        with netns.entered(bed.config.sender):
            probe = socket.socket()
        start = time.perf_counter()
        try:
            probe.connect((RECEIVER_ADDRESS, 9))
        except ConnectionRefusedError:
            rtts.append(time.perf_counter() - start)
        finally:
            probe.close()
        time.sleep(gap_s)
    return rtts


def line_lateness(stats: dict) -> tuple[float, float]:
    packets = stats.get("packets_out") or 0
    return ((stats["late_ns_total"] / packets / 1e3) if packets else float("nan"), stats.get("late_ns_max", 0) / 1e3)


def with_server(bed: Testbed):
    with netns.entered(bed.config.receiver):
        server = Server("0.0.0.0", 0)
    return server.start()


def part_delay(results: dict) -> None:
    print("\n### Delay line, idle: round trip of SYN -> RST against 2 x the configured delay (200 probes)\n")
    print("| one-way delay | RTT min ms | RTT median ms | RTT p99 ms | min - configured µs | median - configured µs |")
    print("|---:|---:|---:|---:|---:|---:|")
    rows = []
    for delay_ms in (5, 20, 50):
        config = TestbedConfig(name=NAME, rate_bps=None, delay_ns=delay_ms * 1_000_000, buffer_packets=100)
        with Testbed.up(config) as bed:
            rtts = sorted(probe_rtts(bed))
        median = statistics.median(rtts)
        row = {"delay_ms": delay_ms, "min_ms": rtts[0] * 1e3, "median_ms": median * 1e3,
               "p99_ms": rtts[int(0.99 * (len(rtts) - 1))] * 1e3,
               "min_excess_us": (rtts[0] - 2 * delay_ms / 1e3) * 1e6, "excess_us": (median - 2 * delay_ms / 1e3) * 1e6}
        rows.append(row)
        print(f"| {delay_ms} ms | {row['min_ms']:.3f} | {row['median_ms']:.3f} | {row['p99_ms']:.3f} | "
              f"{row['min_excess_us']:.0f} | {row['excess_us']:.0f} |", flush=True)
    results["delay"] = rows
    print("\n### Delay line under a bulk flow: its lateness, each packet's write against its release time "
          "(cubic, 20 ms one way, 1 BDP of buffer, 5 s)\n")
    print("| bottleneck | packets through the line | late mean µs | late max µs | flow's min RTT ms | flow's goodput Mbit/s |")
    print("|---:|---:|---:|---:|---:|---:|")
    rows = []
    for rate in (10, 50, 100):
        bdp = round(rate * 1e6 * 0.040 / 12000)
        config = TestbedConfig(name=NAME, rate_bps=rate * 1_000_000, delay_ns=20_000_000, buffer_packets=bdp)
        with Testbed.up(config) as bed:
            server = with_server(bed)
            run = measure(RunSpec(("cubic",), duration_ns=5_000_000_000), RECEIVER_ADDRESS, server.port, config.sender)
            server.close()
            stats = bed.delay_line_stats()
        late_mean, late_max = line_lateness(stats)
        row = {"rate_mbps": rate, "packets": stats.get("packets_out"), "late_mean_us": late_mean, "late_max_us": late_max,
               "min_rtt_ms": float(run.flows["min_rtt_s"].iloc[0]) * 1e3,
               "goodput_mbps": float(run.flows["goodput_bps"].iloc[0]) / 1e6}
        rows.append(row)
        print(f"| {rate} Mbit/s | {row['packets']:,} | {late_mean:.0f} | {late_max:.0f} | {row['min_rtt_ms']:.3f} | "
              f"{row['goodput_mbps']:.2f} |", flush=True)
    results["delay_under_load"] = rows


def part_rate(results: dict) -> None:
    print("\n### Delay line: the rate it passes (unshaped, 1 ms one way, 5 s)\n")
    print("| flows | goodput Mbit/s (sum) | retransmissions | line late mean µs | line late max µs |")
    print("|---:|---:|---:|---:|---:|")
    rows = []
    for flows in (1, 4):
        config = TestbedConfig(name=NAME, rate_bps=None, delay_ns=1_000_000, buffer_packets=100)
        with Testbed.up(config) as bed:
            server = with_server(bed)
            run = measure(RunSpec(("cubic",), flows=flows, duration_ns=5_000_000_000), RECEIVER_ADDRESS, server.port,
                          config.sender)
            server.close()
            late_mean, late_max = line_lateness(bed.delay_line_stats())
        row = {"flows": flows, "goodput_mbps": run.flows["goodput_bps"].sum() / 1e6,
               "retransmissions": int(run.flows["retransmissions"].sum()), "late_mean_us": late_mean, "late_max_us": late_max}
        rows.append(row)
        print(f"| {flows} | {row['goodput_mbps']:.0f} | {row['retransmissions']} | {late_mean:.0f} | {late_max:.0f} |", flush=True)
    results["rate"] = rows


def part_sampler(results: dict) -> None:
    print("\n### Sampler: cost and effect (cubic, 100 Mbit/s, 10 ms one way, 100 packets of buffer, 5 s)\n")
    print("| interval | runs | goodput Mbit/s (mean) | samples per run | sampler CPU, % of a core | largest lateness of a round ms |")
    print("|---:|---:|---:|---:|---:|---:|")
    config = TestbedConfig(name=NAME, rate_bps=100_000_000, delay_ns=10_000_000, buffer_packets=100)
    measured: dict[int, list] = {1: [], 5: [], 1000: []}
    with Testbed.up(config) as bed:
        server = with_server(bed)
        for _ in range(3):
            for interval_ms in measured:
                run = measure(RunSpec(("cubic",), duration_ns=5_000_000_000, sample_interval_ns=interval_ms * 1_000_000),
                              RECEIVER_ADDRESS, server.port, config.sender)
                measured[interval_ms].append(run)
                time.sleep(0.5)
        server.close()
    rows = []
    for interval_ms, runs in measured.items():
        row = {"interval_ms": interval_ms, "goodput_mbps": statistics.mean(r.flows["goodput_bps"].iloc[0] for r in runs) / 1e6,
               "samples": statistics.mean(r.sampler["samples"] for r in runs),
               "cpu_pct": 100 * statistics.mean(r.sampler["cpu_share"] for r in runs),
               "late_max_ms": max(r.sampler["late_max_s"] for r in runs) * 1e3}
        rows.append(row)
        print(f"| {interval_ms} ms | {len(runs)} | {row['goodput_mbps']:.2f} | {row['samples']:.0f} | {row['cpu_pct']:.2f} | "
              f"{row['late_max_ms']:.1f} |", flush=True)
    results["sampler"] = rows


SCENARIO = """[network]
packet_size = 1500
[network.bottleneck]
rate = "{rate}Mbps"
delay = "15ms"
queue = {{ discipline = "droptail", size = "{buffer}" }}

[[flows]]
cc = "{cc}"
access_delay = "2.5ms"

[run]
duration = "{duration}"
measure_from = "0s"
seed = 1
"""


def part_compare(results: dict, rates: list[float], buffers: list[float], duration: str, ccs: list[str],
                 repeat: int) -> None:
    """Every cell `repeat` times, rotated as seed 002 did: each repetition goes through every cell once. The
    simulation of a single flow is deterministic, so its first run stands for all; the live figures are
    the mean over the repetitions, with their range."""
    from cclab.live.compare import compare

    folder = Path(tempfile.mkdtemp(prefix="cclab-live-compare-"))
    cells = []
    for rate in rates:
        bdp = rate * 1e6 * 0.040 / (1500 * 8)
        for buffer in buffers:
            for cc in ccs:
                packets = max(2, round(buffer * bdp))
                path = folder / f"{cc}-{rate:g}-{buffer:g}.toml"
                path.write_text(SCENARIO.format(rate=rate, buffer=packets, cc=cc, duration=duration))
                cells.append({"cc": cc, "rate_mbps": rate, "buffer_bdp": buffer, "buffer_packets": packets,
                              "path": path, "sim": None, "live": []})
    for repetition in range(repeat):
        for cell in cells:
            table = compare(cell["path"], name=NAME).table()
            pick = {r["figure"]: r for r in table.to_dict("records")}
            if cell["sim"] is None:
                cell["sim"] = {k: v["simulated"] for k, v in pick.items()}
            cell["live"].append({k: v["live"] for k, v in pick.items()})
            time.sleep(1)
        print(f"repetition {repetition + 1} of {repeat} done", file=sys.stderr, flush=True)
    print(f"\n### Simulated vs live: one flow, RTT 40 ms, {duration}; live: mean [min-max] of {repeat} runs\n")
    print("| algorithm | rate | buffer | goodput Mbit/s sim / live | retrans % sim / live | loss events sim / live | "
          "timeouts sim / live | RTT mean ms sim / live | queueing mean ms sim / live | drops sim / live |")
    print("|---|---:|---:|---|---|---|---|---|---|---|")
    for cell in cells:
        def pair(figure: str, digits: int = 2) -> str:
            values = [run[figure] for run in cell["live"]]
            spread = f" [{min(values):.{digits}f}-{max(values):.{digits}f}]" if len(values) > 1 else ""
            return f"{cell['sim'][figure]:.{digits}f} / {statistics.mean(values):.{digits}f}{spread}"

        print(f"| {cell['cc']} | {cell['rate_mbps']:g} Mbit/s | {cell['buffer_bdp']:g} BDP ({cell['buffer_packets']}) | "
              f"{pair('goodput Mbit/s')} | {pair('retransmissions %')} | {pair('loss events', 0)} | "
              f"{pair('timeouts', 0)} | {pair('RTT mean ms', 1)} | {pair('queueing mean ms', 1)} | "
              f"{pair('bottleneck drops', 0)} |", flush=True)
        cell["path"] = str(cell["path"])
    results["compare"] = cells


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="delay,rate,sampler,compare")
    parser.add_argument("--rates", default="10,50")
    parser.add_argument("--buffers", default="0.25,1")
    parser.add_argument("--ccs", default="reno,cubic,bbr")
    parser.add_argument("--duration", default="20s")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    parts = args.only.split(",")
    results: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    print(f"live testbed measurements, {results['date']}")
    if "delay" in parts:
        part_delay(results)
    if "rate" in parts:
        part_rate(results)
    if "sampler" in parts:
        part_sampler(results)
    if "compare" in parts:
        parse_duration(args.duration)
        part_compare(results, [float(r) for r in args.rates.split(",")], [float(b) for b in args.buffers.split(",")],
                     args.duration, args.ccs.split(","), args.repeat)
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
