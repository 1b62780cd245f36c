"""The numbers of README.md and docs/reproductions/seed000.md are written from the study's values
(cclab.doc_numbers, `cclab reproduce seed000 --write-docs`), so a page cannot drift from its data."""

import shutil

import pytest

from cclab.doc_numbers import (DocsError, Values, block_names, check_docs, percent, render_page, values_path,
                               write_docs)
from conftest import REPO, run_cli

PAGES = ["README.md", "docs/reproductions/seed000.md"]


def checkout(tmp_path):
    """A copy of the pages and their values, as a source checkout would hold them."""
    for name in PAGES + ["docs/reproductions/data/seed000-values.csv", "docs/reproductions/data/seed000-source.json"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, tmp_path / name)
    return tmp_path


def test_the_committed_pages_are_what_their_values_give():
    # If this fails, a number was edited by hand or the values changed without the pages: run
    # `cclab reproduce seed000 --write-docs` (from the stored study) instead of editing the tables.
    assert check_docs(REPO, "seed000") == []
    names = [name for page in PAGES for name in block_names((REPO / page).read_text(encoding="utf-8"))]
    assert names == ["seed000/readme-table1", "seed000/readme-agreement", "seed000/source", "seed000/table1",
                     "seed000/table1-agreement", "seed000/figure9-10", "seed000/table2", "seed000/figure11-12",
                     "seed000/figure13"]


def test_writing_the_docs_puts_back_a_number_edited_by_hand(tmp_path):
    root = checkout(tmp_path)
    readme, page = root / "README.md", root / "docs/reproductions/seed000.md"
    committed = {p: p.read_text(encoding="utf-8") for p in (readme, page)}
    # Hand edits inside blocks: the README's NewReno cell and Table II's first cclab value.
    readme.write_text(committed[readme].replace("| NewReno, B = 0.1 BDP | 162,337 |", "| NewReno, B = 0.1 BDP | 162,000 |"))
    page.write_text(committed[page].replace("| STCP | NewReno | 197,826 ± 15 |", "| STCP | NewReno | 197,800 ± 15 |"))
    assert sorted(check_docs(root, "seed000")) == sorted([readme, page])
    process = run_cli("reproduce", "seed000", "--check-docs", cwd=root)
    assert process.returncode == 1
    assert "error: README.md: its numbers are not those of docs/reproductions/data/seed000-values.csv" in process.stderr
    assert sorted(write_docs(root, "seed000")) == sorted([readme, page])
    assert {p: p.read_text(encoding="utf-8") for p in (readme, page)} == committed
    assert run_cli("reproduce", "seed000", "--check-docs", cwd=root).returncode == 0


def test_text_outside_the_blocks_is_left_alone(tmp_path):
    root = checkout(tmp_path)
    readme = root / "README.md"
    edited = readme.read_text(encoding="utf-8").replace("## Results so far", "## Results so far (edited)")
    readme.write_text(edited, encoding="utf-8")
    assert check_docs(root, "seed000") == []
    assert write_docs(root, "seed000") == [] and readme.read_text(encoding="utf-8") == edited


def test_a_value_the_data_lacks_is_an_error_naming_it(tmp_path):
    root = checkout(tmp_path)
    path = values_path(root, "seed000")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if not line.startswith("seed000-figure13,CUBIC,50 flows,g_last")))
    with pytest.raises(DocsError, match="no value for seed000-figure13 / CUBIC / 50 flows / g_last"):
        check_docs(root, "seed000")


def test_values_without_their_source_are_an_error(tmp_path):
    # The page says which engine's run its numbers are; values that do not say it cannot be shown.
    root = checkout(tmp_path)
    (root / "docs/reproductions/data/seed000-source.json").unlink()
    with pytest.raises(DocsError, match="no seed000-source.json beside it says what made the values"):
        check_docs(root, "seed000")


def test_a_block_without_a_renderer_is_an_error():
    text = "<!-- numbers: seed000/table9 -->\nold\n<!-- /numbers -->\n"
    with pytest.raises(DocsError, match="no renderer for block\\(s\\) seed000/table9"):
        render_page(text, Values([], "none"))


def test_differences_are_written_as_the_pages_write_them():
    # 162,336.6 against the paper's 162,113.4: +0.138 % -> "+0.1 %"; against ns-2.35's 162,378.1: -0.026 %.
    assert percent(162336.6, 162113.4) == "+0.1 %"
    assert percent(162336.6, 162378.1) == "\u22120.0 %"
    assert percent(200000.0, 200000.0) == "0.0 %"
    assert percent(179924.6, 194521.7) == "\u22127.5 %"


def test_write_docs_needs_every_run_stored(tmp_path):
    process = run_cli("reproduce", "seed000", "--write-docs", "--store", str(tmp_path / "empty"), cwd=REPO)
    assert process.returncode == 2
    assert "383 of 383 runs of seed000 are not in the store" in process.stderr
    assert "run `cclab reproduce seed000` first" in process.stderr


def test_the_values_a_reproduction_writes_are_the_values_the_pages_read(tmp_path):
    # A full-mode outcome of Table I with two seeds in one cell (NewReno, 0.1 BDP, RTT 100 ms: 162,000 and
    # 162,600 kbit/s, mean 162,300, sd 424.26), through write_values_csv and back.
    from cclab.experiment import load_experiment, plan_experiment
    from cclab.reproduce import ExperimentOutcome, Reproduction
    from cclab.reproduction_report import write_values_csv

    experiment = load_experiment(REPO / "python/cclab/studies/seed000/table1.toml")
    outcome = ExperimentOutcome(plan_experiment(experiment, quick=False), store=None)
    outcome.values = {("goodput", 0, 0): [162_000.0, 162_600.0]}
    path = tmp_path / "seed000-values.csv"
    write_values_csv(Reproduction("seed000", False, [outcome], sweep_report=None, wall_s=0.0), path)
    value = Values.read(path).get("seed000-table1", "NewReno", "B=0.1BDP RTT=100ms", "goodput")
    assert (value.mean, value.low, value.high, value.seeds) == (162_300.0, 162_000.0, 162_600.0, 2)
    assert abs(value.std - 424.264) < 1e-3
    # The references come from table1.toml; 162,300 is within 3 % of the paper's 162,113.4: "ok".
    assert (value.paper, value.ns2, value.verdict) == (162113.4, 162378.1, "ok")
    assert not Values.read(path).has("seed000-table1", "STCP", "B=0.1BDP RTT=100ms", "goodput")
