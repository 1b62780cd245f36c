"""cclab: a laboratory for TCP congestion control. `cclab.run("scenario.toml")` returns a Result."""

from importlib.metadata import PackageNotFoundError, version as _distribution_version

from .engine import engine_version as _engine_version
from .errors import CclabError, ScenarioError, SimulationError
from .result import Result
from .runner import run
from .scenario import Scenario, load_scenario


def _version() -> str:
    try:
        return _distribution_version("cclab")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return _engine_version() or "0+unknown"


__version__ = _version()

__all__ = ["run", "Result", "Scenario", "load_scenario", "CclabError", "ScenarioError", "SimulationError",
           "__version__"]
