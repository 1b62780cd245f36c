"""cclab: a laboratory for TCP congestion control. `cclab.run("scenario.toml")` returns a Result.

The names below are imported on first use (PEP 562), not with the package: `cclab --version` and
`cclab run` would otherwise pay for pandas, pydantic and importlib.metadata before doing anything.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# name -> the module that defines it
_LAZY = {
    "run": "runner",
    "Result": "result",
    "Scenario": "scenario",
    "load_scenario": "scenario",
    "CclabError": "errors",
    "ScenarioError": "errors",
    "SimulationError": "errors",
}

if TYPE_CHECKING:
    from .errors import CclabError, ScenarioError, SimulationError
    from .result import Result
    from .runner import run
    from .scenario import Scenario, load_scenario


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cclab")
    except PackageNotFoundError:  # running from a source tree that was never installed
        from .engine import engine_version

        return engine_version() or "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _version()
    elif name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # computed once; later lookups find it without this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = ["run", "Result", "Scenario", "load_scenario", "CclabError", "ScenarioError", "SimulationError",
           "__version__"]
