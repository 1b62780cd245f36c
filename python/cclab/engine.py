"""Access to the compiled engine `cclab._engine`, which may not be built yet.

Everything that needs the engine goes through `load_engine()`, so a missing build is one clear
`EngineUnavailable` error and tests can substitute a stand-in engine in a single place.
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

from .errors import EngineUnavailable

# What the Python side accepts when the engine cannot be asked (not built yet). The engine, when
# present, is the authority: it lists what it implements.
STATIC_ALGORITHMS = ("newreno", "reno", "scalable", "highspeed", "htcp", "westwood", "bic", "cubic",
                     "compound", "ctcp", "vegas", "fast", "aimd", "bbr")

# Other names people use for the same algorithm. Reno without NewReno's partial-ACK handling is not
# implemented, so 'reno' means NewReno (RFC 6582), the variant every modern stack runs.
ALIASES = {"reno": "newreno", "ctcp": "compound"}


def load_engine() -> ModuleType:
    try:
        return importlib.import_module("cclab._engine")
    except ImportError as exc:
        raise EngineUnavailable(
            f"the simulation engine cclab._engine is not built ({exc}); "
            "build it with `maturin develop --release` or `pip install -e .`") from None


def algorithm_list() -> list[dict]:
    """The engine's own description of its algorithms (name, aliases, variants, parameters, ...)."""
    return list(json.loads(load_engine().algorithms_json()))


# Disciplines the Python side accepts when the engine cannot be asked (not built yet).
STATIC_QUEUES = ("droptail",)


def queue_list() -> list[dict]:
    """The engine's description of its queue disciplines (name, variants, parameters, sources)."""
    return list(json.loads(load_engine().queues_json()))


def _entry(kind: str, name: str) -> dict[str, Any] | None:
    """The engine's description of the queue discipline (kind "queue") or algorithm (kind "algorithm")
    called `name`, None if it has none; EngineUnavailable when the engine cannot be asked."""
    entries = queue_list() if kind == "queue" else algorithm_list()
    return next((entry for entry in entries if entry["name"] == name), None)


def _variants(entry: dict[str, Any] | None) -> list[dict[str, Any]]:
    return (entry or {}).get("variants") or []


def _parameter_names(kind: str, name: str) -> set[str] | None:
    """Parameter names of the entry (its own list and every variant's), None if there is none or the
    engine cannot say."""
    try:
        entry = _entry(kind, name)
    except EngineUnavailable:
        return None
    if entry is None:
        return None
    names = {str(p["name"]) for p in entry.get("parameters") or []}
    for variant in _variants(entry):
        names.update((variant.get("parameters") or {}).keys())
    return names


def queue_parameters(discipline: str) -> set[str] | None:
    """Engine parameter names of a discipline (every variant's), or None when the engine cannot say."""
    return _parameter_names("queue", discipline)


def parameter_defaults(kind: str, name: str) -> dict[str, Any]:
    """{parameter: default} of a queue discipline (kind "queue") or an algorithm (kind "algorithm"), from
    every variant (the first default that is not None wins); empty when the engine cannot say. The
    defaults' JSON types are the parameters' types: serde writes a Rust float with a decimal point, so
    an integer default is an integer parameter."""
    try:
        entry = _entry(kind, name)
    except EngineUnavailable:
        return {}
    defaults: dict[str, Any] = {}
    for variant in _variants(entry):
        for key, value in (variant.get("parameters") or {}).items():
            if defaults.get(key) is None:
                defaults[key] = value
    return defaults


def variant_parameters(kind: str, name: str, variant: str | None = None) -> dict[str, Any]:
    """{parameter: value} of one variant of a queue discipline (kind "queue") or an algorithm (kind
    "algorithm"): `variant`, else the entry's default variant. Empty when the engine cannot say, or has
    no such entry or variant (the engine reports that itself, naming the field)."""
    try:
        entry = _entry(kind, name)
    except EngineUnavailable:
        return {}
    wanted = variant if variant is not None else (entry or {}).get("default_variant")
    chosen = next((candidate for candidate in _variants(entry) if candidate["name"] == wanted), {})
    return dict(chosen.get("parameters") or {})


def algorithm_parameters(name: str) -> set[str] | None:
    """Engine parameter names of an algorithm (its own list and every variant's), or None when the engine
    cannot say."""
    return _parameter_names("algorithm", name)


def queue_names() -> list[str]:
    try:
        return [str(entry["name"]) for entry in queue_list()]
    except EngineUnavailable:
        return list(STATIC_QUEUES)


def read_summary(simulation) -> dict:
    return json.loads(simulation.summary_json())


def _aliases(algorithms: list[dict]) -> dict[str, str]:
    aliases = dict(ALIASES)
    for entry in algorithms:
        aliases.update({str(alias): str(entry["name"]) for alias in entry.get("aliases") or []})
    return aliases


def algorithm_names() -> list[str]:
    """Names a scenario may use: the engine's (with aliases) when it is built, else the static list."""
    try:
        algorithms = algorithm_list()
    except EngineUnavailable:
        return list(STATIC_ALGORITHMS)
    names = [str(entry["name"]) for entry in algorithms]
    return names + [alias for alias, target in _aliases(algorithms).items()
                    if target in names and alias not in names]


def canonical_algorithm(name: str) -> str:
    """'reno' -> 'newreno': the name the engine config and the results use."""
    try:
        return _aliases(algorithm_list()).get(name, name)
    except EngineUnavailable:
        return ALIASES.get(name, name)


def engine_version() -> str | None:
    try:
        return str(load_engine().version())
    except EngineUnavailable:
        return None


def engine_source_hash() -> str:
    """The engine's source fingerprint (see crates/engine/build.rs); 'unknown' when it is not built."""
    try:
        return str(load_engine().source_hash())
    except EngineUnavailable:
        return "unknown"
