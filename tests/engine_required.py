"""Skip a test module when a compiled or optional part is missing, except in CI, where it must fail.

`pytest.importorskip` alone let 43 tests pass as skipped on a machine whose engine was not built. In CI
(`CI` set to anything but "" or "false", as CI services and .ci/run's caller do) the same missing module is an
error, so a broken build can never look like a green run.
"""

from __future__ import annotations

import importlib
import os

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def need(module: str):
    """The module, imported; outside CI a skip of the calling test module when it cannot be imported."""
    if in_ci():
        try:
            return importlib.import_module(module)
        except ImportError as exc:
            raise ImportError(f"{module} is needed by this test module and CI must not skip it: {exc}. "
                              "Build it with scripts/setup.sh") from exc
    return pytest.importorskip(module)
