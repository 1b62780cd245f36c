"""The numbers of README.md and docs/reproductions/<study>.md, written from a reproduction, never by hand.

A page marks each generated stretch with a pair of comments::

    <!-- numbers: seed000/table1 -->
    | algorithm | ... (written by `cclab reproduce seed000 --write-docs`)
    <!-- /numbers -->

`cclab reproduce seed000 --write-docs` reproduces the full study from the result store (it computes
nothing: every run must be stored), keeps the measured values in docs/reproductions/data/<study>-values.csv
(the `values.csv` that `cclab reproduce` writes beside report.md) and rewrites every block from them. A
study whose page lists its findings (seed 001) also keeps the report's claims.csv as <study>-claims.csv and
its figures in docs/reproductions/figures/<study>/ (`REPORT_FILES`).
`cclab reproduce seed000 --check-docs` renders the blocks from that file and fails where a page differs;
tests/test_doc_numbers.py does the same on every test run, so a page cannot drift from its data.

The text around the blocks (what the numbers mean, why a cell differs from the paper) is written by hand;
each renderer below makes one table or sentence, in the layout the page has always had.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import math
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

from .errors import CclabError

# A values.csv column with a percentile of the cell's values: p10, p50, p90, p99.
PERCENTILE = re.compile(r"p\d+")
BLOCK = re.compile(r"(<!-- numbers: (?P<name>[\w./-]+) -->\n)(?P<body>.*?)(<!-- /numbers -->)", re.S)
# Pages with blocks, relative to the repository root, per study.
PAGES = {"seed000": ["README.md", "docs/reproductions/seed000.md"], "seed001": ["docs/reproductions/seed001.md"],
         "seed002": ["docs/reproductions/seed002.md"], "seed003": ["docs/reproductions/seed003.md"]}
# Studies whose --write-docs also keeps the report's findings (claims.csv) and figures (its PNGs).
REPORT_FILES = {"seed001", "seed002", "seed003"}
FIGURES_DIR = Path("docs/reproductions/figures")
DATA_DIR = Path("docs/reproductions/data")
MINUS = "\u2212"   # the pages' minus sign


class DocsError(CclabError):
    """A page cannot be written: a block without a renderer, a value the data does not have."""


@dataclass(frozen=True)
class Value:
    mean: float
    std: float
    low: float
    high: float
    seeds: int
    paper: Optional[float]
    ns2: Optional[float]
    verdict: str
    # Percentile (10, 50, 90, 99) -> its value, of the same values as the mean; empty in a values file
    # written before they were kept (session 13).
    percentiles: dict[int, float] = field(default_factory=dict)


def _number(text: str) -> Optional[float]:
    return float(text) if text not in ("", None) else None


class Values:
    """A study's measured values: (experiment, row, cell, metric) -> Value, from a values.csv; and, where the
    study keeps them, its findings (the lines of the report's claims.csv)."""

    def __init__(self, rows: list[dict], source: str, meta: Optional[dict] = None,
                 findings: Optional[list[dict]] = None):
        self.source = source
        self._findings = findings
        # What made the values: cclab_version (with the engine fingerprint), runs, date, how (the
        # <study>-source.json beside the values).
        self.meta = meta or {}
        self._values: dict[tuple[str, str, str, str], Value] = {}
        for r in rows:
            if not r.get("mean"):
                continue   # a cell without a result: a renderer that needs it says so
            self._values[(r["experiment"], r["row"], r["cell"], r["metric"])] = Value(
                float(r["mean"]), float(r["std"] or 0), float(r["min"] or r["mean"]), float(r["max"] or r["mean"]),
                int(r["seeds"] or 1), _number(r["paper"]), _number(r["ns2"]), r["verdict"],
                {int(key[1:]): float(text) for key, text in r.items() if PERCENTILE.fullmatch(key or "") and text})

    @classmethod
    def read(cls, path: Path) -> "Values":
        try:
            with open(path, newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
            meta_path = source_path(path)
            meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
            findings = None
            if claims_path(path).exists():
                with open(claims_path(path), newline="", encoding="utf-8") as f:
                    findings = list(csv.DictReader(f))
            return cls(rows, str(path), meta, findings)
        except FileNotFoundError:
            raise DocsError(f"{path}: no values to write the docs from; run `cclab reproduce STUDY --write-docs` "
                            "once the full study is in the store") from None

    def get(self, experiment: str, row: str, cell: str, metric: str) -> Value:
        try:
            return self._values[(experiment, row, cell, metric)]
        except KeyError:
            raise DocsError(f"{self.source} has no value for {experiment} / {row} / {cell} / {metric}") from None

    def percentiles(self, experiment: str, row: str, cell: str, metric: str,
                    at: Sequence[int] = (10, 50, 90, 99)) -> tuple[float, ...]:
        """The percentiles `at` of a value's pooled values (the p10 ... p99 columns of a values.csv)."""
        kept = self.get(experiment, row, cell, metric).percentiles
        if not all(p in kept for p in at):
            raise DocsError(f"{self.source} has no percentiles for {experiment} / {row} / {cell} / {metric} "
                            "(values written before they were kept); run `cclab reproduce STUDY --write-docs`")
        return tuple(kept[p] for p in at)

    def has(self, experiment: str, row: str, cell: str, metric: str) -> bool:
        return (experiment, row, cell, metric) in self._values

    def all_findings(self) -> list[dict]:
        """Every finding, in the report's order: experiment, finding, status, paper, cclab, difference, detail."""
        if self._findings is None:
            raise DocsError(f"{self.source}: no {claims_path(Path(self.source)).name} beside it gives the findings")
        return self._findings

    def findings(self, experiment: str) -> list[dict]:
        return [f for f in self.all_findings() if f["experiment"] == experiment]


# --- formatting, as the pages write numbers ------------------------------------------------------------

def percent(value: float, reference: float) -> str:
    """Signed relative difference with one decimal: '+0.1 %', '−0.0 %' (just below), '0.0 %' (equal)."""
    d = (value - reference) / reference * 100
    if d == 0:
        return "0.0 %"
    return f"{'+' if d > 0 else MINUS}{abs(d):.1f} %"


def kbit(value: float, decimals: int = 0) -> str:
    return f"{value:,.{decimals}f}"


def table(header: list[str], align: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


# --- seed 000 ------------------------------------------------------------------------------------------

T1 = "seed000-table1"
T1_ROWS = ["NewReno", "STCP", "HSTCP", "HTCP", "Westwood+", "BIC", "CUBIC (2006-2008)", "CUBIC (today)"]
T1_LABEL = {"CUBIC (today)": "CUBIC (today, β 0.7)"}
T1_CELLS = ["B=0.1BDP RTT=100ms", "B=0.1BDP RTT=300ms", "B=1BDP RTT=100ms", "B=1BDP RTT=300ms"]
T1_METRIC = "goodput"
# The README's Table I excerpt: (row, cell, label).
README_T1 = [("NewReno", T1_CELLS[0], "NewReno, B = 0.1 BDP"), ("NewReno", T1_CELLS[2], "NewReno, B = 1 BDP"),
             ("STCP", T1_CELLS[0], "STCP, B = 0.1 BDP"), ("CUBIC (2006-2008)", T1_CELLS[0], "CUBIC (2.6.22), B = 0.1 BDP"),
             ("BIC", T1_CELLS[0], "BIC (2.6.22), B = 0.1 BDP")]
GRID = ["B/BDP=0.1", "B/BDP=0.2", "B/BDP=0.3", "B/BDP=0.4", "B/BDP=0.5", "B/BDP=0.6", "B/BDP=0.7", "B/BDP=0.8",
        "B/BDP=0.9", "B/BDP=1"]
PROTOCOLS = ["NewReno", "STCP", "HSTCP", "HTCP", "Westwood+", "BIC", "CUBIC"]


def _table1_gaps(values: Values) -> list[tuple[float, str, str]]:
    """(relative difference, row, cell) of every Table I cell that ns-2.35 finished."""
    gaps = []
    for row in T1_ROWS:
        for cell in T1_CELLS:
            v = values.get(T1, row, cell, T1_METRIC)
            if v.ns2 is not None:
                gaps.append(((v.mean - v.ns2) / v.ns2, row, cell))
    return gaps


def seed000_table1(values: Values) -> str:
    rows = []
    for row in T1_ROWS:
        cells = []
        for cell in T1_CELLS:
            v = values.get(T1, row, cell, T1_METRIC)
            text = kbit(v.mean, 1) + (" ok" if v.verdict == "ok" else " OFF" if v.verdict == "off" else "")
            refs = []
            if v.paper is not None:
                refs.append(f"paper {percent(v.mean, v.paper)}")
            if v.ns2 is not None:
                refs.append(f"ns-2 {percent(v.mean, v.ns2)}")
            elif v.paper is not None:
                refs.append("ns-2 did not finish")
            cells.append(text + (f" ({', '.join(refs)})" if refs else ""))
        rows.append([T1_LABEL.get(row, row)] + cells)
    off = [f"{row} {cell}" for row in T1_ROWS for cell in T1_CELLS
           if values.get(T1, row, cell, T1_METRIC).verdict == "off"]
    out = table(["algorithm", "B=0.1 BDP, RTT 100 ms", "B=0.1 BDP, RTT 300 ms", "B=1 BDP, RTT 100 ms",
                 "B=1 BDP, RTT 300 ms"], ["---"] * 5, rows)
    return out + "\n" + ("Every check passes.\n" if not off else f"Outside their tolerance: {', '.join(off)}.\n")


def seed000_table1_agreement(values: Values) -> str:
    gaps = _table1_gaps(values)
    worst, row, cell = max(gaps, key=lambda g: abs(g[0]))
    bound = math.ceil(abs(worst) * 1e4) / 1e2   # percent, rounded up to 0.01
    # "B=0.1BDP RTT=100ms" -> "RTT 100 ms, 0.1 BDP"
    buffer, rtt = re.fullmatch(r"B=([\d.]+)BDP RTT=(\d+)ms", cell).groups()
    rtt, buffer = f"RTT {rtt} ms", f"{buffer} BDP"
    sign = "+" if worst > 0 else MINUS if worst < 0 else ""
    return (f"**cclab and ns-2.35 agree to within {bound:.2f} % in all {len(gaps)} cells where ns-2 finished** "
            f"(the largest gap is {row} at {rtt}, {buffer}: {sign}{abs(worst) * 100:.3f} %).\n")


def seed000_readme_table1(values: Values) -> str:
    rows = []
    for row, cell, label in README_T1:
        v = values.get(T1, row, cell, T1_METRIC)
        rows.append([label, kbit(v.mean), kbit(v.ns2) if v.ns2 is not None else "-",
                     kbit(v.paper) if v.paper is not None else "-"])
    return table(["cell", "cclab", "ns-2.35 TCP-Linux", "paper"], ["---", "---:", "---:", "---:"], rows)


def seed000_readme_agreement(values: Values) -> str:
    gaps = _table1_gaps(values)
    bound = math.ceil(max(abs(g[0]) for g in gaps) * 1e4) / 1e2
    winner = _table2_winner_gap(values)
    return (f"Across the seven algorithms of Table I, cclab is within {bound:.2f} % of ns-2.35 in all {len(gaps)} "
            f"cells where ns-2\nfinishes; in Table II within {winner:.1f} % for the winning flow in the rows "
            "without Westwood+.\n")


T2 = "seed000-table2"
T2_ROWS = [("STCP", "NewReno"), ("HSTCP", "NewReno"), ("HTCP", "NewReno"), ("Westwood+", "NewReno"),
           ("BIC", "NewReno"), ("CUBIC", "NewReno"), ("NewReno", "STCP"), ("NewReno", "HSTCP"),
           ("NewReno", "Westwood+"), ("NewReno", "HTCP"), ("NewReno", "BIC"), ("NewReno", "CUBIC")]
T2_CELL = "B=1BDP"


def _t2_name(a: str, b: str) -> str:
    return f"A: {a}, B: {b}"


def _table2_winner_gap(values: Values) -> float:
    """Largest |cclab - ns-2.35| / ns-2.35 of the winning flow over Table II's rows without Westwood+, %;
    rounded up to 0.1."""
    worst = 0.0
    for a, b in T2_ROWS:
        if "Westwood+" in (a, b):
            continue
        host_a, host_b = (values.get(T2, _t2_name(a, b), T2_CELL, m) for m in ("host_a", "host_b"))
        win = host_a if host_a.mean >= host_b.mean else host_b
        if win.ns2 is not None:
            worst = max(worst, abs(win.mean - win.ns2) / win.ns2)
    return math.ceil(worst * 1e3) / 10


def seed000_table2(values: Values) -> str:
    rows = []
    for a, b in T2_ROWS:
        name = _t2_name(a, b)
        host_a, host_b = (values.get(T2, name, T2_CELL, m) for m in ("host_a", "host_b"))

        def stat(v: Value) -> str:
            text = f"{kbit(v.mean)} ± {kbit(v.std)}"
            # The range where the seeds spread (sd above 10 % of the mean): start times matter there.
            if v.seeds > 1 and v.std > 0.1 * v.mean:
                text += f" [{kbit(v.low)}, {kbit(v.high)}]"
            return text

        def pair(x: Optional[float], y: Optional[float]) -> str:
            return "-" if x is None or y is None else f"{kbit(x)} / {kbit(y)}"
        rows.append([a, b, stat(host_a), stat(host_b), pair(host_a.paper, host_b.paper), pair(host_a.ns2, host_b.ns2)])
    return table(["host A", "host B", "cclab host A", "cclab host B", "paper A / B", "ns-2.35 A / B"],
                 ["---", "---", "---:", "---:", "---:", "---:"], rows)


F910 = "seed000-figure9-10"


def seed000_figure9_10(values: Values) -> str:
    rows = []
    for p in PROTOCOLS:
        total = " / ".join(f"{values.get(F910, p, c, 'goodput').mean:.1f}"
                           for c in ("B/BDP=0.1", "B/BDP=0.3", "B/BDP=0.5", "B/BDP=1"))
        jain = " / ".join(f"{values.get(F910, p, c, 'jain').mean:.3f}" for c in ("B/BDP=0.1", "B/BDP=1"))
        a, b = (values.get(F910, p, "B/BDP=1", m) for m in ("host_a", "host_b"))
        hosts = f"{a.mean:.1f} / {b.mean:.1f}"
        if a.ns2 is not None and b.ns2 is not None:
            hosts += f" (ns-2.35: {a.ns2:.1f} / {b.ns2:.1f})"
        rows.append([p, total, jain, hosts])
    return table(["protocol", "total, Mbit/s: B = 0.1 / 0.3 / 0.5 / 1 BDP", "Jain: 0.1 / 1 BDP",
                  "host A / host B at 1 BDP, Mbit/s"], ["---"] * 4, rows)


def seed000_figure11_12(values: Values) -> str:
    cells = ("B/BDP=0.1", "B/BDP=0.2", "B/BDP=0.3", "B/BDP=0.6", "B/BDP=1")
    rows = []
    for p in PROTOCOLS:
        line = [p]
        for experiment in ("seed000-figure11", "seed000-figure12"):
            shown = [f"{values.get(experiment, p, c, 'utilisation').mean:.3f}" for c in cells]
            line.append(f"{shown[0]} at every buffer" if len(set(shown)) == 1 else " / ".join(shown))
        rows.append(line)
    return table(["protocol", "RTT 100 ms: B = 0.1 / 0.2 / 0.3 / 0.6 / 1 BDP", "RTT 300 ms: 0.1 / 0.2 / 0.3 / 0.6 / 1 BDP"],
                 ["---"] * 3, rows)


def seed000_figure13(values: Values) -> str:
    rows = []
    for p in PROTOCOLS:
        rows.append([p] + [" / ".join(f"{values.get('seed000-figure13', p, cell, m).mean:.0f}"
                                      for m in ("g_10_100", "g_100_1000", "g_last"))
                           for cell in ("5 flows", "10 flows", "50 flows")])
    return table(["protocol", "5 flows", "10 flows", "50 flows"], ["---"] * 4, rows)


def source(values: Values) -> str:
    meta = values.meta
    if not meta:
        raise DocsError(f"{values.source}: no {source_path(Path(values.source)).name} beside it says what made the values")
    return (f"Values: the full run of `cclab {meta['cclab_version']}` ({meta['runs']} runs), {meta['date']}; "
            f"{meta['how']}.\n")


# Why a part is not in the values: a heavy part not wholly stored, or a part the writer named with
# `--without` (a study written before one of its parts was run; the page says which).
WHY_LEFT_OUT = {"heavy": "heavy part", "without": "left out with --without"}


def left_out(values: Values) -> dict[str, tuple[int, int, str]]:
    """Experiment -> (runs stored, runs, why) of each part the values were written without (the `left_out`
    of <study>-source.json: `cclab reproduce --write-docs` leaves out a heavy part not wholly stored, and a
    part named with --without)."""
    return {e["experiment"]: (e["runs_stored"], e["runs"], e.get("why", "heavy"))
            for e in values.meta.get("left_out", [])}


def not_run(values: Values, experiment: str) -> str:
    """What a page says where a part left out of the values would be."""
    stored, runs, why = left_out(values)[experiment]
    return f"{experiment}: not run ({WHY_LEFT_OUT[why]}; {stored} of {runs} runs stored)"


def source_with_left_out(values: Values) -> str:
    """What made the values, and which heavy parts they lack (or that they lack none): a study with heavy
    parts never leaves one out of its page silently."""
    missing = left_out(values)
    if not missing:
        return source(values) + "\nEvery part of the study is in these values, the heavy ones included.\n"
    lines = "\n".join(f"- {not_run(values, e)}: `cclab reproduce {e.split('-', 1)[0]} --only {e.split('-', 1)[1]}` "
                      "computes it" for e in missing)
    return source(values) + "\nNot in these values:\n\n" + lines + "\n"


RENDERERS: dict[str, Callable[[Values], str]] = {
    "seed000/source": source,
    "seed000/readme-table1": seed000_readme_table1,
    "seed000/readme-agreement": seed000_readme_agreement,
    "seed000/table1": seed000_table1,
    "seed000/table1-agreement": seed000_table1_agreement,
    "seed000/figure9-10": seed000_figure9_10,
    "seed000/table2": seed000_table2,
    "seed000/figure11-12": seed000_figure11_12,
    "seed000/figure13": seed000_figure13,
}


from .doc_seed001 import RENDERERS as _SEED001   # noqa: E402 (it builds on the helpers above)

RENDERERS.update(_SEED001)
RENDERERS["seed001/source"] = source

from .doc_seed003 import RENDERERS as _SEED003   # noqa: E402 (it builds on the helpers above)

RENDERERS.update(_SEED003)

from .doc_seed002 import RENDERERS as _SEED002   # noqa: E402 (it builds on the helpers above)

RENDERERS.update(_SEED002)


# --- pages ---------------------------------------------------------------------------------------------

def block_names(text: str) -> list[str]:
    return [m.group("name") for m in BLOCK.finditer(text)]


def render_page(text: str, values: Values, where: str = "page") -> str:
    """The page with every block's text made again from `values`."""
    unknown = [name for name in block_names(text) if name not in RENDERERS]
    if unknown:
        raise DocsError(f"{where}: no renderer for block(s) {', '.join(unknown)}; known: {', '.join(RENDERERS)}")
    return BLOCK.sub(lambda m: m.group(1) + RENDERERS[m.group("name")](values) + m.group(4), text)


def checkout_root(start: Path) -> Path:
    """The source checkout around `start`: the first folder up with README.md and docs/reproductions/."""
    for folder in [start, *start.parents]:
        if (folder / "README.md").is_file() and (folder / "docs" / "reproductions").is_dir():
            return folder
    raise DocsError(f"{start} is not inside a source checkout of cclab (no README.md beside docs/reproductions/ "
                    "above it); the docs are written there")


def values_path(root: Path, study: str) -> Path:
    return root / DATA_DIR / f"{study}-values.csv"


def claims_path(values: Path) -> Path:
    """`<study>-claims.csv` beside `<study>-values.csv`: the findings of the report the values came from."""
    return values.with_name(values.name.replace("-values.csv", "-claims.csv"))


def source_path(values: Path) -> Path:
    """`<study>-source.json` beside `<study>-values.csv`."""
    return values.with_name(values.name.replace("-values.csv", "-source.json"))


def write_source(values: Path, cclab_version: str, runs: int,
                 left_out: Sequence[tuple[str, int, int, str]] = ()) -> None:
    """Record what made the values just written: the version (engine fingerprint included), the runs, today,
    and the parts left out of them (experiment, runs stored, runs, why: a key of WHY_LEFT_OUT), which the
    pages must name."""
    meta = {"cclab_version": cclab_version, "runs": runs,
            "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d"),
            "how": "written by `cclab reproduce` with `--write-docs` from the result store"}
    if left_out:
        meta["left_out"] = [{"experiment": e, "runs_stored": stored, "runs": total, "why": why}
                            for e, stored, total, why in left_out]
    source_path(values).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def pages(root: Path, study: str) -> list[Path]:
    if study not in PAGES:
        raise DocsError(f"no pages carry generated numbers for {study!r}; studies with such pages: "
                        f"{', '.join(PAGES)}")
    return [root / page for page in PAGES[study]]


# A block's text before the study's full run has been rendered into it (no values committed yet).
PENDING = "*Not rendered yet: `cclab reproduce {study} --write-docs` writes this from the stored full study.*\n"


def pending_page(text: str, study: str) -> str:
    """The page with every block's text set to PENDING (a page whose study has no values yet)."""
    return BLOCK.sub(lambda m: m.group(1) + PENDING.format(study=study) + m.group(4), text)


def check_docs(root: Path, study: str) -> list[Path]:
    """The pages whose blocks differ from what the study's committed values give; without committed
    values, the pages whose blocks are not all PENDING (a number typed where the store's should go)."""
    if not values_path(root, study).exists() and study in REPORT_FILES:
        waiting = []
        for page in pages(root, study):
            text = page.read_text(encoding="utf-8")
            unknown = [name for name in block_names(text) if name not in RENDERERS]
            if unknown:   # a misspelt block would wait for ever: say so now, not after the full run
                raise DocsError(f"{page}: no renderer for block(s) {', '.join(unknown)}")
            if pending_page(text, study) != text:
                waiting.append(page)
        return waiting
    values = Values.read(values_path(root, study))
    return [page for page in pages(root, study)
            if render_page(page.read_text(encoding="utf-8"), values, str(page)) != page.read_text(encoding="utf-8")]


def keep_report(root: Path, study: str, report_folder: Path) -> list[Path]:
    """Keep what a study's page shows from its report besides the values: the findings (claims.csv as
    <study>-claims.csv) and the figures (every PNG, into docs/reproductions/figures/<study>/, under the
    report's names: the paper's numbering). Nothing for studies outside REPORT_FILES; the files written."""
    if study not in REPORT_FILES:
        return []
    claims = claims_path(values_path(root, study))
    claims.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(report_folder / "claims.csv", claims)
    figures = root / FIGURES_DIR / study
    figures.mkdir(parents=True, exist_ok=True)
    written = [claims]
    for png in sorted(report_folder.glob("*.png")):
        shutil.copyfile(png, figures / png.name)
        written.append(figures / png.name)
    return written


def write_docs(root: Path, study: str) -> list[Path]:
    """Rewrite the blocks of the study's pages from its committed values; the pages that changed."""
    values = Values.read(values_path(root, study))
    changed = []
    for page in pages(root, study):
        old = page.read_text(encoding="utf-8")
        new = render_page(old, values, str(page))
        if new != old:
            page.write_text(new, encoding="utf-8")
            changed.append(page)
    return changed
