#!/usr/bin/env python3
"""Cross-check of seed 001: one CTCP flow in cclab against ns-2.35 TCP-Linux's `compound` module.

Seed 001 (Wu 2008) ran CTCP as a Linux module inside ns-2 TCP-Linux; ns-2.35 bundles that module
(Castellani/Hemminger, `select_ca compound`), which cclab's `compound` variant `linux-2.6.22` follows. This
script runs both on 24 of the study's 180 configurations (bw 100/200/500/1000 Mbit/s x one-way delay
20/50/100 ms x packet error rate 1e-7 ... 1e-3 x DropTail queue 0.1/0.2/0.5 BDP), two per (bw, delay) with
the error rate and the queue cycling, so every value of every dimension appears (`selection()`).

Both sides are the study's single-flow dumbbell (python/cclab/studies/seed001/single-flow.toml): 5 ms side
links at 10 x the bottleneck rate, window_ = 10000 packets (cclab: `cwnd_clamp = 10000`, TCP-Linux's
snd_cwnd_clamp), overhead_ = 8 us (cclab: the study's per-packet reading, or with --overhead-model
ns-2's own, `delayed-send`), 1500-byte packets, random
packet errors on the bottleneck's data direction, ns-2 TCP-Linux's recovery (cclab: `recovery =
"linux-2.6"`). The queue is given to both in packets, bw x 2 x delay x qsize / 1500 B rounded half up.
Runs are 100 s (the study's are 500 s), measured over [50, 100] s, one at a time.

    python3 benchmarks/crosscheck_ctcp.py                  # compute what is missing, print the table
    python3 benchmarks/crosscheck_ctcp.py --report-only --markdown out.md
    python3 benchmarks/crosscheck_ctcp.py --limit 8        # only the first 8 configurations
    python3 benchmarks/crosscheck_ctcp.py --seeds 5 --min-per 1e-5   # 5 seeds where errors dominate:
                                     # each side's spread over seeds, the differences of the means
    python3 benchmarks/crosscheck_ctcp.py --seeds 5 --overhead-model delayed-send
                                     # cclab with overhead_ as ns-2's agents apply it (a timer before each
                                     # send decision), not as the study's per-packet hold

The ns-2 side is benchmarks/ns2/dumbbell.tcl (per= and overhead_us= for this study). Results are cached
like benchmarks/crosscheck.py's, in benchmarks/crosscheck-ctcp-ns2.csv and crosscheck-ctcp-cclab.csv; a
re-run computes only what is missing, and what another engine or ns-2 script made (benchmarks/provenance.py;
--allow-stale reports such rows, naming what made them). crosscheck-ctcp-cclab-rwnd.csv keeps the first
cclab runs, which modelled window_ as `rwnd = 10000` (2026-11-24, before cwnd_clamp existed, no engine
stamp); `--before` adds their mean as a column. Standard library only. See docs/validation.md.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crosscheck import (THRESHOLD, append_cache, cclab_exe, drop_from_cache, parse_kv_lines,  # noqa: E402
                        read_cache, stamp)
from provenance import ENGINE, NS2_SCRIPT as NS2_STAMP, describe, engine_fingerprint, ns2_script_hash  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
NS2_SCRIPT = HERE / "ns2" / "dumbbell.tcl"
SCENARIO = REPO / "python" / "cclab" / "studies" / "seed001" / "single-flow.toml"
NS2_CSV = HERE / "crosscheck-ctcp-ns2.csv"
CCLAB_CSV = HERE / "crosscheck-ctcp-cclab.csv"
CCLAB_RWND_CSV = HERE / "crosscheck-ctcp-cclab-rwnd.csv"   # the runs with window_ as rwnd, kept for comparison
# cclab's runs with overhead_ read as ns-2's agents read it (`--overhead-model delayed-send`); CCLAB_CSV
# holds the study's reading (per-packet)
CCLAB_DELAYED_CSV = HERE / "crosscheck-ctcp-cclab-delayed-send.csv"

RATES = [100, 200, 500, 1000]          # Mbit/s (Table II)
DELAYS = [20, 50, 100]                 # ms, one way
PERS = [1e-7, 1e-6, 1e-5, 1e-4, 1e-3]  # packet error rate
QSIZES = [0.1, 0.2, 0.5]               # BDP of the bottleneck's own round trip
DURATION_S = 100
MEASURE_FROM_S = 50
PACKET_BYTES = 1500
CCLAB_CC = '{ name = "compound", variant = "linux-2.6.22" }'


@dataclass(frozen=True)
class Config:
    rate_mbps: int
    delay_ms: int
    per: float
    qsize: float

    @property
    def id(self) -> str:
        return f"bw{self.rate_mbps}-d{self.delay_ms}-per{self.per:g}-q{self.qsize:g}-t{DURATION_S}m{MEASURE_FROM_S}"

    @property
    def buffer(self) -> int:
        """Packets: bw x 2 x delay x qsize / 1500 B, rounded half up (cclab's rounding of 'k bdp')."""
        bdp = self.rate_mbps * 1e6 * 2 * self.delay_ms * 1e-3 / (PACKET_BYTES * 8)
        return max(1, math.floor(self.qsize * bdp + 0.5))


def selection() -> list[Config]:
    """Two configurations per (bw, delay), 24 in all. Configuration k (0..23) takes error rate k mod 5, so
    each rate appears 4 or 5 times; the two of a (bw, delay) take different queues, shifted by bw and delay
    so that each queue appears 8 times and meets every bw and every delay. Cheapest (lowest bw) first."""
    out = []
    for ri, rate in enumerate(RATES):
        for di, delay in enumerate(DELAYS):
            for j in range(2):
                k = 2 * (3 * ri + di) + j
                out.append(Config(rate, delay, PERS[k % 5], QSIZES[(ri + di + j) % 3]))
    return out


def key(c: Config, seed: int) -> str:
    """Cache key; seed 1 has no suffix."""
    return f"{c.id}/compound" + ("" if seed == 1 else f"/seed={seed}")


def run_ns2(c: Config, timeout: float, seed: int = 1) -> list[dict]:
    cmd = ["nice", "ns", str(NS2_SCRIPT), "cc=compound", f"rate_mbps={c.rate_mbps}", f"delay_ms={c.delay_ms}",
           f"buffer={c.buffer}", "access_ms=5", f"access_mbps={10 * c.rate_mbps}", "flows=1",
           f"duration={DURATION_S}", f"measure_from={MEASURE_FROM_S}", f"seed={seed}", "payload=1460",
           "window=10000", f"per={c.per:g}", "overhead_us=8"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    flows = parse_kv_lines(proc.stdout)
    if proc.returncode != 0 or len(flows) != 1:
        print(f"    ns-2 failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}", file=sys.stderr)
        return [{"flow": "", "status": f"error {proc.returncode}", "wall_s": f"{wall:.1f}"}]
    f = flows[0]
    return [{"flow": f["flow"], "goodput_bps": f["goodput_bps"], "delivered_bps": f["delivered_bps"],
             "loss_events": f["loss_events"], "timeouts": f["timeouts"], "retransmissions": f["retransmissions"],
             "packets_sent": f["packets_sent"], "status": "ok", "wall_s": f"{wall:.1f}"}]


def run_cclab(exe: str, c: Config, timeout: float, seed: int = 1, overhead_model: str = "per-packet") -> list[dict]:
    sets = [f"flows.0.cc={CCLAB_CC}", f"network.bottleneck.rate={c.rate_mbps}Mbps",
            f"network.bottleneck.delay={c.delay_ms}ms", f"network.bottleneck.loss_rate={c.per:g}",
            f"network.bottleneck.queue.size={c.buffer}", f"run.duration={DURATION_S}s",
            f"run.measure_from={MEASURE_FROM_S}s", "run.sample_interval=0s", f"run.seed={seed}",
            f"flows.0.overhead_model={overhead_model}"]
    cmd = ["nice", exe, "run", str(SCENARIO), "--json"] + [a for s in sets for a in ("--set", s)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        print(f"    cclab failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}", file=sys.stderr)
        return [{"flow": "", "status": f"error {proc.returncode}", "wall_s": f"{wall:.1f}"}]
    text = proc.stdout
    doc = json.loads(text[text.find("{"):])
    f = doc.get("summary", doc)["flows"][0]
    return [{"flow": f["flow"], "goodput_bps": f["goodput_bps"], "delivered_bps": f["delivered_bps"],
             "loss_events": f["loss_events"], "timeouts": f["timeouts"],
             "retransmissions": f.get("retransmissions", ""), "packets_sent": f.get("packets_sent", ""),
             "status": "ok", "wall_s": f"{wall:.1f}"}]


def goodputs(cache: dict, c: Config, seeds: int) -> list[float]:
    """Goodput (bit/s) of each seed 1..seeds that ran."""
    out = []
    for seed in range(1, seeds + 1):
        rows = cache.get(key(c, seed))
        if rows and rows[0]["status"] == "ok":
            out.append(float(rows[0]["goodput_bps"]))
    return out


def spread(values: list[float]) -> str:
    if len(values) < 2:
        return ""
    return f" ({min(values) / 1e6:.2f}-{max(values) / 1e6:.2f}, {len(values)} seeds)"


def mean_loss_events(cache: dict, c: Config, seeds: int) -> str:
    """Loss events per run, averaged over the seeds that ran."""
    events = [float(rows[0]["loss_events"]) for seed in range(1, seeds + 1)
              if (rows := cache.get(key(c, seed))) and rows[0]["status"] == "ok"]
    return f"{sum(events) / len(events):.1f}" if events else ""


def table(configs: list[Config], ns2: dict, ccl: dict, seeds: int,
          before: dict | None = None) -> tuple[list[str], list[float]]:
    """Seed 1 side by side; with several seeds, the means and each side's range over them. With `before`
    (the rwnd runs), their mean and its difference from ns-2 as two more columns."""
    extra = " cclab with rwnd, Mbit/s | diff |" if before is not None else ""
    lines = ["| bw Mbit/s | delay ms | PER | queue (pkt) | ns-2 goodput Mbit/s | cclab goodput Mbit/s | diff | "
             "ns-2 loss events | cclab loss events | ns-2 / cclab timeouts |" + extra,
             "|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if before is not None else "")]
    diffs = []
    for c in configs:
        a, b = ns2.get(key(c, 1)), ccl.get(key(c, 1))
        if not a or not b or a[0]["status"] != "ok" or b[0]["status"] != "ok":
            continue
        a, b = a[0], b[0]
        ga, gb = goodputs(ns2, c, seeds), goodputs(ccl, c, seeds)
        ma, mb = sum(ga) / len(ga), sum(gb) / len(gb)
        d = (mb - ma) / ma if ma else math.inf
        diffs.append(d)
        flag = " !" if abs(d) > THRESHOLD else ""
        events = (f"{a['loss_events']} | {b['loss_events']}" if seeds == 1 else
                  f"{mean_loss_events(ns2, c, seeds)} | {mean_loss_events(ccl, c, seeds)}")
        row = (f"| {c.rate_mbps} | {c.delay_ms} | {c.per:g} | {c.qsize:g} BDP ({c.buffer}) | "
               f"{ma / 1e6:.2f}{spread(ga)} | {mb / 1e6:.2f}{spread(gb)} | {d * 100:+.1f} %{flag} | "
               f"{events} | {a['timeouts']} / {b['timeouts']} |")
        if before is not None:
            gr = goodputs(before, c, seeds)
            mr = sum(gr) / len(gr) if gr else math.nan
            dr = (mr - ma) / ma if ma else math.inf
            row += f" {mr / 1e6:.2f} | {dr * 100:+.1f} %{' !' if abs(dr) > THRESHOLD else ''} |"
        lines.append(row)
    return lines, diffs


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--report-only", action="store_true", help="compute nothing; print what is cached")
    p.add_argument("--allow-stale", action="store_true",
                   help="report rows made by another engine or ns-2 script too (the table names them)")
    p.add_argument("--limit", type=int, default=0, help="only the first N configurations")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    p.add_argument("--markdown", type=Path, help="also write the table to this Markdown file")
    p.add_argument("--seeds", type=int, default=1,
                   help="seeds 1..N of each side (random packet errors and overhead_ differ by seed)")
    p.add_argument("--min-per", type=float, default=0.0, help="further seeds only where PER >= this")
    p.add_argument("--before", action="store_true",
                   help="add the mean of the earlier cclab runs with window_ as rwnd (crosscheck-ctcp-cclab-rwnd.csv)")
    p.add_argument("--overhead-model", choices=["per-packet", "delayed-send"], default="per-packet",
                   help="cclab's reading of overhead_: per-packet (the study's) or delayed-send (ns-2's own, cached "
                        "in crosscheck-ctcp-cclab-delayed-send.csv)")
    args = p.parse_args()
    cclab_csv = CCLAB_CSV if args.overhead_model == "per-packet" else CCLAB_DELAYED_CSV
    configs = selection()[: args.limit or None]
    exe = cclab_exe()
    current = {"ns-2": (NS2_STAMP, ns2_script_hash(NS2_SCRIPT)),
               "cclab": (ENGINE, engine_fingerprint(exe) if exe is not None else "unknown (no cclab)")}
    for c in configs if not args.report_only else []:
        for seed in range(1, (args.seeds if c.per >= args.min_per else 1) + 1):
            k = key(c, seed)
            for path, side in ((NS2_CSV, "ns-2"), (cclab_csv, "cclab")):
                if k in read_cache(path, *current[side]):
                    continue
                if side == "cclab" and exe is None:
                    print("cclab not found (.venv/bin/cclab or PATH): cclab side skipped", file=sys.stderr)
                    continue
                rows = (run_ns2(c, args.timeout, seed) if side == "ns-2"
                        else run_cclab(exe, c, args.timeout, seed, args.overhead_model))
                print(f"  {side:5} {k}: {rows[0].get('goodput_bps', '?')} bit/s ({rows[0]['wall_s']} s)", flush=True)
                drop_from_cache(path, k)  # a stale or failed row of this key
                append_cache(path, [dict(r, key=k, scenario=c.id, algorithm="compound",
                                         cc_spec=CCLAB_CC if side == "cclab" else "compound",
                                         **{current[side][0]: current[side][1]}, **stamp())
                                    for r in rows])
    ns2 = read_cache(NS2_CSV, *current["ns-2"], args.allow_stale)
    ccl = read_cache(cclab_csv, *current["cclab"], args.allow_stale)
    # The rwnd runs are a record of a model since replaced, read whatever engine made them.
    before = read_cache(CCLAB_RWND_CSV, ENGINE, current["cclab"][1], allow_stale=True) if args.before else None
    lines, diffs = table(configs, ns2, ccl, args.seeds, before)
    lines[:0] = [f"ns-2 rows: {describe([r for rows in ns2.values() for r in rows], *current['ns-2'])}",
                 f"cclab rows: {describe([r for rows in ccl.values() for r in rows], *current['cclab'])}", ""]
    if diffs:
        median = statistics.median(abs(d) for d in diffs)
        lines.append("")
        lines.append(f"{len(diffs)} configurations; median |goodput difference| {median * 100:.1f} %; "
                     f"{sum(abs(d) > THRESHOLD for d in diffs)} above {THRESHOLD * 100:.0f} %."
                     + (" Loss events: mean per run over the seeds." if args.seeds > 1 else ""))
    print("\n".join(lines))
    if args.markdown:
        args.markdown.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
