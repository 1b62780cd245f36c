#!/usr/bin/env python3
"""Cross-check: cclab against ns-2.35 TCP-Linux on a matrix of dumbbell scenarios.

For every scenario of the matrix and every algorithm, the same dumbbell is simulated in ns-2.35
(`benchmarks/ns2/dumbbell.tcl`, Agent/TCP/Linux with `select_ca <name>`) and in cclab (`cclab run
<generated TOML> --json`), and goodput, loss events and timeouts are printed side by side with the
relative difference (cclab - ns-2) / ns-2; |diff| > 10 % is flagged with '!'.

    python3 benchmarks/crosscheck.py                          # whole matrix, all 9 algorithms
    python3 benchmarks/crosscheck.py --quick                  # 2 small scenarios, smoke test
    python3 benchmarks/crosscheck.py --only-ns2               # fill the ns-2 reference cache only
    python3 benchmarks/crosscheck.py --only-cclab --algorithms reno,cubic
    python3 benchmarks/crosscheck.py --list                   # print the matrix and exit
    python3 benchmarks/crosscheck.py --markdown out.md        # also write the tables as Markdown
    python3 benchmarks/crosscheck.py --report-only --group-by algorithm --reference-table
    python3 benchmarks/crosscheck.py --perturb --algorithms reno,cubic --scenarios f2-r100-rtt20-b1-d200m100
                                     # noise floor: access delays +1 us, each simulator against itself
    python3 benchmarks/crosscheck.py --only-cclab --recovery linux-2.6   # cclab in ns-2's recovery mode
    python3 benchmarks/crosscheck.py --report-only --compare-recovery --markdown out.md
                                     # ns-2 against cclab's RFC 6675 and linux-2.6 recovery, side by side

Results are cached, one row per flow, in benchmarks/crosscheck-ns2.csv (reference data, keyed by
scenario + ns-2 algorithm) and benchmarks/crosscheck-cclab.csv (keyed by scenario + algorithm +
the exact cclab cc spec, + "/recovery=linux-2.6" for cclab's ns-2 TCP-Linux recovery mode; the
default RFC 6675 recovery has no suffix, so both modes coexist in the cache). A re-run only computes
what is missing; --recompute-cclab / --recompute-ns2 ignore the cache for that side. A failed run is
retried on the next invocation; a run longer than --timeout (900 s) is recorded as a timeout and not
retried. Simulations run one at a time.

Every row records what produced it (benchmarks/provenance.py): a cclab row the engine fingerprint
(`engine`), an ns-2 row the hash of dumbbell.tcl and common.tcl (`ns2_script`). A row made by another
engine or script is stale: it is computed again, never reused, and --report-only leaves it out unless
--allow-stale, which prints it with a line naming the engines and scripts behind the table.

Algorithms are named as ns-2's select_ca names: reno scalable highspeed htcp westwood bic cubic
compound vegas. Their cclab names are in CCLAB_NAME; an algorithm cclab does not list in
`cclab algorithms --json` is skipped on the cclab side (and the script says so). For each algorithm
the cclab variant matching ns-2.35's Linux 2.6.22 modules is chosen at run time: a variant named
'linux-2.6.22', else one whose name contains '2.6.22', else 'linux', else cclab's default.

Needs `ns` (Debian: apt-get install ns2) for the ns-2 side and the repository's .venv (or `cclab` on
PATH) for the cclab side. Standard library only. See docs/validation.md.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import dataclasses
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
NS2_SCRIPT = HERE / "ns2" / "dumbbell.tcl"
sys.path.insert(0, str(HERE))
from provenance import ENGINE, NS2_SCRIPT as NS2_STAMP, describe, engine_fingerprint, ns2_script_hash  # noqa: E402
NS2_CSV = HERE / "crosscheck-ns2.csv"
CCLAB_CSV = HERE / "crosscheck-cclab.csv"

PACKET_BYTES = 1500
PAYLOAD_BYTES = 1460
ACCESS_MS = 2.5           # one way, each side; multi-flow: spread over [2.5/N, 2.5] ms
ACCESS_FACTOR = 10        # access links run at 10 x the bottleneck rate (cclab's default)
THRESHOLD = 0.10          # flag |relative difference| above this

ALGORITHMS = ["reno", "scalable", "highspeed", "htcp", "westwood", "bic", "cubic", "compound", "vegas"]
# ns-2 select_ca name -> cclab algorithm name
CCLAB_NAME = {"reno": "newreno", "scalable": "scalable", "highspeed": "highspeed", "htcp": "htcp",
              "westwood": "westwood", "bic": "bic", "cubic": "cubic", "compound": "compound",
              "vegas": "vegas"}


@dataclass(frozen=True)
class Scenario:
    flows: int
    rate_mbps: int
    rtt_ms: int            # 2 x bottleneck one-way delay (seed 000's convention; access links add 4 x access)
    bdp: float             # bottleneck buffer in BDPs
    duration: int          # simulated s
    measure_from: int      # counters over [measure_from, duration]
    access_ms: float = ACCESS_MS   # largest access delay; --perturb adds 1 us to estimate the noise floor

    @property
    def id(self) -> str:
        return (f"f{self.flows}-r{self.rate_mbps}-rtt{self.rtt_ms}-b{self.bdp:g}"
                f"-d{self.duration}m{self.measure_from}"
                + ("" if self.access_ms == ACCESS_MS else f"-a{self.access_ms:g}"))

    @property
    def delay_ms(self) -> float:
        return self.rtt_ms / 2

    @property
    def bdp_packets(self) -> float:
        return self.rate_mbps * 1e6 * self.rtt_ms * 1e-3 / (PACKET_BYTES * 8)

    @property
    def buffer(self) -> int:
        # rounded half up, as cclab rounds 'k bdp'; both simulators get the same packet count
        return max(1, math.floor(self.bdp * self.bdp_packets + 0.5))

    def label(self) -> str:
        return (f"{self.flows} flow{'s' if self.flows > 1 else ''}, {self.rate_mbps} Mbit/s, RTT {self.rtt_ms} ms, "
                + ("" if self.access_ms == ACCESS_MS else f"access {self.access_ms:g} ms (perturbed), ") +
                f"B = {self.bdp:g} BDP ({self.buffer} pkt), {self.duration} s, measured over "
                f"[{self.measure_from}, {self.duration}] s")


def matrix() -> list[Scenario]:
    """Cheap scenarios first, so that a partial run already covers every level but 1000 Mbit/s."""
    out = []
    for rtt in (20, 100, 300):
        for b in (0.1, 1):
            out.append(Scenario(1, 100, rtt, b, 200, 100))
    for n in (2, 10):
        for rtt in (20, 100):
            for b in (0.1, 1):
                out.append(Scenario(n, 100, rtt, b, 200, 100))
    for rtt in (20, 100, 300):
        for b in (0.1, 1):
            out.append(Scenario(1, 1000, rtt, b, 100, 50))
    return out


def quick_matrix() -> list[Scenario]:
    full = {s.id: s for s in matrix()}
    return [full["f1-r100-rtt20-b0.1-d200m100"], full["f2-r100-rtt20-b1-d200m100"]]


# ------------------------------------------------------------------------------------------- caches

FIELDS = ["key", "scenario", "algorithm", "cc_spec", "flow", "goodput_bps", "delivered_bps", "loss_events",
          "timeouts", "retransmissions", "packets_sent", "status", "wall_s", "date", "host", ENGINE, NS2_STAMP]


def read_cache(path: Path, column: str, current: str, allow_stale: bool = False) -> dict[str, list[dict]]:
    """key -> rows made by the `current` engine or script (`column` is ENGINE or NS2_STAMP); with
    allow_stale, rows made by any. A failed run ('error ...') counts as missing and is retried; a
    timeout is kept."""
    rows: dict[str, list[dict]] = {}
    if path.exists():
        with path.open(newline="") as f:
            for row in csv.DictReader(f):
                if row["status"].startswith("error"):
                    continue
                if row.get(column) != current and not allow_stale:
                    continue
                rows.setdefault(row["key"], []).append(row)
    return rows


def read_sided_cache(path: Path, stamps: dict[str, tuple[str, str]], stamp_kind=lambda side: side,
                     ok_only: bool = False) -> dict[tuple[str, str], list[dict]]:
    """A cache whose rows come from several sides (ns-2 and cclab under one or more rules), each stamped by
    what made it: (scenario, side) -> the rows whose stamp is current. `stamps` maps a side's kind,
    `stamp_kind(side)`, to (column, current stamp); `ok_only` leaves out rows whose run failed."""
    out: dict[tuple[str, str], list[dict]] = {}
    if path.exists():
        with path.open(newline="") as f:
            for row in csv.DictReader(f):
                column, current = stamps[stamp_kind(row["side"])]
                if row.get(column) == current and (not ok_only or row["status"] == "ok"):
                    out.setdefault((row["scenario"], row["side"]), []).append(row)
    return out


def append_cache(path: Path, rows: list[dict], fields: list[str] = FIELDS) -> None:
    """Append `rows` to the CSV cache at `path` (a header first if the file is new), keeping `fields` only."""
    new = not path.exists() or path.stat().st_size == 0
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        if new:
            w.writeheader()
        for r in rows:
            w.writerow(r)
        f.flush()
        os.fsync(f.fileno())


def drop_from_cache(path: Path, key: str) -> None:
    if not path.exists():
        return
    with path.open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["key"] != key]
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)


def stamp() -> dict:
    return {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M"), "host": platform.node()}


# --------------------------------------------------------------------------------------------- ns-2

def ns2_command(s: Scenario, alg: str) -> list[str]:
    return ["ns", str(NS2_SCRIPT), f"cc={alg}", f"rate_mbps={s.rate_mbps}", f"delay_ms={s.delay_ms:g}",
            f"buffer={s.buffer}", f"access_ms={s.access_ms:g}", f"access_mbps={ACCESS_FACTOR * s.rate_mbps}",
            f"flows={s.flows}", f"duration={s.duration}", f"measure_from={s.measure_from}", "seed=1",
            f"payload={PAYLOAD_BYTES}"]


def parse_kv_lines(stdout: str) -> list[dict]:
    flows = []
    for line in stdout.splitlines():
        if line.startswith("flow="):
            flows.append(dict(field.partition("=")[::2] for field in line.split()))
    return flows


def run_ns2(s: Scenario, alg: str, timeout: float) -> list[dict]:
    cmd = ns2_command(s, alg)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [{"flow": "", "status": f"timeout>{timeout:g}s", "wall_s": f"{time.perf_counter() - t0:.1f}"}]
    wall = time.perf_counter() - t0
    flows = parse_kv_lines(proc.stdout)
    if proc.returncode != 0 or len(flows) != s.flows:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        print(f"    ns-2 failed (exit {proc.returncode}): {' '.join(cmd)}: {tail}", file=sys.stderr)
        return [{"flow": "", "status": f"error {proc.returncode}", "wall_s": f"{wall:.1f}"}]
    return [{"flow": f["flow"], "goodput_bps": f["goodput_bps"], "delivered_bps": f["delivered_bps"],
             "loss_events": f["loss_events"], "timeouts": f["timeouts"],
             "retransmissions": f["retransmissions"], "packets_sent": f["packets_sent"],
             "status": "ok", "wall_s": f"{wall:.1f}"} for f in flows]


# -------------------------------------------------------------------------------------------- cclab

def cclab_exe() -> str | None:
    venv = REPO / ".venv" / "bin" / "cclab"
    return str(venv) if venv.exists() else shutil.which("cclab")


def cclab_algorithms(exe: str) -> dict[str, dict]:
    """name and aliases -> algorithm entry of `cclab algorithms --json`."""
    proc = subprocess.run([exe, "algorithms", "--json"], capture_output=True, text=True, cwd=REPO)
    if proc.returncode != 0:
        raise RuntimeError(f"`cclab algorithms --json` failed: {proc.stderr.strip()[-300:]}")
    table = {}
    for entry in json.loads(proc.stdout):
        for name in [entry["name"], *entry.get("aliases", [])]:
            table[name] = entry
    return table


def pick_variant(entry: dict) -> str | None:
    names = [v["name"] for v in entry.get("variants", [])]
    for want in ("linux-2.6.22",):
        if want in names:
            return want
    for n in names:
        if "2.6.22" in n:
            return n
    if "linux" in names:
        return "linux"
    return None  # cclab's default


def cc_spec(alg: str, known: dict[str, dict]) -> tuple[str | None, str]:
    """-> (TOML inline value for flows.0.cc or None if cclab lacks it, human description)."""
    name = CCLAB_NAME[alg]
    entry = known.get(name)
    if entry is None:
        return None, f"{name}: not in `cclab algorithms` yet — skipped"
    variant = pick_variant(entry)
    if variant is None:
        return f'{{ name = "{entry["name"]}" }}', f'{entry["name"]} (default variant {entry.get("default_variant")})'
    return (f'{{ name = "{entry["name"]}", variant = "{variant}" }}',
            f'{entry["name"]} variant {variant}')


RECOVERY_MODES = ["sack", "linux-2.6"]   # cclab's flows.N.recovery: RFC 6675, or ns-2.35 TCP-Linux's


def cclab_key(s: Scenario, alg: str, spec: str, recovery: str) -> str:
    """Cache key of a cclab run; the default recovery keeps the keys of older caches."""
    return f"{s.id}/{alg}/{spec}" + ("" if recovery == "sack" else f"/recovery={recovery}")


def scenario_toml(s: Scenario, spec: str, recovery: str = "sack", *, starts_ns: list[int] | None = None,
                  loss_rate: float = 0.0, seed: int = 1, overhead_ns: int = 0) -> str:
    """The cell as a cclab scenario: one `[[flows]]` entry for all flows, their access delays spread over
    [access/N, access]; with `starts_ns`, one entry per flow, flow i at access (i + 1)/N starting at
    starts_ns[i] (crosscheck_sack1.py starts each flow when ns-2's handshake ends). `loss_rate` is the
    bottleneck's packet error rate, `seed` the run's; `overhead_ns` > 0 delays each send by a uniform
    [0, overhead_ns] wait as ns-2's Agent/TCP `overhead_` does (`overhead_model = "delayed-send"`)."""
    overhead = (f'overhead = "{overhead_ns}ns"\noverhead_model = "delayed-send"\n' if overhead_ns else "")
    if starts_ns is None:
        access = (f'"{s.access_ms:g}ms"' if s.flows == 1
                  else f'{{ spread = ["{s.access_ms * 1e6 / s.flows:.0f}ns", "{s.access_ms * 1e6:.0f}ns"] }}')
        flows = (f"[[flows]]\ncc = {spec}\naccess_delay = {access}\ncount = {s.flows}\nrecovery = \"{recovery}\"\n"
                 + overhead)
    else:
        if len(starts_ns) != s.flows:
            raise ValueError(f"starts_ns has {len(starts_ns)} starts for {s.flows} flows")
        flows = "\n".join(f'[[flows]]\ncc = {spec}\naccess_delay = "{round(s.access_ms * (i + 1) / s.flows * 1e6)}ns"\n'
                          f'start = "{start}ns"\nrecovery = "{recovery}"\n{overhead}' for i, start in enumerate(starts_ns))
    return f"""# generated by benchmarks/crosscheck.py: {s.id}
[network]
packet_size = {PACKET_BYTES}
access_rate = "{ACCESS_FACTOR * s.rate_mbps}Mbps"
[network.bottleneck]
rate = "{s.rate_mbps}Mbps"
delay = "{s.delay_ms:g}ms"
queue = {{ discipline = "droptail", size = {s.buffer} }}
loss_rate = {loss_rate!r}

{flows}
[run]
duration = "{s.duration}s"
measure_from = "{s.measure_from}s"
seed = {seed}
sample_interval = "0s"
"""


def run_cclab(exe: str, s: Scenario, spec: str, timeout: float, recovery: str = "sack") -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{s.id}.toml"
        path.write_text(scenario_toml(s, spec, recovery))
        cmd = [exe, "run", str(path), "--json"]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return [{"flow": "", "status": f"timeout>{timeout:g}s", "wall_s": f"{time.perf_counter() - t0:.1f}"}]
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
            print(f"    cclab failed (exit {proc.returncode}): {tail}\n    scenario:\n{scenario_toml(s, spec, recovery)}",
                  file=sys.stderr)
            return [{"flow": "", "status": f"error {proc.returncode}", "wall_s": f"{wall:.1f}"}]
    text = proc.stdout.strip()
    doc = json.loads(text[text.find("{"):])
    doc = doc.get("summary", doc)
    return [{"flow": f["flow"], "goodput_bps": f["goodput_bps"], "delivered_bps": f["delivered_bps"],
             "loss_events": f["loss_events"], "timeouts": f["timeouts"],
             "retransmissions": f.get("retransmissions", ""), "packets_sent": f.get("packets_sent", ""),
             "status": "ok", "wall_s": f"{wall:.1f}"} for f in doc["flows"]]


# ------------------------------------------------------------------------------------------- report

def rel(a: float | None, b: float | None) -> float | None:
    """(b - a) / a, cclab b against ns-2 a; None if undefined (a == 0 and b != 0 gives inf)."""
    if a is None or b is None:
        return None
    if a == 0:
        return 0.0 if b == 0 else math.inf
    return (b - a) / a


def fmt_rel(x: float | None) -> str:
    if x is None:
        return "—"
    if math.isinf(x):
        return "new!"
    flag = "!" if abs(x) > THRESHOLD else ""
    return f"{x * 100:+.1f}%{flag}"


def summarise(rows: list[dict] | None) -> dict | None:
    if not rows or any(r.get("status") != "ok" for r in rows):
        return None if not rows else {"status": rows[0].get("status")}
    rows = sorted(rows, key=lambda r: int(r["flow"]))
    per = [float(r["goodput_bps"]) for r in rows]
    return {"status": "ok", "goodput": sum(per), "per_flow": per,
            "loss_events": sum(int(r["loss_events"]) for r in rows),
            "timeouts": sum(int(r["timeouts"]) for r in rows),
            "retransmissions": sum(int(r["retransmissions"] or 0) for r in rows),
            "wall": sum(float(r["wall_s"]) for r in rows[:1])}


def per_flow_cell(a: dict | None, b: dict | None) -> str:
    """'ns-2/cclab (diff)' per flow, Mbit/s."""
    oka = a is not None and a.get("status") == "ok"
    okb = b is not None and b.get("status") == "ok"
    if not oka:
        return "—"
    if not okb:
        return " ".join(f"{x / 1e6:.1f}" for x in a["per_flow"]) + " / —"
    return ", ".join(f"{x / 1e6:.1f}/{y / 1e6:.1f} ({fmt_rel(rel(x, y))})"
                     for x, y in zip(a["per_flow"], b["per_flow"]))


def mbps(x: float) -> str:
    return f"{x / 1e6:.2f}"


def table(s: Scenario, algs: list[str], ns2: dict, ccl: dict, specs: dict) -> list[str]:
    """Markdown table for one scenario."""
    head = ("| algorithm | cclab cc | goodput ns-2 Mbit/s | cclab | diff | loss ev. ns-2 | cclab | diff "
            "| timeouts ns-2 | cclab | diff |")
    if s.flows > 1:
        head += " per-flow goodput ns-2 / cclab, Mbit/s |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for alg in algs:
        a, b = ns2.get(alg), ccl.get(alg)
        desc = specs.get(alg, ("", "—"))[1]
        if b is None and specs.get(alg, (None,))[0] is None:
            desc = "**not in cclab yet (placeholder)**"

        def val(r, k, f=str):
            if r is None:
                return "—"
            if r.get("status") != "ok":
                return r.get("status") or "—"
            return f(r[k])

        okab = a is not None and b is not None and a.get("status") == "ok" and b.get("status") == "ok"
        row = (f"| {alg} | {desc} | {val(a, 'goodput', mbps)} | {val(b, 'goodput', mbps)} | "
               f"{fmt_rel(rel(a['goodput'], b['goodput'])) if okab else '—'} | "
               f"{val(a, 'loss_events')} | {val(b, 'loss_events')} | "
               f"{fmt_rel(rel(a['loss_events'], b['loss_events'])) if okab else '—'} | "
               f"{val(a, 'timeouts')} | {val(b, 'timeouts')} | "
               f"{fmt_rel(rel(a['timeouts'], b['timeouts'])) if okab else '—'} |")
        if s.flows > 1:
            row += f" {per_flow_cell(a, b)} |"
        lines.append(row)
    return lines


def noise_floor(scenarios, algs, results, ns2_cache, cclab_cache, specs, recovery="sack") -> list[str]:
    """Each simulator against itself with the access delays 1 us longer: how chaotic is the scenario?"""
    out = ["\n#### Noise floor: each simulator against itself, access delays +1 us\n",
           "| scenario | algorithm | simulator | goodput diff | loss events base → perturbed | "
           "timeouts base → perturbed | per-flow base/perturbed (diff) |",
           "|---|---|---|---:|---|---|---|"]
    for s in scenarios:
        base = dataclasses.replace(s, access_ms=ACCESS_MS)
        for alg in algs:
            spec = specs.get(alg, (None, ""))[0]
            pairs = [("ns-2", ns2_cache.get(f"{base.id}/{alg}"), ns2_cache.get(f"{s.id}/{alg}"))]
            if spec is not None:
                pairs.append(("cclab", cclab_cache.get(cclab_key(base, alg, spec, recovery)),
                              cclab_cache.get(cclab_key(s, alg, spec, recovery))))
            for side, r0, r1 in pairs:
                a, b = summarise(r0), summarise(r1)
                if not (a and b and a.get("status") == "ok" and b.get("status") == "ok"):
                    continue
                per = per_flow_cell(a, b) if s.flows > 1 else ""
                out.append(f"| {base.id} | {alg} | {side} | {fmt_rel(rel(a['goodput'], b['goodput']))} | "
                           f"{a['loss_events']} → {b['loss_events']} | {a['timeouts']} → {b['timeouts']} | {per} |")
    return out


def reference_table(scenarios: list[Scenario], algs: list[str], ns2_cache: dict) -> list[str]:
    """ns-2 alone: goodput Mbit/s / loss events / timeouts, one row per scenario, one column per algorithm."""
    out = ["\n#### ns-2.35 reference: goodput (Mbit/s) / loss events / timeouts\n",
           "| scenario | " + " | ".join(algs) + " |", "|---|" + "---:|" * len(algs)]
    for s in scenarios:
        cells = []
        for a in algs:
            r = summarise(ns2_cache.get(f"{s.id}/{a}"))
            if r is None:
                cells.append("—")
            elif r.get("status") != "ok":
                cells.append(r.get("status") or "—")
            else:
                cells.append(f"{r['goodput'] / 1e6:.1f} / {r['loss_events']} / {r['timeouts']}")
        out.append(f"| {s.id} | " + " | ".join(cells) + " |")
    return out


def compare_recovery(scenarios: list[Scenario], algs: list[str], ns2_cache: dict, cclab_cache: dict,
                     specs: dict) -> list[str]:
    """One table per algorithm: ns-2 against cclab with RFC 6675 ("sack") and with "linux-2.6" recovery."""
    out = []
    for alg in algs:
        spec = specs.get(alg, (None, "—"))
        if spec[0] is None:
            continue
        out.append(f"\n#### {alg} (cclab: {spec[1]}): ns-2 / cclab sack / cclab linux-2.6\n")
        out.append("| scenario | goodput ns-2 | sack | diff | linux-2.6 | diff | loss ev. ns-2 | sack | diff "
                   "| linux-2.6 | diff | timeouts ns-2 | sack | linux-2.6 |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for s in scenarios:
            a = summarise(ns2_cache.get(f"{s.id}/{alg}"))
            modes = [summarise(cclab_cache.get(cclab_key(s, alg, spec[0], m))) for m in RECOVERY_MODES]
            if all(r is None for r in [a, *modes]):
                continue

            def ok(r):
                return r is not None and r.get("status") == "ok"

            def cell(r, k, f=str):
                return f(r[k]) if ok(r) else ((r or {}).get("status") or "—")

            def d(b, k):
                return fmt_rel(rel(a[k], b[k])) if ok(a) and ok(b) else "—"

            row = [s.id]
            for k, f in (("goodput", mbps), ("loss_events", str)):
                row.append(cell(a, k, f))
                for b in modes:
                    row += [cell(b, k, f), d(b, k)]
            row += [cell(a, "timeouts")] + [cell(b, "timeouts") for b in modes]
            out.append("| " + " | ".join(row) + " |")
    return out


def by_algorithm(scenarios: list[Scenario], algs: list[str], results: dict, specs: dict) -> list[str]:
    """One Markdown table per algorithm, one row per scenario (the layout of docs/validation.md)."""
    out = []
    for alg in algs:
        spec = specs.get(alg, (None, "—"))
        desc = spec[1] if spec[0] is not None else "not in cclab yet: cclab columns are placeholders"
        out.append(f"\n#### {alg} (cclab: {desc})\n")
        out.append("| scenario | goodput ns-2 Mbit/s | cclab | diff | loss ev. ns-2 | cclab | diff "
                   "| timeouts ns-2 | cclab | diff | per-flow ns-2 / cclab (Mbit/s) |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for s in scenarios:
            a, b = (r.get(alg) for r in results[s.id])
            oka = a is not None and a.get("status") == "ok"
            okb = b is not None and b.get("status") == "ok"

            def cell(r, ok, k, f=str):
                return f(r[k]) if ok else ((r or {}).get("status") or "—")

            def d(k):
                return fmt_rel(rel(a[k], b[k])) if oka and okb else "—"

            per = per_flow_cell(a, b) if s.flows > 1 else ""
            out.append(f"| {s.id} | {cell(a, oka, 'goodput', mbps)} | {cell(b, okb, 'goodput', mbps)} | "
                       f"{d('goodput')} | {cell(a, oka, 'loss_events')} | {cell(b, okb, 'loss_events')} | "
                       f"{d('loss_events')} | {cell(a, oka, 'timeouts')} | {cell(b, okb, 'timeouts')} | "
                       f"{d('timeouts')} | {per} |")
    return out


# --------------------------------------------------------------------------------------------- main

def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--algorithms", default=",".join(ALGORITHMS),
                   help="comma-separated ns-2 select_ca names (default: all nine)")
    p.add_argument("--quick", action="store_true", help="two small scenarios only")
    p.add_argument("--scenarios", default="", help="comma-separated scenario ids (see --list)")
    p.add_argument("--only-ns2", action="store_true", help="compute the ns-2 side only")
    p.add_argument("--only-cclab", action="store_true", help="compute the cclab side only")
    p.add_argument("--report-only", action="store_true", help="compute nothing; print what is cached")
    p.add_argument("--allow-stale", action="store_true",
                   help="report rows made by another engine or ns-2 script too (the report names them); "
                        "without it they are left out, and a run computes them again")
    p.add_argument("--recompute-ns2", action="store_true", help="ignore the ns-2 cache")
    p.add_argument("--recompute-cclab", action="store_true", help="ignore the cclab cache (e.g. after an engine change)")
    p.add_argument("--ns2-csv", type=Path, default=NS2_CSV)
    p.add_argument("--cclab-csv", type=Path, default=CCLAB_CSV)
    p.add_argument("--timeout", type=float, default=900.0,
                   help="per simulation, s (default 900); recorded as a 'timeout>900s' row, not retried "
                        "(ns-2's slow-start retransmission storms at 1000 Mbit/s and 1 BDP can run for hours)")
    p.add_argument("--markdown", type=Path, help="also write the tables to this Markdown file")
    p.add_argument("--perturb", action="store_true",
                   help="noise floor: the same scenarios with every access delay 1 us longer (2.501 ms), "
                        "cached as separate scenarios; also prints base vs perturbed for each simulator")
    p.add_argument("--reference-table", action="store_true",
                   help="also print the ns-2 figures of all algorithms in one table (rows: scenarios)")
    p.add_argument("--recovery", choices=RECOVERY_MODES, default="sack",
                   help="cclab's loss recovery: 'sack' (RFC 6675, default) or 'linux-2.6' (ns-2.35 TCP-Linux's "
                        "rate-halving to min_cwnd); cached under separate keys")
    p.add_argument("--compare-recovery", action="store_true",
                   help="also print ns-2 against both cclab recovery modes, one table per algorithm")
    p.add_argument("--group-by", choices=["scenario", "algorithm"], default="scenario",
                   help="one table per scenario (default) or per algorithm")
    p.add_argument("--list", action="store_true", help="print the scenario matrix and exit")
    args = p.parse_args()

    algs = [a.strip() for a in args.algorithms.split(",") if a.strip()]
    bad = [a for a in algs if a not in CCLAB_NAME]
    if bad:
        p.error(f"unknown algorithm(s) {bad}; known: {', '.join(ALGORITHMS)}")
    scenarios = quick_matrix() if args.quick else matrix()
    if args.scenarios:
        wanted = args.scenarios.split(",")
        scenarios = [s for s in matrix() if s.id in wanted]
    if args.perturb:
        scenarios = [dataclasses.replace(s, access_ms=ACCESS_MS + 0.001) for s in scenarios]
    if args.list:
        for s in scenarios:
            print(f"{s.id:32s} {s.label()}")
        return 0
    do_ns2 = not (args.only_cclab or args.report_only)
    do_cclab = not (args.only_ns2 or args.report_only)

    print(f"# {platform.node()} {platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}; "
          f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC", file=sys.stderr)

    # ---- cclab algorithm table
    exe = cclab_exe()
    specs: dict[str, tuple[str | None, str]] = {}
    if exe is None:
        print("cclab: not found (.venv/bin/cclab or PATH); cclab side skipped", file=sys.stderr)
        do_cclab = False
    else:
        try:
            known = cclab_algorithms(exe)
        except Exception as exc:  # noqa: BLE001
            print(f"cclab: {exc}; cclab side skipped", file=sys.stderr)
            known, do_cclab = {}, False
        for alg in algs:
            specs[alg] = cc_spec(alg, known)
            print(f"  {alg:9s} -> cclab {specs[alg][1]}", file=sys.stderr)
    if do_ns2 and shutil.which("ns") is None:
        print("ns-2: `ns` not found on PATH (Debian: apt-get install ns2); ns-2 side skipped", file=sys.stderr)
        do_ns2 = False

    ns2_stamp = ns2_script_hash(NS2_SCRIPT)
    engine = engine_fingerprint(exe) if exe is not None else "unknown (no cclab)"
    ns2_cache = read_cache(args.ns2_csv, NS2_STAMP, ns2_stamp, args.allow_stale)
    cclab_cache = read_cache(args.cclab_csv, ENGINE, engine, args.allow_stale)
    t_ns2 = t_cclab = 0.0
    n_ns2 = n_cclab = 0
    for s in scenarios:
        for alg in algs:
            key = f"{s.id}/{alg}"
            if do_ns2 and (args.recompute_ns2 or key not in ns2_cache):
                print(f"  ns-2  {key} ...", file=sys.stderr, flush=True)
                t0 = time.perf_counter()
                rows = run_ns2(s, alg, args.timeout)
                t_ns2 += time.perf_counter() - t0
                n_ns2 += 1
                rows = [{**r, "key": key, "scenario": s.id, "algorithm": alg, "cc_spec": f"select_ca {alg}",
                         NS2_STAMP: ns2_stamp, **stamp()} for r in rows]
                drop_from_cache(args.ns2_csv, key)  # stale error rows, or --recompute-ns2
                append_cache(args.ns2_csv, rows)
                ns2_cache[key] = rows
            spec = specs.get(alg, (None, ""))[0]
            if do_cclab and spec is None:
                continue
            ckey = cclab_key(s, alg, spec, args.recovery)
            if do_cclab and (args.recompute_cclab or ckey not in cclab_cache):
                print(f"  cclab {ckey} ...", file=sys.stderr, flush=True)
                t0 = time.perf_counter()
                rows = run_cclab(exe, s, spec, args.timeout, args.recovery)
                t_cclab += time.perf_counter() - t0
                n_cclab += 1
                rows = [{**r, "key": ckey, "scenario": s.id, "algorithm": alg, "cc_spec": spec, ENGINE: engine,
                         **stamp()} for r in rows]
                drop_from_cache(args.cclab_csv, ckey)
                append_cache(args.cclab_csv, rows)
                cclab_cache[ckey] = rows
    if n_ns2 or n_cclab:
        print(f"# computed {n_ns2} ns-2 runs in {t_ns2:.0f} s, {n_cclab} cclab runs in {t_cclab:.0f} s",
              file=sys.stderr)

    # ---- report
    out: list[str] = []
    flagged = []
    results = {}
    for s in scenarios:
        ns2 = {a: summarise(ns2_cache.get(f"{s.id}/{a}")) for a in algs}
        ccl = {}
        for a in algs:
            spec = specs.get(a, (None, ""))[0]
            if spec is not None:
                ccl[a] = summarise(cclab_cache.get(cclab_key(s, a, spec, args.recovery)))
            else:  # cclab not consulted (or lacks it): use any cached row for this scenario/algorithm/mode
                suffix = cclab_key(s, a, "", args.recovery)[len(f"{s.id}/{a}/"):]
                hits = [k for k in cclab_cache if k.startswith(f"{s.id}/{a}/") and k.endswith(suffix)
                        and (suffix or "/recovery=" not in k)]
                ccl[a] = summarise(cclab_cache[hits[-1]]) if hits and exe is None else None
        results[s.id] = (ns2, ccl)
        out.append(f"\n#### {s.id}: {s.label()}\n")
        out.extend(table(s, algs, ns2, ccl, specs))
        for a in algs:
            x, y = ns2.get(a), ccl.get(a)
            if x and y and x.get("status") == "ok" and y.get("status") == "ok":
                for k in ("goodput", "loss_events", "timeouts"):
                    d = rel(x[k], y[k])
                    if d is not None and abs(d) > THRESHOLD:
                        flagged.append(f"{s.id} {a} {k}: ns-2 {x[k]:.6g}, cclab {y[k]:.6g} ({fmt_rel(d)})")
                if s.flows > 1:
                    for i, (u, v) in enumerate(zip(x["per_flow"], y["per_flow"])):
                        d = rel(u, v)
                        if abs(d) > THRESHOLD:
                            flagged.append(f"{s.id} {a} flow {i} goodput: ns-2 {u / 1e6:.2f}, "
                                           f"cclab {v / 1e6:.2f} Mbit/s ({fmt_rel(d)})")
    if args.group_by == "algorithm":
        out = by_algorithm(scenarios, algs, results, specs)
    # What made the rows shown: the ns-2 rows of these scenarios, the cclab rows of the chosen specs.
    ns2_shown = [r for s in scenarios for a in algs for r in ns2_cache.get(f"{s.id}/{a}", [])]
    ids = {s.id for s in scenarios}
    cclab_shown = [r for k, rows in cclab_cache.items() for r in rows if r["scenario"] in ids and r["algorithm"] in algs]
    out = [f"ns-2 rows: {describe(ns2_shown, NS2_STAMP, ns2_stamp)}",
           f"cclab rows: {describe(cclab_shown, ENGINE, engine)}", *out]
    text = "\n".join(out)
    print(text)
    print(f"\n{len(flagged)} difference(s) above {THRESHOLD:.0%}:")
    for f in flagged:
        print("  " + f)
    if args.reference_table:
        ref = reference_table(scenarios, algs, ns2_cache)
        print("\n".join(ref))
        text += "\n" + "\n".join(ref)
    if args.perturb:
        noise = noise_floor(scenarios, algs, results, ns2_cache, cclab_cache, specs, args.recovery)
        print("\n".join(noise))
        text += "\n" + "\n".join(noise)
    if args.compare_recovery:
        both = compare_recovery(scenarios, algs, ns2_cache, cclab_cache, specs)
        print("\n".join(both))
        text += "\n" + "\n".join(both)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
