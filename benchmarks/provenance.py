"""Where a cross-check cache row came from, so that a stale row is never reused without saying so.

Every row of the cross-check caches (benchmarks/crosscheck-*.csv) carries what produced it:
- a cclab row, the engine fingerprint (`engine`: the hash of the engine's source, crates/engine/build.rs,
  as `cclab --version` prints it);
- an ns-2 row, the hash of the Tcl script that ran it together with benchmarks/ns2/common.tcl, which
  every script sources (`ns2_script`: `dumbbell.tcl@1a2b3c4d5e6f`).

A row whose stamp differs from the current engine or script is stale: the cross-check scripts compute
it again rather than reuse it, and a report made from the cache (`--report-only`) leaves it out unless
`--allow-stale` is given, and then says which engine or script made the table. Rows cached before
stamps existed carry `unrecorded`. Standard library only.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import Iterable, Mapping

HERE = Path(__file__).resolve().parent
NS2_DIR = HERE / "ns2"
COMMON_TCL = NS2_DIR / "common.tcl"
AGENT_TCL = NS2_DIR / "agent_dumbbell.tcl"   # sourced by the scripts of agents of their own class
SACK1_TCL = NS2_DIR / "sack1_dumbbell.tcl"   # sourced whole by scripts that only set an option first
UNRECORDED = "unrecorded"
ENGINE, NS2_SCRIPT = "engine", "ns2_script"


def ns2_script_hash(script: Path) -> str:
    """`name@hash`: SHA-256 (first 12 hex digits) of the script's bytes followed by common.tcl's, by
    agent_dumbbell.tcl's for a script that sources it, and by sack1_dumbbell.tcl's for a script that
    sources that one (then agent_dumbbell.tcl's too), since a change to any can change what ns-2 computes."""
    text = Path(script).read_bytes()
    digest = hashlib.sha256(text)
    digest.update(COMMON_TCL.read_bytes())
    agent = AGENT_TCL.name.encode() in text
    if agent:
        digest.update(AGENT_TCL.read_bytes())
    if b"[info script]] " + SACK1_TCL.name.encode() + b"]" in text:   # its `source` line, not a mention
        digest.update(SACK1_TCL.read_bytes())
        if not agent:
            digest.update(AGENT_TCL.read_bytes())
    return f"{Path(script).name}@{digest.hexdigest()[:12]}"


def engine_fingerprint(cclab: str) -> str:
    """The engine fingerprint of the `cclab` executable given, from `cclab --version`
    ("cclab 0.1.0 (engine b3eefb0c909b1fce)")."""
    proc = subprocess.run([cclab, "--version"], capture_output=True, text=True)
    found = re.search(r"\(engine ([0-9a-f]+)\)", proc.stdout)
    if proc.returncode != 0 or not found:
        raise RuntimeError(f"`{cclab} --version` does not name the engine: {(proc.stdout + proc.stderr).strip()[-200:]}")
    return found.group(1)


def is_fresh(row: Mapping[str, str], column: str, current: str) -> bool:
    return row.get(column) == current


def describe(rows: Iterable[Mapping[str, str]], column: str, current: str) -> str:
    """One line naming what made `rows`: "engine b3eefb0c909b1fce (current)", or each stamp with its
    number of rows and the current one beside them."""
    counts = Counter(row.get(column) or UNRECORDED for row in rows)
    what = "engine" if column == ENGINE else "ns-2 script"
    if not counts:
        return f"no rows ({what} now {current})"
    if set(counts) == {current}:
        return f"{what} {current} (current)"
    parts = ", ".join(f"{stamp} ({n} rows)" for stamp, n in counts.most_common())
    return f"{what} {parts}; STALE: the current {what} is {current}"
