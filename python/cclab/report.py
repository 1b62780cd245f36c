"""Rich tables for the terminal: a run's summary and the engine's list of algorithms."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.table import Table

if TYPE_CHECKING:
    from .result import Result

MBIT = 1e6


def _number(value: Any, scale: float = 1.0, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    if isinstance(value, int) and scale == 1.0:
        return f"{value:,}"
    return f"{value / scale:,.{digits}f}"


def summary_tables(result: Result, title: str) -> Group:
    summary = result.summary
    flows = Table(title=f"{title}: measured from {summary.get('measure_from_s', 0):g} s "
                        f"to {summary.get('duration_s', 0):g} s", title_justify="left")
    # Finite transfers and flows with drawn start/stop carry their life (start, end, completion time).
    lives = any("start_s" in flow for flow in summary.get("flows", []))
    # Headings broken where a narrow (80-column) terminal may break them, never cut.
    headings = ["flow", "algorithm", "goodput\nMbit/s", "delivered\nMbit/s", "loss\nevents", "timeouts",
                "retrans-\nmissions"] + (["start\ns", "end\ns", "completion\ns"] if lives else [])
    for heading in headings:
        flows.add_column(heading, justify="left" if heading == "algorithm" else "right", overflow="fold")
    for flow in summary.get("flows", []):
        life = [_number(flow.get("start_s"), digits=3), _number(flow.get("end_s"), digits=3),
                _number(flow.get("completion_time_s"), digits=4)] if lives else []
        flows.add_row(str(flow.get("flow", "")), str(flow.get("cc", "")),
                      _number(flow.get("goodput_bps"), MBIT), _number(flow.get("delivered_bps"), MBIT),
                      _number(flow.get("loss_events")), _number(flow.get("timeouts")),
                      _number(flow.get("retransmissions")), *life)

    bottleneck = result.bottleneck
    link = Table(title="bottleneck", title_justify="left", show_header=False)
    link.add_column("figure")
    link.add_column("value", justify="right")
    utilization = bottleneck.get("utilization")
    link.add_row("utilisation", "-" if utilization is None else f"{100 * utilization:.1f} %")
    link.add_row("drops (queue)", _number(bottleneck.get("drops")))
    link.add_row("drops (errors)", _number(bottleneck.get("error_drops")))
    link.add_row("mean queue, packets", _number(bottleneck.get("mean_queue_packets"), digits=1))
    link.add_row("Jain's fairness index", _number(summary.get("jain_index"), digits=4))
    tables = [flows, link]
    links = summary.get("links") or []
    if len(links) > 2 or any(entry.get("name") not in ("bottleneck", "bottleneck.reverse") for entry in links):
        tables.append(links_table(links))
    if summary.get("groups"):
        tables.append(groups_table(summary["groups"]))
    return Group(*tables)


def groups_table(groups: list[dict]) -> Table:
    """Flows by group: what each carried in the window and how fast its transfers completed."""
    table = Table(title="groups", title_justify="left")
    for heading in ("group", "created", "com-\npleted", "stopped", "alive", "goodput\nMbit/s", "share\n%", "p50\ns",
                    "p90\ns", "p99\ns"):
        table.add_column(heading, justify="left" if heading == "group" else "right", overflow="fold")
    for g in groups:
        share = g.get("share_of_capacity")
        table.add_row(str(g.get("group", "")), _number(g.get("flows_created")), _number(g.get("flows_completed")),
                      _number(g.get("flows_stopped")), _number(g.get("flows_alive")),
                      _number(g.get("goodput_bps"), MBIT),
                      "-" if share is None else f"{100 * share:.1f}",
                      _number(g.get("completion_time_p50_s"), digits=3),
                      _number(g.get("completion_time_p90_s"), digits=3),
                      _number(g.get("completion_time_p99_s"), digits=3))
    return table


def links_table(links: list[dict]) -> Table:
    """Every link with a queue, one row each (shown for networks other than the dumbbell)."""
    table = Table(title="links with a queue", title_justify="left")
    for heading in ("link", "from", "to", "Mbit/s", "utili-\nsation", "drops\n(queue)", "drops\n(errors)",
                    "mean\nqueue", "max\nqueue"):
        table.add_column(heading, justify="left" if heading in ("link", "from", "to") else "right", overflow="fold")
    for entry in links:
        utilization = entry.get("utilization")
        table.add_row(str(entry.get("name", "")), str(entry.get("from", "")), str(entry.get("to", "")),
                      _number(entry.get("rate_bps"), MBIT, digits=1),
                      "-" if utilization is None else f"{100 * utilization:.1f} %",
                      _number(entry.get("drops")), _number(entry.get("error_drops")),
                      _number(entry.get("mean_queue_packets"), digits=1), _number(entry.get("max_queue_packets")))
    return table


# The engine describes each algorithm with: name, aliases, summary, default_variant, variants (names, or
# tables of name, source and that variant's parameter defaults) and parameters (tables of name and doc,
# or a plain table of defaults). The functions below read any of these shapes.

def _variants(entry: dict) -> list[dict]:
    """The variants, the default first (what a flow gets without `variant`), then in the engine's order."""
    variants = [v if isinstance(v, dict) else {"name": str(v)} for v in entry.get("variants") or []]
    default = entry.get("default_variant")
    return sorted(variants, key=lambda v: v["name"] != default)


def _variant_names(entry: dict) -> str:
    """'linux-2.6.22 (default), linux, paper'."""
    default = entry.get("default_variant")
    return ", ".join(v["name"] + (" (default)" if v["name"] == default else "") for v in _variants(entry))


def _defaults(entry: dict) -> dict:
    """Parameter defaults of the default variant (or the first), when the engine gives them."""
    variants = _variants(entry)
    chosen = [v for v in variants if v.get("name") == entry.get("default_variant")] or variants[:1]
    return dict(chosen[0].get("parameters") or {}) if chosen else {}


def parameter_rows(entry: dict) -> list[tuple[str, str, str]]:
    """(name, default, description) for each parameter of an algorithm."""
    parameters = entry.get("parameters")
    defaults = _defaults(entry)
    rows = []
    if isinstance(parameters, dict):
        items = parameters.items()
    else:
        items = ((p.get("name", "?"), p) if isinstance(p, dict) else (str(p), None) for p in parameters or [])
    for name, described in items:
        if isinstance(described, dict):
            default = described.get("default", defaults.get(name, ""))
            text = described.get("doc") or described.get("description") or described.get("help") or ""
        else:
            default, text = (described if described is not None else defaults.get(name, "")), ""
        rows.append((str(name), str(default), str(text)))
    return rows


def _source(entry: dict) -> str:
    sources = [entry.get("source")] if entry.get("source") else [v.get("source") for v in _variants(entry)]
    return "; ".join(str(s) for s in sources if s)


def queues_table(queues: list[dict]) -> Table:
    table = Table(title="queue disciplines", title_justify="left")
    for heading in ("name", "variants", "parameters", "summary"):
        table.add_column(heading)
    for entry in queues:
        table.add_row(str(entry.get("name", "")), _variant_names(entry),
                      ", ".join(row[0] for row in parameter_rows(entry)), str(entry.get("summary") or _source(entry)))
    return table


def algorithms_table(algorithms: list[dict]) -> Table:
    table = Table(title="algorithms", title_justify="left")
    for heading in ("name", "aliases", "variants", "parameters", "summary"):
        table.add_column(heading)
    for entry in algorithms:
        table.add_row(str(entry.get("name", "")), ", ".join(map(str, entry.get("aliases") or [])),
                      _variant_names(entry),
                      ", ".join(row[0] for row in parameter_rows(entry)),
                      str(entry.get("summary") or _source(entry)))
    return table


def algorithm_detail(entry: dict, kind: str = "algorithm") -> Group:
    header = Table.grid(padding=(0, 2))
    header.add_column(style="bold")
    header.add_column()
    header.add_row(kind, str(entry.get("name", "")))
    for label, key in (("aliases", "aliases"), ("summary", "summary"), ("default variant", "default_variant")):
        value = entry.get(key)
        if value:
            header.add_row(label, ", ".join(map(str, value)) if isinstance(value, list) else str(value))
    if entry.get("source"):
        header.add_row("source", str(entry["source"]))
    variants = Table(title="variants", title_justify="left")
    for heading in ("name", "source", "defaults"):
        variants.add_column(heading)
    for variant in _variants(entry):
        defaults = ", ".join(f"{k}={v}" for k, v in (variant.get("parameters") or {}).items())
        name = variant["name"] + (" (default)" if variant["name"] == entry.get("default_variant") else "")
        variants.add_row(name, str(variant.get("source", "")), defaults)
    parameters = Table(title="parameters", title_justify="left")
    for heading in ("name", "default", "meaning"):
        parameters.add_column(heading)
    for row in parameter_rows(entry):
        parameters.add_row(*row)
    return Group(header, variants, parameters)
