"""Heavy parts (`heavy = true` in an experiment file): `cclab reproduce STUDY` leaves them out of a full run
unless asked (--with-heavy, or --only PART), says so, and `--write-docs` renders the pages without a heavy
part that is not stored, naming it on the page. A toy study of two one-run parts (20 s at 10 Mbit/s;
NewReno in the light one, CUBIC in the heavy one, so that they are two runs of the store)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine_required import need  # noqa: E402

need("cclab._engine")

from cclab import doc_numbers  # noqa: E402
from cclab.cli import cli  # noqa: E402
from cclab.doc_seed001 import findings  # noqa: E402
from cclab.errors import CclabError  # noqa: E402

from test_experiment import SCENARIO  # noqa: E402

PART = """
id = "toy-{name}"
title = "toy {name}"
scenario = "two.toml"
{heavy}
[[cells]]
name = "1 BDP"
[[metrics]]
name = "total"
[[rows]]
name = "{cc}"
cc = "{cc}"
[[claims]]
text = "{name}: a 10 Mbit/s link delivers at most 10.1 Mbit/s in order"
metric = "total"
at_most = 10100
"""


@pytest.fixture
def study(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "experiments" / "toy"
    folder.mkdir(parents=True)
    (folder / "two.toml").write_text(SCENARIO)
    (folder / "light.toml").write_text(PART.format(name="light", heavy="", cc="newreno"))
    (folder / "heavy.toml").write_text(PART.format(name="heavy", heavy="heavy = true", cc="cubic"))
    monkeypatch.setenv("CCLAB_EXPERIMENTS", str(folder.parent))
    return folder


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cclab", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=300)


def _said(process) -> str:
    return " ".join(process.stderr.split())


def test_list_marks_heavy_parts(study):
    listed = _cli("reproduce", "--list").stdout.splitlines()
    assert listed == [f"toy-heavy\t{study / 'heavy.toml'}\theavy", f"toy-light\t{study / 'light.toml'}"]


def test_a_full_run_leaves_heavy_parts_out_unless_asked(study, tmp_path):
    where = ["--store", str(tmp_path / "store"), "--out", str(tmp_path / "out"), "--jobs", "1"]
    full = _cli("reproduce", "toy", *where)
    assert full.returncode == 0, full.stderr
    # One run (the light part's), and a line that names the part left out and how to run it.
    assert "toy: left out, heavy: heavy (add --with-heavy, or name one with --only, to run it)" in _said(full)
    assert "toy: 1 runs (0 reused, 1 computed, 0 failed)" in _said(full)
    named = _cli("reproduce", "toy", "--only", "heavy", *where)
    assert named.returncode == 0 and "left out" not in named.stderr
    assert "toy: 1 runs (0 reused, 1 computed, 0 failed)" in _said(named)
    both = _cli("reproduce", "toy", "--with-heavy", *where)
    assert "toy: 2 runs (2 reused, 0 computed, 0 failed)" in _said(both) and "left out" not in both.stderr
    # Quick mode runs every part: a heavy part's quick runs are as small as the others'.
    quick = _cli("reproduce", "toy", "--quick", *where)
    assert "toy: 2 runs (0 reused, 2 computed, 0 failed)" in _said(quick) and "left out" not in quick.stderr


PAGE = """# toy

<!-- numbers: toy/source -->
{pending}<!-- /numbers -->

<!-- numbers: toy/findings -->
{pending}<!-- /numbers -->
"""


def _toy_findings(values: doc_numbers.Values) -> str:
    missing = doc_numbers.left_out(values)
    shown = [e for e in ("toy-light", "toy-heavy") if e not in missing]
    return findings(values, shown) + "".join(f"\n{doc_numbers.not_run(values, e)}.\n" for e in missing)


def _toy_checkout(tmp_path, monkeypatch) -> Path:
    checkout = tmp_path / "checkout"
    page = checkout / "docs/reproductions/toy.md"
    page.parent.mkdir(parents=True)
    (checkout / "README.md").write_text("# toy checkout\n")
    page.write_text(PAGE.format(pending=doc_numbers.PENDING.format(study="toy")))
    monkeypatch.setitem(doc_numbers.PAGES, "toy", ["docs/reproductions/toy.md"])
    monkeypatch.setattr(doc_numbers, "REPORT_FILES", doc_numbers.REPORT_FILES | {"toy"})
    monkeypatch.setitem(doc_numbers.RENDERERS, "toy/source", doc_numbers.source_with_left_out)
    monkeypatch.setitem(doc_numbers.RENDERERS, "toy/findings", _toy_findings)
    monkeypatch.chdir(checkout)
    return checkout


def _invoker(tmp_path):
    store = ["--store", str(tmp_path / "store"), "--out", str(tmp_path / "out"), "--jobs", "1"]
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(cli, ["reproduce", "toy", *args, *store], catch_exceptions=True)
    return invoke


def test_write_docs_goes_without_a_heavy_part_not_stored_and_the_page_says_so(study, tmp_path, monkeypatch):
    checkout = _toy_checkout(tmp_path, monkeypatch)
    page = checkout / "docs/reproductions/toy.md"
    invoke = _invoker(tmp_path)

    # Nothing stored: the light part's run is missing, and only it is asked for.
    empty = invoke("--write-docs")
    assert isinstance(empty.exception, CclabError)
    assert "1 of 1 runs of toy are not in the store" in str(empty.exception)

    assert invoke().exit_code == 0                      # the full study without its heavy part
    written = invoke("--write-docs")
    assert written.exit_code == 0, written.output
    text = page.read_text()
    assert "- toy-heavy: not run (heavy part; 0 of 1 runs stored): `cclab reproduce toy --only heavy` computes it" in text
    assert "\ntoy-heavy: not run (heavy part; 0 of 1 runs stored).\n" in text
    assert "| light: a 10 Mbit/s link delivers at most 10.1 Mbit/s in order | **holds** |" in text
    data = checkout / "docs/reproductions/data"
    assert json.loads((data / "toy-source.json").read_text())["left_out"] == [
        {"experiment": "toy-heavy", "runs_stored": 0, "runs": 1, "why": "heavy"}]
    assert "toy-heavy" not in (data / "toy-values.csv").read_text()
    assert doc_numbers.check_docs(checkout, "toy") == []
    # --with-heavy asks for the heavy part's runs too, and they are not stored.
    strict = invoke("--write-docs", "--with-heavy")
    assert isinstance(strict.exception, CclabError)
    assert "1 of 2 runs of toy are not in the store" in str(strict.exception)

    # Once the heavy part is stored, --write-docs takes it in without being asked.
    assert invoke("--only", "heavy").exit_code == 0
    assert invoke("--write-docs").exit_code == 0
    text = page.read_text()
    assert "Every part of the study is in these values, the heavy ones included." in text and "not run" not in text
    assert "| heavy: a 10 Mbit/s link delivers at most 10.1 Mbit/s in order | **holds** |" in text
    assert "left_out" not in json.loads((data / "toy-source.json").read_text())
    assert "toy-heavy,cubic,1 BDP,total" in (data / "toy-values.csv").read_text()
    assert doc_numbers.check_docs(checkout, "toy") == []


def test_without_leaves_a_part_out_of_a_run_and_of_the_docs_and_the_page_says_so(study, tmp_path, monkeypatch):
    """A study written before one of its parts was run (`--without PART`): the pages name the part and how
    many of its runs are stored; a part named so but wholly stored goes in as any other."""
    checkout = _toy_checkout(tmp_path, monkeypatch)
    page = checkout / "docs/reproductions/toy.md"
    invoke = _invoker(tmp_path)
    both = invoke("--with-heavy", "--without", "light")
    assert both.exit_code == 0, both.output
    assert "toy: 1 runs (0 reused, 1 computed, 0 failed)" in " ".join(both.output.split())
    clash = invoke("--without", "light", "--only", "heavy")
    assert isinstance(clash.exception, CclabError) and "--without" in str(clash.exception)
    nothing = invoke("--without", "light")                 # the heavy part is left out too, unasked
    assert isinstance(nothing.exception, CclabError) and "every part of toy is left out" in str(nothing.exception)
    unknown = invoke("--without", "nothing")
    assert isinstance(unknown.exception, CclabError) and "no experiment matches part nothing" in str(unknown.exception)

    written = invoke("--write-docs", "--without", "light")
    assert written.exit_code == 0, written.output
    text = page.read_text()
    assert "- toy-light: not run (left out with --without; 0 of 1 runs stored): `cclab reproduce toy --only light` computes it" in text
    assert "| heavy: a 10 Mbit/s link delivers at most 10.1 Mbit/s in order | **holds** |" in text
    data = checkout / "docs/reproductions/data"
    assert json.loads((data / "toy-source.json").read_text())["left_out"] == [
        {"experiment": "toy-light", "runs_stored": 0, "runs": 1, "why": "without"}]
    assert doc_numbers.check_docs(checkout, "toy") == []

    assert invoke("--only", "light").exit_code == 0
    assert invoke("--write-docs", "--without", "light").exit_code == 0
    assert "left_out" not in json.loads((data / "toy-source.json").read_text())
    assert "not run" not in page.read_text()
