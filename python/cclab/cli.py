"""The `cclab` command: run a scenario, list algorithms, reproduce a study, run sweeps, query results.

Errors a person can fix (any CclabError) are one red `error: ...` line per problem on stderr and exit
status 2, never a traceback; Ctrl-C exits with 130. Stdout carries only the requested output, so
`cclab run x.toml --json | jq` always sees clean JSON.

Only click and cclab's own errors are imported with this module; everything else (rich, pydantic, the
engine, pandas) inside the command that needs it, so `cclab --version` answers at once and `cclab run`
starts without pandas or matplotlib (tests/test_startup.py holds this).
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .errors import CclabError

if TYPE_CHECKING:
    from rich.console import Console

EXIT_ERROR = 2          # as click's usage errors: the command line or its input is wrong
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what shells report for Ctrl-C


def _stderr() -> Console:
    from rich.console import Console

    # soft_wrap: an error stays one line however narrow the terminal, so scripts can grep it.
    return Console(stderr=True, soft_wrap=True, highlight=False)


def _stdout() -> Console:
    # Rich assumes 80 columns when stdout is a file or pipe, which wraps the flow table's headings;
    # a saved report reads better unwrapped.
    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=120)


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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", "-V", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version of cclab and the fingerprint of its engine, and exit.")
def cli() -> None:
    """cclab: a laboratory for TCP congestion control."""


@cli.command("run")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a scenario value, e.g. --set run.seed=3 --set flows.0.cc=cubic.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Write summary.parquet, timeseries.parquet, queue.parquet, links.parquet, link_series.parquet, summary.json to DIR.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no messages; only --json output.")
def run_command(file: Path, as_json: bool, overrides: tuple[str, ...], out: Path | None, quiet: bool) -> None:
    """Run the scenario in FILE and print a summary per flow and of the bottleneck."""
    from .report import summary_tables
    from .runner import run as run_scenario

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


@cli.command("reproduce")
@click.argument("study", required=False)
@click.option("--list", "list_only", is_flag=True, help="List the experiments that can be reproduced.")
@click.option("--only", "only", multiple=True, metavar="PART",
              help="Run only this part of the study (e.g. table1, figure9-10); repeatable.")
@click.option("--quick", is_flag=True, help="Shorter runs, fewer points and seeds: the shapes in about two minutes.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Parallel runs (default: one per core).")
@click.option("--cluster", metavar="ADDRESS", help="Run on Dask (as `cclab sweep --cluster`).")
@click.option("--store", type=click.Path(file_okay=False, path_type=Path),
              help="Result store (default: $CCLAB_STORE, else a folder in your user data directory); runs "
                   "already stored are reused.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("results"),
              show_default=True, help="Folder for the reports (one sub-folder per study).")
def reproduce_command(study: str | None, list_only: bool, only: tuple[str, ...], quick: bool, jobs: int | None,
                      cluster: str | None, store: Path | None, out: Path) -> None:
    """Run the experiments of STUDY (e.g. seed000) and compare them with the paper."""
    from .executors import make_executor
    from .experiment import experiments_root, list_experiments, load_experiment
    from .reproduce import reproduce, study_of
    from .reproduction_report import terminal_view, write_study_report
    from .store import resolve_root

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
            click.echo(f"{experiment_id}\t{path}")
        return
    parts = {k.split("-", 1)[1]: k for k in available if study_of(k) == study and "-" in k}
    unknown = [part for part in only if part not in parts]
    if not parts or unknown:
        studies = sorted({study_of(k) for k in available})
        what = f"part {', '.join(unknown)} of {study!r}" if parts else repr(study)
        raise CclabError(f"no experiment matches {what}; studies: {', '.join(studies)}"
                         + (f"; parts of {study}: {', '.join(parts)}" if parts else ""))
    selected = [load_experiment(available[parts[p]]) for p in (only or parts)]
    executor = make_executor(cluster, jobs)
    show_bar = sys.stderr.isatty()
    with _sweep_bar(study + (" (quick)" if quick else "")) if show_bar else nullcontext() as progress:
        result = reproduce(selected, resolve_root(store), executor, quick=quick, progress=progress)
    for outcome in result.outcomes:
        _stdout().print(terminal_view(outcome))
    page = write_study_report(result, out / (study + ("-quick" if quick else "")))
    claims = result.claims
    failing = [c for c in claims if c.status == "fails"]
    sweep = result.sweep_report
    _stderr().print(f"{study}: {sweep.planned} runs ({sweep.already_stored} reused, {sweep.done} computed, "
                    f"{sweep.failed} failed); findings: {sum(c.status == 'holds' for c in claims)} hold, "
                    f"{len(failing)} fail, {sum(c.status == 'not checked' for c in claims)} not checked; "
                    f"wall time {result.wall_s:.1f} s; report: {page}", markup=False)


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
    """Run every run of the sweep in FILE that is not stored yet (see docs/sweeps.md)."""
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
    """Run SQL over the tables runs (one row per flow of each run), timeseries, queue and failures."""
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


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `cclab` script: turns every outcome into an exit status."""
    try:
        status = cli.main(args=argv, prog_name="cclab", standalone_mode=False)
    except CclabError as exc:
        console = _stderr()
        for line in str(exc).splitlines() or [type(exc).__name__]:
            console.print(_text(f"error: {line}", style="red"))
        sys.exit(EXIT_ERROR)
    except (KeyboardInterrupt, click.exceptions.Abort):
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
