#!/usr/bin/env python3
"""cclab against ns-2.35 on RED and adaptive RED (issue 11): the cclab side of the cross-check whose ns-2
side is benchmarks/crosscheck_net.py (references in benchmarks/crosscheck-ns2-aqm*.csv, parameters in
benchmarks/ns2/README-aqm.md).

Every ns-2 row carries its whole scenario; this script builds the same dumbbell in cclab, runs it, caches
the result with the engine's fingerprint, and prints one Markdown table per RED variant: total goodput,
utilisation, drops (early and overflow), mean queue, ns-2 beside cclab with the difference.

    .venv/bin/python benchmarks/crosscheck_aqm.py            # run what is missing for this engine, print
    .venv/bin/python benchmarks/crosscheck_aqm.py --report   # print from the cache only
    .venv/bin/python benchmarks/crosscheck_aqm.py --only f10-r100   # rows whose key contains this

The mapping, row by row: `RED` -> discipline `red`, `ARED` -> `ared`, both with the `ns2` variant (ns-2.35's
defaults: byte mode, mean_pktsize_ 500, automatic thresholds and weight); `bottom_=0.001` -> `bottom`;
the `pkt1500` set -> packet mode with 1500-byte mean packets; `queue-limit` -> `size` in packets (the
same hard limit, in bytes of 500 in byte mode, as ns-2). TCP-Linux's reno and highspeed -> cclab's
`linux-2.6.22` variants with `recovery = "linux-2.6"` (ns-2's recovery, timer and loss marking).
Access delays 2.5 ms x (i+1)/N each side -> `access_delay = { spread = [2.5/N ms, 2.5 ms] }`.

Provenance (benchmarks/provenance.py): cclab rows are cached per engine fingerprint, and only the current
engine's are used; the ns-2 references are used only when made by the current aqm.tcl / parkinglot.tcl
(with common.tcl). --allow-stale uses either anyway, and every report names what made it.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from provenance import ENGINE, NS2_SCRIPT as NS2_STAMP, describe, ns2_script_hash  # noqa: E402
AQM_TCL = ROOT / "benchmarks" / "ns2" / "aqm.tcl"
PARKINGLOT_TCL = ROOT / "benchmarks" / "ns2" / "parkinglot.tcl"
NS2_RUNS = ROOT / "benchmarks" / "crosscheck-ns2-aqm.csv"
NS2_PARKING = ROOT / "benchmarks" / "crosscheck-ns2-parkinglot-flows.csv"
NS2_PARKING_LINKS = ROOT / "benchmarks" / "crosscheck-ns2-parkinglot.csv"
CACHE = ROOT / "benchmarks" / "crosscheck-cclab-aqm.csv"
PARKING_CACHE = ROOT / "benchmarks" / "crosscheck-cclab-parkinglot.csv"
FIELDS = ["key", "engine", "goodput_bps", "utilisation", "drops", "early_drops", "overflow_drops",
          "mean_queue_pkts", "loss_events", "timeouts", "jain_index", "wall_s"]

CC = {"reno": {"name": "newreno", "variant": "linux-2.6.22"},
      "highspeed": {"name": "highspeed", "variant": "linux-2.6.22"}}
# ns-2 Queue/RED variables -> cclab red/ared parameters (those the matrix sets).
RED_VARIABLES = {"bottom_": ("bottom", float), "bytes_": ("byte_mode", lambda v: v == "true"),
                 "queue_in_bytes_": ("queue_in_bytes", lambda v: v == "true"),
                 "mean_pktsize_": ("mean_packet_size_bytes", int)}


def scenario(row: dict) -> dict:
    flows = int(row["flows"])
    access_ms = float(row["access_ms_max"])
    queue = {"discipline": "red" if row["queue"] == "red" else "ared", "size": int(row["buffer_pkts"])}
    for assignment in filter(None, (row.get("red_overrides") or "").split(";")):
        name, value = assignment.split("=")
        key, convert = RED_VARIABLES[name]
        queue[key] = convert(value)
    return {
        "network": {"packet_size": int(row["packet_bytes"]), "access_rate": f"{row['access_mbps']}Mbps",
                    "bottleneck": {"rate": f"{row['rate_mbps']}Mbps", "delay": f"{row['bottleneck_delay_ms']}ms",
                                   "queue": queue}},
        "flows": [{"cc": CC[row["algorithm"]], "count": flows, "recovery": "linux-2.6", "rwnd": 100_000,
                   "access_delay": {"spread": [f"{access_ms / flows}ms", f"{access_ms}ms"]}}],
        "run": {"duration": f"{row['duration_s']}s", "measure_from": f"{row['measure_from_s']}s",
                "seed": int(row["seed"]), "sample_interval": "0s"},
    }


def parking_lot(row: dict, access_ms: list[float], overhead_ms: float = 0.0, seed: int | None = None) -> dict:
    """ns-2's parkinglot.tcl as links: bottlenecks L0-L2 between routers r0..r3 (each direction its own
    DropTail of `buffer_pkts`), the long flow 0 from r0 to r3, short flow i across L(i-1) alone; hosts'
    access lines 1 Gbit/s, unbounded, `access_ms[i]` one way on each side."""
    rate, delay, buffer = f"{row['rate_mbps']}Mbps", f"{row['link_delay_ms']}ms", int(row["buffer_pkts"])
    links = [{"name": f"L{k}", "from": f"r{k}", "to": f"r{k + 1}", "rate": rate, "delay": delay,
              "queue": {"discipline": "droptail", "size": buffer}} for k in range(3)]
    routes = [["s0", "r0", "r1", "r2", "r3", "d0"]] + [[f"s{i}", f"r{i - 1}", f"r{i}", f"d{i}"] for i in (1, 2, 3)]
    for i, route in enumerate(routes):
        for a, b in ((route[0], route[1]), (route[-2], route[-1])):
            links.append({"from": a, "to": b, "rate": f"{row['access_mbps']}Mbps", "delay": f"{access_ms[i]}ms"})
    # ns-2's Agent/TCP overhead_: each sender's packets wait uniform [0, overhead) before they leave.
    nodes = {f"s{i}": {"processing_jitter": f"{overhead_ms}ms"} for i in range(4)} if overhead_ms else {}
    return {
        "network": {"packet_size": int(row["packet_bytes"]), "links": links, "bottleneck_link": "L0",
                    "nodes": nodes},
        "flows": [{"cc": CC[row["algorithm"]], "route": route, "recovery": "linux-2.6", "rwnd": 100_000}
                  for route in routes],
        "run": {"duration": f"{row['duration_s']}s", "measure_from": f"{row['measure_from_s']}s",
                "seed": seed if seed is not None else int(row["seed"]), "sample_interval": "0s"},
    }


def ns2_rows(path: Path, script: Path, allow_stale: bool) -> list[dict]:
    """The rows of an ns-2 reference CSV made by the current `script` (all of them with allow_stale)."""
    current = ns2_script_hash(script)
    with path.open() as f:
        return [r for r in csv.DictReader(f) if allow_stale or r.get(NS2_STAMP) == current]


def jittered_parking_lot_report(allow_stale: bool = False) -> str:
    """The reno parking lot with one packet time (0.12 ms) of send jitter, over ns-2's seeds and as many
    cclab seeds: the long flow's and the short flows' goodput, mean and spread. Without jitter both
    simulators lock into one phase, which decides who loses at each bottleneck."""
    import statistics
    import cclab
    rows = [r for r in ns2_rows(NS2_PARKING_LINKS, PARKINGLOT_TCL, allow_stale)
            if r["link"] == "L0" and r["algorithm"] == "reno" and float(r["overhead_ms"]) > 0 and r["status"] == "ok"]
    if not rows:
        return "\n(no ns-2 parking-lot rows with send jitter from the current parkinglot.tcl; --allow-stale)"
    ns2 = [[float(g) / 1e6 for g in r["goodput_per_flow_bps"].split(";")] for r in rows]
    first = rows[0]
    access = [float(a) for a in first["access_ms"].split(";")]
    ours = []
    for seed in range(1, len(rows) + 1):
        result = cclab.run(parking_lot(first, access, float(first["overhead_ms"]), seed))
        ours.append([g / 1e6 for g in result.flows["goodput_bps"]])
    def stat(runs, k):
        values = [r[k] for r in runs] if k == 0 else [v for r in runs for v in r[1:]]
        return f"{statistics.mean(values):.2f} ± {statistics.stdev(values):.2f}"
    return "\n".join([
        f"\n#### Parking lot, reno, {first['overhead_ms']} ms send jitter, {len(rows)} seeds each: mean ± sd, Mbit/s\n",
        "| flows | ns-2.35 | cclab |", "|---|---|---|",
        f"| long (3 bottlenecks) | {stat(ns2, 0)} | {stat(ours, 0)} |",
        f"| short (1 bottleneck) | {stat(ns2, 1)} | {stat(ours, 1)} |"])


def parking_lot_report(engine: str, run: bool, allow_stale: bool = False) -> str:
    """Per-flow goodput and per-bottleneck figures, ns-2.35 beside cclab."""
    import cclab
    all_links = ns2_rows(NS2_PARKING_LINKS, PARKINGLOT_TCL, allow_stale)
    link_rows = [r for r in all_links if r["status"] == "ok" and float(r["overhead_ms"]) == 0 and "-p" not in r["key"]]
    # The per-flow CSV has no stamp of its own: a flow row is as fresh as its run's link rows.
    keys = {r["key"] for r in all_links}
    with NS2_PARKING.open() as f:
        flow_rows = [r for r in csv.DictReader(f) if r["key"] in keys]
    out = [f"ns-2 rows: {describe(all_links, NS2_STAMP, ns2_script_hash(PARKINGLOT_TCL))}",
           "\n#### Parking lot: ns-2.35 / cclab (difference)\n",
           "| run | flow | goodput Mbit/s | loss events |", "|---|---|---|---|"]
    links_out = ["\n| run | bottleneck | utilisation | drops | mean queue, packets |", "|---|---|---|---|---|"]
    for key in dict.fromkeys(r["key"] for r in link_rows):
        first = next(r for r in link_rows if r["key"] == key)
        access = [float(a) for a in first["access_ms"].split(";")]
        result = cclab.run(parking_lot(first, access))
        for r in (r for r in flow_rows if r["key"] == key):
            i = int(r["flow"])
            ours = result.flows.iloc[i]
            g_ns2, g = float(r["goodput_bps"]) / 1e6, float(ours["goodput_bps"]) / 1e6
            out.append(f"| {key} | {i} ({r['kind']}) | {g_ns2:.2f} / {g:.2f} ({diff(g_ns2, g)}) "
                       f"| {r['loss_events']} / {int(ours['loss_events'])} |")
        links = result.links.set_index("name")
        for r in (r for r in link_rows if r["key"] == key):
            ours = links.loc[r["link"]]
            links_out.append(f"| {key} | {r['link']} | {float(r['utilisation']):.3f} / {ours['utilization']:.3f} "
                             f"| {r['drops']} / {int(ours['drops'])} "
                             f"| {float(r['mean_queue_pkts']):.1f} / {ours['mean_queue_packets']:.1f} "
                             f"({diff(float(r['mean_queue_pkts']), float(ours['mean_queue_packets']))}) |")
    return "\n".join(out + links_out) + "\n" + jittered_parking_lot_report(allow_stale)


def run_cclab(row: dict) -> dict:
    import cclab
    started = time.perf_counter()
    result = cclab.run(scenario(row))
    link = result.links.set_index("name").loc["bottleneck"]
    return {
        "goodput_bps": float(result.flows["goodput_bps"].sum()),
        "utilisation": float(link["utilization"]),
        "drops": int(link["drops"]), "early_drops": int(link["early_drops"]),
        "overflow_drops": int(link["overflow_drops"]), "mean_queue_pkts": float(link["mean_queue_packets"]),
        "loss_events": int(result.flows["loss_events"].sum()), "timeouts": int(result.flows["timeouts"].sum()),
        "jain_index": float(result.jain_index), "wall_s": round(time.perf_counter() - started, 2),
    }


def read_cache(engine: str, allow_stale: bool = False) -> dict[str, dict]:
    """key -> the cclab row of this engine (with allow_stale, of any engine: the last one cached)."""
    if not CACHE.exists():
        return {}
    with CACHE.open() as f:
        return {r["key"]: r for r in csv.DictReader(f) if allow_stale or r[ENGINE] == engine}


def append_cache(row: dict) -> None:
    new = not CACHE.exists()
    with CACHE.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        writer.writerow(row)


def diff(ns2: float, ours: float) -> str:
    if ns2 == 0:
        return "-" if ours == 0 else "n/a"
    return f"{100 * (ours - ns2) / ns2:+.1f} %"


def report(rows: list[dict], cache: dict[str, dict]) -> str:
    out = []
    for variant in dict.fromkeys(r["variant"] for r in rows):
        out.append(f"\n#### variant `{variant}`: ns-2.35 / cclab (difference)\n")
        out.append("| scenario | goodput Mbit/s | utilisation | drops (early) | mean queue, packets | loss events |")
        out.append("|---|---|---|---|---|---|")
        for r in (r for r in rows if r["variant"] == variant):
            c = cache.get(r["key"])
            if c is None:
                continue
            g_ns2, g = float(r["goodput_bps"]) / 1e6, float(c["goodput_bps"]) / 1e6
            out.append(
                f"| {r['key']} | {g_ns2:.2f} / {g:.2f} ({diff(g_ns2, g)}) "
                f"| {float(r['utilisation']):.3f} / {float(c['utilisation']):.3f} "
                f"| {r['drops']} ({r['early_drops']}) / {c['drops']} ({c['early_drops']}) "
                f"| {float(r['mean_queue_pkts']):.1f} / {float(c['mean_queue_pkts']):.1f} "
                f"({diff(float(r['mean_queue_pkts']), float(c['mean_queue_pkts']))}) "
                f"| {r['loss_events']} / {c['loss_events']} |")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--report", action="store_true", help="print from the cache, run nothing")
    parser.add_argument("--only", help="rows whose key contains this")
    parser.add_argument("--parking-lot", action="store_true", help="the parking lot instead (runs it, not cached)")
    parser.add_argument("--allow-stale", action="store_true",
                        help="use ns-2 references from another aqm.tcl/parkinglot.tcl and, with --report, cclab "
                             "rows of another engine (the report names them)")
    args = parser.parse_args()
    from cclab.engine import engine_source_hash
    engine = engine_source_hash()
    # The "-a2.501" rows are ns-2's own noise floor (every access delay 1 us longer): not compared.
    references = ns2_rows(NS2_RUNS, AQM_TCL, args.allow_stale)
    rows = [r for r in references if r["status"] == "ok" and r["queue"] in ("red", "ared") and "-a2.501" not in r["key"]]
    if args.only:
        rows = [r for r in rows if args.only in r["key"]]
    if args.parking_lot:
        print(f"cclab engine {engine}; ns-2.35 references from {NS2_PARKING.name}")
        print(parking_lot_report(engine, run=True, allow_stale=args.allow_stale))
        return 0
    cache = read_cache(engine, args.allow_stale and args.report)
    if not args.report:
        for r in rows:
            if r["key"] in cache:
                continue
            print(f"cclab {r['key']} ...", file=sys.stderr, flush=True)
            result = {"key": r["key"], "engine": engine, **run_cclab(r)}
            append_cache(result)
            cache[r["key"]] = {k: str(v) for k, v in result.items()}
    print(f"cclab rows: {describe([cache[r['key']] for r in rows if r['key'] in cache], ENGINE, engine)}")
    print(f"ns-2 rows: {describe(references, NS2_STAMP, ns2_script_hash(AQM_TCL))} ({NS2_RUNS.name})")
    print(report(rows, cache))
    return 0


if __name__ == "__main__":
    sys.exit(main())
