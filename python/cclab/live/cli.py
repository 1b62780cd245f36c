"""`cclab live ...` and `cclab compare`: the command line of live measurement (docs/live.md).

Only click is imported here; everything else inside the command that needs it (cclab.cli's rule, so that
`cclab --version` stays quick).
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import click

from .transfer import DEFAULT_PORT

MBIT = 1e-6


def _console():
    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=140)


def _err(text: str) -> None:
    from rich.console import Console
    from rich.text import Text

    Console(stderr=True, soft_wrap=True, highlight=False).print(Text(text))


@click.group("live")
def live_group() -> None:
    """Measure real TCP stacks: server, client (sender, with a TCP_INFO sampler), local testbed."""


@live_group.command("server")
@click.option("--bind", default="0.0.0.0", show_default=True, help="Address to listen on.")
@click.option("--port", type=int, default=DEFAULT_PORT, show_default=True)
@click.option("--namespace", help="Listen inside this network namespace (e.g. cclab-rcv of the testbed).")
def server_command(bind: str, port: int, namespace: str | None) -> None:
    """Receive flows from `cclab live client` and answer each with the bytes it got, until Ctrl-C."""
    from . import netns
    from .transfer import Server

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    with netns.entered(namespace):
        server = Server(bind, port)
    _err(f"cclab live server: listening on {bind}:{server.port}" + (f" in namespace {namespace}" if namespace else ""))
    try:
        server.serve_forever()
    finally:
        server.close()


@live_group.command("client")
@click.argument("host", required=False)
@click.option("--port", type=int, default=DEFAULT_PORT, show_default=True)
@click.option("--cc", "ccs", multiple=True, metavar="ALG[,ALG...]",
              help="Congestion control of the flows of a run, cycled over the flows (cubic; reno,cubic). "
                   "Repeat to rotate runs across algorithms. Default: cubic.")
@click.option("--flows", "-n", type=click.IntRange(min=1), default=1, show_default=True, help="Parallel flows per run.")
@click.option("--duration", "duration", help="Send for this long (10s). Default 10s unless --size.")
@click.option("--size", "size", help="Send this many bytes per flow (500KB) instead of for a duration.")
@click.option("--repeat", type=click.IntRange(min=1), default=1, show_default=True,
              help="Repetitions; each goes through every --cc once (seed 002's rotation).")
@click.option("--pause", default="1s", show_default=True, help="Idle time between runs, so queues drain.")
@click.option("--sample-interval", default="5ms", show_default=True, help="TCP_INFO sampling interval.")
@click.option("--namespace", help="Send from this network namespace.")
@click.option("--testbed", "testbed_name", metavar="NAME",
              help="Run through the local testbed NAME (`cclab live testbed up`): send from its sender "
                   "namespace to a server this command starts in its receiver namespace.")
@click.option("--store", type=click.Path(file_okay=False, path_type=Path), help="Result store (default: $CCLAB_STORE, else the user data folder).")
@click.option("--study", default="live", show_default=True, help="Study name in the store.")
@click.option("--no-store", is_flag=True, help="Do not store the runs.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Also write each run's flows and time series as Parquet, and a cwnd plot, to DIR/<run key>/.")
@click.option("--json", "as_json", is_flag=True, help="Print each run's summary as a JSON line.")
def client_command(host: str | None, port: int, ccs: tuple[str, ...], flows: int, duration: str | None,
                   size: str | None, repeat: int, pause: str, sample_interval: str, namespace: str | None,
                   testbed_name: str | None, store: Path | None, study: str, no_store: bool, out: Path | None,
                   as_json: bool) -> None:
    """Send flows to a `cclab live server` at HOST, sampling the kernel's state of each, and store the runs."""
    import time

    from ..units import parse_byte_size, parse_duration
    from . import netns
    from .runs import RunSpec, campaign, measure
    from .store import run_key, store_live_run
    from .system import LiveError

    interval_ns = parse_duration(sample_interval)
    size_bytes = parse_byte_size(size) if size else None
    duration_ns = parse_duration(duration) if duration else (None if size_bytes else 10_000_000_000)
    specs = [RunSpec(ccs=tuple(part.strip() for part in group.split(",") if part.strip()), flows=flows,
                     duration_ns=duration_ns, size_bytes=size_bytes, sample_interval_ns=interval_ns)
             for group in (ccs or ("cubic",))]
    server = bed = None
    bottleneck = rate = None
    if testbed_name:
        from .testbed import RECEIVER_ADDRESS, running
        from .transfer import Server

        bed = running(testbed_name)
        if bed is None:
            raise LiveError(f"no testbed {testbed_name!r} is running; start it with `cclab live testbed up "
                            f"--name {testbed_name}`")
        host, namespace = RECEIVER_ADDRESS, bed.config.sender
        with netns.entered(bed.config.receiver):
            server = Server("0.0.0.0", 0)
        server.start()
        port = server.port
        bottleneck, rate = bed.bottleneck_counters, bed.config.rate_bps
    if host is None:
        raise LiveError("name the host running `cclab live server` (or use --testbed NAME)")
    extra = {"testbed": bed.config.describe()} if bed else {}
    try:
        runs = list(campaign(specs, repeat))
        for number, (repetition, spec) in enumerate(runs):
            if number:
                time.sleep(parse_duration(pause) / 1e9)
            run = measure(spec, host, port, namespace=namespace, replication=repetition,
                          bottleneck=bottleneck, bottleneck_rate_bps=rate)
            stored = None if no_store else store_live_run(run, study, store, extra)
            if as_json:
                click.echo(json.dumps(_json_safe(run.summary())))
            else:
                _console().print(live_table(run, f"run {number + 1}/{len(runs)} ({spec.label()}, repetition {repetition + 1})"))
            if out is not None:
                write_run_files(run, out / run_key(run))
            if stored is not None and not as_json:
                _err(f"stored in {stored.parent.parent}")
    finally:
        if server is not None:
            server.close()


def _json_safe(value):
    import math

    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    if hasattr(value, "item"):
        return _json_safe(value.item())
    return value


def live_table(run, title: str):
    from rich.table import Table

    table = Table(title=f"{title}: {run.destination}, {run.duration_s:.2f} s, sampled every "
                        f"{run.spec.sample_interval_ns / 1e6:g} ms ({run.sampler['samples']} samples, "
                        f"sampler {100 * run.sampler['cpu_share']:.2f} % of a core)", title_justify="left")
    headings = ["flow", "algorithm", "goodput Mbit/s", "bytes", "loss events", "timeouts", "retrans %",
                "RTT mean ms", "RTT p50 ms", "RTT p90 ms", "queueing mean ms"]
    for heading in headings:
        table.add_column(heading, justify="left" if heading == "algorithm" else "right")
    for row in run.flows.to_dict("records"):
        table.add_row(str(row["flow"]), row["kernel_cc"], f"{row['goodput_bps'] * MBIT:,.2f}", f"{row['bytes']:,}",
                      str(row["loss_events"]), str(row["timeouts"]), f"{row['retransmission_pct']:.3f}",
                      f"{row['rtt_mean_s'] * 1e3:.2f}", f"{row['rtt_p50_s'] * 1e3:.2f}",
                      f"{row['rtt_p90_s'] * 1e3:.2f}", f"{row['queueing_mean_s'] * 1e3:.2f}")
    table.caption = f"Jain's index {run.jain_index:.4f}" + "".join(
        f"; bottleneck {k} {v:.4g}" for k, v in run.bottleneck.items())
    return table


def write_run_files(run, folder: Path) -> None:
    """flows.parquet, timeseries.parquet, summary.json and cwnd.png of one live run."""
    from ..plotting import timeseries_figure

    folder.mkdir(parents=True, exist_ok=True)
    run.flows.to_parquet(folder / "flows.parquet", index=False)
    series = run.timeseries
    series.to_parquet(folder / "timeseries.parquet", index=False)
    (folder / "summary.json").write_text(json.dumps(_json_safe(run.summary()), indent=2) + "\n")
    lines = [(f"flow {flow} ({cc})", series.loc[series["flow"] == flow, "time_s"].tolist(),
              series.loc[series["flow"] == flow, "cwnd"].tolist())
             for flow, cc in zip(run.flows["flow"], run.flows["kernel_cc"])]
    timeseries_figure(folder / "cwnd.png", f"live: {run.spec.label()} to {run.destination}", "cwnd (packets)",
                      [("kernel cwnd (TCP_INFO)", lines)])


@live_group.group("testbed")
def testbed_group() -> None:
    """The local testbed: sender and receiver namespaces, a delay line and an htb + pfifo bottleneck."""


@testbed_group.command("up")
@click.option("--name", default="cclab", show_default=True, help="Namespaces NAME-snd, NAME-mid, NAME-rcv.")
@click.option("--rate", default="20Mbps", show_default=True, help="Bottleneck rate (IP packets); 'none': unshaped.")
@click.option("--delay", default="20ms", show_default=True, help="One-way delay, added in each direction.")
@click.option("--buffer", "buffer_packets", type=click.IntRange(min=1), default=50, show_default=True,
              help="Bottleneck buffer, packets (DropTail).")
def testbed_up_command(name: str, rate: str, delay: str, buffer_packets: int) -> None:
    """Start (or restart) the local testbed."""
    from ..units import parse_duration, parse_rate
    from .testbed import RECEIVER_ADDRESS, Testbed, TestbedConfig

    config = TestbedConfig(name=name, rate_bps=None if rate.lower() == "none" else parse_rate(rate),
                           delay_ns=parse_duration(delay), buffer_packets=buffer_packets)
    Testbed.up(config)
    _err(f"{config.describe()} is up. Receiver {RECEIVER_ADDRESS} in namespace {config.receiver}; send from "
         f"{config.sender}: `cclab live client --testbed {name} --cc cubic`, or by hand "
         f"`cclab live server --namespace {config.receiver}` and `cclab live client {RECEIVER_ADDRESS} "
         f"--namespace {config.sender}`. `cclab live testbed down --name {name}` removes it.")


@testbed_group.command("down")
@click.option("--name", default="cclab", show_default=True)
def testbed_down_command(name: str) -> None:
    """Stop the delay line and remove the testbed's namespaces."""
    from .system import require_root
    from .testbed import down

    require_root("removing the testbed")
    stats = down(name)
    if stats.get("packets_out"):
        _err(f"testbed {name!r} removed; its delay line forwarded {stats['packets_out']:,} packets, "
             f"{stats['late_ns_total'] / stats['packets_out'] / 1e3:.0f} µs late on average "
             f"(at most {stats['late_ns_max'] / 1e6:.2f} ms)")
    else:
        _err(f"testbed {name!r} removed")


@testbed_group.command("status")
@click.option("--name", default="cclab", show_default=True)
def testbed_status_command(name: str) -> None:
    """Say whether the testbed runs, its configuration, and its delay line's and bottleneck's counters."""
    from .testbed import running

    bed = running(name)
    if bed is None:
        _err(f"testbed {name!r} is not running")
        sys.exit(1)
    click.echo(json.dumps({"testbed": bed.config.describe(), "delay_line": bed.delay_line_stats(),
                           "bottleneck": bed.bottleneck_counters()}, indent=2))


@click.command("compare")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a scenario value.")
@click.option("--testbed-name", default="cclab-cmp", show_default=True, help="Name of the testbed started for the run.")
@click.option("--sample-interval", default="5ms", show_default=True, help="TCP_INFO sampling interval.")
@click.option("--store", type=click.Path(file_okay=False, path_type=Path), help="Also store both runs in this result store.")
@click.option("--study", default="compare", show_default=True, help="Study name in the store.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Write the table (CSV), both time series and a cwnd plot to DIR.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON records.")
def compare_command(file: Path, overrides: tuple[str, ...], testbed_name: str, sample_interval: str,
                    store: Path | None, study: str, out: Path | None, as_json: bool) -> None:
    """Run the dumbbell in FILE in the simulator and on the local testbed (real kernel TCP), and print both
    and the difference."""
    from ..scenario import load_scenario
    from ..units import parse_duration
    from .compare import compare

    interval = parse_duration(sample_interval)
    # The live half runs in real time: the example scenario's 2000 s are 33 minutes without a word.
    # (Measured from 0 s, as compare() runs it.)
    seconds = load_scenario(file, [*overrides, "run.measure_from=0s"]).run.duration / 1e9
    _err(f"{file.name}: simulating, then {seconds:g} s of real traffic on the testbed (run.duration; "
         "--set run.duration=30s for a shorter run)")
    comparison = compare(file, overrides, testbed_name, interval)
    table = comparison.table()
    if as_json:
        click.echo(table.to_json(orient="records", indent=2))
    else:
        _console().print(comparison_table(comparison, table, file.name))
    if store is not None:
        _store_comparison(comparison, file, overrides, store, study)
    if out is not None:
        write_comparison_files(comparison, table, out)


def comparison_table(comparison, table, title: str):
    from rich.table import Table

    bed = comparison.plan.testbed
    result = Table(title=f"{title}: simulated vs live on the {bed.describe()}; simulation given "
                         f"{', '.join(comparison.plan.overrides) or 'nothing'}", title_justify="left")
    for heading in ("flow", "algorithm", "figure", "simulated", "live", "live - simulated", "relative"):
        result.add_column(heading, justify="left" if heading in ("algorithm", "figure") else "right")
    for row in table.to_dict("records"):
        relative = row["relative_pct"]
        result.add_row("all" if row["flow"] < 0 else str(row["flow"]), row["cc"], row["figure"],
                       f"{row['simulated']:,.3f}", f"{row['live']:,.3f}", f"{row['difference']:+,.3f}",
                       "" if relative != relative else f"{relative:+.1f} %")
    return result


def _store_comparison(comparison, file: Path, overrides, store: Path, study: str) -> None:
    from ..sweep import scenario_hash
    from ..store import StudyStore, parquet_bytes, resolve_root, results_version, series_table
    from .store import store_live_run

    result = comparison.simulation_result
    study_store = StudyStore(resolve_root(store), study, results_version())
    key = f"sim-{scenario_hash(result.config)[:16]}"
    identity = {"study": study, "cclab_version": study_store.version, "run_key": key,
                "scenario_hash": scenario_hash(result.config), "seed": result.config["run"]["seed"],
                "replication": 0, "params": json.dumps({"scenario": str(file), "set": list(overrides)}),
                "source": "simulation"}
    small = {"study": study, "run_key": key}
    summary = {**result.summary, "flows": comparison.simulated.to_dict("records")}
    with study_store.lock():
        study_store.write_run(identity, {"scenario": str(file)}, result.config, summary,
                              parquet_bytes(series_table(small, result.series.get("flows") or {})),
                              parquet_bytes(series_table(small, result.series.get("queue") or {})))
    store_live_run(comparison.live_run, study, store, {"scenario": str(file), "set": list(overrides),
                                                       "testbed": comparison.plan.testbed.describe()})
    _err(f"both runs stored in study {study!r} of {resolve_root(store)}")


def write_comparison_files(comparison, table, folder: Path) -> None:
    from ..plotting import timeseries_figure

    folder.mkdir(parents=True, exist_ok=True)
    table.to_csv(folder / "comparison.csv", index=False)
    comparison.simulation_result.timeseries.to_parquet(folder / "simulated_timeseries.parquet", index=False)
    comparison.live_run.timeseries.to_parquet(folder / "live_timeseries.parquet", index=False)
    panels = []
    for label, series in (("simulated", comparison.simulation_result.timeseries),
                          ("live (kernel, TCP_INFO)", comparison.live_run.timeseries)):
        lines = [(f"flow {flow}", series.loc[series["flow"] == flow, "time_s"].tolist(),
                  series.loc[series["flow"] == flow, "cwnd"].tolist()) for flow in sorted(series["flow"].unique())]
        panels.append((label, lines))
    timeseries_figure(folder / "cwnd.png", f"cwnd: {comparison.plan.testbed.describe()}", "cwnd (packets)", panels)
