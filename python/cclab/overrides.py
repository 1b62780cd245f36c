"""`--set KEY=VALUE`: edit the raw TOML dict before validation.

Overrides act on the dict, not on the validated model, so a value set from the command line goes
through exactly the checks a value written in the file does (units, ranges, unknown keys). Only the
path itself is checked here: list indices must exist and a path cannot go through a plain value.
Missing tables on the way are created, so `network.bottleneck.reverse_queue.size=10` works on a file
without a reverse queue; a misspelt key then fails validation under its own name. `*` in place of a list
index stands for every entry (`flows.*.recovery=ns2-sack1` sets every flow's; a list that is empty or
absent takes nothing), so one override fits the scenarios of a whole study, whatever their flow counts.
`cc.NAME=SPEC` (NAME an algorithm, SPEC a name or a table) runs SPEC in place of every flow and traffic
entry whose algorithm is NAME, whatever its variant: `cc.highspeed={ name = "highspeed", variant = "ns2" }`
changes the HighSpeed flows of every run of a study and leaves the others alone.
"""

from __future__ import annotations

import copy
import datetime
from typing import Any, Sequence

from . import _toml
from .errors import ScenarioError

SET_ACCEPTED = ("KEY=VALUE with a dotted key, e.g. run.seed=3, flows.0.cc=cubic or flows.*.cc=cubic; "
                "or cc.NAME=SPEC for every entry running algorithm NAME")


def parse_value(text: str) -> Any:
    """A TOML literal when it is one (3, 0.5, true, { name = "cubic" }, "quoted"), else the text itself.

    So `rate=200Mbps` needs no quotes, while `seed=3` is the integer 3 the schema expects.
    """
    try:
        parsed = _toml.loads(f"value = {text}")
    except _toml.TOMLDecodeError:
        return text
    value = parsed.get("value")
    # Reject anything that smuggled in more keys (a newline in the text) or became a date: plain text.
    if set(parsed) != {"value"} or isinstance(value, (datetime.date, datetime.time)):
        return text
    return value


def split_assignment(item: str) -> tuple[list[str], Any]:
    key, sep, text = item.partition("=")
    key = key.strip()
    parts = key.split(".")
    if not sep or not key or any(not part.strip() for part in parts):
        raise ScenarioError("--set", f"{item!r} is not KEY=VALUE", SET_ACCEPTED)
    return [part.strip() for part in parts], parse_value(text.strip())


def set_path(raw: dict, parts: list[str], value: Any) -> None:
    set_path_from(raw, parts, 0, value)


def set_path_from(node: Any, parts: list[str], start: int, value: Any) -> None:
    """`set_path` for `parts[start:]` below `node`, which `parts[:start]` led to."""
    for depth in range(start, len(parts)):
        part = parts[depth]
        here = ".".join(parts[: depth + 1])
        last = depth == len(parts) - 1
        if isinstance(node, dict):
            if last:
                node[part] = copy.deepcopy(value)
            elif part not in node and parts[depth + 1] == "*":
                return  # every entry of a list the file does not have: none
            else:
                node = node.setdefault(part, {})
        elif isinstance(node, list) and part == "*":
            for index in range(len(node)):
                if last:
                    node[index] = copy.deepcopy(value)  # each entry its own table: later edits stay apart
                else:
                    set_path_from(node[index], parts, depth + 1, value)
            return
        elif isinstance(node, list):
            index = _index(part, node, here)
            if last:
                node[index] = value
            else:
                node = node[index]
        else:
            parent = ".".join(parts[:depth])
            raise ScenarioError(here, f"{parent} is the value {node!r}, not a table or list, so it has no key {part!r}",
                                f"--set {parent}=VALUE to replace it")


def _index(part: str, items: list, here: str) -> int:
    parent = here.rpartition(".")[0] or here
    if not part.isdigit():
        raise ScenarioError(here, f"{parent} is a list, indexed by number or *, not {part!r}",
                            f"{parent}.0 to {parent}.{len(items) - 1}, or {parent}.* for every entry" if items
                            else "a file that has entries here")
    index = int(part)
    if index >= len(items):
        accepted = f"an index from 0 to {len(items) - 1}" if items else "a file that has entries here"
        raise ScenarioError(here, f"index {index} is out of range; {parent} has {len(items)} "
                                  f"entr{'y' if len(items) == 1 else 'ies'}", accepted)
    return index


def substitute_cc(raw: dict, name: str, value: Any) -> None:
    """`cc.NAME=SPEC`: every `flows` and `traffic` entry whose algorithm is NAME (an alias counts as its
    algorithm; a traffic entry without `cc` runs newreno) runs SPEC instead, as a whole: the entry's own
    variant and parameters go with it. An entry running another algorithm is left alone, and so a study
    whose runs hold no NAME flow takes nothing."""
    from .engine import algorithm_names, canonical_algorithm

    if name not in algorithm_names():
        raise ScenarioError(f"cc.{name}", f"{name!r} is not a known algorithm", "one of " + ", ".join(algorithm_names()))
    target = canonical_algorithm(name)
    for section, default in (("flows", None), ("traffic", "newreno")):
        entries = raw.get(section)
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            cc = entry.get("cc", default)
            current = cc.get("name") if isinstance(cc, dict) else cc
            if isinstance(current, str) and canonical_algorithm(current) == target:
                entry["cc"] = copy.deepcopy(value)  # each entry its own table


def apply_overrides(raw: dict, overrides: Sequence[str]) -> dict:
    """Apply each `KEY=VALUE` in order (later ones win) to `raw`, in place; returns `raw`."""
    if isinstance(overrides, str):  # a lone string would otherwise be applied character by character
        overrides = [overrides]
    for item in overrides:
        parts, value = split_assignment(item)
        if parts[0] == "cc":
            if len(parts) != 2:
                raise ScenarioError("--set", f"{item!r}: an algorithm's runs are changed by cc.NAME=SPEC",
                                    "cc.NAME=SPEC, e.g. cc.bic=cubic or cc.highspeed={ name = \"highspeed\", variant = \"ns2\" }")
            substitute_cc(raw, parts[1], value)
            continue
        set_path(raw, parts, value)
    return raw
