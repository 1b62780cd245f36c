"""Help texts and messages stand on their own in an installed wheel: none points a person to a file of the
repository (docs/, examples/, README.md, ...), which the wheel does not ship. Text about cclab's own
documentation, which only a source checkout has, says so ("source checkout") and may name its files.
`cclab sweep --help` shows the sweep file's format instead of pointing to docs/sweeps.md, and its example
is a valid sweep."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import click

import cclab
from cclab import _toml
from cclab.cli import cli
from cclab.scenario import load_scenario
from cclab.sweep import load_sweep
from conftest import EXAMPLE, REPO

PACKAGE = Path(cclab.__file__).parent
SOURCE_CHECKOUT = "source checkout"


def repository_only_names() -> set[str]:
    """Top-level files and folders of the repository: none of them is inside the installed package."""
    try:
        tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
        names = {line.split("/", 1)[0] for line in tracked.splitlines() if line}
    except (OSError, subprocess.CalledProcessError):  # an unpacked sdist: what is there
        names = {path.name for path in REPO.iterdir() if not path.name.startswith(".")}
    return names | {"docs", "examples", "benchmarks", "scripts", "README.md"}


def repository_references(text: str, names: set[str]) -> list[str]:
    """`docs/sweeps.md`, `examples/`, `README.md`, `../shared/...`: the repository paths `text` names."""
    found = []
    for name in sorted(names):
        folder = re.escape(name) + r"/[\w./<>*-]*"
        pattern = rf"(?<![\w.$/-])(?:{folder}|{re.escape(name)}(?![\w/-]))" if "." in name else \
            rf"(?<![\w.$/-]){folder}"
        found += re.findall(pattern, text)
    return found + re.findall(r"\.\./shared[\w./-]*", text)


def help_pieces(command: click.Command, path: list[str]):
    """(where, text) of a command's help and of each of its options', every subcommand included."""
    ctx = click.Context(command, info_name=" ".join(path))
    yield " ".join(path), command.help or ""
    for param in command.params:
        yield f"{' '.join(path)} {param.name}", getattr(param, "help", None) or ""
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            yield from help_pieces(command.get_command(ctx, name), [*path, name])


def test_no_help_text_names_a_repository_file():
    names = repository_only_names()
    pieces = list(help_pieces(cli, ["cclab"]))
    assert any(where == "cclab sweep" for where, _ in pieces) and len(pieces) > 50
    wrong = {where: refs for where, text in pieces
             if SOURCE_CHECKOUT not in text and (refs := repository_references(text, names))}
    assert not wrong, f"help that names files the installed package does not contain: {wrong}"


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def test_no_message_names_a_repository_file():
    # Every string of the package that is not a docstring (those are for its developers, and a command's,
    # its help, is checked above): errors, warnings, option help. cclab.doc_numbers writes the
    # documentation of a source checkout, and names its files by design.
    names = repository_only_names()
    wrong = []
    for source in sorted(PACKAGE.rglob("*.py")):
        if source.name == "doc_numbers.py":
            continue
        tree = ast.parse(source.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                    and SOURCE_CHECKOUT not in node.value and repository_references(node.value, names)):
                wrong.append(f"{source.relative_to(PACKAGE)}:{node.lineno}: {node.value[:100]!r}")
    assert not wrong, "strings that name files the installed package does not contain:\n" + "\n".join(wrong)


def test_the_reference_check_finds_what_it_should():
    names = repository_only_names()
    assert repository_references("see docs/sweeps.md)", names) == ["docs/sweeps.md"]
    assert repository_references("like examples/seed000-newreno.toml", names) == ["examples/seed000-newreno.toml"]
    assert repository_references("the README.md and ../shared/seeds", names) == ["README.md", "../shared/seeds"]
    assert repository_references("Folder for response.md; default: results; $CCLAB_STORE; DIR/<run key>/",
                                 names) == []


def example_of(command: str) -> str:
    """The verbatim block (click's \\b paragraph) of a command's help, unindented."""
    block = cli.commands[command].help.split("\b\n", 1)[1].split("\n\n", 1)[0]
    return "\n".join(line.strip() for line in block.splitlines()) + "\n"


def test_the_run_help_shows_a_valid_scenario():
    # `cclab run --help` is the scenario format's documentation in a wheel, which ships no example file.
    scenario = load_scenario(_toml.loads(example_of("run")))
    config = scenario.to_engine_config()
    assert [flow["cc"]["name"] for flow in config["flows"]] == ["cubic", "cubic"]
    assert config["bottleneck"]["queue"]["limit_packets"] == 333  # 100 Mbit/s x 40 ms / 1500 B


def test_the_sweep_help_shows_a_valid_sweep(tmp_path):
    # The example in `cclab sweep --help` is the format's documentation in a wheel: it must load.
    spec = example_of("sweep")
    (tmp_path / "base.toml").write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "study.toml").write_text(spec, encoding="utf-8")
    sweep = load_sweep(tmp_path / "study.toml")
    assert (sweep.points, sweep.replications, len(sweep.runs)) == (8, 2, 16)
    assert sorted(sweep.fields) == ["flows.0.cc", "network.bottleneck.delay", "network.bottleneck.queue.size",
                                    "network.bottleneck.rate"]


def test_the_results_query_help_names_every_table():
    from cclab.results import PARQUET_VIEWS

    text = " ".join(cli.commands["results"].commands["query"].help.split())
    for table in [*PARQUET_VIEWS, "failures"]:
        assert table in text, table
