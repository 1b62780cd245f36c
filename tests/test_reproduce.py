"""`cclab reproduce`: experiments run through the store (reused, resumed), are measured and reported; and
seed 000 in quick mode, whose findings marked `quick = true` must hold."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine_required import need  # noqa: E402

need("cclab._engine")

from cclab.executors import LocalPool  # noqa: E402
from cclab.experiment import list_experiments, load_experiment  # noqa: E402
from cclab.reproduce import reproduce  # noqa: E402
from cclab.reproduction_report import write_study_report  # noqa: E402

from test_experiment import SCENARIO  # noqa: E402

TOY = """
id = "toy-part"
title = "toy"
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
name = "total_windowed"
window = ["10s", "20s"]
[[metrics]]
name = "early"
window = ["1s", "5s"]
unit = "Mbit/s"
[[metrics]]
name = "jain"
of = "jain"
[[rows]]
name = "NewReno"
cc = "newreno"
[[rows]]
name = "CUBIC"
cc = "cubic"
[[figures]]
kind = "window"
[[figures]]
kind = "lines"
metric = "total"
[[figures]]
kind = "bars"
metrics = ["early", "total"]
[[claims]]
text = "a 10 Mbit/s link delivers at most 10.1 Mbit/s in order over 10 s"
metric = "total"
at_most = 10100
quick = true
"""


@pytest.fixture
def toy(tmp_path) -> Path:
    folder = tmp_path / "experiments" / "toy"
    folder.mkdir(parents=True)
    (folder / "two.toml").write_text(SCENARIO)
    (folder / "part.toml").write_text(TOY)
    return folder / "part.toml"


def test_runs_are_measured_reported_and_reused(toy, tmp_path):
    experiment = load_experiment(toy)
    first = reproduce([experiment], tmp_path / "store", LocalPool(2))
    assert (first.sweep_report.planned, first.sweep_report.done) == (8, 8)
    outcome = first.outcomes[0]
    assert not outcome.errors
    for r in range(2):
        for c in range(2):
            total = outcome.values[("total", r, c)]
            # In-order delivery over a window can exceed the link rate by what a repaired hole releases at
            # once: at most a window (about 20 packets of BDP + 1 BDP of buffer, 0.5 Mbit) over 10 s.
            assert len(total) == 2 and all(0 < v <= 10_050 for v in total)
            # The engine's figure over [10 s, 20 s] and the one from the delivered series agree.
            assert outcome.values[("total_windowed", r, c)] == pytest.approx(total, rel=1e-9)
            assert 0.5 <= outcome.stats("jain", r, c).mean <= 1.0
    # Start times are drawn per seed, so the two replications differ.
    assert len(set(outcome.values[("total", 0, 0)])) == 2
    # Each seed's values, for claims checked seed by seed, are the same numbers, by replication.
    assert sorted(outcome.by_seed) == [0, 1]
    assert [outcome.by_seed[k][("total", 0, 0)] for k in (0, 1)] == list(outcome.values[("total", 0, 0)])
    assert [claim.status for claim in outcome.claims] == ["holds"]
    assert outcome.claims[0].detail.endswith("holds on 2 of 2 seeds alone")

    again = reproduce([experiment], tmp_path / "store", LocalPool(2))
    assert (again.sweep_report.already_stored, again.sweep_report.done) == (8, 0)
    assert again.outcomes[0].values.keys() == outcome.values.keys()
    assert all(np.array_equal(again.outcomes[0].values[key], values) for key, values in outcome.values.items())

    report = write_study_report(again, tmp_path / "out")
    text = report.markdown_path.read_text()
    assert "| NewReno |" in text and "**holds**" in text and "± " in text
    pictures = sorted(p.name for p in (tmp_path / "out").glob("*.png"))
    assert pictures == ["toy-part-bars-2.png", "toy-part-lines-1.png", "toy-part-window-0-cubic.png",
                        "toy-part-window-0-newreno.png"]
    assert (tmp_path / "out" / "values.csv").read_text().count("\n") == 1 + 4 * 2 * 2
    # One finding, with the paper's value, cclab's deciding value and the difference beside it.
    assert "| finding | paper (our reading) | cclab | difference | verdict | why |" in text
    claims = (tmp_path / "out" / "claims.csv").read_text().splitlines()
    assert len(claims) == 2 and claims[0].startswith("experiment,finding,status,paper,cclab,difference")


def _cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cclab", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=600)


def test_cli_lists_runs_and_refuses_unknown_parts(toy, tmp_path):
    env = {"CCLAB_EXPERIMENTS": str(toy.parents[1])}
    assert _cli("reproduce", "--list", env=env).stdout.split() == ["toy-part", str(toy)]
    bad = _cli("reproduce", "toy", "--only", "nope", env=env)
    assert bad.returncode != 0 and "no experiment matches part nope of 'toy'; studies: toy; parts of toy: part" in bad.stderr
    done = _cli("reproduce", "toy", "--quick", "--store", str(tmp_path / "s"), "--out", str(tmp_path / "o"), env=env)
    assert done.returncode == 0, done.stderr
    assert "toy: 8 runs (0 reused, 8 computed, 0 failed); findings: 1 hold, 0 fail" in " ".join(done.stderr.split())
    assert (tmp_path / "o" / "toy-quick" / "report.md").exists()
    assert (tmp_path / "o" / "toy-quick" / "report.html").exists() and (tmp_path / "o" / "index.html").exists()
    # The terminal warns before its tables too, not only the pages.
    assert done.stdout.startswith("toy: Quick mode: shorter runs, fewer points and seeds; the numbers are not comparable")
    # `cclab report` rebuilds the pages from the store alone: nothing is computed, the quick runs are found.
    again = _cli("report", "toy", "--store", str(tmp_path / "s"), "--out", str(tmp_path / "r"), env=env)
    assert again.returncode == 0, again.stderr
    assert "toy (quick): 8 runs: 8 found in the store, 0 computed, 0 failed; findings: 1 hold" in again.stderr
    assert (tmp_path / "r" / "toy-quick" / "report.html").exists() and not (tmp_path / "r" / "toy").exists()
    assert 'href="toy-quick/report.html"' in (tmp_path / "r" / "index.html").read_text()
    none = _cli("report", "toy", "--full", "--store", str(tmp_path / "s"), "--out", str(tmp_path / "r"), env=env)
    assert none.returncode != 0 and "toy: no run stored in" in none.stderr
    unknown = _cli("report", "nope", "--store", str(tmp_path / "s"), env=env)
    assert unknown.returncode != 0 and "no stored runs of 'nope'" in unknown.stderr
    # No study named and an empty store: an error saying how to store runs (it wrote an empty index page).
    empty = _cli("report", "--store", str(tmp_path / "empty"), "--out", str(tmp_path / "e"), env=env)
    assert empty.returncode != 0 and "nothing to report: no stored run in" in empty.stderr
    assert "cclab reproduce STUDY" in empty.stderr and not (tmp_path / "e" / "index.html").exists()


def test_seed000_quick_reproduction_holds_its_quick_findings(tmp_path):
    """The README's main job: every part of seed 000 in quick mode. The findings marked `quick = true` hold
    even in 200 s runs (they follow from the buffer arithmetic, not from the long-run averages); the rest
    are checked on the full runs (docs/reproductions/seed000.md)."""
    experiments = [load_experiment(path) for name, path in list_experiments().items() if name.startswith("seed000-")]
    assert [e.id for e in experiments] == ["seed000-table1", "seed000-figure9-10", "seed000-table2",
                                          "seed000-figure11", "seed000-figure12", "seed000-figure13"]
    result = reproduce(experiments, tmp_path / "store", LocalPool(2), quick=True)
    assert result.sweep_report.failed == 0
    for outcome in result.outcomes:
        assert not outcome.errors, outcome.errors
    quick_claims = [(o.experiment.id, c) for o in result.outcomes
                    for spec, c in zip(o.experiment.spec.claims, o.claims) if spec.quick]
    assert len(quick_claims) >= 8
    failing = [f"{experiment}: {claim.text}: {claim.detail}" for experiment, claim in quick_claims
               if claim.status != "holds"]
    assert not failing, "\n".join(failing)
    report = write_study_report(result, tmp_path / "out")
    for figure in ("figure9.png", "figure10.png", "figure11.png", "figure12.png", "figure13.png"):
        assert (tmp_path / "out" / figure).exists()
    assert report.markdown_path.read_text().count("\n## ") == 6


def test_seed001_quick_reproduction_holds_its_quick_findings(tmp_path):
    """Seed 001 (Compound TCP) in quick mode: 50-100 s runs on the 100 Mbit/s configurations (and a few
    short 1 Gbit/s and 200 Mbit/s ones). The findings marked `quick = true` follow from how big the queue is
    against CTCP's gamma = 30 packets, and hold in short runs; the rest are checked on the full runs
    (docs/reproductions/seed001.md)."""
    experiments = [load_experiment(path) for name, path in list_experiments().items()
                   if name.startswith("seed001-")]
    assert [e.id for e in experiments] == [
        "seed001-figure1", "seed001-figure3", "seed001-figure4a", "seed001-figure4b", "seed001-figure5",
        "seed001-figure6", "seed001-figure7", "seed001-figure8-9", "seed001-figure10", "seed001-figure11",
        "seed001-figure12", "seed001-figure13", "seed001-figure14", "seed001-reverse-traffic"]
    result = reproduce(experiments, tmp_path / "store", LocalPool(2), quick=True)
    assert result.sweep_report.failed == 0
    for outcome in result.outcomes:
        assert not outcome.errors, outcome.errors
    quick_claims = [(o.experiment.id, c) for o in result.outcomes
                    for spec, c in zip(o.experiment.spec.claims, o.claims) if spec.quick]
    assert len(quick_claims) >= 19
    failing = [f"{experiment}: {claim.text}: {claim.detail}" for experiment, claim in quick_claims
               if claim.status != "holds"]
    assert not failing, "\n".join(failing)
    report = write_study_report(result, tmp_path / "out")
    for figure in ("figure1-ctcp-paper.png", "figure1-ctcp-ns-2-35-linux-port.png", "figure3.png", "figure4b.png",
                   "figure5.png", "figure8-ctcp.png", "figure9-ctcp.png",
                   "figure10-ctcp.png", "figure11.png", "figure12.png", "figure13a-ctcp.png", "figure13b-ctcp.png",
                   "figure14-ctcp.png", "reverse-traffic.png"):
        assert (tmp_path / "out" / figure).exists(), figure
    text = report.markdown_path.read_text()
    assert text.count("\n## ") == 14
    # A grid's table has a line per cell (18 quick cells of Figure 3) and a column per row.
    assert "| cell | CTCP |" in text and "| bw=100 delay=20 per=1e-07 qsize=0.1 |" in text


def test_seed002_quick_reproduction_measures_every_run_and_writes_its_figures(tmp_path):
    """Seed 002 (UMTS) in quick mode: 420 runs of 100 s at 384 kbit/s, 10 replications per cell, a few
    seconds in all. Every run is measured, per-flow figures (flows = "each") included, and the report has
    its CDFs; its findings are checked on the full study's 100 replications (docs/reproductions/seed002.md)."""
    experiments = [load_experiment(path) for name, path in list_experiments().items()
                   if name.startswith("seed002-")]
    assert sorted(e.id for e in experiments) == ["seed002-downlink", "seed002-transfers-down",
                                                 "seed002-transfers-up", "seed002-uplink"]
    result = reproduce(experiments, tmp_path / "store", LocalPool(2), quick=True)
    assert result.sweep_report.failed == 0
    for outcome in result.outcomes:
        assert not outcome.errors, outcome.errors
    downlink = next(o for o in result.outcomes if o.experiment.id == "seed002-downlink")
    # flows = "each" pools every flow of every replication: 4 flows x 10 replications in the 4-flow cells.
    assert len(downlink.values[("goodput", 0, 2)]) == 40
    # flows = "samples" pools every 100-ms sample: 1001 per flow over [0, 100 s] (0 s included), less the
    # few before the flow's first RTT measurement (it starts within 1 s, and its first ACK comes at least
    # 0.3 s later): 10 flows give 9,900-10,010.
    assert 9_900 <= len(downlink.values[("rtt_samples", 0, 0)]) <= 10_010
    # The study's E[t_out] = E[N_tout] E[T0]: one value per cell, the product of the two cell means.
    product = downlink.values[("timeout_estimate", 0, 0)]
    assert len(product) == 1 and product[0] == pytest.approx(
        np.mean(downlink.values[("timeouts", 0, 0)]) * np.mean(downlink.values[("rto", 0, 0)]))
    report = write_study_report(result, tmp_path / "out")
    assert report.markdown_path.read_text().count("\n## ") == 4
    pictures = {p.name for p in (tmp_path / "out").iterdir()}
    assert {"fig4-downlink-rtt-queueing-cdf.png", "fig5-uplink-rtt-queueing-cdf.png",
            "section5-downlink-utilisation-timeouts.png"} <= pictures


def test_seed003_quick_response_and_rtt_fairness_quick_findings(tmp_path):
    """Seed 003 (BIC) in quick mode, the response-function experiment (one flow, random loss), Tables 2-3 at
    100 Mbit/s with the Section II background, and Fig. 5's BIC modes (one run). Fig. 2 is left out: two of
    its quick findings fail in 60 s runs (docs/reproductions/seed003.md). One response finding fails as in the
    full runs (below)."""
    experiments = [load_experiment(path) for name, path in list_experiments().items()
                   if name in ("seed003-response", "seed003-table2-3", "seed003-figure5")]
    result = reproduce(experiments, tmp_path / "store", LocalPool(2), quick=True)
    assert result.sweep_report.failed == 0
    for outcome in result.outcomes:
        assert not outcome.errors, outcome.errors
    quick_claims = [(o.experiment.id, c) for o in result.outcomes
                    for spec, c in zip(o.experiment.spec.claims, o.claims) if spec.quick]
    assert len(quick_claims) == 6
    failing = [f"{experiment}: {claim.text}: {claim.detail}" for experiment, claim in quick_claims
               if claim.status != "holds"]
    # One quick finding fails, as it does in the full runs: the paper reads Fig. 8's order off the analytic
    # curves (STCP 800 > BIC 656 at p = 1e-4), and the simulated windows are BIC's real-valued one 16 % above
    # its curve and STCP's mean 8 % below its own (full runs: BIC 760, STCP 735; quick: 722 and 663;
    # docs/reproductions/seed003.md, "seed003-response").
    order = [f for f in failing if "at p = 1e-4 STCP has the largest window" in f]
    assert len(order) == 1 and "not > BIC" in order[0], order
    others = [f for f in failing if f not in order]
    assert not others, "\n".join(others)
