"""Sweep specs: which scenario fields to vary, how many replications, how seeds are derived -> planned runs.

A sweep is written as its own file, next to the scenario it varies::

    base = "seed000-newreno.toml"      # the base scenario, relative to this file
    replications = 2                   # runs per parameter point (default 1)
    seed = 1                           # base seed (default: the base scenario's run.seed, else 1)
    study = "table1"                   # name in the result store (default: this file's name without .toml)
    [grid]                             # every combination of these lists (cartesian product)
    "flows.0.cc" = ["newreno", "cubic"]
    "network.bottleneck.queue.size" = ["0.1bdp", "1bdp"]
    [zip]                              # lists of equal length varied together: the i-th values form one point
    "network.bottleneck.rate" = ["10Mbps", "100Mbps"]
    "network.bottleneck.delay" = ["10ms", "50ms"]

or as a `[sweep]` table inside a scenario file, with the same keys except `base` (the rest of the file is
the base scenario). Several zipped groups are written `[[zip]]`. Field names are the dotted keys `--set`
takes; values are TOML values, applied to the scenario as written (units and all) before validation.

Points are the product of the zipped groups and the grid lists, in the order written; each point is run
`replications` times. The seed of a run is derived, never drawn (see `derive_seed`), so the same sweep
always makes the same runs, whatever the machine or executor.

`plan_sweep` validates every expanded scenario with `load_scenario` before anything runs, so a bad spec
(unknown field, empty grid, a value in the wrong unit) is one `SweepError` and no run is started.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .errors import CclabError, ScenarioError
from .overrides import set_path
from .scenario import load_scenario, read_toml

SWEEP_KEYS = ("base", "replications", "seed", "study", "grid", "zip")
SEED_BITS = 63  # fits a signed 64-bit integer (Parquet INT64, DuckDB BIGINT) and the engine's u64
STUDY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
# Problems shown for a spec whose expanded scenarios fail; the rest are counted, not listed.
MAX_PROBLEMS_SHOWN = 5


class SweepError(CclabError):
    """A sweep spec that cannot be run: one line per problem, each naming the file and the field."""


@dataclass(frozen=True)
class PlannedRun:
    """One run of a sweep: a parameter point, a replication, its seed, and the engine config it runs."""

    index: int                  # position in the sweep, 0-based (points in order, replications inside)
    params: dict[str, Any]      # swept field -> value as written in the spec, in axis order
    replication: int            # 0 .. replications-1
    seed: int                   # derived, see derive_seed
    config: dict                # the engine config (docs/engine-interface.md), seed included
    scenario_hash: str          # hash of the config without its seed, see scenario_hash

    @property
    def key(self) -> str:
        """The run's name in the store (within a cclab version): '<scenario hash>-<seed>'."""
        return f"{self.scenario_hash}-{self.seed}"

    @property
    def params_json(self) -> str:
        return canonical_json(self.params)


@dataclass
class Sweep:
    """A validated, expanded sweep: what to run, in order."""

    path: Path
    study: str
    base_seed: int
    replications: int
    fields: list[str]                   # swept fields, in axis order
    values: dict[str, list[Any]]        # field -> the values it takes, as written
    runs: list[PlannedRun] = field(default_factory=list)

    @property
    def points(self) -> int:
        return len(self.runs) // self.replications if self.replications else 0

    def param_columns(self, run: PlannedRun) -> dict[str, Any]:
        """The swept values of `run` as columns of the `runs` table, named by their field.

        A column keeps one type for the whole sweep: the values' own type when they share one (text,
        whole numbers, numbers, booleans), else text (a table such as { name = "cubic", beta = 0.8 } is
        its canonical JSON)."""
        return {name: _column_value(_column_kind(self.values[name]), run.params[name]) for name in self.fields}


def _column_kind(values: list) -> str:
    if all(isinstance(v, str) for v in values):
        return "str"
    if all(isinstance(v, bool) for v in values):
        return "bool"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "int"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "float"
    return "text"


def _column_value(kind: str, value: Any) -> Any:
    if kind == "float":
        return float(value)
    if kind == "text" and not isinstance(value, str):
        return canonical_json(value)
    return value


# --- hashing -----------------------------------------------------------------------------------------

def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: the same data always gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def derive_seed(base_seed: int, params: Mapping[str, Any], replication: int) -> int:
    """The seed of one run: BLAKE2b-64 of (base seed, swept parameters, replication index), top bit cleared.

    The hashed text is the canonical JSON of {"base_seed", "params", "replication"}, where params maps each
    swept field to its value as written in the spec. A run's seed therefore depends on nothing else: not
    on the executor, the order of completion, the other points of the grid, or the machine.
    """
    text = canonical_json({"base_seed": base_seed, "params": dict(params), "replication": replication})
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") & ((1 << SEED_BITS) - 1)


def scenario_hash(config: Mapping[str, Any]) -> str:
    """BLAKE2b-128 (hex) of the canonical engine config JSON with run.seed left out (the seed is the other
    half of a run's key). Written units are already resolved, so "1bdp" and "1667" hash the same."""
    unseeded = copy.deepcopy(dict(config))
    unseeded["run"] = {k: v for k, v in unseeded["run"].items() if k != "seed"}
    return hashlib.blake2b(canonical_json(unseeded).encode("utf-8"), digest_size=16).hexdigest()


# --- reading a spec ----------------------------------------------------------------------------------

def load_sweep(path: str | Path, study: str | None = None) -> Sweep:
    """Read, expand and validate the sweep in `path`; raises SweepError before anything runs."""
    path = Path(path)
    try:
        raw = read_toml(path)
    except ScenarioError as exc:
        raise SweepError(f"sweep error: {exc.field}: {exc.message}") from None
    where = str(path)
    if "sweep" in raw:
        spec = raw["sweep"]
        if not isinstance(spec, dict):
            raise SweepError(f"sweep error: {where}: sweep: is not a table; use a [sweep] table with [sweep.grid]")
        if "base" in spec:
            raise SweepError(f"sweep error: {where}: sweep.base: a [sweep] table varies the scenario it is in; "
                             "use a separate sweep file to name another base")
        base = {k: v for k, v in raw.items() if k != "sweep"}
        prefix = "sweep."
    elif "base" in raw:
        spec, prefix = raw, ""
        base_path = spec["base"]
        if not isinstance(base_path, str):
            raise SweepError(f"sweep error: {where}: base: {base_path!r} is not a path; "
                             'use base = "scenario.toml" (relative to the sweep file)')
        try:
            base = read_toml(path.parent / base_path)
        except ScenarioError as exc:
            raise SweepError(f"sweep error: {where}: base: {exc.message}") from None
        base.pop("sweep", None)  # a scenario with a sweep of its own is still a base scenario
    else:
        raise SweepError(f"sweep error: {where}: is neither a sweep file (base = \"scenario.toml\" and a [grid]) "
                         "nor a scenario with a [sweep] table")
    unknown = [k for k in spec if k not in SWEEP_KEYS or (prefix and k == "base")]
    if unknown:
        accepted = ", ".join(k for k in SWEEP_KEYS if not (prefix and k == "base"))
        raise SweepError(f"sweep error: {where}: {prefix}{unknown[0]}: unknown key; use one of {accepted}")
    return plan_sweep(base, spec, path, study=study, prefix=prefix)


def _integer(spec: Mapping, key: str, default: int, low: int, high: int, where: str, prefix: str) -> int:
    value = spec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SweepError(f"sweep error: {where}: {prefix}{key}: {value!r} is not accepted; "
                         f"use a whole number from {low} to {high}")
    return value


def _axes(spec: Mapping, where: str, prefix: str) -> tuple[list[list[dict[str, Any]]], dict[str, list]]:
    """The sweep's axes: each a list of partial points ({field: value}); plus field -> values."""
    grid = spec.get("grid", {})
    zips = spec.get("zip", [])
    if not isinstance(grid, dict):
        raise SweepError(f"sweep error: {where}: {prefix}grid: is not a table; use [grid] with \"field\" = [values]")
    if isinstance(zips, dict):
        zips = [zips]
    if not isinstance(zips, list) or not all(isinstance(z, dict) for z in zips):
        raise SweepError(f"sweep error: {where}: {prefix}zip: is not a table; use [zip] (or [[zip]] for "
                         "several groups) with \"field\" = [values] of equal length")
    axes: list[list[dict[str, Any]]] = []
    values: dict[str, list] = {}

    def check_field(name: str, items: Any, table: str) -> list:
        label = f"{prefix}{table}.\"{name}\""
        if name in values:
            raise SweepError(f"sweep error: {where}: {label}: is varied twice; name each field once")
        if name == "run.seed":
            raise SweepError(f"sweep error: {where}: {label}: seeds are derived from the base seed, the "
                             "parameters and the replication; set seed = N and replications = R instead")
        if not isinstance(items, list):
            raise SweepError(f"sweep error: {where}: {label}: {items!r} is not a list; use a list of values, "
                             "e.g. [\"newreno\", \"cubic\"]")
        if not items:
            raise SweepError(f"sweep error: {where}: {label}: the list is empty, so the sweep has no runs; "
                             "give at least one value")
        texts = [canonical_json(item) for item in items] if _jsonable(items) else None
        if texts is None:
            raise SweepError(f"sweep error: {where}: {label}: holds a date or time; use strings, numbers, "
                             "booleans or tables")
        if len(set(texts)) != len(texts):
            twice = next(t for t in texts if texts.count(t) > 1)
            raise SweepError(f"sweep error: {where}: {label}: the value {twice} is listed twice; list each once")
        values[name] = list(items)
        return list(items)

    for group_index, group in enumerate(zips):
        table = "zip" if len(zips) == 1 else f"zip.{group_index}"
        if not group:
            raise SweepError(f"sweep error: {where}: {prefix}{table}: the group is empty; give \"field\" = [values]")
        lists = {name: check_field(name, items, table) for name, items in group.items()}
        lengths = {len(items) for items in lists.values()}
        if len(lengths) != 1:
            shown = ", ".join(f"{name} has {len(items)}" for name, items in lists.items())
            raise SweepError(f"sweep error: {where}: {prefix}{table}: zipped lists differ in length ({shown}); "
                             "give every list of a group the same number of values")
        axes.append([{name: items[i] for name, items in lists.items()} for i in range(lengths.pop())])
    for name, items in grid.items():
        axes.append([{name: item} for item in check_field(name, items, "grid")])
    if not axes:
        raise SweepError(f"sweep error: {where}: {prefix}grid: the grid is empty, so nothing is varied; "
                         "name at least one field, e.g. \"flows.0.cc\" = [\"newreno\", \"cubic\"]")
    return axes, values


def _jsonable(items: list) -> bool:
    try:
        canonical_json(items)
    except (TypeError, ValueError):
        return False
    return True


def plan_sweep(base: Mapping[str, Any], spec: Mapping[str, Any], path: str | Path = "sweep",
               study: str | None = None, prefix: str = "") -> Sweep:
    """Expand `spec` (the sweep keys) over the `base` scenario dict and validate every run."""
    path = Path(path)
    where = str(path)
    replications = _integer(spec, "replications", 1, 1, 1_000_000, where, prefix)
    base_run = base.get("run") if isinstance(base.get("run"), dict) else {}
    default_seed = base_run.get("seed", 1)
    if isinstance(default_seed, bool) or not isinstance(default_seed, int) or default_seed < 0:
        default_seed = 1  # the base scenario's own validation names the problem, if it is one
    base_seed = _integer(spec, "seed", default_seed, 0, 2**64 - 1, where, prefix)
    study = study if study is not None else spec.get("study", path.stem)
    if not isinstance(study, str) or not STUDY_NAME.match(study):
        raise SweepError(f"sweep error: {where}: {prefix}study: {study!r} is not accepted; use letters, digits, "
                         "'.', '_' and '-' (it names a folder in the store)")
    axes, values = _axes(spec, where, prefix)
    sweep = Sweep(path=path, study=study, base_seed=base_seed, replications=replications,
                  fields=list(values), values=values)

    problems: dict[str, str] = {}   # problem line -> first point it was seen at (for the message)
    failing_points = 0
    index = 0
    for combination in itertools.product(*axes):
        params: dict[str, Any] = {}
        for part in combination:
            params.update(part)
        try:
            scenario = _scenario_at(base, params)
        except ScenarioError as exc:
            failing_points += 1
            for problem in exc.problems:
                problems.setdefault(str(problem), _show_point(params, problem.field))
            continue
        point_config = scenario.to_engine_config()
        point_hash = scenario_hash(point_config)  # the same for every replication: the seed is left out
        for replication in range(replications):
            seed = derive_seed(base_seed, params, replication)
            config = copy.deepcopy(point_config)
            config["run"]["seed"] = seed
            sweep.runs.append(PlannedRun(index=index, params=params, replication=replication, seed=seed,
                                         config=config, scenario_hash=point_hash))
            index += 1
    if problems:
        lines = [f"sweep error: {where}: {point}: {problem}"
                 for problem, point in itertools.islice(problems.items(), MAX_PROBLEMS_SHOWN)]
        total_points = failing_points + sweep.points
        more = len(problems) - MAX_PROBLEMS_SHOWN
        lines.append(f"sweep error: {where}: {failing_points} of {total_points} parameter points are invalid"
                     + (f" ({more} more problems not shown)" if more > 0 else "") + "; nothing was run")
        raise SweepError("\n".join(lines))
    return sweep


def _scenario_at(base: Mapping[str, Any], params: Mapping[str, Any]):
    """The validated Scenario of one point: the base with each swept value set as written."""
    raw = copy.deepcopy(dict(base))
    for name, value in params.items():
        set_path(raw, [part.strip() for part in name.split(".")], copy.deepcopy(value))
    return load_scenario(raw)


def _show_point(params: Mapping[str, Any], problem_field: str) -> str:
    """The swept values to blame for a problem: the field itself when it is swept, else the whole point."""
    for name, value in params.items():
        if problem_field == name or problem_field.startswith(name + "."):
            return f'"{name}" = {canonical_json(value)}'
    return "point " + ", ".join(f'"{name}" = {canonical_json(value)}' for name, value in params.items())
