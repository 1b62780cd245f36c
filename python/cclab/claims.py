"""The paper's findings as checks over an experiment's measured values (means over replications).

A claim names a metric, the rows and cells it speaks of (default: all that were run; cells by name, by
their coordinates on a grid's axes with `where`, or both) and one test:

- `at_least = x` / `at_most = x` / `between = [x, y]`: every value is >= x / <= x / in [x, y] (in the
  metric's unit);
- `above_row = "NewReno"` / `below_row` (a name or a list): in every cell, the value is above / below that
  row's (each listed row's);
- `above_metric = "host_b"`: in every (row, cell), the value is above that metric's in the same runs
  (Table II: which host gets the larger share);
- `flat = 0.25`: for every row, the values over the cells differ by at most this share of their mean,
  (max - min) / mean <= 0.25 (seed 002, Fig. 6: goodput "essentially constant" in the file size);
- `trend = "decreasing"` / `"increasing"`: along the cells in order, the last value is below / above the
  first, for every row; with `along = "per"`, from the lowest to the highest value of that coordinate,
  separately for every combination of the other coordinates (every row of a grid).

A claim is 'holds', 'fails' (with the values that break it), or 'not checked' (quick mode, unless the claim
is marked `quick = true`; or none of its rows and cells were run).

With several seeds per run (`replications`), a claim is checked on the means over the seeds
(`seeds = "mean"`, the default: the paper's finding as a statement about the expected value), or on every
seed alone (`seeds = "each"`: the finding must hold whatever the luck of the draw, e.g. "STCP is always
the least fair"). Either way the detail says on how many single seeds it holds, so a finding that holds
on the mean by one lucky seed shows it.

Beside the verdict a result carries the paper's value, cclab's and their difference, for the report's side
by side columns. The paper's value is the claim's reference (our reading of its words: a threshold, another
row, the first cell of a trend); cclab's is the deciding one, the value that comes closest to breaking the
claim (the lowest for `at_least`, the largest for `at_most`, the smallest margin over another row, the
smallest change along a trend), named with its row and cell; the difference is cclab's minus the paper's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .experiment import CLAIM_TESTS, ClaimSpec, Plan


@dataclass(frozen=True)
class ClaimResult:
    text: str
    status: str            # "holds", "fails" or "not checked"
    detail: str            # what was compared; for a failure, the values that break the claim
    paper: str = ""        # the paper's value as we read it: ">= 0.950", "above BIC", "increasing along per"
    cclab: str = ""        # the deciding value and where: "0.956 (CTCP @ bw=500 ...)"
    difference: str = ""   # cclab's minus the paper's ("+0.006"), at the deciding row and cell
    # The same as numbers, for other views of the report data (None: not a single number).
    paper_value: float | None = None
    cclab_value: float | None = None
    difference_value: float | None = None


@dataclass
class _Closest:
    """The comparison that comes closest to breaking a claim: the smallest margin seen so far."""
    margin: float = float("inf")
    value: float | None = None
    reference: float | None = None
    where: str = ""

    def offer(self, margin: float, value: float, reference: float, where: str) -> None:
        if margin < self.margin:
            self.margin, self.value, self.reference, self.where = margin, value, reference, where


def _fmt(value: float) -> str:
    return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.0f}"


def _argument(value: float | str | list) -> str:
    """A claim's test argument as the report shows it: row names joined, numbers formatted, a range in []."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ", ".join(value)
    if isinstance(value, list):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    return _fmt(value)


def quick_reason(plan: Plan) -> str:
    """Why a finding is left to the full study in quick mode, from what quick mode changed in this
    experiment: shorter runs, fewer seeds, fewer cells or rows."""
    spec = plan.experiment.spec
    changes = []
    if plan.time_scale != 1 and plan.runs:
        quick_s = plan.runs[0].run.config["run"]["duration_ns"] / 1e9
        changes.append(f"runs of {quick_s:g} s instead of {quick_s / plan.time_scale:g} s")
    if plan.replications < spec.replications:
        changes.append(f"{plan.replications} seed{'s' if plan.replications != 1 else ''} instead of "
                       f"{spec.replications}")
    if len(plan.cells) < len(spec.cells) or len(plan.rows) < len(spec.rows):
        changes.append(f"{len(plan.rows)} of {len(spec.rows)} rows x {len(plan.cells)} of {len(spec.cells)} cells")
    what = ", ".join(changes) or "quick settings"
    return (f"not a quick-mode finding: quick mode has {what}, too little for it to hold reliably; "
            "the full study checks it")


def _signed(value: float) -> str:
    return ("+" if value >= 0 else "-") + _fmt(abs(value))


def _paper_text(claim: ClaimSpec) -> str:
    if claim.at_least is not None:
        return f">= {_fmt(claim.at_least)}"
    if claim.at_most is not None:
        return f"<= {_fmt(claim.at_most)}"
    if claim.between is not None:
        return f"{_fmt(claim.between[0])} to {_fmt(claim.between[1])}"
    if claim.trend is not None:
        return f"{claim.trend} along {claim.along}" if claim.along else claim.trend
    if claim.above_metric is not None:
        return f"above {claim.above_metric}"
    scale = "" if claim.times is None else f"{_fmt(claim.times)} x "
    return ("above " if claim.above_row is not None else "below ") + scale + ", ".join(claim.other_rows)


def _with_values(result: ClaimResult, claim: ClaimSpec, closest: _Closest) -> ClaimResult:
    """The result with the paper's value, cclab's deciding value and their difference filled in."""
    if closest.value is None or closest.reference is None:
        return result
    difference = closest.value - closest.reference
    fixed = claim.at_least is not None or claim.at_most is not None or claim.between is not None
    paper = _paper_text(claim) if fixed else f"{_paper_text(claim)}: {_fmt(closest.reference)}"
    if claim.trend is not None:
        paper = f"{_paper_text(claim)}, from {_fmt(closest.reference)}"
    return ClaimResult(result.text, result.status, result.detail, paper=paper,
                       cclab=f"{_fmt(closest.value)} ({closest.where})", difference=_signed(difference),
                       paper_value=closest.reference, cclab_value=closest.value, difference_value=difference)


def check_claim(claim: ClaimSpec, plan: Plan, means: dict[tuple[str, int, int], float],
                seeds: list[dict[tuple[str, int, int], float]] | None = None) -> ClaimResult:
    """Evaluate one claim; `means` maps (metric, row, cell) to the mean over replications, in the metric's
    unit (missing: the run failed or was not run); `seeds`, when there are several, the same per
    replication (replication r of every row and cell runs the same seed, so rows compare seed by seed)."""
    on_means = _check(claim, plan, means)
    if not seeds or len(seeds) < 2 or on_means.status == "not checked":
        return on_means
    single = [_check(claim, plan, values) for values in seeds]
    checked = [k for k, result in enumerate(single) if result.status != "not checked"]
    if not checked:
        return on_means
    held = [k for k in checked if single[k].status == "holds"]
    count = f"holds on {len(held)} of {len(checked)} seeds alone"
    if claim.seeds == "mean":
        return replace(on_means, detail=f"on the mean of {len(seeds)} seeds: {on_means.detail}; {count}")
    failing = [k for k in checked if k not in held]
    if not failing:
        return replace(on_means, detail=f"on each of {len(checked)} seeds ({count}); on their mean: {on_means.detail}")
    # The first seed that breaks it decides, with its own values.
    worst = single[failing[0]]
    return replace(worst, detail=f"on each seed: {count}; seed #{failing[0]}: {worst.detail}",
                   cclab=f"{worst.cclab} [seed #{failing[0]}]" if worst.cclab else worst.cclab)


def _check(claim: ClaimSpec, plan: Plan, means: dict[tuple[str, int, int], float]) -> ClaimResult:
    """One claim on one set of values (the means, or one seed's)."""
    spec = plan.experiment.spec
    row_index = {r.name: i for i, r in enumerate(spec.rows)}
    cell_index = {c.name: i for i, c in enumerate(spec.cells)}
    rows = [row_index[n] for n in claim.rows] if claim.rows else list(range(len(spec.rows)))
    # Named cells keep the claim's order (a trend runs from the first named to the last); `where` filters.
    picked = set(plan.experiment.select_cells(claim.cells, claim.where))
    cells = [c for c in ([cell_index[n] for n in claim.cells] if claim.cells else range(len(spec.cells)))
             if c in picked]
    rows = [r for r in rows if r in plan.rows]
    cells = [c for c in cells if c in plan.cells]
    if plan.quick and not claim.quick:
        return ClaimResult(claim.text, "not checked", quick_reason(plan), paper=_paper_text(claim))
    if not rows or not cells:
        what = "quick mode runs none of its rows or cells" if plan.quick else "none of its rows or cells were run"
        return ClaimResult(claim.text, "not checked", what + "; the full study checks it", paper=_paper_text(claim))

    def value(metric: str, r: int, c: int) -> float | None:
        return means.get((metric, r, c))

    broken, compared, missing = [], 0, 0
    closest = _Closest()

    def name(r: int, c: int) -> str:
        return f"{spec.rows[r].name} @ {spec.cells[c].name}"

    if claim.flat is not None:
        for r in rows:
            values = [value(claim.metric, r, c) for c in cells]
            present = [v for v in values if v is not None]
            missing += len(values) - len(present)
            if len(present) < 2:
                continue
            compared += 1
            mean = sum(present) / len(present)
            spread = (max(present) - min(present)) / mean if mean else float("inf")
            if spread > claim.flat:
                broken.append(f"{spec.rows[r].name}: {_fmt(min(present))} to {_fmt(max(present))}, "
                              f"(max - min) / mean = {_fmt(spread)}")
        what = f"{claim.metric} flat within {_fmt(claim.flat)} of its mean over {len(cells)} cells"
    elif claim.trend is not None:
        if claim.along is None:
            lines = [(cells[0], cells[-1])] if len(cells) >= 2 else []
        else:
            lines = _ends_along(claim.along, cells, spec.cells)
        if not lines:
            return ClaimResult(claim.text, "not checked", "a trend needs at least two cells", paper=_paper_text(claim))
        for r in rows:
            for first, last in lines:
                a, b = value(claim.metric, r, first), value(claim.metric, r, last)
                if a is None or b is None:
                    missing += 1
                    continue
                compared += 1
                ok = b < a if claim.trend == "decreasing" else b > a
                closest.offer(a - b if claim.trend == "decreasing" else b - a, b, a,
                              f"{spec.rows[r].name}: {spec.cells[first].name} -> {spec.cells[last].name}")
                if not ok:
                    broken.append(f"{spec.rows[r].name}: {_fmt(a)} at {spec.cells[first].name} -> {_fmt(b)} at "
                                  f"{spec.cells[last].name}")
        if claim.along is None:
            what = f"{claim.metric} {claim.trend} from {spec.cells[lines[0][0]].name} to {spec.cells[lines[0][1]].name}"
        else:
            what = f"{claim.metric} {claim.trend} along {claim.along} in {len(lines)} line(s)"
    else:
        for r in rows:
            for c in cells:
                v = value(claim.metric, r, c)
                if v is None:
                    missing += 1
                    continue
                # (reference, how it is named, whether v must be above it, strictly)
                references: list[tuple[float | None, str, bool, bool]] = []
                if claim.at_least is not None:
                    references.append((claim.at_least, _fmt(claim.at_least), True, False))
                elif claim.at_most is not None:
                    references.append((claim.at_most, _fmt(claim.at_most), False, False))
                elif claim.between is not None:
                    references += [(claim.between[0], _fmt(claim.between[0]), True, False),
                                   (claim.between[1], _fmt(claim.between[1]), False, False)]
                elif claim.above_metric is not None:
                    other = value(claim.above_metric, r, c)
                    references.append((other, claim.above_metric, True, True))
                else:
                    times = 1.0 if claim.times is None else claim.times
                    label_scale = "" if claim.times is None else f"{_fmt(claim.times)} x "
                    for other_name in claim.other_rows:
                        other = value(claim.metric, row_index[other_name], c)
                        references.append((None if other is None else times * other, label_scale + other_name,
                                           claim.above_row is not None, True))
                if any(reference is None for reference, _, _, _ in references):
                    missing += 1
                    continue
                compared += 1
                for reference, label, above, strict in references:
                    ok = (v > reference if strict else v >= reference) if above else \
                        (v < reference if strict else v <= reference)
                    closest.offer(v - reference if above else reference - v, v, reference, name(r, c))
                    if not ok:
                        sign = (">" if strict else ">=") if above else ("<" if strict else "<=")
                        shown = label if label == _fmt(reference) else f"{label} {_fmt(reference)}"
                        broken.append(f"{name(r, c)}: {_fmt(v)} not {sign} {shown}")
        test = next(k for k in CLAIM_TESTS if getattr(claim, k) is not None)
        what = f"{claim.metric} {test.replace('_', ' ')} {_argument(getattr(claim, test))}"
    if compared == 0:
        return ClaimResult(claim.text, "not checked", "no finished runs to compare", paper=_paper_text(claim))
    suffix = f"; {missing} failed runs left out" if missing else ""
    if broken:
        return _with_values(ClaimResult(claim.text, "fails", f"{what}: " + "; ".join(broken) + suffix), claim, closest)
    return _with_values(ClaimResult(claim.text, "holds", f"{what}: {compared} comparisons{suffix}"), claim, closest)


def _ends_along(axis: str, cells: list[int], specs: list) -> list[tuple[int, int]]:
    """(cell at the lowest, cell at the highest value of `axis`) for every combination of the other
    coordinates among `cells` that has at least two values on the axis."""
    groups: dict[tuple, list[tuple[float, int]]] = {}
    for c in cells:
        coords = specs[c].coords
        others = tuple(sorted((k, v) for k, v in coords.items() if k != axis))
        groups.setdefault(others, []).append((coords[axis], c))
    return [(min(members)[1], max(members)[1]) for members in groups.values() if len(members) >= 2]
