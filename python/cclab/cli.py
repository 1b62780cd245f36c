"""The `cclab` command: run a scenario, list algorithms, reproduce a study, run sweeps, query results.

Errors a person can fix (any CclabError) are one red `error: ...` line per problem on stderr and exit
status 2, never a traceback; Ctrl-C exits with 130 and SIGTERM with 143, both after winding down. Stdout
carries only the requested output, so `cclab run x.toml --json | jq` always sees clean JSON.

Only click and cclab's own errors are imported with this module; everything else (rich, pydantic, the
engine, pandas) inside the command that needs it, so `cclab --version` answers at once and `cclab run`
starts without pandas or matplotlib (tests/test_startup.py holds this).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import threading
import time
import warnings
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .errors import CclabError

if TYPE_CHECKING:
    from rich.console import Console

EXIT_ERROR = 2          # as click's usage errors: the command line or its input is wrong
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what shells report for Ctrl-C
EXIT_TERMINATED = 143   # 128 + SIGTERM, what shells report for a process ended by `kill`


def _stderr() -> Console:
    from rich.console import Console

    # soft_wrap: an error stays one line however narrow the terminal, so scripts can grep it.
    return Console(stderr=True, soft_wrap=True, highlight=False)


def _stdout() -> Console:
    # Rich assumes 80 columns when stdout is a file or pipe, which wraps the flow table's headings;
    # a saved report reads better unwrapped.
    from rich.console import Console

    # $COLUMNS, when set, wins either way (rich reads it): a person checking the 80-column layout.
    return Console() if sys.stdout.isatty() or os.environ.get("COLUMNS") else Console(width=120)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """`cclab --version`: the package's version and the fingerprint of the engine it runs, the two halves
    of the version results are stored under (cclab.store.results_version)."""
    if not value or ctx.resilient_parsing:
        return
    from . import __version__
    from .engine import engine_source_hash, load_engine
    from .errors import EngineUnavailable

    try:
        load_engine()
        engine = f"engine {engine_source_hash()}"
    except EngineUnavailable:
        engine = "engine not built"
    click.echo(f"cclab {__version__} ({engine})")
    ctx.exit()


def _output_folder(out: Path, option: str = "--out") -> Path:
    """Create the folder a command writes into, before it computes anything: a folder that cannot be
    made (a missing or read-only parent, a file in the way) is one error line naming the option, not a
    traceback after minutes of simulation."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CclabError(f"{option}: the folder {out} cannot be created ({exc.strerror or exc}); "
                         "use a folder you can write") from None
    return out


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", "-V", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version of cclab and the fingerprint of its engine, and exit.")
def cli() -> None:
    """cclab: a laboratory for TCP congestion control."""


@cli.command("run")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a scenario value, e.g. --set run.seed=3 --set flows.0.cc=cubic; flows.*.KEY sets "
                   "every flow's; cc.NAME=SPEC runs SPEC wherever algorithm NAME runs.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Write summary.parquet (per flow), timeseries.parquet, queue.parquet, links.parquet, "
                   "link_series.parquet, groups.parquet, connections.parquet and rtt_histogram.parquet (when the "
                   "run has groups, connection records or an RTT histogram), summary.json and config.json to DIR.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no messages; only --json output.")
def run_command(file: Path, as_json: bool, overrides: tuple[str, ...], out: Path | None, quiet: bool) -> None:
    """Run the scenario in FILE and print a summary per flow and of the bottleneck.

    A scenario is a TOML file. Two CUBIC flows through a dumbbell:

    \b
        [network.bottleneck]
        rate = "100Mbps"
        delay = "20ms"                          # one way
        queue = { discipline = "droptail", size = "1bdp" }
        [[flows]]
        cc = "cubic"                            # `cclab algorithms` lists them
        count = 2
        access_delay = "1ms"                    # each side
        [run]
        duration = "60s"
        measure_from = "20s"                    # the summary covers [20 s, 60 s]

    A queue size is packets ("100"), bytes ("150KB") or a multiple of the bandwidth-delay product
    ("1bdp": rate x 2 x delay); `cclab queues` lists the disciplines and their parameters. A wrong key or
    value is one error line that names it and says what is accepted.
    """
    from .report import summary_tables
    from .runner import run as run_scenario

    if out is not None:
        _output_folder(out)
    show_bar = not (as_json or quiet) and sys.stderr.isatty()
    with _progress_bar(file.name) if show_bar else nullcontext() as progress:
        result = run_scenario(file, overrides, progress=progress, series=out is not None)
    if out is not None:
        result.to_parquet(out)
        if not quiet:
            _stderr().print(f"results written to {out}", markup=False)
    if as_json:
        click.echo(result.summary_json())
    elif not quiet:
        _stdout().print(summary_tables(result, file.name))


class _progress_bar:
    """A rich bar on stderr, used as the runner's progress(now_ns, duration_ns) callback."""

    def __init__(self, label: str):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self._bar = Progress(TextColumn("{task.description}"), BarColumn(),
                             TextColumn("{task.fields[simulated]}"), TimeElapsedColumn(),
                             TimeRemainingColumn(), console=Console(stderr=True), transient=True)
        self._task = self._bar.add_task(label, total=None, simulated="")

    def __enter__(self) -> "_progress_bar":
        self._bar.start()
        return self

    def __exit__(self, *exc) -> None:
        self._bar.stop()

    def __call__(self, now_ns: int, duration_ns: int) -> None:
        self._bar.update(self._task, completed=now_ns, total=duration_ns,
                         simulated=f"{now_ns / 1e9:,.1f} / {duration_ns / 1e9:,.1f} s")


@cli.command("algorithms")
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the engine's description as JSON.")
def algorithms_command(name: str | None, as_json: bool) -> None:
    """List the congestion control algorithms of the engine, or describe NAME."""
    from .engine import algorithm_list, canonical_algorithm
    from .report import algorithm_detail, algorithms_table

    algorithms = algorithm_list()
    if name is not None:
        wanted = canonical_algorithm(name)
        matches = [entry for entry in algorithms if wanted in (entry.get("name"), *(entry.get("aliases") or []))]
        if not matches:
            known = ", ".join(str(entry.get("name")) for entry in algorithms)
            raise CclabError(f"{name!r} is not a known algorithm; use one of {known}")
        selected: object = matches[0]
    else:
        selected = algorithms
    if as_json:
        click.echo(json.dumps(selected, indent=2, default=str))
    elif name is not None:
        _stdout().print(algorithm_detail(matches[0]))
    else:
        _stdout().print(algorithms_table(algorithms))


@cli.command("queues")
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the engine's description as JSON.")
def queues_command(name: str | None, as_json: bool) -> None:
    """List the queue disciplines of the engine (DropTail, RED, ...), or describe NAME."""
    from .engine import queue_list
    from .report import algorithm_detail, queues_table

    queues = queue_list()
    selected: object = queues
    if name is not None:
        matches = [entry for entry in queues if entry.get("name") == name]
        if not matches:
            known = ", ".join(str(entry.get("name")) for entry in queues)
            raise CclabError(f"{name!r} is not a known queue discipline; use one of {known}")
        selected = matches[0]
    if as_json:
        click.echo(json.dumps(selected, indent=2, default=str))
    elif name is not None:
        _stdout().print(algorithm_detail(matches[0], kind="discipline"))
    else:
        _stdout().print(queues_table(queues))


@cli.command("calibrate")
@click.argument("model", type=click.Choice(["umts-2007"]))
@click.option("--direction", type=click.Choice(["down", "up", "both"]), default="both", show_default=True)
@click.option("--replications", type=click.IntRange(min=2), default=100, show_default=True,
              help="Seeds simulated per algorithm at every point of the search (the same seeds every time).")
@click.option("--max-evaluations", type=click.IntRange(min=1),
              help="Objective evaluations in all, the starting grid included [default: 150; 750 with "
                   "--rate-model bearer, whose grid alone is 243; 300 with bearer-step-down].")
@click.option("--write/--dry-run", default=True, show_default=True,
              help="Write the fitted profiles into cclab/link_profiles/ (package data), or only print the fit.")
@click.option("--evaluate", is_flag=True,
              help="Fit nothing: print the committed profiles' residuals with the ACK paths the scenarios give today.")
@click.option("--rate-model", type=click.Choice(["drawn", "bearer", "bearer-step-down"]), default="drawn",
              show_default=True,
              help="The downlink's rate: drawn per run (profile umts-2007-down), the bearer that follows the "
                   "demand (umts-2007-down-bearer), or that bearer with a step down on low demand, started from "
                   "its fit (umts-2007-down-bearer-step-down); the last two with --direction down only.")
def calibrate_command(model: str, direction: str, replications: int, max_evaluations: int | None, write: bool,
                      evaluate: bool, rate_model: str) -> None:
    """Fit MODEL's free parameters on its study's single-flow statistics and store the named profiles.

    umts-2007: seed 002's UMTS link (profiles umts-2007-down and umts-2007-up), fitted on the single-flow
    goodput mean and spread, RTT mean and spread, queueing time and timeouts of Tables 1-5 for NewReno, BIC
    and Westwood+ at once, by a deterministic pattern search (cclab.analysis.calibration). With --rate-model
    bearer, the downlink's rate is the bearer that follows the demand (UMTS R99 rate switching), fitted on
    the same single-flow rows into umts-2007-down-bearer."""
    import time

    from .analysis.calibration import (MAX_EVALUATIONS, ack_path, calibrate_umts, evaluate_umts, flat_ranges,
                                       profile_name, profile_toml, umts_parameters, umts_profile, umts_simulator,
                                       umts_targets, write_flow_parameters)
    from .link_models import PROFILES_DIR

    if rate_model != "drawn" and direction != "down":
        raise click.UsageError(f"--rate-model {rate_model} fits the downlink only: give --direction down")
    if max_evaluations is None:
        max_evaluations = MAX_EVALUATIONS[rate_model]
    console = _stdout()
    for side in (["down", "up"] if direction == "both" else [direction]):
        name = profile_name(side, rate_model)
        parameters = umts_parameters(side, rate_model)
        started = time.perf_counter()
        count = [0]

        def progress(values: dict, value: float) -> None:
            count[0] += 1
            text = ", ".join(f"{p.name}={values[p.name]:.4g}" for p in parameters)
            _stderr().print(f"  {name} #{count[0]}: {text} -> {value:.4f}", markup=False)

        acks = ", ".join(f"{key} = {value}" for key, value in ack_path(side).items())
        if evaluate:
            if not (PROFILES_DIR / f"{name}.toml").is_file():
                # The step-down variant was fitted and kept out (docs/reproductions/seed002.md, session 9).
                raise click.UsageError(f"no committed profile {name} to evaluate; fit it first (cclab calibrate "
                                       f"umts-2007 --direction {side} --rate-model {rate_model} [--dry-run])")
            fit = evaluate_umts(side, replications, rate_model)
            console.print(f"{name} as committed (nothing fitted), ACKs over {{ {acks} }}: objective "
                          f"{fit.objective:.4f} ({replications} seeds per algorithm), "
                          f"{time.perf_counter() - started:.1f} s", markup=False)
        else:
            fit = calibrate_umts(side, replications, max_evaluations, report=progress, rate_model=rate_model)
            console.print(f"{name}: objective {fit.objective:.4f} after {fit.evaluations} evaluations "
                          f"({replications} seeds per algorithm), ACKs over {{ {acks} }}, "
                          f"{time.perf_counter() - started:.1f} s", markup=False)
        for p in parameters:
            console.print(f"  {p.name:12s} {fit.parameters[p.name]:10.4g} {p.unit:10s} {p.meaning}", markup=False)
        console.print(f"  {'':10s} {'statistic':12s} {'simulated':>10s} {'paper':>10s} {'residual':>9s}", markup=False)
        for algorithm, stats in fit.residuals.items():
            for statistic, (got, paper, residual) in stats.items():
                console.print(f"  {algorithm:10s} {statistic:12s} {got:10.4g} {paper:10.4g} {residual:+9.3f}",
                              markup=False)
        # What the statistics leave open: each parameter alone over its bounds (9 points), the others fixed.
        flat = flat_ranges(parameters, umts_simulator(side, range(1, replications + 1), rate_model=rate_model),
                           umts_targets(side), fit.parameters)
        units = {p.name: p.unit for p in parameters}
        unpinned = "; ".join(f"{name} {low:g}-{high:g} {units[name]}" for name, (low, high) in flat.items())
        console.print(f"  not identified (the same objective over the range, the others fixed): {unpinned or 'none'}",
                      markup=False)
        if write and not evaluate:
            note = (f"Fitted on seed 002's single-flow {'downlink' if side == 'down' else 'uplink'} statistics, "
                    f"{replications} seeds per algorithm, {fit.evaluations} evaluations, objective {fit.objective:.4g}, "
                    f"the ACKs over {{ {acks} }}.\n# Not identified by these statistics (the same objective "
                    f"over the range, the others fixed): {unpinned or 'none'}.")
            path = PROFILES_DIR / f"{name}.toml"
            path.write_text(profile_toml(name, umts_profile(side, fit.parameters, rate_model), fit, parameters,
                                         note, command=f"cclab calibrate umts-2007 --direction {side} "
                                                       f"--rate-model {rate_model}" if rate_model != "drawn" else
                                         "cclab calibrate umts-2007"),
                            encoding="utf-8")
            console.print(f"  wrote {path}", markup=False)
            line = write_flow_parameters(side, fit.parameters) if rate_model == "drawn" else None
            if line:
                console.print(f"  wrote '{line}' into the seed002 {side}link scenario", markup=False)


@cli.command("reproduce")
@click.argument("study", required=False)
@click.option("--list", "list_only", is_flag=True, help="List the experiments that can be reproduced.")
@click.option("--only", "only", multiple=True, metavar="PART",
              help="Run only this part of the study (e.g. table1, figure9-10); repeatable.")
@click.option("--quick", is_flag=True, help="Shorter runs, fewer points and seeds: the shapes, not the paper's numbers, in minutes.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Parallel runs (default: one per core).")
@click.option("--cluster", metavar="ADDRESS", help="Run on Dask (as `cclab sweep --cluster`).")
@click.option("--store", type=click.Path(file_okay=False, path_type=Path),
              help="Result store (default: $CCLAB_STORE, else a folder in your user data directory); runs "
                   "already stored are reused.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("results"),
              show_default=True, help="Folder for the reports (one sub-folder per study).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a scenario value in every run, after the experiments' own (e.g. "
                   "'network.bottleneck.rate={ trace = \"TRACE.down\" }'; 'cc.NAME=SPEC' runs SPEC wherever "
                   "algorithm NAME runs); the report goes to a folder of its own.")
@click.option("--write-docs", is_flag=True,
              help="For cclab's own documentation, in a source checkout of cclab: from the full study as stored "
                   "(nothing is computed), keep its values in docs/reproductions/data/ and rewrite the numbers of "
                   "README.md and docs/reproductions/STUDY.md.")
@click.option("--check-docs", is_flag=True,
              help="In a source checkout of cclab: only check that those numbers are the ones "
                   "docs/reproductions/data/ gives; exit 1 if not.")
@click.option("--with-heavy", is_flag=True,
              help="Also run the study's heavy parts (marked 'heavy' in --list), which a full run leaves out "
                   "unless named with --only; with --write-docs, require them stored too.")
@click.option("--without", "without", multiple=True, metavar="PART",
              help="Leave this part out of a full run (repeatable); with --write-docs, the pages say it is not "
                   "in their data unless all its runs are stored.")
def reproduce_command(study: str | None, list_only: bool, only: tuple[str, ...], quick: bool, jobs: int | None,
                      cluster: str | None, store: Path | None, out: Path, overrides: tuple[str, ...],
                      write_docs: bool, check_docs: bool, with_heavy: bool, without: tuple[str, ...]) -> None:
    """Run the experiments of STUDY (e.g. seed000) and compare them with the paper.

    A part marked heavy (its full runs cost hours: seed003's response-1e-8) is left out of a full run
    unless named with --only or asked for with --with-heavy; quick mode runs every part."""
    from .executors import make_executor
    from .experiment import experiments_root, is_heavy, list_experiments
    from .reproduce import reproduce, study_of
    from .selection import select_parts
    from .html_report import write_index
    from .reproduction_report import counts_text, terminal_header, terminal_view, write_study_report
    from .store import resolve_root, results_version

    available = list_experiments()
    if not available:
        # An empty list is never the answer a person wants: the studies are package data, so none found
        # means a broken install, or $CCLAB_EXPERIMENTS pointing at the wrong folder.
        root = experiments_root()
        where = "$CCLAB_EXPERIMENTS" if os.environ.get("CCLAB_EXPERIMENTS") else "cclab's package data"
        raise CclabError(f"no experiment files found in {where} ({root}); each study is a folder of experiment files "
                         "(<study>/<part>.toml). Reinstall cclab, or point $CCLAB_EXPERIMENTS at such a folder")
    if list_only or study is None:
        for experiment_id, path in available.items():
            click.echo(f"{experiment_id}\t{path}" + ("\theavy" if is_heavy(path) else ""))
        return
    parts = {k.split("-", 1)[1]: k for k in available if study_of(k) == study and "-" in k}
    unknown = [part for part in only + without if part not in parts]
    if not parts or unknown:
        studies = sorted({study_of(k) for k in available})
        what = f"part {', '.join(unknown)} of {study!r}" if parts else repr(study)
        raise CclabError(f"no experiment matches {what}; studies: {', '.join(studies)}"
                         + (f"; parts of {study}: {', '.join(parts)}" if parts else ""))
    if check_docs or write_docs:
        from . import doc_numbers
        root = doc_numbers.checkout_root(Path.cwd())
        if study not in doc_numbers.PAGES:
            # A study added without a rendered page (an experiments folder of one's own): said before anything
            # runs or is written, or --write-docs would measure the whole stored study and write
            # <study>-values.csv, then find no page to render it into.
            raise CclabError(f"{study} has no page with generated numbers (no <!-- numbers: --> blocks), so "
                             f"there is nothing to {'check' if check_docs else 'write'}; studies whose pages are "
                             f"rendered from the store: {', '.join(doc_numbers.PAGES)}. `cclab reproduce {study}` "
                             f"writes its report, values.csv and figures under results/{study}/")
        if check_docs:
            _check_docs(root, study)
            return
        if quick or only or overrides:
            raise CclabError("--write-docs writes the docs from the whole study as the paper ran it: "
                             "drop --quick, --only and --set")
    # Heavy parts and --without parts are left out of a full run; the person is told which and why.
    selection = select_parts(study, parts, available, only=only, without=without, quick=quick,
                             with_heavy=with_heavy, write_docs=write_docs, store_root=resolve_root(store))
    for line in selection.notices(study, write_docs):
        click.echo(line, err=True)
    selected = selection.experiments
    _output_folder(out)
    started = time.perf_counter()
    executor = make_executor(cluster, jobs)
    show_bar = sys.stderr.isatty()
    with _sweep_bar(study + (" (quick)" if quick else "")) if show_bar else nullcontext() as progress, \
            _report_bar("measuring", after=progress) if show_bar else nullcontext() as measuring:
        result = reproduce(selected, resolve_root(store), executor, quick=quick, progress=progress,
                           overrides=overrides, measuring=measuring)
    for line in terminal_header(result):
        _stdout().print(line)
    for outcome in result.outcomes:
        _stdout().print(terminal_view(outcome))
    # The figures take a while (dozens of PNGs): a bar per experiment written.
    # A run with --set is another study's numbers: its report goes to a folder of its own.
    suffix = ("-quick" if quick else "") + ("-set-" + hashlib.sha1("\n".join(overrides).encode()).hexdigest()[:8]
                                            if overrides else "")
    with _report_bar("report and figures") if show_bar else nullcontext() as report_progress:
        report = write_study_report(result, out / (study + suffix), progress=report_progress)
        index = write_index(out)
    wall_s = time.perf_counter() - started
    sweep = result.sweep_report
    _stderr().print(f"{study}: {sweep.planned} runs ({sweep.already_stored} reused, {sweep.done} computed, "
                    f"{sweep.failed} failed); findings: {counts_text(report.counts())}; "
                    f"wall time {wall_s:.1f} s ({result.wall_s:.1f} s runs and measures, "
                    f"{wall_s - result.wall_s:.1f} s tables, report and figures); report: {report.html_path} "
                    f"(and report.md; all studies: {index})", markup=False)
    if write_docs:
        from .doc_numbers import keep_report, values_path, write_docs as rewrite, write_source
        from .reproduction_report import write_values_csv
        write_values_csv(result, values_path(root, study))
        write_source(values_path(root, study), results_version(), result.sweep_report.planned,
                     selection.source_records())
        kept = keep_report(root, study, report.folder)
        if kept:
            click.echo(f"{len(kept) - 1} figures and the findings kept from {report.folder}")
        changed = rewrite(root, study)
        click.echo(f"{values_path(root, study)} written; pages changed: "
                   + (", ".join(str(p.relative_to(root)) for p in changed) or "none"))


def _check_docs(root: Path, study: str) -> None:
    from .doc_numbers import check_docs, values_path
    differ = check_docs(root, study)
    for page in differ:
        click.echo(f"error: {page.relative_to(root)}: its numbers are not those of "
                   f"{values_path(root, study).relative_to(root)}; run `cclab reproduce {study} --write-docs`", err=True)
    if differ:
        raise SystemExit(1)
    if not values_path(root, study).exists():
        click.echo(f"{study}: no values yet; every block of the docs waits for `cclab reproduce {study} --write-docs`")
        return
    click.echo(f"{study}: the docs' numbers are those of {values_path(root, study).relative_to(root)}")


@cli.command("report")
@click.argument("studies", nargs=-1, metavar="[STUDY]...")
@click.option("--quick/--full", "quick", default=None,
              help="Only the quick-mode runs of a reproduction study (as `cclab reproduce --quick` ran them), or "
                   "only the full ones. Default: each mode with stored runs.")
@click.option("--store", type=click.Path(file_okay=False, path_type=Path),
              help="Result store (default: $CCLAB_STORE, else a folder in your user data directory).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("results"),
              show_default=True, help="Folder for the reports (one sub-folder per study) and index.html.")
def report_command(studies: tuple[str, ...], quick: bool | None, store: Path | None, out: Path) -> None:
    """Write the HTML report of each STUDY from the runs stored, computing nothing, and an index page.

    STUDY is a reproduction study (seed000: its tables, findings and figures, as `cclab reproduce` writes
    them) or any study a sweep stored (its points, failures and figures). With no STUDY, every study in
    the store. Pages: OUT/<study>/report.html (OUT/<study>-quick/ for quick runs) and OUT/index.html.
    """
    from .experiment import list_experiments, load_experiment
    from .html_report import write_index
    from .reproduce import measure_stored, stored_runs, study_of
    from .reproduction_report import counts_text, write_study_report
    from .results import studies as stored_studies
    from .store import resolve_root
    from .stored_sweep_report import write_sweep_report

    root = resolve_root(store)
    available = list_experiments()
    reproductions = sorted({study_of(k) for k in available if "-" in k})
    in_store = stored_studies(root)
    wanted = list(studies) or in_store
    unknown = [s for s in wanted if s not in reproductions and s not in in_store]
    if unknown:
        raise CclabError(f"no stored runs of {', '.join(map(repr, unknown))} in {root} and no reproduction study of "
                         f"that name; studies in the store: {', '.join(in_store) or 'none'}")
    _output_folder(out)
    if not wanted:  # no study named and none stored: an index of nothing would look like a report
        raise CclabError(f"nothing to report: no stored run in {root}; `cclab reproduce STUDY` or `cclab sweep "
                         "FILE` stores runs (--store or $CCLAB_STORE names another store)")
    console = _stderr()
    written = []
    for study in wanted:
        if study in reproductions:
            experiments = [load_experiment(path) for key, path in available.items()
                           if study_of(key) == study and "-" in key]
            modes = [quick] if quick is not None else [False, True]
            reported = 0
            for mode in modes:
                name = f"{study} (quick)" if mode else study
                stored, planned = stored_runs(experiments, root, quick=mode)
                if stored == 0:
                    continue
                console.print(f"{name}: measuring {stored} of {planned} runs stored and drawing the figures ...",
                              markup=False)
                result = measure_stored(experiments, root, quick=mode)
                report = write_study_report(result, out / (study + ("-quick" if mode else "")))
                written.append(report.html_path)
                reported += 1
                console.print(f"{name}: {report.runs}; findings: {counts_text(report.counts())}; "
                              f"report: {report.html_path}", markup=False)
            if studies and not reported:
                flag = {True: " --quick", False: "", None: " (or with --quick)"}[quick]
                console.print(f"{study}: no run stored in {root}; `cclab reproduce {study}{flag}` computes them",
                              markup=False)
        else:
            console.print(f"{study}: reading the stored sweep and drawing the figures ...", markup=False)
            report = write_sweep_report(study, root, out / study)
            written.append(report.html_path)
            console.print(f"{study}: {report.runs}; report: {report.html_path}", markup=False)
    if studies and not written:
        raise CclabError(f"nothing to report: no stored run of {', '.join(studies)} in {root}")
    console.print(f"index of all reports: {write_index(out)}", markup=False)


@cli.command("response")
@click.option("--quick", is_flag=True, help="Simulate the quick response experiment (p = 1e-2 to 1e-4, 60 s runs).")
@click.option("--no-simulation", is_flag=True, help="Only the formulas: run nothing.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Parallel runs (default: one per core).")
@click.option("--store", type=click.Path(file_okay=False, path_type=Path),
              help="Result store (default: $CCLAB_STORE, else a folder in your user data directory); runs "
                   "already stored are reused, and Tables 2-3 and the points below p = 1e-5 "
                   "(seed003-response-low, -response-1e-8) are read from it when stored.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("results/response"),
              show_default=True, help="Folder for response.md and the figures.")
def response_command(quick: bool, no_simulation: bool, jobs: int | None, store: Path | None, out: Path) -> None:
    """Seed 003's response functions and RTT unfairness (Sections IV-VI): the formulas' curves log-log
    (Figs. 4, 6, 7, 8) with simulated points, the crossing points, and the RTT-unfairness exponents beside
    Tables 2-3."""
    from rich.table import Table

    from . import response_report as rr
    from .store import resolve_root

    root = resolve_root(store)
    _output_folder(out)
    simulated = None
    if not no_simulation:
        from .executors import make_executor
        from .experiment import list_experiments, load_experiment
        from .reproduce import measure_stored, reproduce
        from .store import StoreLocked

        experiment = load_experiment(list_experiments()["seed003-response"])
        show_bar = sys.stderr.isatty()
        try:
            with _sweep_bar("seed003-response" + (" (quick)" if quick else "")) if show_bar else nullcontext() \
                    as progress:
                result = reproduce([experiment], root, make_executor(None, jobs), quick=quick, progress=progress)
        except StoreLocked as locked:
            # Another sweep (a reproduction of seed 003) is writing the study and some points are missing:
            # the formulas and the points stored so far are drawn now rather than nothing.
            result = measure_stored([experiment], root, quick=quick)
            _stderr().print(f"warning: {locked}. Drawing the {result.sweep_report.already_stored} simulated "
                            f"points stored so far; run `cclab response{' --quick' if quick else ''}` again "
                            "once it has finished for the rest.", markup=False)
        low_p, notes = rr.stored_low_p(root, quick)
        for note in notes:
            _stderr().print(f"p below 1e-5: {note}", markup=False)
        simulated = rr.simulated_points(result.outcomes[0], *low_p)
    out.mkdir(parents=True, exist_ok=True)
    figures = rr.draw(out, simulated)
    page = out / "response.md"
    page.write_text(rr.markdown(figures, simulated, rr.measured_ratios(root)))
    console = _stdout()
    table = Table(title="crossing points (Section VI-B)", title_justify="left")
    for column in ("", "p", "window", "paper"):
        table.add_column(column, justify="left" if column in ("", "paper") else "right")
    for c in rr.crossings():
        table.add_row(c.what, f"{c.p:.3g}", f"{c.window:.1f}", c.paper)
    console.print(table)
    if simulated is not None and simulated.points:
        table = Table(title="simulated against analytic mean window (packets)", title_justify="left")
        for column in ("protocol", "p", "simulated", "analytic", "ratio", "realised p", "ratio there"):
            table.add_column(column, justify="left" if column == "protocol" else "right")
        for c in rr.comparison_rows(simulated):
            table.add_row(c.protocol, f"{c.p:g}", f"{c.window:,.1f}", f"{c.model:,.1f}", f"{c.window / c.model:.2f}",
                          f"{c.realised:.3g}" if c.realised else "-",
                          f"{c.window / c.model_realised:.2f}" if c.realised else "-")
        console.print(table)
    table = Table(title="RTT unfairness under synchronised loss (Section IV)", title_justify="left")
    for column in ("protocol", "d", "exponent", "ratio 3", "ratio 6"):
        table.add_column(column, justify="left" if column == "protocol" else "right")
    for u in rr.unfairness():
        table.add_row(f"{u.protocol} ({u.note})", f"{u.d:.3f}", f"{u.exponent:.3g}", f"{u.ratio(3):.3g}",
                      f"{u.ratio(6):.3g}")
    console.print(table)
    _stderr().print(f"response functions: {len(figures)} figures and the tables with Tables 2-3 in {page}", markup=False)


# --- sweeps and the result store ---------------------------------------------------------------------

EXIT_RUNS_FAILED = 1  # the sweep ran, but some of its runs are recorded as failed


@cli.command("sweep")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--store", type=click.Path(file_okay=False, path_type=Path),
              help="Result store folder (default: $CCLAB_STORE, else a folder in your user data directory).")
@click.option("--dry-run", is_flag=True, help="List the runs and which are already stored; run nothing.")
@click.option("--retry-failed", is_flag=True, help="Run again only the runs recorded as failed.")
@click.option("--cluster", metavar="ADDRESS",
              help="Run on Dask: tcp://host:8786 (a running scheduler), local:N (N local worker processes) "
                   "or file:PATH (a scheduler file). Default: a local process pool.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Processes of the local pool (default: one per core).")
@click.option("--study", help="Name of the study in the store (default: the sweep's `study`, else the file name).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no report.")
def sweep_command(file: Path, store: Path | None, dry_run: bool, retry_failed: bool, cluster: str | None,
                  jobs: int | None, study: str | None, quiet: bool) -> None:
    """Run every run of the sweep in FILE that is not stored yet.

    A sweep runs a scenario over a grid of values, each point replicated with its own seed. Fields are the
    dotted keys of `cclab run --set`, values are written as in a scenario file:

    \b
        base = "base.toml"                    # the scenario to vary, relative to FILE
        replications = 2                      # runs per point (default 1)
        # seed = 1                            # base seed (default: the base's run.seed)
        # study = "name"                      # name in the store (default: FILE's name)
        [grid]                                # every combination, first field outermost
        "flows.0.cc" = ["newreno", "cubic"]
        "network.bottleneck.queue.size" = ["0.1bdp", "1bdp"]
        [zip]                                 # varied together: lists of one length
        "network.bottleneck.rate" = ["10Mbps", "100Mbps"]
        "network.bottleneck.delay" = ["50ms", "5ms"]

    A scenario file may hold the same keys, except base, in a [sweep] table ([sweep.grid], [sweep.zip]).
    Every run is checked before any starts. A run's seed depends only on the base seed, its own values and
    its replication, so adding values leaves the stored runs valid. Each run is stored as it finishes: a
    sweep stopped by Ctrl-C or SIGTERM computes only the rest when run again. `cclab results query` reads
    the stored runs with SQL, `cclab report STUDY` draws them.
    """
    from .executors import make_executor
    from .store import StudyStore, resolve_root, results_version
    from .sweep import load_sweep
    from .sweeper import run_status, run_sweep

    sweep = load_sweep(file, study=study)  # validates every run before anything starts
    study_store = StudyStore(resolve_root(store), sweep.study, results_version())
    if dry_run:
        _print_plan(sweep, study_store, run_status(sweep, study_store))
        return
    executor = make_executor(cluster, jobs)
    show_bar = not quiet and sys.stderr.isatty()
    try:
        with _sweep_bar(sweep.study) if show_bar else nullcontext() as progress:
            report = run_sweep(sweep, study_store, executor, retry_failed=retry_failed, progress=progress)
    except KeyboardInterrupt:
        stored = len(study_store.stored_keys() & {run.key for run in sweep.runs})
        _stderr().print(f"{sweep.study}: stopped; {stored} of {len(sweep.runs)} runs are stored. "
                        f"Run the same command again to compute the rest.", markup=False)
        raise
    if not quiet:
        _print_report(file, sweep, study_store, report, executor.description, retry_failed)
    remaining_failed = run_status(sweep, study_store)
    if any(state == "failed" for state in remaining_failed.values()):
        sys.exit(EXIT_RUNS_FAILED)


def _print_plan(sweep, study_store, status: dict[str, str]) -> None:
    from rich.table import Table

    table = Table(title=f"{sweep.study}: {len(sweep.runs)} runs ({sweep.points} points x "
                        f"{sweep.replications} replication{'s' if sweep.replications != 1 else ''})",
                  title_justify="left")
    table.add_column("#", justify="right", no_wrap=True)
    for name in sweep.fields:
        table.add_column(name, overflow="fold")
    table.add_column("rep", justify="right", no_wrap=True)
    table.add_column("seed", justify="right", no_wrap=True, min_width=19)  # up to 2**63: 19 digits
    table.add_column("scenario", no_wrap=True)  # the scenario hash, first 12 of 32 hex digits
    table.add_column("status", no_wrap=True)
    colours = {"stored": "green", "failed": "red", "missing": ""}
    for run in sweep.runs:
        state = status[run.key]
        values = [json.dumps(run.params[name]) if not isinstance(run.params[name], str) else run.params[name]
                  for name in sweep.fields]
        table.add_row(str(run.index), *values, str(run.replication), str(run.seed), run.scenario_hash[:12],
                      _text(state, style=colours[state]))
    console = _stdout()
    console.print(table)
    counts = {state: sum(1 for s in status.values() if s == state) for state in ("stored", "failed", "missing")}
    console.print(f"{len(sweep.runs)} runs: {counts['stored']} stored, {counts['failed']} failed, "
                  f"{counts['missing']} to run; store: {study_store.folder}", markup=False, highlight=False)


def _print_report(file: Path, sweep, study_store, report, executor: str, retry_failed: bool) -> None:
    console = _stderr()
    if report.to_run == 0:
        what = "no failed runs to retry" if retry_failed else "nothing to run"
        console.print(f"{sweep.study}: {what}; {report.stored} of {report.planned} runs are stored"
                      + (f", {report.already_failed} failed (--retry-failed runs them again)"
                         if report.already_failed and not retry_failed else "")
                      + f". Store: {study_store.folder}", markup=False)
        return
    console.print(f"{sweep.study}: {report.done} runs computed, {report.failed} failed, "
                  f"{report.already_stored} were already stored; {report.stored} of {report.planned} runs stored. "
                  f"{report.wall_s:.1f} s on {executor}. Store: {study_store.folder}", markup=False)
    if report.retried:
        console.print(f"{report.retried} runs were handed out again after the worker running them died.",
                      markup=False)
    for record in report.failures[:10]:
        params = ", ".join(f"{name}={json.dumps(value)}" for name, value in record["params"].items())
        first_line = (str(record.get("error")) or "").splitlines()[0] if record.get("error") else ""
        console.print(_text(f"failed: {params} replication {record['replication']}: "
                           f"{record.get('error_type')}: {first_line}", style="red"))
    if len(report.failures) > 10:
        console.print(_text(f"... and {len(report.failures) - 10} more failed runs", style="red"))
    if report.failures:
        console.print(f"The failures are recorded in the store; `cclab sweep {file} --retry-failed` runs them again.",
                      markup=False)


class _sweep_bar(_progress_bar):
    """Runs done, failed and running, and the estimated time left, as a progress(SweepProgress) callback."""

    def __init__(self, label: str):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self._bar = Progress(TextColumn("{task.description}"), BarColumn(),
                             TextColumn("{task.completed}/{task.total}"),
                             TextColumn("[green]{task.fields[done]} done[/] [red]{task.fields[failed]} failed[/] "
                                        "{task.fields[running]} running"),
                             TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True),
                             transient=True)
        self._task = self._bar.add_task(label, total=None, done=0, failed=0, running=0)

    def __call__(self, state) -> None:  # noqa: D102 - state is a cclab.sweeper.SweepProgress
        self._bar.update(self._task, completed=state.done + state.failed, total=state.total,
                         done=state.done, failed=state.failed, running=state.running)


class _report_bar(_progress_bar):
    """Experiments measured, or whose tables and figures are written: a progress(done, total, what) callback.
    The bar appears with the first call (measuring starts once the runs are done)."""

    def __init__(self, label: str, after: _progress_bar | None = None):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self._after = after      # a bar to take down first (one live display at a time)
        self._bar = Progress(TextColumn(label), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                             TextColumn("{task.description}"), TimeElapsedColumn(), console=Console(stderr=True),
                             transient=True)
        self._task = None

    def __enter__(self) -> "_report_bar":
        return self

    def __exit__(self, *exc) -> None:
        if self._task is not None:
            self._bar.stop()

    def __call__(self, done: int, total: int, title: str) -> None:  # noqa: D102
        if self._task is None:
            if self._after is not None:
                self._after._bar.stop()
            self._bar.start()
            self._task = self._bar.add_task("", total=total)
        self._bar.update(self._task, completed=done, total=total, description=title[:50])


@cli.group("results")
def results_group() -> None:
    """Query the results of sweeps stored in the result store."""


@results_group.command("query")
@click.argument("sql")
@click.option("--store", type=click.Path(file_okay=False, path_type=Path),
              help="Result store folder (default: $CCLAB_STORE, else a folder in your user data directory).")
@click.option("--study", help="Only this study (default: every study in the store).")
@click.option("--all-versions", is_flag=True, help="Include results computed by other cclab versions.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV instead of a table.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON records instead of a table.")
def results_query_command(sql: str, store: Path | None, study: str | None, all_versions: bool,
                          as_csv: bool, as_json: bool) -> None:
    """Run SQL over the tables runs (one row per flow of each run), timeseries, queue, loss_events,
    connections, rtt_histogram (those three for runs that kept them) and failures.

    Swept fields are columns named by their dotted keys, quoted in SQL: "flows.0.cc". Join the other
    tables to runs on run_key. Example:

    \b
        cclab results query 'SELECT "flows.0.cc", avg(goodput_bps) FROM runs GROUP BY ALL'
    """
    from rich.table import Table

    from .results import query

    frame = query(sql, store=store, study=study, all_versions=all_versions)
    if as_csv:
        click.echo(frame.to_csv(index=False), nl=False)
        return
    if as_json:
        click.echo(frame.to_json(orient="records", indent=2))
        return
    table = Table()
    for column in frame.columns:
        table.add_column(str(column), justify="right" if frame[column].dtype.kind in "iuf" else "left")
    for row in frame.itertuples(index=False):
        table.add_row(*(_cell(value) for value in row))
    _stdout().print(table)


def _register_live() -> None:
    # cclab.live.cli imports only click at module level, as this module does.
    from .live.cli import compare_command, live_group

    cli.add_command(live_group)
    cli.add_command(compare_command)


_register_live()


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:,.6g}" if abs(value) < 1e6 else f"{value:,.0f}"
    return str(value)


def _text(text: str, style: str = ""):
    """A rich Text: printed as given, never read as markup (a run's parameters can hold brackets)."""
    from rich.text import Text

    return Text(text, style=style)


class Terminated(KeyboardInterrupt):
    """SIGTERM (`kill PID`, a batch system's time limit, `timeout`), raised like Ctrl-C's KeyboardInterrupt
    and a subclass of it, so that everything that winds down on Ctrl-C does so on SIGTERM too: a sweep
    stops its workers and says what is stored. Left to SIGTERM's default action, the process died at once,
    silently, and multiprocessing's resource tracker warned of the pool's leaked semaphores."""


# Signal -> (the handler a fresh Python process has for it, the exception the first one raises).
_WIND_DOWN = {signal.SIGINT: (signal.default_int_handler, KeyboardInterrupt),
              signal.SIGTERM: (signal.SIG_DFL, Terminated)}


def stop_on_second_interrupt() -> dict:
    """The first Ctrl-C (or SIGTERM) raises KeyboardInterrupt (Terminated), so that what is under way winds
    down (a sweep stops its workers and says what is stored); a second one ends the process at once by the
    signal's default action, whatever is still winding down. A signal that is ignored (SIGINT of a command
    started in the background) or handled by a program embedding cclab is left as it is. Returns the
    handlers it replaced, by signal."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    replaced = {}
    for signum, (untouched, exception) in _WIND_DOWN.items():
        if signal.getsignal(signum) is not untouched:
            continue

        def first_signal(received, _frame, exception=exception) -> None:
            signal.signal(received, signal.SIG_DFL)
            raise exception

        replaced[signum] = signal.signal(signum, first_signal)
    return replaced


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `cclab` script: turns every outcome into an exit status."""
    replaced = stop_on_second_interrupt()
    try:
        _main(argv)
    finally:
        # main() called in-process (the tests, a program embedding cclab) gets its handlers back.
        for signum, previous in replaced.items():
            if previous is not None and signal.getsignal(signum) is not previous:
                signal.signal(signum, previous)


def _warning_printer(python_way):
    """Shows a ScenarioWarning as one `warning: ...` line, like an error's; any other warning the Python way."""
    from .errors import ScenarioWarning

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        if issubclass(category, ScenarioWarning):
            _stderr().print(_text(f"warning: {message}", style="yellow"))
        else:
            python_way(message, category, filename, lineno, file, line)

    return show


def _main(argv: list[str] | None) -> None:
    try:
        # Restored on the way out: main() called in-process (the tests) leaves warnings as it found them.
        with warnings.catch_warnings():
            warnings.showwarning = _warning_printer(warnings.showwarning)
            status = cli.main(args=argv, prog_name="cclab", standalone_mode=False)
    except CclabError as exc:
        console = _stderr()
        for line in str(exc).splitlines() or [type(exc).__name__]:
            console.print(_text(f"error: {line}", style="red"))
        sys.exit(EXIT_ERROR)
    except (KeyboardInterrupt, click.exceptions.Abort) as exc:
        # Click turns a KeyboardInterrupt raised inside a command into Abort, the interrupt as its cause.
        if isinstance(exc, Terminated) or isinstance(exc.__cause__, Terminated):
            _stderr().print(_text("terminated", style="red"))
            sys.exit(EXIT_TERMINATED)
        _stderr().print(_text("interrupted", style="red"))
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        # `cclab ... | head`: the reader left; not an error worth a traceback.
        sys.stderr.close()
        sys.exit(0)
    sys.exit(status if isinstance(status, int) else 0)
