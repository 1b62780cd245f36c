"""Paper experiments: rows (algorithms, or a mix of them) x cells (network settings) x replications,
measured by named metrics and compared with the published numbers and the paper's stated findings.

An experiment file (`cclab/studies/<study>/<part>.toml`, package data) names a base scenario and holds:

- `[[cells]]` (name, `set` overrides, optional `x` for line plots) or one `[axis]` that generates them
  (`field`, `values`, `x`, `label`), or several `[[axes]]` whose every combination is a cell (a grid of
  network configurations: each cell knows its coordinates, which claims, figures and `[quick]` select by);
- `[[rows]]`: `cc` (one algorithm for every flow, or a list: one per `[[flows]]` entry of the scenario),
  per metric the paper's values, ns-2.35's, and the tolerances to check them with, and `cell_set`: overrides
  of this row in named cells (a run length that depends on the algorithm and the cell together);
- `[[metrics]]`: what is measured (see `cclab.measures`); without it, one metric from `metric` and `unit`;
- `[[figures]]`: `window` (cwnd + queue per cell), `cdf` (a metric's values pooled over the replications,
  a panel per cell), `lines` (a metric against the cells' x, or against one
  axis of a grid with a line per combination of the others), `bars` (several metrics per row, a panel per
  cell), `timeseries` (one flow-series column, or throughput or the queue, every flow over time);
- `[[claims]]`: the paper's findings in words, each a check over the measured values (see `cclab.claims`);
- `replications` (seeds of each run; start times are randomised by `start_jitter` in the scenario; with
  `keep_first_seed` the first is `seed` itself) and a `[quick]` table: shorter runs (`time_scale`), fewer
  cells, rows and replications;
- `heavy = true`: a part whose full runs cost hours, left out of a full `cclab reproduce STUDY` unless
  asked (`--with-heavy`, `--only PART`); quick mode runs it as any other part.

`plan_experiment` turns a file into planned runs (`cclab.sweep.PlannedRun`), so experiments go through the
same executors and result store as sweeps: runs in parallel, reused when already computed, and an
interrupted reproduction resumes where it stopped.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal, Optional, Sequence, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from . import studies
from .errors import ScenarioError, scenario_error_from_validation
from .scenario import load_scenario, read_toml
from .sweep import PlannedRun, derive_seed, scenario_hash
from .units import parse_duration

NOT_CHECKED = -1
UNIT_SCALE = {"bit/s": 1.0, "kbit/s": 1e-3, "Mbit/s": 1e-6, "": 1.0}
# Quick mode defaults: runs a tenth as long (200 s of a 2000 s study) show the shape, not the numbers.
QUICK_TIME_SCALE = 0.1


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CellSpec(_Spec):
    name: str
    set: list[str] = Field(default_factory=list)
    x: Optional[float] = None                 # position on the x axis of line plots
    coords: dict[str, float] = Field(default_factory=dict)   # axis label -> x, for cells made by [[axes]]


class AxisSpec(_Spec):
    """Cells generated from one swept field: cell i sets `field = values[i]` and sits at x[i]."""
    field: str
    values: list[Any]
    x: list[float]
    label: str                                # axis title, and the cells' name prefix ("B/BDP=0.1")


PerMetric = Union[list[float], dict[str, list[float]]]
# Cells picked by their coordinates: axis label -> the x value(s) kept ({ qsize = 0.5, bw = [100, 200] }).
Where = dict[str, Union[float, list[float]]]


class RowSpec(_Spec):
    name: str
    cc: Union[str, dict, list[Union[str, dict]]]
    paper: PerMetric = Field(default_factory=list)       # the paper's values, per cell (-1: not given)
    check: PerMetric = Field(default_factory=list)       # relative tolerance against the paper (-1: none)
    at_least: PerMetric = Field(default_factory=list)    # lower bounds from physics (-1: none)
    ns2: PerMetric = Field(default_factory=list)         # ns-2.35 TCP-Linux run the same way (-1: none)
    check_ns2: PerMetric = Field(default_factory=list)   # relative tolerance against ns-2.35 (-1: none)
    # Overrides for this row in the cells named, after the cell's own: what depends on the algorithm and the
    # cell together (seed 003's response at p = 1e-7: the run that sees 100 loss events is 26 min of
    # simulated time for TCP and 25 s for STCP).
    cell_set: dict[str, list[str]] = Field(default_factory=dict)


class MetricSpec(_Spec):
    name: str
    # May name its measurement window: "{window}" becomes "10-100 s" and "{length}" "90 s", from the window
    # the runs are measured over (scaled in quick mode), so a label never names a window the runs did not have.
    label: Optional[str] = None
    of: Literal["delivered_bps", "goodput_bps", "utilisation", "jain", "queue", "state",
                "synchronisation", "share", "bic_phase", "timeouts", "retransmissions", "rtt_ms", "rtt_std_ms",
                "queueing_ms", "rto_s", "timeout_time_s", "transfer_bps", "ack_rtt_ms", "product",
                "loss_rate"] = "delivered_bps"
    # How flows combine: "sum", "mean", "min", "max", "spread" (max - min), "ratio" (flow 0 / flow 1), one
    # flow by index, or "each": every flow's value, pooled over the replications (mean and spread over flows);
    # "samples" (rtt_ms, queueing_ms): every time-series sample of every flow, pooled (seed 002, Figs. 4-5:
    # time-weighted); "acks" (rtt_ms, queueing_ms): every RTT measurement of every flow, from the engine's
    # histograms (run.rtt_histogram, turned on for the experiments that measure it: ACK-weighted).
    flows: Union[Literal["sum", "mean", "min", "max", "spread", "ratio", "each", "samples", "acks"], int] = "sum"
    window: Optional[list[str]] = None                   # [from, to]; default: the run's measurement window
    unit: str = "kbit/s"
    column: Optional[str] = None                         # state: a column of the flow time series (cc_dwnd)
    cc: Optional[str] = None                             # only the flows running this algorithm
    # only the flows of this [[flows]] group; for `share`, the groups (flows or [[traffic]]) summed
    group: Optional[Union[str, list[str]]] = None
    # synchronisation: the share of the measured flows that must lose in one measurement interval (seed 003
    # Section III: 0.25 and 0.5 of the high-speed flows)
    threshold: Optional[float] = None
    # jain: the mean of the indices over consecutive intervals of this length inside the window (seed 003,
    # Figs. 10-11: every 50 s), instead of one index over the whole window
    every: Optional[str] = None
    # bic_phase: the share of the flows' window samples in this mode of BIC (cclab.analysis.bic_phases)
    phase: Optional[str] = None
    # utilisation: of this rate ("384kbps", a bearer's nominal rate) instead of the link's own
    nominal: Optional[str] = None
    # product: one value per cell, the product of these metrics' cell means (seed 002, Section 5's
    # E[t_out] = E[N_tout] E[T0]: a product of two averages, not the average of each flow's product) ...
    factors: list[str] = Field(default_factory=list)
    # ... divided by this duration, to give a share of it ("100s": the share of a 100-s connection)
    per: Optional[str] = None

    @model_validator(mode="after")
    def _check(self) -> "MetricSpec":
        if isinstance(self.group, list) and self.of != "share":
            raise ValueError("only a 'share' metric sums several groups; give one group")
        if self.of == "share" and self.group is None:
            raise ValueError("a 'share' metric needs group: the group(s) whose share of capacity is summed")
        if self.every is not None and self.of != "jain":
            raise ValueError("only a 'jain' metric is averaged over intervals (every)")
        if self.every is not None and parse_duration(self.every) <= 0:
            raise ValueError(f"every = {self.every!r} must be a positive duration")
        if (self.of == "bic_phase") != (self.phase is not None):
            raise ValueError("a 'bic_phase' metric needs a phase (tcp, additive, binary, probing), and only it takes one")
        if (self.of == "synchronisation") != (self.threshold is not None):
            raise ValueError("a 'synchronisation' metric needs a threshold (a share of the flows, 0 < t <= 1), "
                             "and only it takes one")
        if self.threshold is not None and not 0 < self.threshold <= 1:
            raise ValueError(f"threshold {self.threshold} is a share of the flows: 0 < threshold <= 1")
        if (self.of == "state") != (self.column is not None):
            raise ValueError("a 'state' metric needs a column of the flow time series, and only it takes one")
        if (self.of == "product") != bool(self.factors):
            raise ValueError("a 'product' metric needs factors (the metrics whose cell means it multiplies), "
                             "and only it takes them")
        if self.of == "product" and len(self.factors) < 2:
            raise ValueError("a 'product' metric multiplies at least two metrics")
        if self.per is not None and (self.of != "product" or parse_duration(self.per) <= 0):
            raise ValueError("per (a positive duration) divides a 'product' metric only")
        if self.flows in ("samples", "acks") and self.of not in ("rtt_ms", "queueing_ms"):
            raise ValueError(f"only rtt_ms and queueing_ms are measured sample by sample (flows = "
                             f"'{self.flows}'), not {self.of}")
        if self.of in ("queue", "state", "synchronisation", "timeouts", "retransmissions", "rtt_ms", "rtt_std_ms",
                       "queueing_ms", "rto_s", "timeout_time_s", "ack_rtt_ms", "product") and self.unit not in ("", "kbit/s"):
            raise ValueError(f"a '{self.of}' metric is in its own unit (packets, seconds...); leave unit out")
        if self.unit not in UNIT_SCALE:
            raise ValueError(f"unit '{self.unit}' is not accepted; use one of {', '.join(map(repr, UNIT_SCALE))}")
        if self.window is not None:
            if len(self.window) != 2:
                raise ValueError("window needs two durations, [from, to]")
            start, end = (parse_duration(v) for v in self.window)
            if end <= start:
                raise ValueError(f"window {self.window} ends before it starts")
        return self

    @property
    def rate(self) -> bool:
        """Whether the metric is a rate in `unit` (not a ratio, an index, a queue length or a state)."""
        return self.of in ("delivered_bps", "goodput_bps", "transfer_bps") and self.flows != "ratio"

    @property
    def title(self) -> str:
        unit = f" ({self.unit})" if self.rate and self.unit else ""
        return (self.label or self.name) + unit


class ReferenceSpec(_Spec):
    """A line the paper's text gives the number for (a threshold, a time, a fair share), drawn across every
    panel of a figure: `y = 1.0` horizontal, or `x = 250` vertical, in the figure's units."""
    label: str
    x: Optional[float] = None
    y: Optional[float] = None

    @model_validator(mode="after")
    def _one_axis(self) -> "ReferenceSpec":
        if (self.x is None) == (self.y is None):
            raise ValueError("a reference line needs exactly one of x (vertical) and y (horizontal)")
        return self


class FigureSpec(_Spec):
    kind: Literal["window", "lines", "bars", "timeseries", "cdf"]   # cdf: the metric's pooled values, per cell
    file: Optional[str] = None
    title: Optional[str] = None
    metric: Optional[str] = None             # lines
    metrics: list[str] = Field(default_factory=list)   # bars: one bar per metric, per row; cdf: a line each
    rows: list[str] = Field(default_factory=list)      # default: every row
    cells: list[str] = Field(default_factory=list)     # default: every cell
    where: Where = Field(default_factory=dict)         # cells by their coordinates
    x: Optional[str] = None                  # lines over a grid: the axis along x (default: the first)
    panels: Optional[str] = None             # lines over a grid: a panel per value of this axis
    # timeseries: a flow-series column (cwnd, cc_dwnd, cc_base_rtt_s...), "throughput" (Mbit/s per flow
    # between samples), "queue" (the bottleneck's, packets), "fairness" (Jain's index of the flows drawn,
    # every `every`) or "bic_phases" (cwnd coloured by BIC's mode, cclab.analysis.bic_phases)
    column: Optional[str] = None
    group: Optional[Union[str, list[str]]] = None   # timeseries: only the flows of these [[flows]] groups
    every: Optional[str] = None              # timeseries "fairness": the interval of each index
    # window: the paper's number of each row's figure ({ NewReno = "Figure 2" }); a numbered row's figure is
    # titled and named by it (figure-2.png), the others by the row
    numbers: dict[str, str] = Field(default_factory=dict)
    # lines: each row's value over this row's, cell by cell (seed 001 Figure 12's Thr / Thr_base); the row
    # itself is not drawn (it is 1 everywhere: give a reference line at y = 1 for it)
    ratio_to_row: Optional[str] = None
    xlabel: Optional[str] = None             # lines, cdf: the x axis title (default: the x axis' label / the metric's)
    ylabel: Optional[str] = None             # lines: the y axis title (default: the metric's)
    references: list[ReferenceSpec] = Field(default_factory=list)


CLAIM_TESTS = ("at_least", "at_most", "between", "above_row", "below_row", "above_metric", "trend", "flat")


class ClaimSpec(_Spec):
    text: str                                 # the paper's statement, in its words where possible
    metric: str
    rows: list[str] = Field(default_factory=list)      # default: every row
    cells: list[str] = Field(default_factory=list)     # default: every cell
    where: Where = Field(default_factory=dict)         # cells by their coordinates (with `cells`: both)
    at_least: Optional[float] = None          # every value >= this
    at_most: Optional[float] = None           # every value <= this
    between: Optional[list[float]] = None     # every value in [low, high]
    above_row: Optional[Union[str, list[str]]] = None   # every value > those rows', cell by cell
    below_row: Optional[Union[str, list[str]]] = None
    # above_row/below_row against this multiple of those rows' values (seed 001 Figure 12(c): the Reno flow
    # beside CTCP below 0.25 x Thr_base, two Reno flows' mean); default 1, the rows' values themselves
    times: Optional[float] = Field(None, gt=0)
    above_metric: Optional[str] = None        # value > the same run's value of that metric
    trend: Optional[Literal["increasing", "decreasing"]] = None   # from the first listed cell to the last
    along: Optional[str] = None               # trend along this coordinate, in every combination of the others
    flat: Optional[float] = None              # for every row, (max - min) / mean over the cells <= this
    quick: bool = False                       # holds in quick mode too (then the test suite checks it)
    # With several seeds: checked on their means ("mean"), or on every seed alone ("each": holds only if
    # it holds whatever the draw). cclab.claims
    seeds: Literal["mean", "each"] = "mean"

    @model_validator(mode="after")
    def _one_test(self) -> "ClaimSpec":
        tests = [k for k in CLAIM_TESTS if getattr(self, k) is not None]
        if len(tests) != 1:
            raise ValueError(f"a claim needs exactly one of {', '.join(CLAIM_TESTS)} (has {', '.join(tests) or 'none'})")
        if self.between is not None and (len(self.between) != 2 or self.between[0] > self.between[1]):
            raise ValueError("between needs [low, high] with low <= high")
        if self.times is not None and self.above_row is None and self.below_row is None:
            raise ValueError("times scales the rows a claim compares with: give it with above_row or below_row")
        return self

    @property
    def other_rows(self) -> list[str]:
        other = self.above_row if self.above_row is not None else self.below_row
        return [] if other is None else [other] if isinstance(other, str) else list(other)


class QuickSpec(_Spec):
    title: Optional[str] = None                              # the experiment's title in quick mode
    time_scale: float = Field(QUICK_TIME_SCALE, gt=0, le=1)   # durations and metric windows scale by this
    cells: list[str] = Field(default_factory=list)           # default: every cell
    where: Where = Field(default_factory=dict)               # cells by their coordinates
    rows: list[str] = Field(default_factory=list)            # default: every row
    replications: Optional[int] = Field(None, ge=1)
    set: list[str] = Field(default_factory=list)             # further overrides


class ExperimentSpec(_Spec):
    id: str
    title: str
    scenario: str
    description: str = ""                     # what the paper did and how we read it, for the report
    order: int = 100                          # position in the study's report (the paper's order)
    # A part whose full runs cost too much to come with the whole study (seed 003's response at p = 1e-8:
    # 2 h 40 min of a core, 8-13 GB for STCP): `cclab reproduce STUDY` leaves it out of a full run unless
    # asked (`--with-heavy`, or `--only PART`), says so, and `--write-docs` renders the page without it
    # when it is not stored, saying so there too. Quick mode runs it as any other part.
    heavy: bool = False
    metric: str = "delivered_bps"             # shorthand for one metric, when [[metrics]] is absent
    unit: str = "kbit/s"
    figure: Optional[Literal["window"]] = None  # shorthand for [[figures]] kind = "window"
    replications: int = Field(1, ge=1)
    seed: int = Field(1, ge=0)
    # Replication 0 runs `seed` itself, as the experiment did with one replication, and the others derived
    # seeds: runs made before the experiment had several seeds stay its first seed (seed 003's one-seed
    # numbers in docs/reproductions/seed003.md are replication 0). Off: every replication's seed is derived.
    keep_first_seed: bool = False
    set: list[str] = Field(default_factory=list)   # overrides applied to every run
    # [[add_flows]]: flow entries appended to the scenario's [[flows]] (a row's cc list covers them too), for a
    # mix the base scenario does not have (seed 003 Fig. 3: 8 flows at 80 ms and 2 at 160 ms)
    add_flows: list[dict[str, Any]] = Field(default_factory=list)
    axis: Optional[AxisSpec] = None
    axes: list[AxisSpec] = Field(default_factory=list)   # a grid: every combination, first axis outermost
    cells: list[CellSpec] = Field(default_factory=list)
    rows: list[RowSpec]
    metrics: list[MetricSpec] = Field(default_factory=list)
    figures: list[FigureSpec] = Field(default_factory=list)
    claims: list[ClaimSpec] = Field(default_factory=list)
    quick: QuickSpec = Field(default_factory=QuickSpec)


@dataclass
class Experiment:
    spec: ExperimentSpec
    path: Path

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def base_scenario(self) -> dict:
        """The scenario file, with the experiment's [[add_flows]] after its own [[flows]]."""
        base = read_toml(self.path.parent / self.spec.scenario)
        if self.spec.add_flows:
            base["flows"] = list(base.get("flows", [])) + copy.deepcopy(self.spec.add_flows)
        return base

    @property
    def cells(self) -> list[CellSpec]:
        return self.spec.cells

    @property
    def rows(self) -> list[RowSpec]:
        return self.spec.rows

    @property
    def metrics(self) -> list[MetricSpec]:
        return self.spec.metrics

    def metric(self, name: str) -> MetricSpec:
        return next(m for m in self.spec.metrics if m.name == name)

    @property
    def axes(self) -> list[AxisSpec]:
        """The axes the cells were made from: [[axes]], or the one [axis] (empty for [[cells]])."""
        return self.spec.axes or ([self.spec.axis] if self.spec.axis is not None else [])

    @property
    def coordinates(self) -> dict[str, list[float]]:
        """Each coordinate the cells have (an axis label, or a key of [[cells]] `coords`) -> its values, in
        the order they first appear."""
        found: dict[str, list[float]] = {}
        for cell in self.spec.cells:
            for name, value in cell.coords.items():
                values = found.setdefault(name, [])
                if value not in values:
                    values.append(value)
        return found

    def select_cells(self, names: list[str], where: "Where") -> list[int]:
        """Indices of the cells named (all when none are) that also match `where`, in the file's order."""
        chosen = []
        for i, cell in enumerate(self.spec.cells):
            if names and cell.name not in names:
                continue
            if all(_close_to_any(cell.coords.get(axis), wanted) for axis, wanted in where.items()):
                chosen.append(i)
        return chosen

    def row_values(self, row: RowSpec, kind: str, metric: str) -> list[float]:
        """A row's `paper`, `ns2`, `check`... values for one metric ([] when not given)."""
        values = getattr(row, kind)
        if isinstance(values, dict):
            return list(values.get(metric, []))
        return list(values) if metric == self.spec.metrics[0].name else []


def _problem(path: Path, where: str, message: str) -> ScenarioError:
    return ScenarioError(f"{path}: {where}", message)


def _close_to_any(value: Optional[float], wanted: Union[float, list[float]]) -> bool:
    # Coordinates are written by hand in two places (the axis and the claim): 1e-7 must match 1e-07.
    if value is None:
        return False
    values = wanted if isinstance(wanted, list) else [wanted]
    return any(abs(value - w) <= 1e-9 * max(abs(w), abs(value)) for w in values)


def _grid_cells(axes: list[AxisSpec]) -> list[CellSpec]:
    """Every combination of the axes' values, the first axis outermost; cell names like
    'bw=100 delay=20 qsize=0.1'; x is the first axis' coordinate."""
    cells = [CellSpec(name="", set=[], coords={})]
    for axis in axes:
        cells = [CellSpec(name=f"{cell.name} {axis.label}={x:g}".strip(),
                          set=cell.set + [f"{axis.field}={_toml_value(v)}"], coords={**cell.coords, axis.label: x})
                 for cell in cells for v, x in zip(axis.values, axis.x)]
    for cell in cells:
        cell.x = cell.coords[axes[0].label]
    return cells


def load_experiment(path: str | Path) -> Experiment:
    """Read and check an experiment file; every name a claim, figure or quick table uses must exist."""
    path = Path(path)
    try:
        spec = ExperimentSpec.model_validate(read_toml(path))
    except ValidationError as exc:
        raise scenario_error_from_validation(exc) from None
    if spec.axis is not None and spec.axes:
        raise _problem(path, "axes", "is given together with [axis]; use one of them")
    for where, axes in (("axis", [spec.axis] if spec.axis else []), ("axes", spec.axes)):
        if axes and spec.cells:
            raise _problem(path, where, "is given together with [[cells]]; use one of them")
        for i, axis in enumerate(axes):
            if len(axis.values) != len(axis.x) or not axis.values:
                raise _problem(path, where if where == "axis" else f"axes.{i}",
                               "values and x need the same, non-zero, number of entries")
    _unique(path, "axes", [a.label for a in spec.axes])
    if spec.axis is not None:
        spec.cells = [CellSpec(name=f"{spec.axis.label}={x:g}", set=[f"{spec.axis.field}={_toml_value(v)}"], x=x,
                               coords={spec.axis.label: x})
                      for v, x in zip(spec.axis.values, spec.axis.x)]
    elif spec.axes:
        spec.cells = _grid_cells(spec.axes)
    if not spec.cells:
        raise _problem(path, "cells", "there are no cells; give [[cells]] or an [axis]")
    if not spec.metrics:
        spec.metrics = [MetricSpec(name="goodput", of=spec.metric, unit=spec.unit)]
    if spec.figure == "window" and not any(f.kind == "window" for f in spec.figures):
        spec.figures.insert(0, FigureSpec(kind="window"))
    cells = [c.name for c in spec.cells]
    rows = [r.name for r in spec.rows]
    metrics = [m.name for m in spec.metrics]
    _unique(path, "cells", cells)
    _unique(path, "rows", rows)
    _unique(path, "metrics", metrics)

    def known(where: str, names: list[str], accepted: list[str]) -> None:
        for name in names:
            if name not in accepted:
                raise _problem(path, where, f"'{name}' is not defined; use one of {', '.join(accepted)}")

    for i, metric in enumerate(spec.metrics):
        known(f"metrics.{i}.factors", metric.factors, metrics)
        if any(spec.metrics[metrics.index(f)].of == "product" for f in metric.factors):
            raise _problem(path, f"metrics.{i}.factors", "a factor of a product cannot be a product itself")
    for r, row in enumerate(spec.rows):
        known(f"rows.{r}.cell_set", list(row.cell_set), cells)
        for kind in ("paper", "check", "at_least", "ns2", "check_ns2"):
            values = getattr(row, kind)
            per_metric = values.items() if isinstance(values, dict) else [(metrics[0], values)]
            for metric, items in per_metric:
                known(f"rows.{r}.{kind}", [metric], metrics)
                if items and len(items) != len(cells):
                    raise _problem(path, f"rows.{r}.{kind}", f"has {len(items)} values for {len(cells)} cells")
    experiment = Experiment(spec, path)
    coordinates = experiment.coordinates
    labels = list(coordinates)

    def selects(where: str, names: list[str], coords: "Where") -> None:
        known(f"{where}.cells", names, cells)
        known(f"{where}.where", list(coords), labels)
        for axis, wanted in coords.items():
            values = coordinates[axis]
            for w in wanted if isinstance(wanted, list) else [wanted]:
                if not _close_to_any(w, values):
                    raise _problem(path, f"{where}.where.{axis}", f"{w:g} is not on the axis; use one of "
                                                                  + ", ".join(f"{v:g}" for v in values))
        if (names or coords) and not experiment.select_cells(names, coords):
            raise _problem(path, where, "selects no cell")

    for i, figure in enumerate(spec.figures):
        known(f"figures.{i}.metric", [figure.metric] if figure.metric else [], metrics)
        known(f"figures.{i}.metrics", figure.metrics, metrics)
        known(f"figures.{i}.rows", figure.rows + list(figure.numbers), rows)
        selects(f"figures.{i}", figure.cells, figure.where)
        known(f"figures.{i}.x", [figure.x] if figure.x else [], labels)
        known(f"figures.{i}.panels", [figure.panels] if figure.panels else [], labels)
        known(f"figures.{i}.ratio_to_row", [figure.ratio_to_row] if figure.ratio_to_row else [], rows)
        if figure.ratio_to_row is not None and figure.kind != "lines":
            raise _problem(path, f"figures.{i}.ratio_to_row", "only a lines figure draws ratios to a row")
        no_x = figure.x is None and any(c.x is None for c in spec.cells)
        if figure.kind == "lines" and (figure.metric is None or no_x):
            raise _problem(path, f"figures.{i}", "a lines figure needs a metric and an x for every cell "
                                                 "(or a coordinate of the cells as its x)")
        if figure.kind == "cdf" and (figure.metric is None) == (not figure.metrics):
            raise _problem(path, f"figures.{i}", "a cdf figure needs a metric, or metrics (a line style each, "
                                                 "in one unit: seed 002's RTT and queueing time)")
        if figure.kind == "bars" and not figure.metrics:
            raise _problem(path, f"figures.{i}", "a bars figure needs metrics")
        if (figure.kind == "timeseries") != (figure.column is not None):
            raise _problem(path, f"figures.{i}", "a timeseries figure needs a column, and only it takes one")
        if (figure.column == "fairness") != (figure.every is not None):
            raise _problem(path, f"figures.{i}", "a fairness timeseries needs every (the interval of each index), "
                                                 "and only it takes one")
    for i, claim in enumerate(spec.claims):
        known(f"claims.{i}.along", [claim.along] if claim.along else [], labels)
        if claim.along is not None and claim.trend is None:
            raise _problem(path, f"claims.{i}.along", "only a trend runs along an axis")
        known(f"claims.{i}.metric", [claim.metric], metrics)
        known(f"claims.{i}.rows", claim.rows + claim.other_rows, rows)
        selects(f"claims.{i}", claim.cells, claim.where)
        known(f"claims.{i}.above_metric", [claim.above_metric] if claim.above_metric else [], metrics)
    selects("quick", spec.quick.cells, spec.quick.where)
    known("quick.rows", spec.quick.rows, rows)
    return experiment


def _unique(path: Path, where: str, names: list[str]) -> None:
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise _problem(path, where, f"the name(s) {', '.join(twice)} are used twice; name each once")


def _toml_value(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)


# --- planning ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ExperimentRun:
    """One planned run of an experiment: where it sits (row, cell, replication) and what it runs."""
    experiment: str
    row: int
    cell: int
    replication: int
    run: PlannedRun


@dataclass
class Plan:
    experiment: Experiment
    quick: bool
    rows: list[int]
    cells: list[int]
    replications: int
    time_scale: float
    runs: list[ExperimentRun] = field(default_factory=list)

    def window_ns(self, metric: MetricSpec, config: dict) -> tuple[int, int]:
        """The metric's measurement window in this plan's runs, in ns (scaled in quick mode)."""
        if metric.window is None:
            return config["run"]["measure_from_ns"], config["run"]["duration_ns"]
        start, end = (parse_duration(v) for v in metric.window)
        return _scaled(start, self.time_scale), _scaled(end, self.time_scale)


def _scaled(ns: int, scale: float) -> int:
    # Exact rational scaling, rounded to a whole millisecond so sample times still line up.
    ms = Fraction(ns, 10**6) * Fraction(scale).limit_denominator(10**6)
    return int(round(ms)) * 10**6


def plan_experiment(experiment: Experiment, quick: bool = False, overrides: Sequence[str] = ()) -> Plan:
    """Every run of the experiment, validated, with its engine config and its seed. `overrides` (`--set`)
    apply to every run, after the experiment's own (e.g. the study's link on a Mahimahi trace).

    Replication r of every (row, cell) gets the same seed (common random numbers: rows differ by their
    algorithm, not by their luck), derived from the experiment's seed like a sweep's."""
    spec = experiment.spec
    quick_spec = spec.quick
    rows = [i for i, r in enumerate(spec.rows) if not (quick and quick_spec.rows) or r.name in quick_spec.rows]
    cells = experiment.select_cells(quick_spec.cells, quick_spec.where) if quick else list(range(len(spec.cells)))
    replications = min(quick_spec.replications or spec.replications, spec.replications) if quick else spec.replications
    time_scale = quick_spec.time_scale if quick else 1.0
    plan = Plan(experiment, quick, rows, cells, replications, time_scale)
    base = experiment.base_scenario
    base_flows = len(base.get("flows", []))
    # The synchronisation ratio needs every loss event's time, which the engine keeps only when asked (it
    # grows with simulated time): the experiments that measure it ask, the others do not.
    records = ["run.record_loss_events=true"] if any(m.of == "synchronisation" for m in experiment.metrics) else []
    # Likewise the RTT histograms, for the metrics over every RTT measurement (flows = "acks").
    if any(m.flows == "acks" for m in experiment.metrics):
        records.append("run.rtt_histogram=true")
    for r in rows:
        row = spec.rows[r]
        ccs = row.cc if isinstance(row.cc, list) else [row.cc] * base_flows
        if len(ccs) != base_flows:
            raise _problem(experiment.path, f"rows.{r}.cc", f"has {len(ccs)} algorithms for the scenario's "
                                                            f"{base_flows} [[flows]] entries")
        for c in cells:
            raw = copy.deepcopy(base)
            for flow, cc in zip(raw["flows"], ccs):
                flow["cc"] = copy.deepcopy(cc)
            cell_overrides = (list(spec.set) + list(spec.cells[c].set) + list(row.cell_set.get(spec.cells[c].name, []))
                              + (list(quick_spec.set) if quick else []) + records + list(overrides))
            scenario = load_scenario(raw, cell_overrides)
            if time_scale != 1.0:
                scenario = load_scenario(scenario, [
                    f"run.duration={_scaled(scenario.run.duration, time_scale)}ns",
                    f"run.measure_from={_scaled(scenario.run.measure_from, time_scale)}ns"])
            config = scenario.to_engine_config()
            point_hash = scenario_hash(config)
            for k in range(replications):
                seed = derive_seed(spec.seed, {}, k) if replications > 1 and not (k == 0 and spec.keep_first_seed) \
                    else spec.seed
                run_config = copy.deepcopy(config)
                run_config["run"]["seed"] = seed
                params = {"experiment": spec.id, "row": row.name, "cell": spec.cells[c].name}
                planned = PlannedRun(index=len(plan.runs), params=params, replication=k, seed=seed,
                                     config=run_config, scenario_hash=point_hash)
                plan.runs.append(ExperimentRun(spec.id, r, c, k, planned))
    if plan.runs:
        plan.experiment = _as_planned(plan, plan.runs[0].run.config)
    return plan


def _as_planned(plan: Plan, config: dict) -> Experiment:
    """The experiment with the titles and labels of this plan: metric labels naming the windows measured
    (scaled in quick mode), and the quick-mode title when quick mode runs fewer cells than the title names."""
    spec = plan.experiment.spec.model_copy(deep=True)
    if plan.quick and spec.quick.title:
        spec.title = spec.quick.title
    for metric in spec.metrics:
        if metric.label and "{" in metric.label:
            start, end = plan.window_ns(metric, config)
            metric.label = metric.label.replace("{window}", f"{start / 1e9:g}-{end / 1e9:g} s").replace(
                "{length}", f"{(end - start) / 1e9:g} s")
    return Experiment(spec, plan.experiment.path)


# --- finding experiments -----------------------------------------------------------------------------

def experiments_root() -> Path:
    """The folder of study folders: the package's `studies/`, or $CCLAB_EXPERIMENTS when set (tests and
    studies of one's own)."""
    env = os.environ.get("CCLAB_EXPERIMENTS")
    if env:
        return Path(env)
    return studies.folder()


def is_heavy(path: Path) -> bool:
    """Whether the experiment file says `heavy = true`: a part a full study run leaves out unless asked."""
    return read_toml(path).get("heavy", False) is True


def list_experiments() -> dict[str, Path]:
    """Experiment id -> file, for every experiment file in a study folder, each study in its `order`."""
    found = []
    root = experiments_root()
    for path in sorted(root.glob("*/*.toml")):
        try:
            data = read_toml(path)
        except ScenarioError:
            continue
        if "id" in data and "rows" in data:
            order = data.get("order", 100)
            found.append((path.parent.name, order if isinstance(order, int) else 100, str(data["id"]), path))
    return {experiment_id: path for _, _, experiment_id, path in sorted(found)}
