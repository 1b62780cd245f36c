"""scripts/pgo.sh trains the engine's profile in one package selection; LLVM applies it only to a build whose
engine crate is the same unit (its symbol names carry cargo's hash of the resolved features). The bindings
are built by maturin from pyproject.toml's [tool.maturin] table, so the script's selection must name the
same package and features, or the profile silently stops applying when pyproject.toml changes."""

import subprocess
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_the_training_build_selects_what_maturin_builds():
    maturin = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["maturin"]
    manifest = tomllib.loads((REPO / maturin["manifest-path"]).read_text())
    args = subprocess.run([str(REPO / "scripts" / "pgo.sh"), "--packages"], capture_output=True, text=True,
                          check=True).stdout.split()
    packages = [args[i + 1] for i, a in enumerate(args) if a == "-p"]
    features = [args[i + 1] for i, a in enumerate(args) if a == "--features"]
    assert manifest["package"]["name"] in packages
    assert "cclab-engine" in packages  # the trained example (fingerprints) belongs to the engine
    assert features == [",".join(maturin.get("features", []))]
    assert "--lib" in args
