"""The HTML reports, opened in a real browser (headless Chromium, tests/browser.py): a reproduction study's
page (full and quick), a stored sweep's page and the index across them load with no console error, every
figure is embedded and decodes, and a screenshot of each page is kept as an artefact (build/artifacts/
report-html/, or $CCLAB_ARTIFACTS/report-html/) for a person to look at.

Chromium missing: a skip on a developer's machine, a failure in CI (scripts/setup-browser.sh installs it).
"""

from __future__ import annotations

import os
import re
from markupsafe import escape  # as jinja2 escapes
from pathlib import Path

import pytest

from browser import Chromium, find_chromium
from engine_required import in_ci, need

need("cclab._engine")

from cclab.executors import LocalPool  # noqa: E402
from cclab.experiment import load_experiment  # noqa: E402
from cclab.html_report import write_index  # noqa: E402
from cclab.reproduce import reproduce  # noqa: E402
from cclab.reproduction_report import QUICK_NOTE, write_study_report  # noqa: E402
from cclab.stored_sweep_report import write_sweep_report  # noqa: E402
from cclab.sweep import load_sweep  # noqa: E402
from cclab.sweeper import run_sweep  # noqa: E402
from cclab.store import StudyStore, results_version  # noqa: E402

from test_experiment import SCENARIO  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# Two flows on a 10 Mbit/s link (tests/test_experiment.py's scenario, RTT about 22 ms, so 1 BDP is about
# 18 packets and 0.2 BDP about 4). The "paper" values are made up so that NewReno's 0.2 BDP cell is inside
# its tolerance (two flows deliver about 3.5 Mbit/s through a 4-packet buffer here: within 20 % of 3,500
# kbit/s) and its 1 BDP cell outside (9.9 Mbit/s against 5,000 kbit/s +- 20 %), and one statement is
# checked in two parts (one marked for quick mode), as seed 000 Table II's "in both placements" is.
TOY = """
id = "toy-html"
title = "Toy: two flows & <one> 10 Mbit/s link"
description = "Made-up paper values: one cell inside its tolerance, one outside."
scenario = "two.toml"
replications = 2
set = ["flows.0.start_jitter=500ms", "flows.1.start_jitter=500ms"]
[axis]
field = "network.bottleneck.queue.size"
values = ["0.2bdp", "1bdp"]
x = [0.2, 1.0]
label = "B/BDP"
[[metrics]]
name = "total"
[[metrics]]
name = "jain"
of = "jain"
[[rows]]
name = "NewReno"
cc = "newreno"
paper = { total = [3500, 5000] }
check = { total = [0.2, 0.2] }
ns2 = { total = [9500, -1] }
[[rows]]
name = "CUBIC"
cc = "cubic"
[[figures]]
kind = "window"
[[figures]]
kind = "lines"
metric = "total"
[[claims]]
text = "Both algorithms deliver at least 8 Mbit/s with a buffer of 1 BDP"
metric = "total"
rows = ["NewReno"]
cells = ["B/BDP=1"]
at_least = 8000
quick = true
[[claims]]
text = "Both algorithms deliver at least 8 Mbit/s with a buffer of 1 BDP"
metric = "total"
rows = ["CUBIC"]
cells = ["B/BDP=1"]
at_least = 8000
[[claims]]
text = "Jain's index stays above 0.5"
metric = "jain"
at_least = 0.5
"""

SHORT = SCENARIO.replace('duration = "20s"', 'duration = "4s"').replace('measure_from = "10s"', 'measure_from = "1s"')
# Two points, two replications each, of a scenario with no random element: the replications are the same run.
SWEEP = SHORT + """
[sweep]
replications = 2
[sweep.grid]
"flows.0.cc" = ["newreno", "cubic"]
"""
# One point whose start times are drawn from the seed: its replications differ.
JITTERED = SHORT + """
[sweep]
replications = 2
[sweep.grid]
"flows.0.start_jitter" = ["500ms"]
"""
IDENTICAL_NOTE = "Every point's replications gave identical results"


def require_chromium() -> str:
    """Chromium's path; without it a skip on a developer's machine and a failure in CI."""
    executable = find_chromium()
    if executable is None:
        message = ("Chromium is needed to test the HTML reports in a browser: install it with "
                   "scripts/setup-browser.sh (Debian's chromium package), or set $CCLAB_CHROMIUM")
        if in_ci():
            pytest.fail(message + "; CI must not skip this test")
        pytest.skip(message)
    return executable


@pytest.fixture(scope="module")
def chromium():
    with Chromium(require_chromium()) as browser:
        yield browser


@pytest.mark.parametrize("ci", ["true", ""])
def test_without_chromium_ci_fails_and_a_developer_skips(monkeypatch, tmp_path, ci):
    monkeypatch.setenv("PATH", str(tmp_path))      # no chromium, chromium-browser or google-chrome there
    monkeypatch.delenv("CCLAB_CHROMIUM", raising=False)
    monkeypatch.setenv("CI", ci)
    expected = pytest.fail.Exception if ci else pytest.skip.Exception
    with pytest.raises(expected, match="Chromium is needed"):
        require_chromium()


@pytest.fixture(scope="module")
def artifacts() -> Path:
    folder = Path(os.environ.get("CCLAB_ARTIFACTS") or REPO / "build" / "artifacts") / "report-html"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """A full and a quick reproduction of the toy study, a stored sweep, and the index over the three."""
    root = tmp_path_factory.mktemp("report-html")
    folder = root / "experiments" / "toy"
    folder.mkdir(parents=True)
    (folder / "two.toml").write_text(SCENARIO)
    (folder / "html.toml").write_text(TOY)
    experiment = load_experiment(folder / "html.toml")
    out = root / "results"
    full = write_study_report(reproduce([experiment], root / "store", LocalPool(2)), out / "toy")
    quick = write_study_report(reproduce([experiment], root / "store", LocalPool(2), quick=True), out / "toy-quick")
    swept = {}
    for name, text in (("toy-sweep", SWEEP), ("jittered", JITTERED)):
        (root / f"{name}.toml").write_text(text)
        sweep = load_sweep(root / f"{name}.toml")
        run_sweep(sweep, StudyStore(root / "store", sweep.study, results_version()), LocalPool(2))
        swept[name] = write_sweep_report(sweep.study, root / "store", out / sweep.study)
    return {"full": full, "quick": quick, "sweep": swept["toy-sweep"], "jittered": swept["jittered"],
            "index": write_index(out)}


def _self_contained(html: str) -> None:
    """Nothing the page needs lives outside it: every src is a data: URI, no stylesheet or script is linked."""
    sources = re.findall(r'\ssrc="([^"]*)"', html)
    assert sources and all(s.startswith("data:image/png;base64,") for s in sources)
    assert "<script" not in html and "<link" not in html and "url(" not in html


def _shown(chromium: Chromium, path: Path, artifacts: Path, name: str, figures: int):
    page = chromium.load(path)
    assert page.errors == []
    assert len(page.images) == figures
    for image in page.images:
        assert image["complete"] and image["width"] > 0 and image["height"] > 0, image
    shot = artifacts / f"{name}.png"
    shot.write_bytes(page.screenshot)
    assert page.screenshot.startswith(PNG_MAGIC) and len(page.screenshot) > 10_000
    return page


def test_study_page_loads_with_every_figure_colours_cells_and_merges_findings(chromium, artifacts, pages):
    report = pages["full"]
    figures = [f for e in report.experiments for f in e.figures]
    assert len(figures) == 3          # a window figure per row, one lines figure
    page = _shown(chromium, report.html_path, artifacts, "study-toy", len(figures))
    assert page.title == "cclab reproduction of toy"
    html = report.html_path.read_text()
    _self_contained(html)
    # NewReno's cells: inside the tolerance at 0.2 BDP, outside at 1 BDP; CUBIC's have no paper value.
    newreno = report.experiments[0].tables[0].rows[0]
    assert newreno[0] == "NewReno" and [cell.verdict for cell in newreno[1]] == ["ok", "off"]
    assert html.count('class="num ok"') == 1 and html.count('class="num off"') == 1
    assert "paper 3,500.0 (" in html and "ns-2 9,500.0 (" in html           # differences beside them
    # NewReno's two cells are held to the paper within 20 % (check = 0.2), and the page says so.
    assert html.count('<span class="tolerance" title="held to within ±20% of this value">±20%</span>') == 2
    # The statement checked in two parts is one finding; the page escapes what it quotes.
    assert html.count("Both algorithms deliver at least 8 Mbit/s with a buffer of 1 BDP") == 1
    assert [(f.status, f.text) for f in report.experiments[0].findings] == [
        ("holds", "Both algorithms deliver at least 8 Mbit/s with a buffer of 1 BDP"),
        ("holds", "Jain's index stays above 0.5")]
    assert "two flows &amp; &lt;one&gt; 10 Mbit/s link" in html
    assert escape(QUICK_NOTE) not in html


def test_quick_page_warns_at_the_top_and_gives_every_unchecked_finding_its_reason(chromium, artifacts, pages):
    report = pages["quick"]
    figures = [f for e in report.experiments for f in e.figures]
    _shown(chromium, report.html_path, artifacts, "study-toy-quick", len(figures))
    html = report.html_path.read_text()
    _self_contained(html)
    assert html.index('<div class="banner"') < html.index("<table")
    assert escape(QUICK_NOTE) in html
    # Quick runs are not comparable: the paper's value is shown, no difference from it, no verdict.
    assert "paper 3,500.0</span>" in html and 'class="num off"' not in html and 'class="tolerance"' not in html
    findings = {f.text: f for f in report.experiments[0].findings}
    both = findings["Both algorithms deliver at least 8 Mbit/s with a buffer of 1 BDP"]
    assert both.status == "partly checked"
    # The toy runs two seeds: part 1 says it holds on their mean and on each alone.
    assert both.reason == ("part 1 (rows NewReno) holds: on the mean of 2 seeds: total at least 8,000: 1 comparisons; "
                           "holds on 2 of 2 seeds alone; "
                           "part 2 (rows CUBIC) not checked: not a quick-mode finding: quick mode has runs of 2 s "
                           "instead of 20 s, too little for it to hold reliably; the full study checks it")
    assert findings["Jain's index stays above 0.5"].status == "not checked"
    assert findings["Jain's index stays above 0.5"].reason.startswith("not a quick-mode finding: quick mode has runs of 2 s instead of 20 s")
    assert html.count("Both algorithms deliver at least 8 Mbit/s with a buffer of 1 BDP") == 1


def test_sweep_page_and_index_load_with_their_figures(chromium, artifacts, pages):
    sweep = pages["sweep"]
    assert [row[:2] for row in sweep.rows] == [["cubic", "2"], ["newreno", "2"]]
    _shown(chromium, sweep.html_path, artifacts, "sweep-toy", 2)
    html = sweep.html_path.read_text()
    _self_contained(html)
    # Replications of a scenario without randomness are the same run: the page says so above the table.
    assert html.index(escape(IDENTICAL_NOTE)) < html.index("<table")
    jittered = pages["jittered"]
    assert jittered.rows[0][:2] == ["500ms", "2"] and jittered.notes == []
    assert escape(IDENTICAL_NOTE) not in jittered.html_path.read_text()
    index = chromium.load(pages["index"])
    assert index.errors == [] and index.title == "cclab reports"
    (artifacts / "index.png").write_bytes(index.screenshot)
    html = pages["index"].read_text()
    # Reproductions first, a study's full page before its quick one, then sweeps by name.
    assert re.findall(r'href="([^"]+/report.html)"', html) == [
        "toy/report.html", "toy-quick/report.html", "jittered/report.html", "toy-sweep/report.html"]


def test_the_browser_check_sees_a_broken_page(chromium, tmp_path):
    """The checks above can fail: a console error, an exception and two broken pictures are all reported."""
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><head><title>broken</title></head><body>'
                    '<img alt="missing" src="nope.png"><img alt="junk" src="data:image/png;base64,AAAA">'
                    '<script>console.error("boom"); notDefined();</script></body></html>')
    loaded = chromium.load(page)
    assert loaded.title == "broken"
    assert [image["width"] for image in loaded.images] == [0, 0]
    assert any(e == "console.error: boom" for e in loaded.errors)
    assert any(e.startswith("exception: ReferenceError: notDefined is not defined") for e in loaded.errors)
    assert any("nope.png" in e for e in loaded.errors)
