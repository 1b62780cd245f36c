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


# --- seed 001: blocks rendered from the stored full study, pending until it is run ------------------------

SEED001_PAGE = "docs/reproductions/seed001.md"
SEED003_PAGE = "docs/reproductions/seed003.md"


def _seed001_values(findings=None, **means):
    """Values for every experiment, row, cell and metric of seed 001's full study (so every block can
    render), each 0.5 unless `means` gives it: {(experiment, row, cell, metric): mean}."""
    from cclab.experiment import list_experiments, load_experiment
    rows = []
    for experiment, path in list_experiments().items():
        if not experiment.startswith("seed001-"):
            continue
        spec = load_experiment(path).spec
        for metric in spec.metrics:
            for row in spec.rows:
                for cell in spec.cells:
                    mean = means.get("values", {}).get((experiment, row.name, cell.name, metric.name), 0.5)
                    rows.append({"experiment": experiment, "row": row.name, "cell": cell.name, "metric": metric.name,
                                 "mean": str(mean), "std": "0", "min": str(mean), "max": str(mean), "seeds": "1",
                                 "paper": "", "ns2": "", "verdict": ""})
    meta = {"cclab_version": "0.1.0+engine.1ee98dd7c0e2", "runs": 669, "date": "2026-11-24", "how": "a test"}
    return Values(rows, "synthetic", meta, findings if findings is not None else _seed001_findings())


def _seed001_findings():
    """Every finding of seed 001's experiment files, each holding (the report's claims.csv lines)."""
    from cclab.experiment import list_experiments, load_experiment
    return [{"experiment": experiment, "finding": claim.text, "status": "holds", "paper": "p", "cclab": "c",
             "difference": "+0", "detail": "d"}
            for experiment, path in list_experiments().items() if experiment.startswith("seed001-")
            for claim in load_experiment(path).spec.claims]


def test_the_seed001_page_is_rendered_from_the_full_study():
    # Since 2026-11-24 the full study's values are committed (docs/reproductions/data/seed001-*): every block
    # is rendered from them, none still waits, and --check-docs agrees with the page.
    from cclab.doc_numbers import PENDING
    assert values_path(REPO, "seed001").exists()
    assert check_docs(REPO, "seed001") == []
    text = (REPO / SEED001_PAGE).read_text(encoding="utf-8")
    names = block_names(text)
    assert names[0] == "seed001/source" and "seed001/figure11" in names and "seed001/findings-figure12" in names
    assert len(names) == 26 and PENDING.format(study="seed001") not in text


def test_a_number_typed_into_a_seed001_block_is_found(tmp_path):
    # A checkout with the committed values: a line added by hand to a rendered block is found.
    page = tmp_path / SEED001_PAGE
    page.parent.mkdir(parents=True)
    shutil.copytree(values_path(REPO, "seed001").parent, values_path(tmp_path, "seed001").parent)
    committed = (REPO / SEED001_PAGE).read_text(encoding="utf-8")
    page.write_text(committed)
    assert check_docs(tmp_path, "seed001") == []
    page.write_text(committed.replace("<!-- numbers: seed001/figure11 -->\n",
                                      "<!-- numbers: seed001/figure11 -->\n| CTCP | 1.9 |\n"))
    assert check_docs(tmp_path, "seed001") == [page]


@pytest.mark.parametrize("study, page_path, block, typed", [
    ("seed001", SEED001_PAGE, "seed001/figure11", "| CTCP | 1.9 |"),
    ("seed003", SEED003_PAGE, "seed003/table3", "| STCP | 253.2 |"),
])
def test_a_pending_page_is_checked_before_the_full_run(tmp_path, study, page_path, block, typed):
    # A checkout without the values (as before the full run): every block must say it is not rendered yet;
    # a number typed into one is found, and a misspelt block is found now, not after the full run.
    from cclab.doc_numbers import pending_page
    page = tmp_path / page_path
    page.parent.mkdir(parents=True)
    pending = pending_page((REPO / page_path).read_text(encoding="utf-8"), study)
    page.write_text(pending)
    assert check_docs(tmp_path, study) == []
    page.write_text(pending.replace(f"<!-- numbers: {block} -->\n", f"<!-- numbers: {block} -->\n{typed}\n"))
    assert check_docs(tmp_path, study) == [page]
    page.write_text(pending.replace(f"{block} -->", f"{block}-x -->"))
    with pytest.raises(DocsError, match=f"no renderer for block\\(s\\) {block}-x"):
        check_docs(tmp_path, study)


def test_every_seed001_block_renders_from_a_full_study():
    # Every block of the page has a renderer, and the full study's plan holds every value each needs.
    text = (REPO / SEED001_PAGE).read_text(encoding="utf-8")
    findings = _seed001_findings() + [{"experiment": "seed001-figure12", "finding": "12(c): low [ratio < 0.25]", "status": "fails",
                 "paper": "below 0.250 x Reno + Reno (baseline): 10.0", "cclab": "12.0 (CTCP + Reno @ c)",
                 "difference": "+2.000", "detail": "reno below row Reno + Reno (baseline): 12.0 not < 10.0"}]
    rendered = render_page(text, _seed001_values(findings))
    assert "Not rendered yet" not in rendered
    assert "Values: the full run of `cclab 0.1.0+engine.1ee98dd7c0e2` (669 runs), 2026-11-24; a test." in rendered
    # The failure is listed with its verdict, the paper's value as read, cclab's and the difference.
    assert ("| 12(c): low [ratio < 0.25] | **FAILS** | below 0.250 x Reno + Reno (baseline): 10.0 | "
            "12.0 (CTCP + Reno @ c) | +2.000 |") in rendered


def test_seed001_tables_put_each_value_in_its_place():
    from cclab.doc_seed001 import figure11, figure12, findings_count
    f12, f11 = "seed001-figure12", "seed001-figure11"
    cell = "bw=1000 delay=100 qsize=0.1"
    values = {(f12, "CTCP + Reno", cell, "reno"): 30.0, (f12, "Reno + Reno (baseline)", cell, "reno"): 400.0,
              (f11, "CTCP", "(b) RTT ratio 10", "ratio"): 1.912, (f11, "BIC", "(a) RTT ratio 10", "ratio"): 493.4,
              (f11, "Reno", "(a) RTT ratio 4", "ratio"): 18.04}
    table12 = figure12(_seed001_values(values=values))
    # 30 / 400 = 0.075, in the 1000 Mbit/s, 0.1 BDP line's 100 ms column (the last); the others 0.5 / 0.5.
    assert "| 1000 Mbit/s, 0.1 BDP | 0.5 / 0.5 = **1.00** | 0.5 / 0.5 = **1.00** | 30.0 / 400.0 = **0.07** |" in table12
    table11 = figure11(_seed001_values(values=values))
    # Two decimals below 10, one below 100, none above: 1.912 -> 1.91, 18.04 -> 18.0, 493.4 -> 493.
    assert "| (b) 1000 Mbit/s, 0.5 BDP: CTCP | 0.50 | 0.50 | 0.50 | 0.50 | 0.50 | 1.91 |" in table11
    assert "| (a) 100 Mbit/s, 0.1 BDP: BIC | 0.50 | 0.50 | 0.50 | 0.50 | 0.50 | 493 |" in table11
    assert "| (a) 100 Mbit/s, 0.1 BDP: Reno | 0.50 | 0.50 | 18.0 | 0.50 | 0.50 | 0.50 |" in table11
    # Two findings of figure 3 (one holds, one fails) and one of figure 12 not checked: 3 in all.
    counted = findings_count(_seed001_values([
        {"experiment": "seed001-figure3", "status": "holds"}, {"experiment": "seed001-figure3", "status": "fails"},
        {"experiment": "seed001-figure12", "status": "not checked"}]))
    assert counted.startswith("The study has 3 findings: **1 hold, 1 fail**, 1 not checked.")
    assert "| figure3 | 1 | 1 | 0 |" in counted and "| figure12 | 0 | 0 | 1 |" in counted


def test_writing_seed001_keeps_the_reports_findings_and_figures(tmp_path):
    # What --write-docs does after the report is written: the values (here a two-line file), the findings
    # and the figures kept, then the page rendered; --check-docs agrees afterwards.
    from cclab.doc_numbers import claims_path, keep_report
    root = tmp_path / "checkout"
    (root / SEED001_PAGE).parent.mkdir(parents=True)
    shutil.copy(REPO / SEED001_PAGE, root / SEED001_PAGE)
    report = tmp_path / "results" / "seed001"
    report.mkdir(parents=True)
    (report / "claims.csv").write_text("experiment,finding,status,paper,cclab,difference,paper_value,cclab_value,"
                                       "difference_value,detail\nseed001-figure11,f,holds,p,c,+1,,,,d\n")
    (report / "figure11.png").write_bytes(b"png 11")
    (report / "figure1-ctcp-paper.png").write_bytes(b"png 1")
    kept = keep_report(root, "seed001", report)
    figures = root / "docs/reproductions/figures/seed001"
    assert kept == [claims_path(values_path(root, "seed001")), figures / "figure1-ctcp-paper.png", figures / "figure11.png"]
    assert (figures / "figure11.png").read_bytes() == b"png 11"
    assert keep_report(root, "seed000", report) == []     # seed 000's page keeps its own figures
    # A values file missing a value the page needs is named, not rendered half.
    values_path(root, "seed001").write_text("experiment,row,cell,metric,unit,mean,std,min,max,seeds,paper,ns2,verdict\n")
    (root / "docs/reproductions/data/seed001-source.json").write_text('{"cclab_version": "v", "runs": 1, '
                                                                      '"date": "d", "how": "h"}')
    with pytest.raises(DocsError, match="no value for seed001-figure1 / CTCP \\(paper\\) / 100Mbps 50ms 0.2BDP / goodput"):
        write_docs(root, "seed001")


def test_write_docs_for_seed001_needs_every_run_stored(tmp_path):
    process = run_cli("reproduce", "seed001", "--write-docs", "--store", str(tmp_path / "empty"), cwd=REPO)
    assert process.returncode == 2
    assert "runs of seed001 are not in the store" in process.stderr


def test_write_docs_refuses_a_study_without_a_rendered_page(tmp_path):
    # A study of one's own ($CCLAB_EXPERIMENTS) has no page with blocks: --write-docs must say so before it
    # measures anything or writes a values file that no page reads; --check-docs the same.
    import os
    import subprocess
    import sys
    from test_heavy_parts import PART, SCENARIO
    folder = tmp_path / "experiments" / "toy"
    folder.mkdir(parents=True)
    (folder / "two.toml").write_text(SCENARIO)
    (folder / "light.toml").write_text(PART.format(name="light", heavy="", cc="newreno"))
    env = {**os.environ, "PYTHONPATH": str(REPO / "python"), "CCLAB_EXPERIMENTS": str(folder.parent)}
    for flag in ("--write-docs", "--check-docs"):
        process = subprocess.run([sys.executable, "-m", "cclab", "reproduce", "toy", flag, "--store",
                                  str(tmp_path / "empty")], cwd=REPO, env=env, capture_output=True, text=True,
                                 timeout=300)
        assert process.returncode == 2, process.stderr
        said = " ".join(process.stderr.split())
        assert "toy has no page with generated numbers" in said
        assert "seed000, seed001, seed002, seed003" in said
    assert not values_path(REPO, "toy").exists()


def test_write_docs_for_seed002_needs_every_run_stored(tmp_path):
    # Seed 002's page is rendered like the others' since session 11: no refusal, but every run must be stored.
    process = run_cli("reproduce", "seed002", "--write-docs", "--store", str(tmp_path / "empty"), cwd=REPO)
    assert process.returncode == 2
    assert "4200 of 4200 runs of seed002 are not in the store" in process.stderr


# --- seed 003: blocks rendered from the stored full study, pending until it is run ------------------------

SEED003_BLOCKS = ["seed003/source", "seed003/findings-count", "seed003/response", "seed003/response-realised",
                  "seed003/findings-response",
                  "seed003/figure2", "seed003/findings-figure2", "seed003/table3", "seed003/table2",
                  "seed003/findings-table2-3", "seed003/figure3", "seed003/findings-figure3", "seed003/figure5",
                  "seed003/findings-figure5", "seed003/utilisation", "seed003/findings-utilisation",
                  "seed003/figure9", "seed003/findings-figure9", "seed003/sensitivity",
                  "seed003/findings-sensitivity", "seed003/sensitivity-table3",
                  "seed003/findings-sensitivity-table3", "seed003/red", "seed003/findings-red",
                  "seed003/figure10-11", "seed003/findings-figure10-11"]
HEAVY_LEFT_OUT = [{"experiment": "seed003-response-1e-8", "runs_stored": 0, "runs": 4}]


def _study_values(study, meta, values=None, left_out=(), seeds=None):
    """Values and findings for every experiment, row, cell and metric of `study`'s full study, as
    write_values_csv and the report's claims.csv give them: each mean 0.5 (sd 0.1, range 0.4-0.6, over
    `seeds` seeds, or the experiment's replications; percentiles 10 / 50 / 90 / 99 of 0.41, 0.5, 0.59,
    0.6) unless `values` gives a Value-like tuple (mean, std, low, high, seeds[, percentiles]) for it; the
    paper's value from the experiment file; every finding holds. The experiments in `left_out` have no
    line."""
    from cclab.experiment import list_experiments, load_experiment
    rows, findings = [], []
    for experiment, path in list_experiments().items():
        if not experiment.startswith(f"{study}-") or experiment in left_out:
            continue
        loaded = load_experiment(path)
        spec = loaded.spec
        for metric in spec.metrics:
            for row in spec.rows:
                paper = loaded.row_values(row, "paper", metric.name)
                for c, cell in enumerate(spec.cells):
                    default = (0.5, 0.1, 0.4, 0.6, seeds or spec.replications)
                    given = (values or {}).get((experiment, row.name, cell.name, metric.name), default)
                    mean, std, low, high, n = given[:5]
                    percentiles = given[5] if len(given) > 5 else (0.41, 0.5, 0.59, 0.6)
                    rows.append({"experiment": experiment, "row": row.name, "cell": cell.name, "metric": metric.name,
                                 "mean": str(mean), "std": str(std), "min": str(low), "max": str(high),
                                 "seeds": str(n), "paper": str(paper[c]) if paper and paper[c] >= 0 else "",
                                 "ns2": "", "verdict": "",
                                 **{f"p{p}": str(x) for p, x in zip((10, 50, 90, 99), percentiles)}})
        findings += [{"experiment": experiment, "finding": claim.text, "status": "holds", "paper": "p", "cclab": "c",
                      "difference": "+0", "detail": "d"} for claim in spec.claims]
    return Values(rows, "synthetic", meta, findings)


def _seed003_values(values=None, left_out=()):
    """Seed 003's full study (`_study_values`); the source says the experiments in `left_out` were left out
    (as --write-docs records a heavy part not stored)."""
    meta = {"cclab_version": "0.1.0+engine.99002c9fa2f8", "runs": 400, "date": "2026-11-24", "how": "a test"}
    if left_out:
        meta["left_out"] = [e for e in HEAVY_LEFT_OUT if e["experiment"] in left_out]
    return _study_values("seed003", meta, values, left_out)


def _seed003_blocks(page: str) -> str:
    """The blocks' bodies of a page, one after the other (the hand-written text around them is left out)."""
    from cclab.doc_numbers import BLOCK
    return "".join(m.group("body") for m in BLOCK.finditer(page))


def test_the_seed003_page_has_its_blocks_and_agrees_with_its_data():
    # Before the full study is stored and rendered every block says it is not rendered yet; after, the page
    # is what the committed values give. check_docs tells both apart.
    assert check_docs(REPO, "seed003") == []
    assert block_names((REPO / SEED003_PAGE).read_text(encoding="utf-8")) == SEED003_BLOCKS


def test_every_seed003_block_renders_from_a_full_study():
    text = (REPO / SEED003_PAGE).read_text(encoding="utf-8")
    rendered = _seed003_blocks(render_page(text, _seed003_values()))
    assert "Not rendered yet" not in rendered and "not run" not in rendered
    assert "Every part of the study is in these values, the heavy ones included." in rendered
    assert "Values: the full run of `cclab 0.1.0+engine.99002c9fa2f8` (400 runs), 2026-11-24; a test." in rendered


def test_a_heavy_part_left_out_is_named_wherever_it_would_show():
    # seed003-response-1e-8 not stored: the source, the response table (its p = 1e-8 column), the response
    # findings and the count each say so; nothing else is missing.
    text = (REPO / SEED003_PAGE).read_text(encoding="utf-8")
    rendered = _seed003_blocks(render_page(text, _seed003_values(left_out=("seed003-response-1e-8",))))
    said = "seed003-response-1e-8: not run (heavy part; 0 of 4 runs stored)"
    assert f"- {said}: `cclab reproduce seed003 --only response-1e-8` computes it" in rendered
    assert rendered.count(f"{said}: its findings are not checked.") == 2     # findings-count, findings-response
    assert f"\n{said}.\n" in rendered                                          # under the response table
    # One column of each response table (at the p given, at the rate realised), in each of the five
    # protocols' lines.
    assert rendered.count("| not run |") == 10
    assert "Every part of the study" not in rendered


def test_seed003_tables_put_each_value_in_its_place():
    from cclab.doc_seed003 import figure2, response, table2_3
    values = _seed003_values({
        # Table 3, STCP at RTT ratio 6: five seeds from 200.0 to 310.0, mean 253.2.
        ("seed003-table2-3", "STCP", "2500 Mbit/s, RTT ratio 6", "ratio"): (253.2, 40.0, 200.0, 310.0, 5),
        # Fig. 2, DropTail 50 % at 2.5 Gbit/s: 0.588 ± 0.037 over [0.547, 0.621].
        ("seed003-figure2", "HSTCP", "DropTail 2500 Mbit/s", "sync50"): (0.588, 0.037, 0.547, 0.621, 5),
        # HSTCP at p = 1e-5: 1888 against the curve's 1795.48 (response.toml): +5.15 % -> "+5 %".
        ("seed003-response", "HSTCP", "p=1e-05", "window"): (1888.0, 0.0, 1888.0, 1888.0, 1),
        # BIC at p = 1e-6: 10453 against 14117.84: -25.96 % -> "−26 %"; AIMD at 1e-5: 4892 against 4898.98,
        # -0.142 % -> "−0.1 %" (one decimal under 1 %).
        ("seed003-response-low", "BIC", "p=1e-06", "window"): (10453.0, 0.0, 10453.0, 10453.0, 1),
        ("seed003-response", "AIMD(32, 0.125)", "p=1e-05", "window"): (4892.0, 0.0, 4892.0, 4892.0, 1)})
    # Ratios of 100 and more without decimals (253.2 -> 253), the paper's Table 3 value 389.13 beside them.
    assert "| 253 [200, 310] (389.13) | 0.500 / 0.500 / 0.500 |" in table2_3(values, 2500)
    assert "| DropTail, 50 % |" in figure2(values)
    assert "| 0.588 ± 0.037 [0.547, 0.621] (paper ≈ 0.6) |" in figure2(values)
    shown = response(values)
    assert "| 1 888 / 1 795 (+5 %) |" in shown
    assert "| 10 453 / 14 118 (\u221226 %) |" in shown
    assert "| 4 892 / 4 899 (\u22120.1 %) |" in shown
    # STCP has no p = 1e-8 row in response-1e-8 (its window would need 8-13 GB): said, not left blank.
    stcp = next(line for line in shown.splitlines() if line.startswith("| STCP |"))
    assert stcp.endswith("| not simulated |")


def test_write_docs_for_seed003_needs_every_light_run_stored(tmp_path):
    # The heavy part (response-1e-8) is not asked for, so the count is of the other parts' runs.
    from cclab.experiment import is_heavy, list_experiments, load_experiment
    from cclab.reproduce import missing_runs
    light = [load_experiment(path) for e, path in list_experiments().items()
             if e.startswith("seed003-") and not is_heavy(path)]
    _, total = missing_runs(light, tmp_path / "empty")
    process = run_cli("reproduce", "seed003", "--write-docs", "--store", str(tmp_path / "empty"), cwd=REPO)
    assert process.returncode == 2
    assert f"{total} of {total} runs of seed003 are not in the store" in process.stderr


# --- seed 002: the predictions, Section 5 and the findings rendered from the stored full study ------------

SEED002_PAGE = "docs/reproductions/seed002.md"
SEED002_BLOCKS = ["seed002/source", "seed002/timeout-time", "seed002/distributions-downlink",
                  "seed002/distributions-uplink", "seed002/replications", "seed002/downlink", "seed002/section5",
                  "seed002/samples-downlink", "seed002/uplink", "seed002/samples-uplink", "seed002/transfers",
                  "seed002/findings-count", "seed002/findings-downlink", "seed002/findings-uplink",
                  "seed002/findings-transfers-down", "seed002/findings-transfers-up"]


def _seed002_values(values=None):
    """Seed 002's full study (`_study_values`): 100 seeds each unless `values` gives a (mean, std, seeds) or
    (mean, std, seeds, percentiles 10 / 50 / 90 / 99)."""
    meta = {"cclab_version": "0.1.0+engine.83ce76e329f2", "runs": 4200, "date": "2026-11-25", "how": "a test"}
    full = {key: (given[0], given[1], 0.4, 0.6, given[2], *given[3:]) for key, given in (values or {}).items()}
    return _study_values("seed002", meta, full, seeds=100)


def test_the_seed002_page_has_its_blocks_and_agrees_with_its_data():
    # The page's generated blocks, in order, and --check-docs agrees with the committed values.
    assert block_names((REPO / SEED002_PAGE).read_text(encoding="utf-8")) == SEED002_BLOCKS
    assert check_docs(REPO, "seed002") == []
    assert run_cli("reproduce", "seed002", "--check-docs", cwd=REPO).returncode == 0


def test_every_seed002_block_renders_from_a_full_study():
    text = (REPO / SEED002_PAGE).read_text(encoding="utf-8")
    rendered = _seed003_blocks(render_page(text, _seed002_values()))
    assert "Values: the full run of `cclab 0.1.0+engine.83ce76e329f2` (4200 runs), 2026-11-25; a test." in rendered
    # 20 findings: 10 downlink, 7 uplink, 1 downlink and 2 uplink transfers.
    assert "The study has 20 findings: **20 hold, 0 fail**." in rendered
    assert "| downlink | 10 | 0 | 0 |" in rendered and "| transfers-up | 2 | 0 | 0 |" in rendered


def test_seed002_tables_put_each_value_in_its_place():
    from cclab.doc_seed002 import downlink, replications, section5, timeout_time, transfers, uplink
    d, u, t = "seed002-downlink", "seed002-uplink", "seed002-transfers-down"
    one = "flows=1"

    def one_flow_down(measure, means, seeds=100, sds=(0, 0, 0)):
        """One downlink flow's `measure` for NewReno, BIC and Westwood+: (mean, sd, seeds) each."""
        return {(d, alg, one, measure): (mean, sd, seeds)
                for alg, mean, sd in zip(("NewReno", "BIC", "Westwood+"), means, sds)}

    values = _seed002_values({
        # One downlink flow: goodput 149.04 / 149.66 / 146.61 kbit/s; sd over 100 flows 63.0, 60.0, 0.1: standard
        # errors 6.3, 6.0, 0.01 kbit/s, the largest NewReno's, 6.3 / 149.04 = 4.2 % of its mean.
        **one_flow_down("goodput", (149.04, 149.66, 146.61), sds=(63.0, 60.0, 0.1)),
        # Utilisation 0.399, 0.4005, 0.392: in per cent 39.9, 40.05, 39.2 -> "39-40"; the estimate's share 0.125,
        # 0.123, 0.127 -> "12-13"; timeouts 4.93, 4.84, 5.40 -> "4.8-5.4"; RTO 2.53, 2.56, 2.34 -> "2.34-2.56".
        **one_flow_down("utilisation", (0.399, 0.4005, 0.392)),
        **one_flow_down("timeout_share", (0.125, 0.123, 0.127), seeds=1),
        **one_flow_down("timeouts", (4.93, 4.84, 5.40)),
        **one_flow_down("rto", (2.53, 2.56, 2.34)),
        # Each flow's own N_tout x T0 (11.31, 11.66, 11.5) against the product of the means (12.5, 12.3, 12.7).
        **one_flow_down("timeout_time", (11.31, 11.66, 11.5)),
        **one_flow_down("timeout_estimate", (12.5, 12.3, 12.7), seeds=1),
        # One uplink flow: the three algorithms alike (55.07 kbit/s) print one value; the paper's three stay.
        **{(u, row, one, "goodput"): (55.07, 1.61, 100) for row in ("NewReno", "BIC", "Westwood+")},
        # Downlink transfers, NewReno: 121.9, 100.0, 148.4, 151.1 kbit/s at 50-500 KB: (151.1 - 100.0) / 130.35
        # = 0.392 -> "0.39".
        (t, "NewReno", "KB=50", "goodput"): (121.9, 0, 100), (t, "NewReno", "KB=100", "goodput"): (100.0, 0, 100),
        (t, "NewReno", "KB=200", "goodput"): (148.4, 0, 100), (t, "NewReno", "KB=500", "goodput"): (151.1, 0, 100)})
    down = downlink(values)
    # cclab's three means, then the paper's (Table 1 of the study, as downlink.toml keeps its digits).
    assert ("| goodput per flow, kbit/s | 149.0, 149.7, 146.6 / 122.03, 133.98, 138.58 | 0.5 / 86.08, 85.82, 90.41 "
            "| 0.5 / 80.13, 83.83, 82.46 |") in down
    # Jain's index has no meaning with one flow: the cell is empty; the paper's 0.94 for all three is said once.
    assert "| Jain's index |  | 0.500 / 0.94 | 0.500 / 0.86 |" in down
    # Section 5's estimate is the study's for one flow only (35 s): the 2- and 4-flow cells have no paper value.
    assert "| E[t_out] = E[N_tout] E[T0], s | 12.5, 12.3, 12.7 / 35 | 0.5 | 0.5 |" in down
    assert "| goodput per flow, kbit/s | 55.1 / 56.44, 57.51, 55.62 |" in uplink(values)
    assert "E(T0)" not in uplink(values) and "| E(T0), s | 2.53, 2.56, 2.34 | 0.50 | 0.50 |" in down
    assert "| downlink, NewReno | 121.9 | 100.0 | 148.4 | 151.1 | 0.39 |" in transfers(values)
    assert section5(values) == ("In the model the single-flow utilisation is 39-40 %, and the timeouts take 12-13 % "
                                "of the time by the study's estimate: the model gives 4.8-5.4 timeouts per 100 s, but "
                                "an RTO of 2.34-2.56 s on average where the estimate needs 6.6 s.\n")
    assert timeout_time(values) == ("With one downlink flow the mean of the flows' own products is 11.3-11.7 s, the "
                                    "product of the means 12.3-12.7 s.\n")
    assert replications(values) == ("100 flows give a standard error of the single-flow downlink goodput of 6.3 kbit/s "
                                    "(4 % of its mean) at most.\n")


# --- seed 002: the RTT and queueing-time distributions (Figs. 4-5, "Measures") from the stored study ------

def test_the_values_a_reproduction_writes_keep_the_pooled_percentiles(tmp_path):
    # One downlink cell's RTT samples pooled over its flows: 10, 20, ..., 1000 ms. numpy's percentiles
    # (linear between the sorted values): 10th 109, median 505, 90th 901, 99th 990.1.
    import numpy as np
    from cclab.experiment import load_experiment, plan_experiment
    from cclab.reproduce import ExperimentOutcome, Reproduction
    from cclab.reproduction_report import write_values_csv

    experiment = load_experiment(REPO / "python/cclab/studies/seed002/downlink.toml")
    outcome = ExperimentOutcome(plan_experiment(experiment, quick=False), store=None)
    outcome.values = {("rtt_samples", 0, 0): np.arange(1, 101) * 10.0}
    path = tmp_path / "seed002-values.csv"
    write_values_csv(Reproduction("seed002", False, [outcome], sweep_report=None, wall_s=0.0), path)
    values = Values.read(path)
    assert values.percentiles("seed002-downlink", "NewReno", "flows=1", "rtt_samples") == \
        pytest.approx((109.0, 505.0, 901.0, 990.1))
    assert values.get("seed002-downlink", "NewReno", "flows=1", "rtt_samples").mean == 505.0


def test_values_written_before_the_percentiles_were_kept_are_an_error_naming_them(tmp_path):
    path = tmp_path / "seed002-values.csv"
    path.write_text("experiment,row,cell,metric,unit,mean,std,min,max,seeds,paper,ns2,verdict,clipped_mean\n"
                    "seed002-downlink,NewReno,flows=1,rtt_samples,,1461.8,1382.5,291.1,13528.4,98977,1550.0,,,\n")
    with pytest.raises(DocsError, match="no percentiles for seed002-downlink / NewReno / flows=1 / rtt_samples"):
        Values.read(path).percentiles("seed002-downlink", "NewReno", "flows=1", "rtt_samples")


def test_seed002_distributions_are_rendered_from_the_values():
    from cclab.doc_seed002 import distributions_downlink, distributions_uplink, samples_downlink, samples_uplink
    d, u = "seed002-downlink", "seed002-uplink"
    stored = {
        # One downlink flow, NewReno, as the full study of 2026-11-25 (engine 549ae0a1cb47) stores it: each
        # metric's percentiles 10 / 50 / 90 / 99 and mean, ms; the flows' own ACK means average 1365.
        (d, "NewReno", "flows=1", "rtt_samples"): (1461.75, 1382.5, 98977, (485.2, 1038.0, 2921.6, 7549.4)),
        (d, "NewReno", "flows=1", "rtt_acks"): (1212.39, 1039.6, 74542, (484.0, 943.9, 2072.3, 5872.0)),
        (d, "NewReno", "flows=1", "queueing_samples"): (1087.0, 1300.0, 98977, (144.0, 676.0, 2498.0, 7084.0)),
        (d, "NewReno", "flows=1", "queueing_acks"): (853.28, 1015.9, 74542, (152.0, 601.0, 1643.0, 5421.0)),
        (d, "NewReno", "flows=1", "ack_rtt"): (1365.2, 600.0, 100),
        # BIC's median 1051 with two flows, Westwood+'s 99th percentile 6781 with one.
        (d, "BIC", "flows=2", "rtt_samples"): (1700.0, 1400.0, 197000, (583.0, 1214.0, 3528.0, 8034.0)),
        (d, "Westwood+", "flows=1", "rtt_samples"): (1303.0, 1300.0, 98000, (433.0, 905.0, 2589.0, 6781.0)),
        # One uplink flow: the three algorithms print alike in every column but one (the queueing time of
        # every ACK, 882 against 881 for BIC and Westwood+): three lines. Two uplink flows print alike: one.
        **{(u, row, "flows=1", "queueing_acks"): (mean, 60.0, 7000, (768.0, 896.0, 996.0, 1109.0))
           for row, mean in (("NewReno", 881.6), ("BIC", 881.4), ("Westwood+", 881.4))},
        **{(u, row, "flows=1", "rtt_samples"): (1455.0, 90.0, 99000, (1358.0, 1468.0, 1550.0, 1640.0))
           for row in ("NewReno", "BIC", "Westwood+")}}
    values = _seed002_values(stored)
    down = distributions_downlink(values)
    assert down.splitlines()[0] == ("| downlink | RTT, samples (time) | RTT, every ACK | t_q, samples | t_q, every ACK "
                                    "| mean of flows' ACK means |")
    assert ("| 1 flow, NewReno | 485/1038/2922/7549, 1462 | 484/944/2072/5872, 1212 | 144/676/2498/7084, 1087 "
            "| 152/601/1643/5421, 853 | 1365 |") in down
    assert "| 2 flows, BIC | 583/1214/3528/8034, 1700 |" in down
    up = distributions_uplink(values)
    assert "| 1 flow, NewReno | 1358/1468/1550/1640, 1455 | 0/0/1/1, 0 | 0/0/1/1, 0 | 768/896/996/1109, 882 |" in up
    assert "| 1 flow, BIC |" in up and "768/896/996/1109, 881 |" in up
    assert "| 2 flows (all three alike) | 0/0/1/1, 0 |" in up and "| 2 flows, BIC |" not in up
    samples = samples_downlink(values)
    assert samples.splitlines()[0] == "| downlink (NewReno, BIC, Westwood+; one value: all three) | RTT samples | queueing-time samples |"
    assert "| 1 flow | 485/1038/2922/7549, 0/0/1/1, 433/905/2589/6781 | 144/676/2498/7084, 0/0/1/1, 0/0/1/1 |" in samples
    assert "| 2 flows | 0/0/1/1, 583/1214/3528/8034, 0/0/1/1 |" in samples
    # The uplink's single flow prints one value for the three algorithms.
    assert "| 1 flow | 1358/1468/1550/1640 | 0/0/1/1 |" in samples_uplink(values)


def test_a_percentile_edited_in_the_seed002_page_fails_the_check(tmp_path):
    # The committed page and values in a checkout: a hand edit of one percentile inside the "Measures"
    # table is found by --check-docs, and --write-docs puts the stored number back.
    page = tmp_path / SEED002_PAGE
    page.parent.mkdir(parents=True)
    shutil.copytree(values_path(REPO, "seed002").parent, values_path(tmp_path, "seed002").parent)
    (tmp_path / "README.md").write_text("a checkout\n")   # what marks the checkout's root for the CLI
    committed = (REPO / SEED002_PAGE).read_text(encoding="utf-8")
    typed = "| 1 flow, NewReno | 485/1038/2922/7549, 1462 |"
    assert typed in committed
    page.write_text(committed.replace(typed, "| 1 flow, NewReno | 485/1038/2900/7549, 1462 |"))
    assert check_docs(tmp_path, "seed002") == [page]
    process = run_cli("reproduce", "seed002", "--check-docs", cwd=tmp_path)
    assert process.returncode == 1
    assert ("error: docs/reproductions/seed002.md: its numbers are not those of "
            "docs/reproductions/data/seed002-values.csv") in process.stderr
    assert write_docs(tmp_path, "seed002") == [page]
    assert page.read_text(encoding="utf-8") == committed
