"""What `cclab reproduce` prints: quick runs without differences from the paper, the warning on the
terminal, a clipped rate beside the measured one, and why a finding was not checked."""

from pathlib import Path

from rich.console import Console

from cclab.claims import check_claim
from cclab.experiment import load_experiment, plan_experiment
from cclab.reproduce import ExperimentOutcome, Reproduction
from cclab.reproduction_report import MEASURE_NOTE, cell, terminal_header, terminal_view
from cclab.sweeper import SweepReport

from test_experiment import write  # the toy experiment: rows reno-cubic (paper 9000, 9500) and reno


def outcome(tmp_path: Path, quick: bool) -> ExperimentOutcome:
    plan = plan_experiment(load_experiment(write(tmp_path)), quick=quick)
    result = ExperimentOutcome(plan, store=None)
    # Row 0 at cell 1 (B/BDP=1): 9,900 kbit/s in order, 9,800 clipped to what crossed the link.
    result.values = {("total", 0, 1): [9900.0, 9900.0]}
    result.clipped = {("total", 0, 1): [9800.0, 9800.0]}
    result.claims = [check_claim(claim, plan, result.means()) for claim in plan.experiment.spec.claims]
    return result


def render(renderable, width: int = 80) -> str:
    console = Console(width=width, record=True)
    console.print(renderable)
    return console.export_text()


def test_quick_cells_show_the_paper_without_a_difference(tmp_path):
    metric = plan_experiment(load_experiment(write(tmp_path))).experiment.metric("total")
    full = cell(outcome(tmp_path, quick=False), metric, 0, 1).lines()
    assert full[:3] == ["9,900.0 ± 0.0", "[9,900.0, 9,900.0] n=2", "clipped 9,800.0"]
    assert full[3].startswith("paper 9,500.0 +4.2%")
    quick = cell(outcome(tmp_path, quick=True), metric, 0, 1).lines()
    assert quick[-1] == "paper 9,500.0"


def test_terminal_warns_of_quick_mode_and_explains_clipping(tmp_path):
    quick = outcome(tmp_path, quick=True)
    reproduction = Reproduction("toy", True, [quick], SweepReport(planned=4, already_stored=4, already_failed=0, to_run=0), 1.0)
    text = " ".join((render(terminal_header(reproduction)[0]) + render(terminal_header(reproduction)[1])).split())
    assert "quick mode: shorter runs" in text.lower() and "no differences are shown" in text
    assert "clipped" in text and " ".join(MEASURE_NOTE.split()[:6]) in " ".join(text.split())
    # The toy's one finding is not a quick-mode one: the terminal says why, under it (a reason shared by
    # several findings is given once, under the table, marked *).
    view = " ".join(render(terminal_view(quick), width=300).split())
    assert "not checked" in view
    assert "not a quick-mode finding: quick mode has runs of 2 s instead of 20 s" in view
