"""`cclab response`: seed 003's theory (Sections IV-VI) beside its simulations.

- The analytic response functions (`cclab.analysis.response`), log-log as the paper's Figs. 4 (TCP, AIMD(32,
  0.125), HSTCP, STCP), 6 (BIC for several S_max), 7 (BIC for several S_min) and 8 (BIC beside the others),
  with the mean windows simulated by the `seed003-response` experiment (one flow, random loss with rate p,
  1e-2 to 1e-5) drawn over Figs. 4 and 8, and those of `seed003-response-low` (1e-6, 1e-7) and
  `seed003-response-1e-8` when the store holds them (they are not computed here: 37 min and 2 h 40 min
  of a core).
- The crossing points the paper quotes (Sections VI-B), each beside the paper's number.
- The RTT-unfairness exponent 1/(1 - d) of each protocol under synchronised loss (Section IV), its predicted
  throughput ratio at inverse RTT ratios 3 and 6, beside Tables 2-3 (the paper's, and cclab's when the
  `seed003-table2-3` runs are in the store).

The paper's Figs. 6 and 7 do not list the S_max and S_min values drawn: 8, 16, 32, 64, 128 and 0.001, 0.01,
0.1, 1 are drawn here (the paper's choice, 32 and 0.01, among them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from .analysis.response import (BIC, HSTCP, HSTCP_PAPER, STCP, Bic, aimd, crossing, protocol_window,
                                rtt_unfairness_exponent, slope, tcp)

# Loss rates drawn: 1e-8 to 1e-1, four points a decade (markers of the analytic lines).
P_GRID = [10 ** (e / 4) for e in range(-32, -3)]
S_MAX_VALUES = (8.0, 16.0, 32.0, 64.0, 128.0)
S_MIN_VALUES = (0.001, 0.01, 0.1, 1.0)
# Rows of the seed003-response experiment -> the analytic curve they are compared with.
CURVES: dict[str, Callable[[float], float]] = {
    "newreno": tcp, "aimd": aimd, "highspeed": lambda p: protocol_window("highspeed", p),
    "scalable": lambda p: protocol_window("scalable", p), "bic": lambda p: protocol_window("bic", p),
}
LABELS = {"newreno": "TCP", "aimd": "AIMD(32, 0.125)", "highspeed": "HSTCP", "scalable": "STCP", "bic": "BIC"}


@dataclass(frozen=True)
class Crossing:
    what: str
    p: float
    window: float
    paper: str


def crossings() -> list[Crossing]:
    """The crossing points of Section VI-B, computed from the formulas."""
    out = []
    p = crossing(BIC, tcp, 1e-4, 5e-2)
    out.append(Crossing("BIC crosses TCP", p, tcp(p), "around p = 1e-2, window 14"))
    p = crossing(HSTCP_PAPER, tcp, 1e-5, 1e-1)
    out.append(Crossing("HSTCP (d = 0.82) crosses TCP", p, tcp(p), "window 31"))
    p = crossing(HSTCP, tcp, 1e-5, 1e-1)
    out.append(Crossing("HSTCP (RFC 3649, d = 0.835) crosses TCP", p, tcp(p), "-"))
    p = crossing(STCP, tcp, 1e-5, 1e-1)
    out.append(Crossing("STCP (0.08/p) crosses TCP", p, tcp(p), "window 16 (STCP's legacy window)"))
    return out


def bic_over_aimd(p: float) -> float:
    """BIC's window over AIMD(32, 0.125)'s: Section VI-B says BIC 'meets AIMD around p = 1e-5 and stays'."""
    return BIC(p) / aimd(p)


@dataclass(frozen=True)
class Unfairness:
    protocol: str
    d: float
    exponent: float
    note: str

    def ratio(self, rtt_ratio: float) -> float:
        return math.inf if math.isinf(self.exponent) else rtt_ratio ** self.exponent


def unfairness() -> list[Unfairness]:
    """Section IV's exponent per protocol; BIC's slope varies, so at the two windows Section VII quotes."""
    rows = [Unfairness("AIMD", 0.5, rtt_unfairness_exponent(0.5), "d = 1/2"),
            Unfairness("HSTCP", HSTCP_PAPER.d, rtt_unfairness_exponent(HSTCP_PAPER.d), "d = 0.82"),
            Unfairness("STCP", 1.0, rtt_unfairness_exponent(1.0), "d = 1")]
    for window, where in ((7000.0, "2.5 Gbit/s"), (300.0, "100 Mbit/s")):
        p = crossing(BIC, lambda q, w=window: w, 1e-9, 1e-1)
        d = slope(BIC, p)
        rows.append(Unfairness("BIC", d, rtt_unfairness_exponent(d), f"at window {window:g} ({where}; p = {p:.2g})"))
    return rows


@dataclass
class Simulated:
    """Mean windows of the seed003-response runs: algorithm -> [(p, window)]; and the loss rate each run
    realised, (algorithm, p) -> rate, where the experiment measures it (its `loss` metric)."""
    points: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    quick: bool = False
    realised: dict[tuple[str, float], float] = field(default_factory=dict)


def simulated_points(*outcomes) -> Simulated:
    """The measured windows of the response experiments (seed003-response, and -response-low and
    -response-1e-8 below p = 1e-5), per algorithm (rows' first algorithm)."""
    from .reproduction_report import row_algorithm

    found = Simulated(quick=any(outcome.plan.quick for outcome in outcomes))
    for outcome in outcomes:
        spec = outcome.experiment.spec
        has_loss = any(m.name == "loss" for m in spec.metrics)
        for r in outcome.plan.rows:
            name = row_algorithm(spec.rows[r])
            for c in outcome.plan.cells:
                stats = outcome.stats("window", r, c)
                if stats is not None:
                    found.points.setdefault(name, []).append((spec.cells[c].x, stats.mean))
                    loss = outcome.stats("loss", r, c) if has_loss else None
                    if loss is not None and loss.mean > 0:
                        found.realised[(name, spec.cells[c].x)] = loss.mean
    return found


# The experiments below p = 1e-5, drawn when stored, never computed by `cclab response` (their full runs take
# 37 min and 2 h 40 min of a core: `cclab reproduce seed003 --only response-low` / `--only response-1e-8`).
# Whether its quick runs give a point worth drawing: -1e-8's quick run is a 20 s plumbing check on a 1 Gbit/s
# link, whose window is the link's.
LOW_P_EXPERIMENTS = {"seed003-response-low": True, "seed003-response-1e-8": False}


def stored_low_p(store_root: Path, quick: bool) -> tuple[list, list[str]]:
    """The outcomes of the low-p experiments from what the store holds (read only), and a note for each
    one that is not wholly stored."""
    from .experiment import list_experiments, load_experiment
    from .reproduce import measure_stored, stored_runs

    outcomes, notes = [], []
    found = list_experiments()
    for experiment_id, quick_points in LOW_P_EXPERIMENTS.items():
        if quick and not quick_points:
            continue
        experiment = load_experiment(found[experiment_id])
        stored, planned = stored_runs([experiment], store_root, quick=quick)
        if stored < planned:
            part = experiment_id.split("-", 1)[1]
            notes.append(f"{experiment_id}: {stored} of {planned} runs stored; `cclab reproduce seed003 --only "
                         f"{part}{' --quick' if quick else ''}` computes them")
        if stored:
            outcomes.append(measure_stored([experiment], store_root, quick=quick).outcomes[0])
    return outcomes, notes


def _line(label: str, algorithm: str, function: Callable[[float], float], variant: int = 0):
    return (label, algorithm, P_GRID, [function(p) for p in P_GRID], [0.0] * len(P_GRID), variant)


def draw(out_dir: Path, simulated: Optional[Simulated]) -> list[tuple[str, str]]:
    """Figs. 4, 6, 7 and 8 as PNG files in out_dir: [(title, file name)]."""
    from .plotting import lines_figure

    def with_simulation(lines: list, names: list[str]) -> list:
        if simulated is None:
            return lines
        for name in names:
            # Each point at the loss rate its run realised, where measured: the curve's p is a rate, and
            # a run's few hundred losses only sample it (at 1e-7, 20 % above it on seed 1's draws).
            points = sorted((simulated.realised.get((name, p), p), w) for p, w in simulated.points.get(name, []))
            if points:
                lines.append((f"{LABELS[name]}, simulated", name, [p for p, _ in points], [w for _, w in points],
                              [0.0] * len(points), 1))
        return lines

    xlabel, ylabel = "loss rate p (simulated: the rate each run realised)", "mean window (packets per RTT)"
    figures = []
    fig4 = with_simulation([_line("TCP", "newreno", tcp), _line("AIMD(32, 0.125)", "aimd", aimd),
                            _line("HSTCP", "highspeed", HSTCP), _line("STCP", "scalable", STCP)],
                           ["newreno", "aimd", "highspeed", "scalable"])
    fig6 = [_line("TCP", "newreno", tcp)] + [_line(f"BIC S_max {s:g}", "bic", Bic(s_max=s), i)
                                             for i, s in enumerate(S_MAX_VALUES)]
    fig7 = [_line("TCP", "newreno", tcp)] + [_line(f"BIC S_min {s:g}", "bic", Bic(s_min=s), i)
                                             for i, s in enumerate(S_MIN_VALUES)]
    fig8 = with_simulation([_line("TCP", "newreno", tcp), _line("AIMD(32, 0.125)", "aimd", aimd),
                            _line("HSTCP", "highspeed", HSTCP), _line("STCP", "scalable", STCP),
                            _line("BIC (32, 0.01, 0.125)", "bic", BIC)],
                           ["newreno", "aimd", "highspeed", "scalable", "bic"])
    for name, title, lines in (("response-fig4", "Fig. 4: response functions (analytic; dashed: simulated)", fig4),
                               ("response-fig6", "Fig. 6: BIC for several S_max (S_min 0.01, beta 0.125)", fig6),
                               ("response-fig7", "Fig. 7: BIC for several S_min (S_max 32, beta 0.125)", fig7),
                               ("response-fig8", "Fig. 8: BIC beside the others (analytic; dashed: simulated)", fig8)):
        lines_figure(out_dir / f"{name}.png", title, xlabel, ylabel, [("", lines)], log_x=True, log_y=True)
        figures.append((title, f"{name}.png"))
    return figures


@dataclass(frozen=True)
class Comparison:
    """One simulated point against the curve: at the p the run was given, and at the loss rate it realised
    (None where not measured)."""
    protocol: str
    p: float
    window: float
    model: float
    realised: Optional[float]
    model_realised: Optional[float]


def comparison_rows(simulated: Simulated) -> list[Comparison]:
    """Every simulated point against its analytic curve."""
    rows = []
    for name, points in simulated.points.items():
        for p, window in sorted(points, reverse=True):
            realised = simulated.realised.get((name, p))
            rows.append(Comparison(LABELS.get(name, name), p, window, CURVES[name](p), realised,
                                   CURVES[name](realised) if realised else None))
    return rows


def measured_ratios(store_root: Path) -> dict[tuple[str, int, int], float]:
    """cclab's Tables 2-3 (full runs) when every run is in the store: (row, bandwidth, RTT ratio) -> ratio."""
    from .experiment import list_experiments, load_experiment, plan_experiment
    from .reproduce import _measure
    from .store import SUMMARY, StudyStore, results_version

    experiment = load_experiment(list_experiments()["seed003-table2-3"])
    plan = plan_experiment(experiment)
    store = StudyStore(store_root, "seed003", results_version())
    if not all(store.path(SUMMARY, run.run.key).exists() for run in plan.runs):
        return {}
    outcome = _measure(plan, store)
    spec = experiment.spec
    out = {}
    for r in plan.rows:
        for c in plan.cells:
            stats = outcome.stats("ratio", r, c)
            if stats is not None:
                coords = spec.cells[c].coords
                out[(spec.rows[r].name, int(coords["bw"]), int(coords["ratio"]))] = stats.mean
    return out


def paper_ratios() -> dict[tuple[str, int, int], float]:
    """Tables 2 and 3 of the paper, from the seed003-table2-3 experiment file."""
    from .experiment import list_experiments, load_experiment

    experiment = load_experiment(list_experiments()["seed003-table2-3"])
    spec = experiment.spec
    out = {}
    for row in spec.rows:
        for cell, value in zip(spec.cells, experiment.row_values(row, "paper", "ratio")):
            out[(row.name, int(cell.coords["bw"]), int(cell.coords["ratio"]))] = value
    return out


def markdown(figures: list[tuple[str, str]], simulated: Optional[Simulated],
             measured: dict[tuple[str, int, int], float]) -> str:
    lines = ["# Seed 003: response functions and RTT unfairness (Sections IV-VI)", "",
             "Analytic curves from `cclab.analysis.response`; simulated points from the `seed003-response` "
             "experiment, and below p = 1e-5 from `seed003-response-low` and `-response-1e-8` when stored"
             + (" (quick mode)" if simulated and simulated.quick else "") + ".", "",
             "## Crossing points (Section VI-B)", "", "| | p | window | paper |", "|---|---:|---:|---|"]
    for c in crossings():
        lines.append(f"| {c.what} | {c.p:.3g} | {c.window:.1f} | {c.paper} |")
    lines += ["", "BIC over AIMD(32, 0.125) (paper: BIC 'meets AIMD around p = 1e-5 and stays with AIMD'): "
              + ", ".join(f"{bic_over_aimd(p):.2f} at p = {p:g}" for p in (1e-4, 1e-5, 1e-6, 1e-8)), ""]
    if simulated is not None and simulated.points:
        lines += ["## Simulated against analytic mean windows", "",
                  "At the p each run was given, and at the loss rate it realised (the bottleneck's packet errors "
                  "per packet sent in the measurement window).", "",
                  "| protocol | p | simulated | analytic | simulated / analytic | realised p | analytic there "
                  "| simulated / analytic there |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for c in comparison_rows(simulated):
            there = (f"{c.realised:.3g} | {c.model_realised:,.1f} | {c.window / c.model_realised:.2f}"
                     if c.realised else "- | - | -")
            lines.append(f"| {c.protocol} | {c.p:g} | {c.window:,.1f} | {c.model:,.1f} | {c.window / c.model:.2f} "
                         f"| {there} |")
        lines.append("")
    paper = paper_ratios()
    lines += ["## RTT unfairness under synchronised loss (Section IV) beside Tables 2-3", "",
              "Predicted throughput ratio (RTT_2/RTT_1)^(1/(1-d)); measured: the paper's Table 2 (100 Mbit/s) "
              "and Table 3 (2.5 Gbit/s), and cclab's" + ("" if measured else
              " (not in the store: run `cclab reproduce seed003 --only table2-3` with the same --store)") + ".", "",
              "| protocol | d | exponent | predicted, ratio 3 | predicted, ratio 6 | paper 100M 3 / 6 | paper 2.5G 3 / 6 "
              "| cclab 100M 3 / 6 | cclab 2.5G 3 / 6 |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def pair(table: dict, row: str, bw: int) -> str:
        values = [table.get((row, bw, k)) for k in (3, 6)]
        return " / ".join("-" if v is None else f"{v:.3g}" for v in values)

    for u in unfairness():
        lines.append(f"| {u.protocol} ({u.note}) | {u.d:.3f} | {u.exponent:.3g} | {u.ratio(3):.3g} | "
                     f"{u.ratio(6):.3g} | {pair(paper, u.protocol, 100)} | {pair(paper, u.protocol, 2500)} | "
                     f"{pair(measured, u.protocol, 100)} | {pair(measured, u.protocol, 2500)} |")
    lines.append("")
    for title, name in figures:
        lines += [f"![{title}]({name})", ""]
    return "\n".join(lines)

