"""A test module that needs the compiled engine (or another optional part) skips without it on a developer's
machine, and fails in CI, where a skip would hide a broken build (tests/engine_required.py)."""

from pathlib import Path

import pytest

from engine_required import in_ci, need


@pytest.mark.parametrize("value, ci", [("true", True), ("1", True), ("yes", True), ("", False), ("false", False),
                                       ("0", False), ("False", False)])
def test_ci_is_read_from_the_environment(monkeypatch, value, ci):
    monkeypatch.setenv("CI", value)
    assert in_ci() is ci


def test_outside_ci_a_missing_module_skips(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        need("cclab_no_such_module")


def test_in_ci_a_missing_module_is_an_error_that_says_how_to_build_it(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(ImportError, match="CI must not skip it.*scripts/setup.sh"):
        need("cclab_no_such_module")


def test_a_present_module_is_returned_either_way(monkeypatch):
    for value in ("true", ""):
        monkeypatch.setenv("CI", value)
        assert need("json").dumps([]) == "[]"


def test_no_test_module_skips_on_a_missing_module_by_itself():
    # pytest.importorskip skips in CI too; two engine test modules still used it (found 2026-11-24).
    from conftest import REPO
    users = [path.name for path in sorted((REPO / "tests").glob("*.py"))
             if path.name not in ("engine_required.py", Path(__file__).name) and "importorskip(" in path.read_text()]
    assert users == []
