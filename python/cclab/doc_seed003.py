"""The tables and finding lists of docs/reproductions/seed003.md, rendered from the study's values.

Each renderer makes one `<!-- numbers: seed003/... -->` block of the page (see `cclab.doc_numbers`) from
docs/reproductions/data/seed003-values.csv (cclab's mean, sd, range and seeds per experiment, row, cell and
metric, with the paper's value where the experiment file gives one) and seed003-claims.csv (each finding's
verdict, the paper's value as we read it, cclab's and the difference), both written by `cclab reproduce
seed003 --write-docs` from the stored full study.

A heavy part (`heavy = true` in its experiment file: `seed003-response-1e-8`) is in the values only when
its runs were all stored; otherwise seed003-source.json lists it under `left_out`, and every block that
would show it says "not run" where its numbers would be, never leaving it out silently. A part named with
`--without` (written before that part was run) is left out the same way.
"""

from __future__ import annotations

import math
from typing import Callable

from .doc_numbers import MINUS, DocsError, Value, Values, left_out, not_run, source_with_left_out, table
from .doc_seed001 import cell, findings, findings_count, fixed, mbit, ratio

STUDY = "seed003"


# --- numbers -------------------------------------------------------------------------------------------

def seeded(v: Value, fmt: Callable[[float], str]) -> str:
    """A mean over seeds as the page writes it: '0.021 ± 0.005 [0.015, 0.026]'; one seed: the value alone."""
    if v.seeds <= 1:
        return fmt(v.mean)
    return f"{fmt(v.mean)} ± {fmt(v.std)} [{fmt(v.low)}, {fmt(v.high)}]"


def with_paper(text: str, v: Value, fmt: Callable[[float], str]) -> str:
    return text if v.paper is None else f"{text} (paper {fmt(v.paper)})"


def signed_percent(value: float, reference: float) -> str:
    """'+6 %', '−41 %', '−0.1 %' (one decimal under 1 %)."""
    d = (value - reference) / reference * 100
    shown = f"{abs(d):.1f}" if abs(d) < 1 else f"{abs(d):.0f}"
    return f"{'+' if d >= 0 else MINUS}{shown} %"


def window(value: float) -> str:
    """A window in packets: one decimal below 1000, whole packets with thousands separated above."""
    return f"{value:.1f}" if value < 1000 else f"{value:,.0f}".replace(",", " ")


def _rows(experiment: str) -> list[str]:
    from .experiment import list_experiments, load_experiment
    return [row.name for row in load_experiment(list_experiments()[experiment]).spec.rows]


# --- Fig. 2 --------------------------------------------------------------------------------------------

BW2 = [100, 500, 1000, 2500]


def figure2(values: Values) -> str:
    e = f"{STUDY}-figure2"
    lines = []
    for label, metric, red in (("DropTail, 50 %", "sync50", 0), ("DropTail, 25 %", "sync25", 0),
                               ("RED, 50 %", "sync50", 1), ("RED, 25 %", "sync25", 1),
                               ("utilisation, DropTail", "utilisation", 0), ("utilisation, RED", "utilisation", 1)):
        shown = []
        for bw in BW2:
            v = values.get(e, "HSTCP", cell(e, bw=bw, red=red), metric)
            shown.append(with_paper(seeded(v, fixed), v, lambda x: f"≈ {x:g}"))
        lines.append([label] + shown)
    return table(["mean ± sd [lowest, highest seed]", "100 Mbit/s", "500", "1000", "2500"], ["---"] * 5, lines)


# --- Tables 2-3 ----------------------------------------------------------------------------------------

def table2_3(values: Values, bw: int) -> str:
    e = f"{STUDY}-table2-3"
    lines = []
    for row in _rows(e):
        ratios = []
        for r in (1, 3, 6):
            v = values.get(e, row, cell(e, bw=bw, ratio=r), "ratio")
            text = ratio(v.mean) + (f" [{ratio(v.low)}, {ratio(v.high)}]" if v.seeds > 1 else "")
            ratios.append(text + ("" if v.paper is None else f" ({v.paper:.2f})"))
        util = " / ".join(fixed(values.get(e, row, cell(e, bw=bw, ratio=r), "utilisation").mean) for r in (1, 3, 6))
        lines.append([row] + ratios + [util])
    seeds = values.get(e, _rows(e)[0], cell(e, bw=bw, ratio=1), "ratio").seeds
    head = f"mean of {seeds} seeds [range] (paper)" if seeds > 1 else "one seed (paper)"
    return table([head, "RTT ratio 1", "3", "6", "utilisation at 1 / 3 / 6"], ["---"] * 5, lines)


# --- Fig. 3, Fig. 5, utilisation, Fig. 9 ---------------------------------------------------------------

def figure3(values: Values) -> str:
    e = f"{STUDY}-figure3"
    cells = [("DropTail 2.4 Gbit/s", "2.4 Gbit/s"), ("DropTail 240 Mbit/s", "240 Mbit/s")]
    lines = []
    for metric, label, fmt in (("rate80", "mean rate of an 80 ms flow", lambda x: f"{mbit(x)} Mbit/s"),
                               ("rate160", "mean rate of a 160 ms flow", lambda x: f"{mbit(x)} Mbit/s"),
                               ("jain80", "Jain's index of the eight 80 ms flows", fixed),
                               ("utilisation", "utilisation", fixed)):
        lines.append([label] + [seeded(values.get(e, "STCP", c, metric), fmt) for c, _ in cells])
    return table([""] + [label for _, label in cells], ["---", "---:", "---:"], lines)


def figure5(values: Values) -> str:
    e = f"{STUDY}-figure5"
    cells = ["100 Mbit/s", "2.5 Gbit/s"]
    lines = [[label] + [seeded(values.get(e, "BIC", c, metric), fixed) for c in cells]
             for metric, label in (("additive", "additive increase"), ("binary", "binary search"),
                                   ("probing", "max probing"))]
    return table([""] + cells, ["---", "---:", "---:"], lines)


def utilisation(values: Values) -> str:
    e = f"{STUDY}-utilisation"
    lines = []
    for row in _rows(e):
        shown = []
        for c in ("DropTail", "RED"):
            v = values.get(e, row, c, "utilisation")
            shown.append(seeded(v, fixed) + ("" if v.paper is None else f" ({v.paper:.2f})"))
        lines.append([row] + shown)
    return table(["utilisation (paper)", "DropTail", "RED"], ["---", "---:", "---:"], lines)


def figure9(values: Values) -> str:
    e = f"{STUDY}-figure9"
    cells = ["20 Mbit/s", "100 Mbit/s", "500 Mbit/s", "2500 Mbit/s"]
    lines = [[f"{row}: high-speed / long-lived / background"]
             + [" / ".join(fixed(values.get(e, row, c, m).mean) for m in ("high_speed", "long_lived", "background"))
                for c in cells]
             for row in _rows(e)]
    lines += [[f"{row}: all standard TCP / utilisation"]
              + [f"{fixed(values.get(e, row, c, 'tcp').mean)} / {fixed(values.get(e, row, c, 'utilisation').mean)}"
                 for c in cells]
              for row in _rows(e)]
    return table(["share of the forward link"] + cells, ["---"] * 5, lines)


# --- Figs. 10-11 ---------------------------------------------------------------------------------------

def figure10_11(values: Values) -> str:
    e = f"{STUDY}-figure10-11"
    lines = []
    for row in _rows(e):
        means = lambda m: " / ".join(fixed(values.get(e, row, c, m).mean) for c in ("DropTail", "RED"))
        lines.append([row] + [seeded(values.get(e, row, c, "fairness"), fixed) for c in ("DropTail", "RED")]
                     + [means("fairness_last"), means("utilisation")])
    seeds = values.get(e, _rows(e)[0], "DropTail", "fairness").seeds
    head = f"mean of {seeds} seeds (± sd [range])" if seeds > 1 else "one seed"
    return table([head, "mean index, 100-600 s: DropTail", "RED", "index 550-600 s: DropTail / RED",
                  "utilisation: DropTail / RED"], ["---"] * 5, lines)


# --- RED and the sensitivity experiments ---------------------------------------------------------------

RED_SETUPS = ["`ared`, ns-2 byte mode (as Fig. 2)", "packet mode", "Floyd 2001", "byte mode, buffer 5 BDP",
              "DropTail, buffer 5 BDP"]


def red(values: Values) -> str:
    e = f"{STUDY}-red"
    lines = []
    for variant, label in enumerate(RED_SETUPS):
        at = [cell(e, bw=bw, variant=variant) for bw in (500, 2500)]
        lines.append([label] + [" / ".join(fmt(values.get(e, "HSTCP", c, m).mean) for c in at)
                                for m, fmt in (("sync50", fixed), ("sync25", fixed), ("utilisation", fixed),
                                               ("queue", lambda x: f"{x:,.0f}".replace(",", " ")))])
    return table(["set-up (500 Mbit/s / 2.5 Gbit/s)", "50 % ratio", "25 % ratio", "utilisation",
                  "mean queue (packets)"], ["---"] * 5, lines)


PROFILES = ["as chosen (web 0.3, 2 long-lived, small flows live 100 s)", "web load 0.2", "web load 0.4",
            "4 long-lived flows a direction", "small flows live 30 s", "small flows live 300 s"]


def sensitivity(values: Values) -> str:
    e = f"{STUDY}-sensitivity"
    lines = []
    for variant, label in enumerate(PROFILES):
        droptail, red_ = cell(e, variant=variant, red=0), cell(e, variant=variant, red=1)
        pair = lambda m: f"{fixed(values.get(e, 'HSTCP', droptail, m).mean)} / {fixed(values.get(e, 'HSTCP', red_, m).mean)}"
        lines.append([label, pair("sync50"), pair("sync25"), fixed(values.get(e, "HSTCP", droptail, "background").mean)])
    return table(["profile", "50 %: DropTail / RED", "25 %: DropTail / RED", "background's share (DropTail)"],
                 ["---", "---", "---", "---:"], lines)


def sensitivity_table3(values: Values) -> str:
    e = f"{STUDY}-sensitivity-table3"
    rows = _rows(e)
    lines = []
    for variant, label in enumerate(PROFILES):
        for bw in (100, 2500):
            c = cell(e, variant=variant, bw=bw)
            lines.append([f"{label}, {bw} Mbit/s"] + [ratio(values.get(e, row, c, "ratio").mean) for row in rows]
                         + [fixed(values.get(e, rows[0], c, "background").mean)])
    seeds = values.get(e, rows[0], cell(e, variant=0, bw=100), "ratio").seeds
    head = f"profile, bottleneck (RTT ratio 6, {seeds} seed{'s' * (seeds > 1)}, mean)"
    return table([head] + rows + [f"background's share ({rows[0]} row)"], ["---"] + ["---:"] * (len(rows) + 1), lines)


# --- response functions --------------------------------------------------------------------------------

RESPONSE = [(f"{STUDY}-response", [1e-2, 1e-3, 1e-4, 1e-5]), (f"{STUDY}-response-low", [1e-6, 1e-7]),
            (f"{STUDY}-response-1e-8", [1e-8])]


def _p(p: float) -> str:
    """1e-2 ... 1e-8, as the page writes a loss rate."""
    return f"1e{round(math.log10(p))}"


def response(values: Values) -> str:
    """Simulated mean window / analytic (the experiment's `paper` column holds the curve's value) per
    protocol and p; a heavy part not in the values says so in each of its cells."""
    protocols = _rows(f"{STUDY}-response")
    missing = left_out(values)
    lines = []
    for row in protocols:
        line = [row]
        for e, ps in RESPONSE:
            for p in ps:
                if e in missing:
                    line.append("not run")
                    continue
                if row not in _rows(e):
                    line.append("not simulated")
                    continue
                v = values.get(e, row, cell(e, p=p), "window")
                if v.paper is None:
                    raise DocsError(f"{values.source}: {e} / {row} / p={p:g} has no analytic window (paper column)")
                line.append(f"{window(v.mean)} / {window(v.paper)} ({signed_percent(v.mean, v.paper)})")
        lines.append(line)
    ps = [p for _, group in RESPONSE for p in group]
    out = table(["simulated / analytic (packets)"] + [f"p = {_p(p)}" for p in ps], ["---"] * (len(ps) + 1), lines)
    return out + "".join(f"\n{not_run(values, e)}.\n" for e, _ in RESPONSE if e in missing)


# The analytic curve of each row, for the window at the loss rate a run realised (`response_realised`).
CURVE_OF_ROW = {"TCP (NewReno)": "newreno", "AIMD(32, 0.125)": "aimd", "HSTCP": "highspeed", "STCP": "scalable",
                "BIC": "bic"}


def response_realised(values: Values) -> str:
    """Per protocol and p: the loss rate the run realised over the p it was given, and its mean window
    against the analytic curve at that realised rate (`loss` metric: the bottleneck's packet errors per
    packet sent, in the measurement window)."""
    from .analysis.response import protocol_window

    missing = left_out(values)
    lines = []
    for row in _rows(f"{STUDY}-response"):
        line = [row]
        for e, ps in RESPONSE:
            for p in ps:
                if e in missing or row not in _rows(e):
                    line.append("not run" if e in missing else "not simulated")
                    continue
                c = cell(e, p=p)
                realised = values.get(e, row, c, "loss").mean
                w = values.get(e, row, c, "window").mean
                line.append(f"{realised / p:.2f} p: {signed_percent(w, protocol_window(CURVE_OF_ROW[row], realised))}")
        lines.append(line)
    ps = [p for _, group in RESPONSE for p in group]
    return table(["realised loss rate: simulated vs analytic there"] + [f"p = {_p(p)}" for p in ps],
                 ["---"] * (len(ps) + 1), lines)


# --- findings ------------------------------------------------------------------------------------------

def _findings_of(*parts: str) -> Callable[[Values], str]:
    def render(values: Values) -> str:
        experiments = [f"{STUDY}-{p}" for p in parts]
        missing = left_out(values)
        present = [e for e in experiments if e not in missing]
        out = findings(values, present) if present else ""
        for e in experiments:
            if e in missing:
                out += f"\n{not_run(values, e)}: its findings are not checked.\n"
        return out
    return render


def count(values: Values) -> str:
    """How many findings hold and fail, part by part, and the heavy parts whose findings were not checked."""
    return findings_count(values, STUDY) + "".join(f"\n{not_run(values, e)}: its findings are not checked.\n"
                                                   for e in left_out(values))


def _unless_left_out(part: str, render: Callable[[Values], str]) -> Callable[[Values], str]:
    """A block of one part's numbers: when the values were written without that part, the block says so
    (`not_run`) in place of its table."""
    experiment = f"{STUDY}-{part}"

    def block(values: Values) -> str:
        if experiment in left_out(values):
            return f"{not_run(values, experiment)}.\n"
        return render(values)
    return block


RENDERERS: dict[str, Callable[[Values], str]] = {
    "seed003/source": source_with_left_out,
    "seed003/findings-count": count,
    "seed003/response": response,
    "seed003/response-realised": response_realised,
    "seed003/findings-response": _findings_of("response", "response-low", "response-1e-8"),
    "seed003/figure2": _unless_left_out("figure2", figure2),
    "seed003/findings-figure2": _findings_of("figure2"),
    "seed003/table3": _unless_left_out("table2-3", lambda values: table2_3(values, 2500)),
    "seed003/table2": _unless_left_out("table2-3", lambda values: table2_3(values, 100)),
    "seed003/findings-table2-3": _findings_of("table2-3"),
    "seed003/red": _unless_left_out("red", red),
    "seed003/findings-red": _findings_of("red"),
    "seed003/figure3": _unless_left_out("figure3", figure3),
    "seed003/findings-figure3": _findings_of("figure3"),
    "seed003/figure5": _unless_left_out("figure5", figure5),
    "seed003/findings-figure5": _findings_of("figure5"),
    "seed003/utilisation": _unless_left_out("utilisation", utilisation),
    "seed003/findings-utilisation": _findings_of("utilisation"),
    "seed003/figure9": _unless_left_out("figure9", figure9),
    "seed003/findings-figure9": _findings_of("figure9"),
    "seed003/sensitivity": _unless_left_out("sensitivity", sensitivity),
    "seed003/findings-sensitivity": _findings_of("sensitivity"),
    "seed003/sensitivity-table3": _unless_left_out("sensitivity-table3", sensitivity_table3),
    "seed003/findings-sensitivity-table3": _findings_of("sensitivity-table3"),
    "seed003/figure10-11": _unless_left_out("figure10-11", figure10_11),
    "seed003/findings-figure10-11": _findings_of("figure10-11"),
}
