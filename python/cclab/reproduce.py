"""`cclab reproduce`: run a study's experiments through the result store and measure them.

All runs of the selected experiments of a study form one sweep (study = the experiments' common prefix, e.g.
`seed000`), so they share the executor's cores, a run already in the store is never computed again, and an
interrupted reproduction resumes where it stopped. The measured values are then read back from the store:
metrics per run (`cclab.measures`), means and spreads over replications, the numeric checks against the
paper and ns-2.35, and the paper's findings (`cclab.claims`). `measure_stored` does the measuring alone, on
what the store holds (`cclab report`).
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from .claims import ClaimResult, check_claim
from .executors import Executor
from .experiment import NOT_CHECKED, UNIT_SCALE, Experiment, Plan, _scaled, plan_experiment
from .measures import MeasureError, measure
from .store import FAILURES, LOSS_EVENTS, QUEUE, RTT_HISTOGRAM, SUMMARY, TIMESERIES, StudyStore, results_version
from .sweep import Sweep
from .sweeper import SweepProgress, SweepReport, run_sweep
from .units import parse_duration, parse_rate


@dataclass(frozen=True)
class Stats:
    mean: float
    std: float      # sample standard deviation over replications (0 with one)
    low: float
    high: float
    n: int


@dataclass
class ExperimentOutcome:
    plan: Plan
    store: StudyStore
    # (metric, row, cell) -> per-replication values (per flow with flows = "each", per sample with
    # "samples": a float array, 8 bytes a value, since a cell can pool 10^5-10^6 samples), in the metric's unit
    values: dict[tuple[str, int, int], np.ndarray] = field(default_factory=dict)
    # The same for rates, clipped to what crossed the bottleneck in the window (cclab.measures, `clip`)
    clipped: dict[tuple[str, int, int], list[float]] = field(default_factory=dict)
    errors: list[tuple[int, int, int, str]] = field(default_factory=list)   # row, cell, replication, why
    claims: list[ClaimResult] = field(default_factory=list)
    # replication -> (metric, row, cell) -> that seed's value (the mean over its flows or samples),
    # for claims checked seed by seed
    by_seed: dict[int, dict[tuple[str, int, int], float]] = field(default_factory=dict)

    @property
    def experiment(self) -> Experiment:
        return self.plan.experiment

    def stats(self, metric: str, row: int, cell: int) -> Optional[Stats]:
        values = self.values.get((metric, row, cell))
        if values is None or len(values) == 0:
            return None
        array = np.asarray(values, dtype=float)
        std = float(np.std(array, ddof=1)) if len(array) > 1 else 0.0
        return Stats(float(np.mean(array)), std, float(np.min(array)), float(np.max(array)), len(array))

    def percentiles(self, metric: str, row: int, cell: int, at: Sequence[float]) -> Optional[tuple[float, ...]]:
        """The percentiles `at` (0-100) of the values `stats` summarises (every flow or sample pooled over the
        replications), linear between the sorted values (numpy's default); None without values."""
        values = self.values.get((metric, row, cell))
        if values is None or len(values) == 0:
            return None
        return tuple(float(q) for q in np.percentile(np.asarray(values, dtype=float), at))

    def clipped_mean(self, metric: str, row: int, cell: int) -> Optional[float]:
        """The mean over replications of a rate clipped to what crossed the bottleneck (None: not a rate)."""
        values = self.clipped.get((metric, row, cell))
        return float(np.mean(values)) if values else None

    def means(self) -> dict[tuple[str, int, int], float]:
        return {key: float(np.mean(v)) for key, v in self.values.items() if len(v)}

    def reference(self, kind: str, metric: str, row: int, cell: int) -> Optional[float]:
        """The paper's or ns-2.35's value (kind 'paper' / 'ns2'), None when not given (-1)."""
        values = self.experiment.row_values(self.experiment.rows[row], kind, metric)
        return values[cell] if values and values[cell] >= 0 else None

    def verdict(self, metric: str, row: int, cell: int) -> str:
        """'ok', 'off' (outside a stated tolerance), 'failed' (no result), or '' (nothing to check)."""
        stats = self.stats(metric, row, cell)
        if stats is None:
            return "failed"
        if self.plan.quick:
            return ""
        experiment, spec_row = self.experiment, self.experiment.rows[row]
        verdicts = []
        for tolerance_kind, reference_kind in (("check", "paper"), ("check_ns2", "ns2")):
            tolerances = experiment.row_values(spec_row, tolerance_kind, metric)
            reference = self.reference(reference_kind, metric, row, cell)
            if tolerances and tolerances[cell] != NOT_CHECKED and reference is not None:
                verdicts.append(abs(stats.mean - reference) <= tolerances[cell] * reference)
        at_least = experiment.row_values(spec_row, "at_least", metric)
        if at_least and at_least[cell] != NOT_CHECKED:
            verdicts.append(stats.mean >= at_least[cell])
        if not verdicts:
            return ""
        return "ok" if all(verdicts) else "off"

    def series(self, row: int, cell: int, replication: int = 0) -> Optional[tuple[dict, pd.DataFrame, pd.DataFrame]]:
        """(config, flow series, queue series) of one stored run, for figures."""
        for run in self.plan.runs:
            if (run.row, run.cell, run.replication) == (row, cell, replication):
                path = self.store.path(TIMESERIES, run.run.key)
                if not self.store.path(SUMMARY, run.run.key).exists():
                    return None
                return (run.run.config, pq.read_table(path).to_pandas(),
                        pq.read_table(self.store.path(QUEUE, run.run.key)).to_pandas())
        return None


@dataclass
class Reproduction:
    study: str
    quick: bool
    outcomes: list[ExperimentOutcome]
    sweep_report: SweepReport
    wall_s: float

    @property
    def claims(self) -> list[ClaimResult]:
        return [claim for outcome in self.outcomes for claim in outcome.claims]


def study_of(experiment_id: str) -> str:
    return experiment_id.split("-", 1)[0]


def reproduce(experiments: list[Experiment], store_root: Path, executor: Executor, quick: bool = False,
              progress: Optional[Callable[[SweepProgress], None]] = None,
              overrides: Sequence[str] = (),
              measuring: Optional[Callable[[int, int, str], None]] = None) -> Reproduction:
    """Run (or find in the store) every run of `experiments`, all of one study, and measure them.
    `measuring(done, total, title)` is called before each experiment's runs are read back and measured."""
    started = time.perf_counter()
    study, plans, store, unique = _plan_study(experiments, store_root, quick, overrides)
    fields = ["experiment", "row", "cell"]
    values = {name: sorted({run.params[name] for run in unique.values()}) for name in fields}
    # Longest runs first (packets to simulate ~ rate x duration): two cores finish together rather than one
    # running a 1 Gbit/s run alone at the end.
    runs = sorted(unique.values(), key=lambda run: -run.config["bottleneck"]["rate_bps"] * run.config["run"]["duration_ns"])
    sweep = Sweep(path=Path(study), study=study, base_seed=0, replications=1, fields=fields, values=values,
                  runs=runs)
    report = run_sweep(sweep, store, executor, retry_failed=False, progress=progress)
    if report.already_failed:
        # Runs that failed before are tried again: a reproduction should end with every number it can get.
        report_retry = run_sweep(sweep, store, executor, retry_failed=True, progress=progress)
        report.done += report_retry.done
        report.failed = report_retry.failed
        report.failures += report_retry.failures
    outcomes = []
    for done, plan in enumerate(plans):
        if measuring:
            measuring(done, len(plans), plan.experiment.spec.title)
        outcomes.append(_measure(plan, store))
    return Reproduction(study, quick, outcomes, report, time.perf_counter() - started)


def measure_stored(experiments: list[Experiment], store_root: Path, quick: bool = False) -> Reproduction:
    """Measure what the store holds of `experiments` (all of one study), computing nothing: `cclab report`
    rebuilds a study's pages from stored runs. A run not stored is reported as an error ("not run")."""
    started = time.perf_counter()
    study, plans, store, unique = _plan_study(experiments, store_root, quick)
    stored, failed = store.stored_keys(), store.failed_keys()
    report = SweepReport(planned=len(unique), already_stored=len(stored & unique.keys()),
                         already_failed=len(failed & unique.keys()), to_run=0)
    outcomes = [_measure(plan, store) for plan in plans]
    return Reproduction(study, quick, outcomes, report, time.perf_counter() - started)


def stored_runs(experiments: list[Experiment], store_root: Path, quick: bool = False) -> tuple[int, int]:
    """(runs stored, runs planned) of `experiments` in this mode."""
    _, _, store, unique = _plan_study(experiments, store_root, quick)
    return len(store.stored_keys() & unique.keys()), len(unique)


def _plan_study(experiments: list[Experiment], store_root: Path, quick: bool, overrides: Sequence[str] = ()):
    """(study, plans, the study's store, run key -> run) of experiments that must all be of one study."""
    studies = {study_of(e.id) for e in experiments}
    if len(studies) != 1:
        raise ValueError(f"experiments of several studies ({', '.join(sorted(studies))}); reproduce one at a time")
    study = studies.pop()
    plans = [plan_experiment(e, quick, overrides) for e in experiments]
    store = StudyStore(store_root, study, results_version())
    unique: dict[str, object] = {}
    for plan in plans:
        for run in plan.runs:
            unique.setdefault(run.run.key, run.run)
    return study, plans, store, unique


def missing_runs(experiments: list[Experiment], store_root: Path, quick: bool = False) -> tuple[int, int]:
    """(runs not in the store, runs in all) of the experiments, one study, for this cclab version."""
    study = study_of(experiments[0].id)
    keys = {run.run.key for e in experiments for run in plan_experiment(e, quick).runs}
    stored = StudyStore(store_root, study, results_version()).stored_keys()
    return len(keys - stored), len(keys)


def _products(metric, values: dict, plan: Plan) -> dict[tuple[str, int, int], np.ndarray]:
    """A product metric's one value per cell: the product of its factors' cell means, over `per` (scaled as
    the runs are) if given; no value in a cell where a factor has none."""
    per_s = _scaled(parse_duration(metric.per), plan.time_scale) / 1e9 if metric.per else 1.0
    out = {}
    cells = {(r, c) for (name, r, c) in values if name == metric.factors[0]}
    for r, c in sorted(cells):
        means = [values.get((factor, r, c)) for factor in metric.factors]
        if all(m is not None and len(m) for m in means):
            out[(metric.name, r, c)] = np.array([math.prod(float(np.mean(m)) for m in means) / per_s])
    return out


def _measure(plan: Plan, store: StudyStore) -> ExperimentOutcome:
    outcome = ExperimentOutcome(plan, store)
    # Arrays of each run's values, joined into one array per cell at the end.
    collected: dict[tuple[str, int, int], list[np.ndarray]] = defaultdict(list)
    clipped: dict[tuple[str, int, int], list[float]] = defaultdict(list)
    # Only the series columns some metric reads: a run may have millions of samples.
    series_columns = ["time_s", "flow", "delivered"] + sorted({m.column for m in plan.experiment.metrics if m.column})
    if any(m.of == "bic_phase" for m in plan.experiment.metrics):
        series_columns += ["cwnd", "cc_w_max"]
    if any(m.of in ("rtt_ms", "rtt_std_ms", "queueing_ms") for m in plan.experiment.metrics):
        series_columns.append("rtt_s")
    if any(m.of in ("rto_s", "timeout_time_s") for m in plan.experiment.metrics):
        series_columns.append("rto_s")
    for run in plan.runs:
        key = run.run.key
        summary_path = store.path(SUMMARY, key)
        if not summary_path.exists():
            failure = store.path(FAILURES, key)
            why = store.failure(key).get("error", "failed") if failure.exists() else "not run"
            outcome.errors.append((run.row, run.cell, run.replication, why))
            continue
        summary = pq.read_table(summary_path).to_pandas()
        cache: dict[str, pd.DataFrame] = {}

        def series(key: str = key) -> pd.DataFrame:
            if "flows" not in cache:
                cache["flows"] = pq.read_table(store.path(TIMESERIES, key), columns=series_columns).to_pandas()
            return cache["flows"]

        def queue(key: str = key) -> pd.DataFrame:
            if "queue" not in cache:
                path = store.path(QUEUE, key)
                # bytes_tx (what utilisation and clipped rates are measured from) if the run has it.
                columns = [c for c in ("time_s", "queue_packets", "bytes_tx") if c in pq.read_schema(path).names]
                cache["queue"] = pq.read_table(path, columns=columns).to_pandas()
            return cache["queue"]

        def loss_events(key: str = key) -> pd.DataFrame:
            path = store.path(LOSS_EVENTS, key)
            if not path.exists():
                raise MeasureError("the run's loss-event times are not stored; remove the run from the store "
                                   "to compute it again")
            return pq.read_table(path, columns=["flow", "time_ns"]).to_pandas()

        def rtt_histogram(key: str = key) -> pd.DataFrame:
            path = store.path(RTT_HISTOGRAM, key)
            if not path.exists():
                raise MeasureError("the run's RTT histograms are not stored; remove the run from the store "
                                   "to compute it again")
            return pq.read_table(path, columns=["flow", "low_ns", "high_ns", "count"]).to_pandas()

        for metric in plan.experiment.metrics:
            if metric.of == "product":
                continue   # of the cells' means, below
            window = plan.window_ns(metric, run.run.config) if metric.window is not None else None
            try:
                value = measure(metric.of, metric.flows, window, run.run.config, summary, series,
                                column=metric.column, cc=metric.cc, queue=queue, threshold=metric.threshold,
                                group=metric.group, loss_events=loss_events,
                                every_ns=_scaled(parse_duration(metric.every), plan.time_scale) if metric.every else None,
                                phase=metric.phase,
                                nominal_bps=parse_rate(metric.nominal) if metric.nominal else None,
                                rtt_histogram=rtt_histogram)
            except MeasureError as exc:
                outcome.errors.append((run.row, run.cell, run.replication, f"{metric.name}: {exc}"))
                continue
            if metric.rate:
                value = value * UNIT_SCALE[metric.unit]   # a new array: the measured one may be read-only
                try:
                    if isinstance(value, np.ndarray):   # flows = "each": no clipped figure
                        raise MeasureError("per flow")
                    clipped_value = measure(metric.of, metric.flows, window, run.run.config, summary, series,
                                            column=metric.column, cc=metric.cc, queue=queue, group=metric.group,
                                            clip=True) * UNIT_SCALE[metric.unit]
                except MeasureError:
                    clipped_value = float("nan")   # runs stored before bytes_tx was kept: shown unclipped only
                if not math.isnan(clipped_value):
                    clipped[(metric.name, run.row, run.cell)].append(clipped_value)
            seed_values = outcome.by_seed.setdefault(run.replication, {})
            if isinstance(value, np.ndarray):   # flows = "each", "samples", "acks": every flow's or sample's value
                present = value[~np.isnan(value)]
                collected[(metric.name, run.row, run.cell)].append(present)
                if present.size:
                    seed_values[(metric.name, run.row, run.cell)] = float(np.mean(present))
            elif not math.isnan(value):
                collected[(metric.name, run.row, run.cell)].append(np.array([value], dtype=float))
                seed_values[(metric.name, run.row, run.cell)] = value
    outcome.values = {key: np.concatenate(chunks) for key, chunks in collected.items()}
    for metric in plan.experiment.metrics:
        if metric.of == "product":
            outcome.values.update(_products(metric, outcome.values, plan))
    outcome.clipped = dict(clipped)
    means = outcome.means()
    seeds = [outcome.by_seed[k] for k in sorted(outcome.by_seed)]
    outcome.claims = [check_claim(claim, plan, means, seeds) for claim in plan.experiment.spec.claims]
    return outcome
