"""The cclab command. Errors run in a fresh interpreter, as a person would meet them; the output of
successful runs is checked in-process on the stand-in engine."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cclab
from cclab.cli import main
from conftest import run_cli


def single_error_line(process) -> str:
    assert process.returncode == 2, process.stderr
    assert "Traceback" not in process.stderr
    lines = process.stderr.splitlines()
    assert len(lines) == 1, process.stderr
    assert lines[0].startswith("error: ")
    assert process.stdout == ""
    return lines[0]


@pytest.mark.parametrize("args, expected", [
    (["--set", "network.bottleneck.rate=200Mbs"],
     "error: scenario error: network.bottleneck.rate: '200Mbs' is not a rate; use a number followed by bps, kbps, Mbps or Gbps"),
    (["--set", "network.bottleneck.rate=10"],
     "error: scenario error: network.bottleneck.rate: 10 has no unit; use a number followed by bps, kbps, Mbps or Gbps "
     "(e.g. '10Mbps')"),
    (["--set", "network.bottleneck.bogus=1"], "error: scenario error: network.bottleneck.bogus: unknown key 'bogus'; use one of"),
    (["--set", "network.bottleneck.delay=-1ms"], "error: scenario error: network.bottleneck.delay: '-1ms' is negative"),
    (["--set", "flows.0.cc=nosuchalgorithm"], "error: scenario error: flows.0.cc: 'nosuchalgorithm' is not a known algorithm; use one of"),
    (["--set", "network.bottleneck.queue.size=0"], "error: scenario error: network.bottleneck.queue.size: 0 is an empty queue"),
    (["--set", "flows.3.cc=cubic"], "error: scenario error: flows.3: index 3 is out of range"),
    (["--set", "run.seed"], "error: scenario error: --set: 'run.seed' is not KEY=VALUE"),
])
def test_scenario_errors(example, args, expected):
    line = single_error_line(run_cli("run", str(example), "--json", *args))
    assert line.startswith(expected)


def test_a_study_run_with_a_rate_without_a_unit_is_the_same_error(tmp_path):
    # `cclab reproduce --set` applies the override to every run of the study: refused before anything runs.
    line = single_error_line(run_cli("reproduce", "seed000", "--quick", "--only", "table1", "--store",
                                     str(tmp_path / "store"), "--set", "network.bottleneck.rate=10"))
    assert line == ("error: scenario error: network.bottleneck.rate: 10 has no unit; use a number followed by bps, "
                    "kbps, Mbps or Gbps (e.g. '10Mbps')")
    assert not (tmp_path / "store").exists()


def test_missing_file(tmp_path):
    line = single_error_line(run_cli("run", str(tmp_path / "absent.toml")))
    assert "absent.toml: cannot be read" in line


def test_a_scenario_that_is_not_text_is_one_error_line(tmp_path):
    # A binary file (or one saved as Latin-1) was a UnicodeDecodeError traceback. Offset: "[run]" and its
    # newline are 6 bytes, `duration = "1s" # caf` 21 more, so the é (0xe9 in Latin-1) is byte 27.
    path = tmp_path / "binary.toml"
    path.write_bytes(b"[run]\nduration = \"1s\" # caf\xe9\n")
    line = single_error_line(run_cli("run", str(path)))
    assert line == (f"error: scenario error: {path}: is not UTF-8 text (byte 0xe9 at offset 27); "
                    "use a TOML file saved as UTF-8")


def test_long_error_lines_are_not_wrapped(example):
    # Rich wraps at 80 columns when stderr is a pipe; the message must stay one line.
    line = single_error_line(run_cli("run", str(example), "--set", "flows.0.cc=" + "x" * 200))
    assert len(line) > 200


def test_version_names_the_package_and_its_engine():
    """Results are stored under cclab's version and the engine's fingerprint; --version shows both."""
    import cclab

    try:
        from cclab import _engine
        engine = f"engine {_engine.source_hash()}"
    except ImportError:
        engine = "engine not built"
    process = run_cli("--version")
    assert (process.returncode, process.stdout, process.stderr) == (0, f"cclab {cclab.__version__} ({engine})\n", "")


# --- in process, on the stand-in engine --------------------------------------------------------------

def invoke(capsys, *args):
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    out, err = capsys.readouterr()
    return exited.value.code, out, err


def test_run_json(example, fake_engine, capsys):
    status, out, err = invoke(capsys, "run", str(example), "--json", "--set", "run.duration=20s",
                              "--set", "run.measure_from=10s")
    assert status == 0 and err == ""
    summary = json.loads(out)
    assert summary["flows"][0]["goodput_bps"] > 0 and "jain_index" in summary


def test_run_table(example, fake_engine, capsys):
    status, out, err = invoke(capsys, "run", str(example), "--set", "flows.0.count=2")
    assert status == 0
    for word in ("goodput", "Mbit/s", "retrans-", "missions", "newreno", "utilisation", "90.0 %", "Jain"):
        assert word in out
    assert "Traceback" not in err


def test_run_table_fits_80_columns_without_cutting_a_heading(example, fake_engine, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    status, out, _ = invoke(capsys, "run", str(example), "--set", "flows.0.count=2")
    assert status == 0
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "…" not in out
    assert "seed000-newreno.toml: measured from" in out and "retrans-" in out


def test_run_out_and_quiet(example, fake_engine, capsys, tmp_path):
    status, out, err = invoke(capsys, "run", str(example), "--quiet", "--out", str(tmp_path / "r"))
    assert (status, out, err) == (0, "", "")
    assert (tmp_path / "r" / "summary.parquet").exists()



def test_run_out_help_names_every_file_it_writes(example, fake_engine, capsys, tmp_path):
    # The help listed six files; --out also writes config.json (and groups, connections and the RTT
    # histogram when the run has them), which a person reading the help could not know to look for.
    status, out, _ = invoke(capsys, "run", str(example), "--quiet", "--out", str(tmp_path / "r"))
    assert status == 0
    written = sorted(p.name for p in (tmp_path / "r").iterdir())
    assert "config.json" in written
    status, help_text, _ = invoke(capsys, "run", "--help")
    flat = " ".join(help_text.split())
    for name in written + ["groups.parquet", "connections.parquet", "rtt_histogram.parquet"]:
        assert name in flat.replace("- ", "-"), name

@pytest.mark.parametrize("command", [["run", "EXAMPLE", "--quiet"], ["report"], ["response", "--no-simulation"]])
def test_an_out_folder_that_cannot_be_made_is_one_error_line(command, example, fake_engine, capsys, tmp_path,
                                                             monkeypatch):
    # A file where the folder's parent should be: mkdir fails with NotADirectoryError. Before, `cclab run`
    # simulated the whole run and then printed a traceback from pathlib; `report` and `response` likewise.
    in_the_way = tmp_path / "a-file"
    in_the_way.write_text("")
    if command[0] == "run":  # checked before the simulation, not after it
        monkeypatch.setattr(cclab.engine, "load_engine", lambda: pytest.fail("the engine ran before --out was checked"))
    args = [str(example) if a == "EXAMPLE" else a for a in command]
    if command[0] == "report":  # an empty store: every study of it (none), then the index page in OUT
        args = ["report", "--store", str(tmp_path / "store")]
    status, out, err = invoke(capsys, *args, "--out", str(in_the_way / "out"))
    assert status == 2, err
    assert "Traceback" not in err
    assert err.strip() == (f"error: --out: the folder {in_the_way / 'out'} cannot be created (Not a directory); "
                           "use a folder you can write")


def test_algorithms(fake_engine, capsys):
    status, out, _ = invoke(capsys, "algorithms", "--json")
    assert status == 0 and [a["name"] for a in json.loads(out)] == ["newreno", "cubic"]
    status, out, _ = invoke(capsys, "algorithms", "cubic")
    assert status == 0 and "linux-2.6.22" in out and "beta" in out
    status, out, _ = invoke(capsys, "algorithms", "reno", "--json")
    assert status == 0 and json.loads(out)["name"] == "newreno"
    status, out, err = invoke(capsys, "algorithms", "vegas")
    assert status == 2 and err.strip() == "error: 'vegas' is not a known algorithm; use one of newreno, cubic"


def test_algorithms_list_the_default_variant_first():
    # The engine lists cubic's variants as linux-2.6.22, then rfc9438, its default: shown default first.
    from cclab.report import _variant_names

    entry = {"name": "cubic", "default_variant": "rfc9438",
             "variants": [{"name": "linux-2.6.22"}, {"name": "rfc9438"}, {"name": "paper"}]}
    assert _variant_names(entry) == "rfc9438 (default), linux-2.6.22, paper"


def test_engine_not_built(example, no_engine, capsys):
    status, out, err = invoke(capsys, "run", str(example))
    assert status == 2 and out == "" and err.startswith("error: the simulation engine cclab._engine is not built")


def test_interrupt_exits_130(example, fake_engine, capsys, monkeypatch):
    def interrupted(self, t_ns):
        raise KeyboardInterrupt
    monkeypatch.setattr(fake_engine.Simulation, "run_until", interrupted)
    status, out, err = invoke(capsys, "run", str(example))
    assert status == 130 and out == "" and err.strip() == "interrupted"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_second_ctrl_c_ends_the_process_at_once(tmp_path, signum):
    # The first Ctrl-C raises KeyboardInterrupt; code winding down after it (here: sleeping a minute)
    # is cut short by the second, which takes SIGINT's default action: killed by SIGINT, within seconds.
    # SIGTERM the same way (its KeyboardInterrupt is cclab.cli.Terminated).
    script = ("import sys, time\n"
              "from cclab.cli import stop_on_second_interrupt\n"
              "stop_on_second_interrupt()\n"
              "try:\n    print('ready', flush=True)\n    time.sleep(60)\n"
              "except KeyboardInterrupt:\n    print('winding down', flush=True)\n    time.sleep(60)\n")
    env = dict(os.environ, PYTHONPATH=str(Path(cclab.__file__).parent.parent))
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert process.stdout.readline().strip() == "ready"
        process.send_signal(signum)
        assert process.stdout.readline().strip() == "winding down"
        started = time.monotonic()
        process.send_signal(signum)
        assert process.wait(timeout=10) == -signum
        assert time.monotonic() - started < 10
    finally:
        process.kill()


def test_main_gives_the_ctrl_c_handler_back(example, fake_engine, capsys):
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    invoke(capsys, "run", str(example))
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_sigterm_exits_143(example, fake_engine, capsys, monkeypatch):
    def terminated(self, t_ns):
        raise cclab.cli.Terminated
    monkeypatch.setattr(fake_engine.Simulation, "run_until", terminated)
    status, out, err = invoke(capsys, "run", str(example))
    assert status == 143 and out == "" and err.strip() == "terminated"
