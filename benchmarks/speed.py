#!/usr/bin/env python3
"""Speed benchmark: cclab against ns-2.35 TCP-Linux on seed 000's single-flow dumbbell (Table I).

Scenario: one TCP flow, bottleneck 200 Mbit/s with 50 ms one way, DropTail queue of 0.1 or 1 BDP
(167 / 1667 packets of 1500 B), access links 2.5 ms and 2 Gbit/s on each side, 2000 s simulated,
goodput over the last 1000 s. Both simulators run the same scenario N times; the best wall time is
reported with the simulated data packets per wall second and the ratio ns-2 time / cclab time.

    python benchmarks/speed.py                          # reno, 0.1 BDP, 2000 s, 3 repetitions
    python benchmarks/speed.py --cc cubic --buffer 1bdp
    python benchmarks/speed.py --all --repeat 3         # the four Table I cells
    python benchmarks/speed.py --quick                  # 200 s (100 s measured), for a smoke test

Needs `ns` (Debian: apt-get install ns2) and/or `cclab` on PATH; a missing one is reported and
skipped. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
NS2_SCRIPT = HERE / "ns2" / "dumbbell.tcl"
CCLAB_SCENARIO = REPO / "examples" / "seed000-newreno.toml"

RATE_MBPS = 200
DELAY_MS = 50
ACCESS_MS = 2.5
PACKET_BYTES = 1500
PAYLOAD_BYTES = 1460
BDP_PACKETS = RATE_MBPS * 1e6 * 2 * DELAY_MS * 1e-3 / (PACKET_BYTES * 8)  # 1666.67
BUFFERS = {"0.1bdp": round(0.1 * BDP_PACKETS), "1bdp": round(BDP_PACKETS)}  # 167, 1667

# Seed 000, Table I, RTT 100 ms, goodput in kbit/s (packets x 1500 B, by the paper's own account).
PAPER_KBPS = {
    ("reno", "0.1bdp"): 162113.4, ("reno", "1bdp"): 199807.6,
    ("cubic", "0.1bdp"): 193757.9, ("cubic", "1bdp"): 199997.0,
}

# How the cclab scenario file is overridden. The keys follow the scenario TOML; if the schema
# names them differently, pass --cclab-key-* (or extra --cclab-set KEY=VALUE) instead of editing.
CCLAB_KEYS = {
    "cc": "flows.0.cc",
    "queue": "network.bottleneck.queue.size",
    "duration": "run.duration",
    "measure_from": "run.measure_from",
}
# ns-2.35 ships the Linux 2.6.22.6 CUBIC (v2.1, beta 819/1024); cclab's matching variant.
CCLAB_CUBIC_VARIANT = "linux-2.6.22"


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd: list[str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess]:
    cpu0 = child_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    return wall, child_cpu() - cpu0, proc


def fail(side: str, cmd: list[str], proc: subprocess.CompletedProcess) -> None:
    tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-15:]
    print(f"  {side} failed (exit {proc.returncode}): {' '.join(cmd)}", file=sys.stderr)
    for line in tail:
        print(f"    | {line}", file=sys.stderr)


# ----------------------------------------------------------------------------------------------- ns-2

def ns2_command(cc: str, buffer: str, duration: float, measure_from: float, seed: int) -> list[str]:
    return ["ns", str(NS2_SCRIPT), f"cc={cc}", f"rate_mbps={RATE_MBPS}", f"delay_ms={DELAY_MS}",
            f"buffer={BUFFERS[buffer]}", f"access_ms={ACCESS_MS}", "flows=1",
            f"duration={duration:g}", f"measure_from={measure_from:g}", f"seed={seed}",
            f"payload={PAYLOAD_BYTES}"]


def parse_ns2(stdout: str) -> list[dict]:
    flows = []
    for line in stdout.splitlines():
        if not line.startswith("flow="):
            continue
        row = {}
        for field in line.split():
            key, _, value = field.partition("=")
            try:
                row[key] = int(value)
            except ValueError:
                try:
                    row[key] = float(value)
                except ValueError:
                    row[key] = value
        flows.append(row)
    return flows


def run_ns2(cc, buffer, duration, measure_from, seed, repeat) -> dict | None:
    if shutil.which("ns") is None:
        print("  ns-2: `ns` not found on PATH (Debian: apt-get install ns2); skipped", file=sys.stderr)
        return None
    cmd = ns2_command(cc, buffer, duration, measure_from, seed)
    walls, cpus, flows = [], [], None
    for i in range(repeat):
        wall, cpu, proc = timed(cmd, HERE)
        if proc.returncode != 0:
            fail("ns-2", cmd, proc)
            return None
        flows = parse_ns2(proc.stdout)
        if not flows:
            fail("ns-2 (no flow= line)", cmd, proc)
            return None
        walls.append(wall)
        cpus.append(cpu)
        print(f"  ns-2  run {i + 1}/{repeat}: {wall:7.2f} s wall, {cpu:7.2f} s cpu", file=sys.stderr)
    f = flows[0]
    return {
        "command": " ".join(cmd), "walls": walls, "cpus": cpus, "best_wall": min(walls),
        "packets_total": f["packets_sent_total"], "packets_exact": True,
        "goodput_bps": f["goodput_bps"], "delivered_bps": f["delivered_bps"],
        "loss_events": f.get("loss_events"), "timeouts": f.get("timeouts"),
        "retransmissions": f.get("retransmissions"), "flow": f,
    }


# ---------------------------------------------------------------------------------------------- cclab

def cclab_exe() -> str | None:
    """`cclab` on PATH, else the repository's own virtualenv."""
    found = shutil.which("cclab")
    if found is None and (REPO / ".venv" / "bin" / "cclab").exists():
        found = str(REPO / ".venv" / "bin" / "cclab")
    return found


def cclab_command(args, cc: str, buffer: str, duration: float, measure_from: float, seed: int) -> list[str]:
    if cc == "cubic" and args.cclab_cubic_variant:
        cc_value = f'{{ name = "cubic", variant = "{args.cclab_cubic_variant}" }}'
    else:
        cc_value = cc
    sets = [f"{args.cclab_key_cc}={cc_value}", f"{args.cclab_key_queue}={buffer}",
            f"{args.cclab_key_duration}={duration:g}s", f"{args.cclab_key_measure_from}={measure_from:g}s"]
    if args.cclab_key_seed:
        sets.append(f"{args.cclab_key_seed}={seed}")
    sets.extend(args.cclab_set)
    cmd = [cclab_exe(), "run", str(args.cclab_scenario), "--json"]
    for s in sets:
        cmd += ["--set", s]
    return cmd


def parse_cclab(stdout: str) -> dict:
    # `--json` prints the summary; accept it bare or wrapped ({"summary": {...}}).
    text = stdout.strip()
    start = text.find("{")
    doc = json.loads(text[start:]) if start >= 0 else {}
    return doc.get("summary", doc)


def run_cclab(args, cc, buffer, duration, measure_from, seed, repeat) -> dict | None:
    if cclab_exe() is None:
        print("  cclab: `cclab` not found on PATH or in .venv (not installed yet: pip install -e . in the repo); "
              "skipped", file=sys.stderr)
        return None
    if not Path(args.cclab_scenario).exists():
        print(f"  cclab: scenario {args.cclab_scenario} does not exist yet; skipped", file=sys.stderr)
        return None
    cmd = cclab_command(args, cc, buffer, duration, measure_from, seed)
    walls, cpus, summary = [], [], None
    for i in range(repeat):
        wall, cpu, proc = timed(cmd, REPO)
        if proc.returncode != 0:
            fail("cclab", cmd, proc)
            return None
        try:
            summary = parse_cclab(proc.stdout)
            flow = summary["flows"][0]
        except (ValueError, KeyError, IndexError) as exc:
            print(f"  cclab: could not read the JSON summary ({exc})", file=sys.stderr)
            fail("cclab", cmd, proc)
            return None
        walls.append(wall)
        cpus.append(cpu)
        print(f"  cclab run {i + 1}/{repeat}: {wall:7.2f} s wall, {cpu:7.2f} s cpu", file=sys.stderr)
    flow = summary["flows"][0]
    # cclab's packets_sent is over the measurement window; the whole run's count is preferred when
    # the summary has it, else the window count is scaled to the run (marked as an estimate).
    if "packets_sent_total" in flow:
        packets, exact = flow["packets_sent_total"], True
    else:
        packets = round(flow["packets_sent"] * duration / (duration - measure_from))
        exact = False
    return {
        "command": " ".join(cmd), "walls": walls, "cpus": cpus, "best_wall": min(walls),
        "packets_total": packets, "packets_exact": exact,
        "goodput_bps": flow.get("goodput_bps"), "delivered_bps": flow.get("delivered_bps"),
        "loss_events": flow.get("loss_events"), "timeouts": flow.get("timeouts"),
        "retransmissions": flow.get("retransmissions"), "events": summary.get("events"), "flow": flow,
    }


# -------------------------------------------------------------------------------------------- report

def kbps(x) -> str:
    return "—" if x is None else f"{x / 1e3:,.1f}".replace(",", " ")


def describe(side: str, r: dict | None) -> None:
    if r is None:
        print(f"  {side:6s} not run")
        return
    pps = r["packets_total"] / r["best_wall"]
    est = "" if r["packets_exact"] else " (estimated from the measurement window)"
    print(f"  {side:6s} best wall {r['best_wall']:8.2f} s (runs: {', '.join(f'{w:.2f}' for w in r['walls'])}); "
          f"{r['packets_total']:,} data packets{est}; {pps / 1e3:,.0f} kpkt/s")
    print(f"         goodput {kbps(r['goodput_bps'])} kbit/s payload, {kbps(r['delivered_bps'])} kbit/s "
          f"as packets x 1500 B; loss events {r['loss_events']}, timeouts {r['timeouts']}, "
          f"retransmissions {r['retransmissions']}")


def markdown_row(cc, buffer, duration, ns2, cc_res) -> str:
    def wall(r):
        return "—" if r is None else f"{r['best_wall']:.1f}"

    def pps(r):
        if r is None:
            return "—"
        return f"{r['packets_total'] / r['best_wall'] / 1e3:,.0f}" + ("" if r["packets_exact"] else "≈")

    ratio = "—" if ns2 is None or cc_res is None else f"{ns2['best_wall'] / cc_res['best_wall']:.2f}"
    return (f"| {cc} | {buffer} ({BUFFERS[buffer]} pkt) | {duration:g} | {wall(ns2)} | "
            f"{'—' if ns2 is None else format(ns2['packets_total'], ',')} | {pps(ns2)} | "
            f"{wall(cc_res)} | {pps(cc_res)} | {ratio} | "
            f"{kbps(None if ns2 is None else ns2['delivered_bps'])} | "
            f"{kbps(None if cc_res is None else cc_res['delivered_bps'])} | "
            f"{kbps(PAPER_KBPS[(cc, buffer)] * 1e3)} |")


HEADER = ("| cc | buffer | sim s | ns-2 wall s | ns-2 data pkts | ns-2 kpkt/s | cclab wall s | cclab kpkt/s "
          "| ns-2/cclab time | ns-2 goodput kbit/s (x1500 B) | cclab goodput kbit/s (x1500 B) | paper kbit/s |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cc", choices=["reno", "cubic"], action="append",
                   help="congestion control (repeatable; default reno)")
    p.add_argument("--buffer", choices=list(BUFFERS), action="append",
                   help="bottleneck buffer (repeatable; default 0.1bdp)")
    p.add_argument("--all", action="store_true", help="all four cells: reno/cubic x 0.1bdp/1bdp")
    p.add_argument("--duration", type=float, default=2000.0, help="simulated seconds (default 2000)")
    p.add_argument("--measure-from", type=float, default=None,
                   help="start of the goodput window, s (default: half the duration)")
    p.add_argument("--quick", action="store_true", help="200 s simulated (goodput over the last 100 s)")
    p.add_argument("--repeat", type=int, default=3, help="repetitions per simulator; best wall time wins")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-ns2", action="store_true", help="skip ns-2")
    p.add_argument("--no-cclab", action="store_true", help="skip cclab")
    p.add_argument("--json-out", type=Path, help="also write all results to this JSON file")
    g = p.add_argument_group("cclab invocation (adjust if the scenario schema differs)")
    g.add_argument("--cclab-scenario", type=Path, default=CCLAB_SCENARIO)
    g.add_argument("--cclab-key-cc", default=CCLAB_KEYS["cc"])
    g.add_argument("--cclab-key-queue", default=CCLAB_KEYS["queue"])
    g.add_argument("--cclab-key-duration", default=CCLAB_KEYS["duration"])
    g.add_argument("--cclab-key-measure-from", default=CCLAB_KEYS["measure_from"])
    g.add_argument("--cclab-key-seed", default=None, help="key for the seed (default: not set)")
    g.add_argument("--cclab-cubic-variant", default=CCLAB_CUBIC_VARIANT,
                   help="CUBIC variant matching ns-2.35's v2.1, passed as flows.0.cc = { name, variant } "
                        "(empty string: cclab's default CUBIC)")
    g.add_argument("--cclab-set", action="append", default=[], metavar="KEY=VALUE",
                   help="extra --set override passed to cclab (repeatable)")
    args = p.parse_args()

    if args.quick:
        args.duration = 200.0
    measure_from = args.measure_from if args.measure_from is not None else args.duration / 2
    if not 0 <= measure_from < args.duration:
        p.error("--measure-from must be in [0, duration)")
    if args.repeat < 1:
        p.error("--repeat must be >= 1")
    ccs = ["reno", "cubic"] if args.all else (args.cc or ["reno"])
    buffers = list(BUFFERS) if args.all else (args.buffer or ["0.1bdp"])

    print(f"# {platform.node()} {platform.machine()} python {platform.python_version()}, "
          f"{os.cpu_count()} cpus; {time.strftime('%Y-%m-%d %H:%M')}", file=sys.stderr)
    rows, results = [], []
    for cc in ccs:
        for buffer in buffers:
            print(f"\n== {cc}, {buffer} ({BUFFERS[buffer]} packets), {args.duration:g} s simulated, "
                  f"goodput over [{measure_from:g}, {args.duration:g}] s, {args.repeat} repetition(s)",
                  file=sys.stderr)
            ns2 = None if args.no_ns2 else run_ns2(cc, buffer, args.duration, measure_from, args.seed,
                                                   args.repeat)
            ccr = None if args.no_cclab else run_cclab(args, cc, buffer, args.duration, measure_from,
                                                       args.seed, args.repeat)
            print(f"\n{cc} / {buffer}:")
            describe("ns-2", ns2)
            describe("cclab", ccr)
            if ns2 and ccr:
                print(f"  ns-2 time / cclab time = {ns2['best_wall'] / ccr['best_wall']:.2f}")
            print(f"  paper (Table I): {kbps(PAPER_KBPS[(cc, buffer)] * 1e3)} kbit/s")
            rows.append(markdown_row(cc, buffer, args.duration, ns2, ccr))
            results.append({"cc": cc, "buffer": buffer, "buffer_packets": BUFFERS[buffer],
                            "duration_s": args.duration, "measure_from_s": measure_from,
                            "ns2": ns2, "cclab": ccr, "paper_kbps": PAPER_KBPS[(cc, buffer)]})

    print("\nMarkdown (docs/benchmarks.md):\n")
    print(HEADER)
    for row in rows:
        print(row)
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
