"""Every file in examples/ loads as the README shows it, from any checkout (the cellular one where the shared
traces are; elsewhere it is skipped, naming the missing file): a scenario through
load_scenario (what `cclab run FILE` checks first), a sweep through load_sweep (`cclab sweep FILE --dry-run`).

cellular-umts.toml named its traces by a path relative to itself ("../../shared/..."), which exists only
beside /work/main: in a clone, or copied next to an installed cclab, `cclab run` refused it.
"""

from pathlib import Path

import pytest

from engine_required import need

need("cclab._engine")  # the examples use RED, adaptive RED and algorithms only the engine lists

from cclab.scenario import load_scenario  # noqa: E402
from cclab.sweep import load_sweep  # noqa: E402

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.toml"))


def test_there_are_examples():
    assert len(EXAMPLES) >= 8


def missing_traces(path: Path) -> list[str]:
    """The absolute trace paths an example names that this machine does not have (the cellular example
    reads the shared Mahimahi traces, /work/shared/data/cellular-traces/, which no checkout carries)."""
    return [line.split('"')[1] for line in path.read_text().splitlines()
            if 'trace = "/' in line and not Path(line.split('"')[1]).exists()]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_loads(path):
    if missing := missing_traces(path):
        pytest.skip(f"{path.name} reads {missing[0]}, which this machine does not have")
    if path.name.startswith("sweep-"):
        assert len(load_sweep(path).runs) > 0
    else:
        config = load_scenario(path).to_engine_config()
        assert config["flows"] or config.get("traffic")
