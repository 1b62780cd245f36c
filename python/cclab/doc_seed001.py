"""The tables and finding lists of docs/reproductions/seed001.md, rendered from the study's values.

Each renderer makes one `<!-- numbers: seed001/... -->` block of the page (see `cclab.doc_numbers`) from
docs/reproductions/data/seed001-values.csv (cclab's means per experiment, row, cell and metric) and
seed001-claims.csv (each finding's verdict, the paper's value as we read it, cclab's and the difference),
both written by `cclab reproduce seed001 --write-docs` from the stored full study. The paper gives no
number in its text, so the tables are cclab's alone; the findings carry the comparison.

Grid experiments (Figures 3, 7, 12) name their cells by coordinates ("bw=100 delay=20 qsize=0.1"); the
renderers find a cell by its coordinates in the experiment file, never by spelling its name.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

from .doc_numbers import DocsError, Values, table

STUDY = "seed001"


# --- cells and numbers ---------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _cells(experiment: str) -> tuple[tuple[str, tuple[tuple[str, float], ...]], ...]:
    """(name, coordinates) of every cell of a seed 001 experiment, from its file in the package."""
    from .experiment import list_experiments, load_experiment
    paths = list_experiments()
    if experiment not in paths:
        raise DocsError(f"no experiment {experiment} to take the cells of")
    spec = load_experiment(paths[experiment]).spec
    return tuple((c.name, tuple(sorted((k, float(v)) for k, v in c.coords.items()))) for c in spec.cells)


def cell(experiment: str, **coords: float) -> str:
    """The name of the one cell at these coordinates (every coordinate the cell has must be given)."""
    wanted = {k: float(v) for k, v in coords.items()}
    for name, have in _cells(experiment):
        have = dict(have)
        if have.keys() == wanted.keys() and all(abs(have[k] - v) <= 1e-9 * max(1.0, abs(v)) for k, v in wanted.items()):
            return name
    raise DocsError(f"{experiment} has no cell at {coords}")


def fixed(value: float) -> str:
    """A utilisation or an index: three decimals."""
    return f"{value:.3f}"


def mbit(value: float) -> str:
    return f"{value:.1f}"


def ratio(value: float) -> str:
    """A throughput ratio, which spans 1 to several hundred: two decimals below 10, one below 100."""
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def _coordinate(value: float) -> str:
    """A coordinate as the page writes it: 100, 0.5, and an error rate as 1e-7 (not 1e-07)."""
    if value and abs(value) <= 1e-3:
        mantissa, exponent = f"{value:.0e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{value:g}"


def _grid(values: Values, experiment: str, row: str, metric: str, fixed_coords: dict[str, float],
          down: tuple[str, list[float], str], across: tuple[str, list[float], str],
          inner: tuple[str, list[float]], fmt: Callable[[float], str]) -> str:
    """A table of one row's metric over three axes: one line per `down` value, one column per `across`
    value, the `inner` axis' values joined with " / " in each cell. down/across: (axis, values, unit)."""
    (d_axis, d_values, d_unit), (a_axis, a_values, a_unit), (i_axis, i_values) = down, across, inner
    header = [f"{d_axis} \\ {a_axis}, {i_axis} {' / '.join(_coordinate(v) for v in i_values)}"]
    header += [f"{_coordinate(a)} {a_unit}".strip() for a in a_values]
    lines = []
    for d in d_values:
        line = [f"{_coordinate(d)} {d_unit}".strip()]
        for a in a_values:
            shown = [fmt(values.get(experiment, row, cell(experiment, **fixed_coords, **{d_axis: d, a_axis: a, i_axis: i}),
                                    metric).mean) for i in i_values]
            line.append(" / ".join(shown))
        lines.append(line)
    return table(header, ["---"] + ["---:"] * len(a_values), lines)


BW = [100.0, 200.0, 500.0, 1000.0]
DELAY = [20.0, 50.0, 100.0]
QSIZE = [0.1, 0.2, 0.5]
PER = [1e-7, 1e-6, 1e-5, 1e-4, 1e-3]


# --- findings ------------------------------------------------------------------------------------------

VERDICT = {"holds": "**holds**", "fails": "**FAILS**", "not checked": "not checked"}


def _cell_text(text: str) -> str:
    """Text that can stand in a table cell: no pipes, no line breaks."""
    return text.replace("|", "\\|").replace("\n", " ")


def findings(values: Values, experiments: list[str]) -> str:
    """The findings of these experiments: the paper's words with our reading in [], the verdict, the
    paper's value as we read it, cclab's deciding value and the difference; then why each failure fails
    (the check's own account, shortened)."""
    rows, failures = [], []
    for experiment in experiments:
        for f in values.findings(experiment):
            rows.append([_cell_text(f["finding"]), VERDICT.get(f["status"], f["status"]), _cell_text(f["paper"] or "-"),
                         _cell_text(f["cclab"] or "-"), f["difference"] or "-"])
            if f["status"] == "fails":
                detail = f["detail"] if len(f["detail"]) <= 400 else f["detail"][:400].rsplit(";", 1)[0] + "; ..."
                failures.append(f"- {_cell_text(f['finding'].split(' [')[0])}: {detail}")
    if not rows:
        raise DocsError(f"{values.source}: no findings of {', '.join(experiments)}")
    out = table(["finding (the paper's words, [our reading])", "verdict", "paper (our reading)", "cclab",
                 "difference"], ["---", "---", "---", "---", "---:"], rows)
    if failures:
        out += "\nWhere it fails (the check's account):\n\n" + "\n".join(failures) + "\n"
    return out


def findings_count(values: Values, study: str = STUDY) -> str:
    """How many findings hold, fail and were not checked, part by part."""
    parts: dict[str, dict[str, int]] = {}
    for f in values.all_findings():
        counts = parts.setdefault(f["experiment"].removeprefix(study + "-"), {"holds": 0, "fails": 0, "not checked": 0})
        counts[f["status"]] = counts.get(f["status"], 0) + 1
    total = {s: sum(c.get(s, 0) for c in parts.values()) for s in ("holds", "fails", "not checked")}
    n = sum(total.values())
    out = (f"The study has {n} findings: **{total['holds']} hold, {total['fails']} fail**"
           + (f", {total['not checked']} not checked" if total["not checked"] else "") + ".\n\n")
    return out + table(["part", "hold", "fail", "not checked"], ["---", "---:", "---:", "---:"],
                       [[part, str(c["holds"]), str(c["fails"]), str(c["not checked"])] for part, c in parts.items()])


# --- the figures' tables -------------------------------------------------------------------------------

def figure1(values: Values) -> str:
    e, c = "seed001-figure1", "100Mbps 50ms 0.2BDP"
    return table(["row", "throughput over 300 s (Mbit/s)"], ["---", "---:"],
                 [[row, mbit(values.get(e, row, c, "goodput").mean)] for row in ("CTCP (paper)", "CTCP (ns-2.35 Linux port)")])


def figure3(values: Values) -> str:
    grid = lambda row: _grid(values, "seed001-figure3", row, "utilisation", {"per": 1e-7}, ("bw", BW, "Mbit/s"),
                             ("delay", DELAY, "ms"), ("qsize", QSIZE), fixed)
    return ("CTCP (the Linux module), PER 1e-7:\n\n" + grid("CTCP") + "\nThe paper's rules (Table I taken literally), PER 1e-7:\n\n"
            + grid("CTCP (paper rules)"))


def figure3_per(values: Values) -> str:
    return _grid(values, "seed001-figure3", "CTCP", "utilisation", {"qsize": 0.5}, ("bw", BW, "Mbit/s"),
                 ("delay", DELAY, "ms"), ("per", PER), fixed)


def figure4(values: Values) -> str:
    lines = []
    for experiment, pipe in (("seed001-figure4a", "(a) 1000 Mbit/s, 20 ms, 0.5 BDP"),
                             ("seed001-figure4b", "(b) 100 Mbit/s, 20 ms, 0.1 BDP")):
        for row in ("CTCP", "HSTCP", "BIC"):
            lines.append([f"{pipe}: {row}"] + [fixed(values.get(experiment, row, cell(experiment, per=p), "utilisation").mean)
                                               for p in PER])
    return table(["PER"] + [_coordinate(p) for p in PER], ["---"] + ["---:"] * len(PER), lines)


def figure5_6(values: Values) -> str:
    lines = []
    for row in ("CTCP", "BIC"):
        lines.append([f"{row}, 1 / 2 / 8 flows"] + [" / ".join(
            fixed(values.get("seed001-figure5", row, cell("seed001-figure5", flows=n, qsize=q), "utilisation").mean)
            for n in (1, 2, 8)) for q in QSIZE])
    for row in ("CTCP", "HSTCP", "BIC"):
        lines.append([f"{row}, 1 flow (Fig. 6)"] + [fixed(values.get("seed001-figure6", row, cell("seed001-figure6", qsize=q),
                                                                     "utilisation").mean) for q in QSIZE])
    return table(["utilisation, 100 Mbit/s, 20 ms"] + [f"qsize {_coordinate(q)}" for q in QSIZE], ["---", "---:", "---:", "---:"], lines)


def figure7(values: Values) -> str:
    grid = lambda flows, metric: _grid(values, "seed001-figure7", "CTCP", metric, {"flows": flows}, ("bw", BW, "Mbit/s"),
                                       ("delay", DELAY, "ms"), ("qsize", QSIZE), fixed)
    return ("Jain's index of 2 flows:\n\n" + grid(2, "jain") + "\nJain's index of 8 flows:\n\n" + grid(8, "jain")
            + "\nUtilisation of 2 flows:\n\n" + grid(2, "utilisation"))


def figure8_9(values: Values) -> str:
    e = "seed001-figure8-9"
    lines = []
    for c in ("Fig. 8: 2 flows, 100Mbps 100ms 0.5BDP", "Fig. 9: 8 flows, 200Mbps 100ms 0.1BDP"):
        jain, low, high = (values.get(e, "CTCP", c, m) for m in ("jain", "lowest", "highest"))
        lines.append([c, f"{fixed(jain.mean)} ({fixed(jain.low)}-{fixed(jain.high)})",
                      f"{mbit(low.mean)} ({mbit(low.low)}-{mbit(low.high)})",
                      f"{mbit(high.mean)} ({mbit(high.low)}-{mbit(high.high)})", str(jain.seeds)])
    return table(["mean over the seeds (range)", "Jain, 100-500 s", "lowest flow (Mbit/s)", "highest flow (Mbit/s)", "seeds"],
                 ["---", "---:", "---:", "---:", "---:"], lines)


def figure10(values: Values) -> str:
    e = "seed001-figure10"
    cells = ["(a) 100Mbps 20ms 0.1BDP", "(b) 100Mbps 50ms 0.5BDP", "(c) 500Mbps 50ms 0.5BDP", "(d) 1000Mbps 20ms 0.5BDP"]
    return table(["pipe", "Jain, 200-600 s", "utilisation, 200-600 s", "utilisation, 610-700 s (flow 1 alone)"],
                 ["---", "---:", "---:", "---:"],
                 [[c] + [fixed(values.get(e, "CTCP", c, m).mean) for m in ("jain", "shared", "after")] for c in cells])


RATIOS = [1.0, 2.0, 4.0, 6.0, 8.0, 10.0]


def figure11(values: Values) -> str:
    e = "seed001-figure11"
    lines = []
    for panel, qsize in (("(a) 100 Mbit/s, 0.1 BDP", 0.1), ("(b) 1000 Mbit/s, 0.5 BDP", 0.5)):
        for row in ("Reno", "BIC", "HSTCP", "CTCP"):
            lines.append([f"{panel}: {row}"] + [ratio(values.get(e, row, cell(e, qsize=qsize, ratio=r), "ratio").mean)
                                                for r in RATIOS])
    return table(["Th(1st) / Th(2nd), RTT ratio"] + [_coordinate(r) for r in RATIOS], ["---"] + ["---:"] * len(RATIOS), lines)


def figure12(values: Values) -> str:
    """Thr(Reno beside CTCP) / Thr_base, with both terms, a line per bandwidth and queue size."""
    e = "seed001-figure12"
    lines = []
    for bw in BW:
        for q in QSIZE:
            shown = []
            for d in DELAY:
                c = cell(e, bw=bw, delay=d, qsize=q)
                reno, base = (values.get(e, row, c, "reno").mean for row in ("CTCP + Reno", "Reno + Reno (baseline)"))
                if base <= 0:
                    raise DocsError(f"{e}: the baseline at {c} is {base}: no ratio")
                shown.append(f"{mbit(reno)} / {mbit(base)} = **{reno / base:.2f}**")
            lines.append([f"{_coordinate(bw)} Mbit/s, {_coordinate(q)} BDP"] + shown)
    return table(["Reno beside CTCP / Thr_base (Mbit/s) = ratio"] + [f"{_coordinate(d)} ms" for d in DELAY],
                 ["---", "---:", "---:", "---:"], lines)


def figure13(values: Values) -> str:
    e, c = "seed001-figure13", "200Mbps 100ms 0.5BDP"
    get = lambda m: values.get(e, "CTCP", c, m).mean
    return (f"- mean queue {get('queue_early'):.0f} packets over 30-90 s and {get('queue_late'):.0f} over 480-600 s;\n"
            f"- every flow's baseRTT at the end (590-600 s) is at most {get('base_rtt_max'):.4f} s, spread "
            f"{get('base_rtt_spread'):.1e} s (the propagation round trip is 0.2200 s);\n"
            f"- Jain's index over 500-600 s is {fixed(get('jain'))}.\n")


def figure14(values: Values) -> str:
    e = "seed001-figure14"
    cells = [("100Mbps 20->40ms", "100 Mbit/s, 20 → 40 ms"), ("200Mbps 50->100ms", "200 Mbit/s, 50 → 100 ms"),
             ("1000Mbps 20->40ms", "1000 Mbit/s, 20 → 40 ms")]
    return table(["pipe", "utilisation 150-250 s", "utilisation 400-500 s", "mean dwnd 150-250 s", "mean dwnd 300-500 s"],
                 ["---", "---:", "---:", "---:", "---:"],
                 [[label, fixed(values.get(e, "CTCP", c, "before").mean), fixed(values.get(e, "CTCP", c, "after").mean),
                   f"{values.get(e, 'CTCP', c, 'dwnd_before').mean:.0f}", f"{values.get(e, 'CTCP', c, 'dwnd_after').mean:.1f}"]
                  for c, label in cells])


def reverse_traffic(values: Values) -> str:
    e = "seed001-reverse-traffic"
    lines = []
    # The cell without reverse traffic is the same run in every row (flow 1 is one 1 KB packet): shown once.
    none = "no reverse traffic"
    lines.append(["none", mbit(values.get(e, "reverse Reno", none, "ctcp").mean), "—",
                  f"{values.get(e, 'reverse Reno', none, 'dwnd').mean:.1f}"])
    for c in ("reverse flow", "reverse flow, 2 BDP reverse queue"):
        for row in ("reverse Reno", "reverse BIC", "reverse CTCP"):
            lines.append([f"{row.removeprefix('reverse ')}" + (" (2 BDP reverse queue)" if "2 BDP" in c else ""),
                          mbit(values.get(e, row, c, "ctcp").mean), mbit(values.get(e, row, c, "reverse").mean),
                          f"{values.get(e, row, c, 'dwnd').mean:.1f}"])
    return table(["reverse flow", "CTCP forward, Mbit/s", "reverse flow, Mbit/s", "CTCP mean dwnd, 100-500 s (packets)"],
                 ["---", "---:", "---:", "---:"], lines)


def _findings_of(*parts: str) -> Callable[[Values], str]:
    return lambda values: findings(values, [f"{STUDY}-{p}" for p in parts])


RENDERERS: dict[str, Callable[[Values], str]] = {
    "seed001/findings-count": findings_count,
    "seed001/figure1": figure1,
    "seed001/figure3": figure3,
    "seed001/figure3-per": figure3_per,
    "seed001/findings-figure3": _findings_of("figure3"),
    "seed001/figure4": figure4,
    "seed001/findings-figure4": _findings_of("figure4a", "figure4b"),
    "seed001/figure5-6": figure5_6,
    "seed001/findings-figure5-6": _findings_of("figure5", "figure6"),
    "seed001/figure7": figure7,
    "seed001/findings-figure7": _findings_of("figure7"),
    "seed001/figure8-9": figure8_9,
    "seed001/findings-figure8-9": _findings_of("figure8-9"),
    "seed001/figure10": figure10,
    "seed001/findings-figure10": _findings_of("figure10"),
    "seed001/figure11": figure11,
    "seed001/findings-figure11": _findings_of("figure11"),
    "seed001/figure12": figure12,
    "seed001/findings-figure12": _findings_of("figure12"),
    "seed001/figure13": figure13,
    "seed001/findings-figure13": _findings_of("figure13"),
    "seed001/figure14": figure14,
    "seed001/findings-figure14": _findings_of("figure14"),
    "seed001/reverse-traffic": reverse_traffic,
    "seed001/findings-reverse-traffic": _findings_of("reverse-traffic"),
}
