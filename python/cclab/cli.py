"""The `cclab` command: run a scenario, list algorithms.

Errors a person can fix (any CclabError) are one red `error: ...` line per problem on stderr and exit
status 2, never a traceback; Ctrl-C exits with 130. Stdout carries only the requested output, so
`cclab run x.toml --json | jq` always sees clean JSON.
"""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text

from . import __version__
from .engine import algorithm_list, canonical_algorithm
from .errors import CclabError
from .report import algorithm_detail, algorithms_table, summary_tables
from .runner import run as run_scenario

EXIT_ERROR = 2          # as click's usage errors: the command line or its input is wrong
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what shells report for Ctrl-C


def _stderr() -> Console:
    # soft_wrap: an error stays one line however narrow the terminal, so scripts can grep it.
    return Console(stderr=True, soft_wrap=True, highlight=False)


def _stdout() -> Console:
    # Rich assumes 80 columns when stdout is a file or pipe, which wraps the flow table's headings;
    # a saved report reads better unwrapped.
    return Console() if sys.stdout.isatty() else Console(width=120)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="cclab")
def cli() -> None:
    """cclab: a laboratory for TCP congestion control."""


@cli.command("run")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a scenario value, e.g. --set run.seed=3 --set flows.0.cc=cubic.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Write summary.parquet, timeseries.parquet, queue.parquet, summary.json to DIR.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no messages; only --json output.")
def run_command(file: Path, as_json: bool, overrides: tuple[str, ...], out: Path | None, quiet: bool) -> None:
    """Run the scenario in FILE and print a summary per flow and of the bottleneck."""
    show_bar = not (as_json or quiet) and sys.stderr.isatty()
    with _progress_bar(file.name) if show_bar else nullcontext() as progress:
        result = run_scenario(file, overrides, progress=progress)
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


@cli.command("reproduce")
@click.argument("study", required=False)
@click.option("--list", "list_only", is_flag=True, help="List the experiments that can be reproduced.")
@click.option("--only", "only", multiple=True, metavar="PART",
              help="Run only this part of the study (e.g. table1); repeatable.")
@click.option("--quick", is_flag=True, help="Short runs: the shape in seconds, not comparable to the paper.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Parallel runs (default: one per core).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("results"),
              show_default=True, help="Folder for the reports (one sub-folder per experiment).")
def reproduce_command(study: str | None, list_only: bool, only: tuple[str, ...], quick: bool,
                      jobs: int | None, out: Path) -> None:
    """Run the experiments of STUDY (e.g. seed000) and compare them with the paper's numbers."""
    from .experiment import list_experiments, load_experiment, run_experiment
    from .reproduce import comparison_table, write_report

    available = list_experiments()
    if list_only or study is None:
        for experiment_id, path in available.items():
            click.echo(f"{experiment_id}\t{path}")
        return
    selected = {k: v for k, v in available.items()
                if k == study or (k.startswith(study + "-") and (not only or k.split("-", 1)[1] in only))}
    if not selected:
        studies = sorted({k.split("-", 1)[0] for k in available})
        raise CclabError(f"no experiment matches {study!r}" + (f" --only {','.join(only)}" if only else "")
                         + f"; studies: {', '.join(studies)}; parts: {', '.join(available)}")
    for experiment_id, path in selected.items():
        experiment = load_experiment(path)
        with _count_bar(experiment_id) as progress:
            result = run_experiment(experiment, quick=quick, jobs=jobs, progress=progress)
        _stdout().print(comparison_table(result))
        report = write_report(result, out / experiment_id)
        _stderr().print(f"{experiment_id}: {len(result.outcomes)} runs in {result.wall_s:.1f} s wall time; "
                        f"report: {report}", markup=False)


class _count_bar(_progress_bar):
    """A bar counting finished runs (progress(done, total))."""

    def __call__(self, done: int, total: int) -> None:
        self._bar.update(self._task, completed=done, total=total, simulated=f"{done}/{total} runs")


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `cclab` script: turns every outcome into an exit status."""
    try:
        status = cli.main(args=argv, prog_name="cclab", standalone_mode=False)
    except CclabError as exc:
        console = _stderr()
        for line in str(exc).splitlines() or [type(exc).__name__]:
            console.print(Text(f"error: {line}", style="red"))
        sys.exit(EXIT_ERROR)
    except (KeyboardInterrupt, click.exceptions.Abort):
        _stderr().print(Text("interrupted", style="red"))
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        # `cclab ... | head`: the reader left; not an error worth a traceback.
        sys.stderr.close()
        sys.exit(0)
    sys.exit(status if isinstance(status, int) else 0)
