#!/usr/bin/env bash
# Set up everything cclab needs in ./.venv: Python dependencies and the Rust engine, built in release mode.
# Safe to run again: it only rebuilds what changed. Used by scripts/main.sh and scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
    echo "error: cargo (the Rust toolchain) is needed to build the engine; install it with rustup" >&2
    exit 2
fi
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# The package (and its engine, compiled by maturin), the Dask cluster executor (the `cluster` extra) and the
# test tools. The release build takes minutes on a fresh machine (2 to 6 on 2 shared cores), so cargo's own lines
# (Compiling ..., Finished ...) are shown as it goes; pip's are kept in .venv/setup.log, whose end is
# shown if the install fails.
# The engine is built with profile-guided optimisation when the toolchain allows it (scripts/pgo.sh: the
# profile is trained once per engine source, about a minute; CCLAB_PGO=0 turns it off).
pgo_flags=$(scripts/pgo.sh) || { echo "$(basename "$0"): the profile could not be made; an ordinary release build" >&2; pgo_flags=""; }
if [ -n "$pgo_flags" ]; then
    export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }$pgo_flags"
fi
echo "setup: Python dependencies and the engine (release build; a few minutes the first time)" >&2
log=.venv/setup.log
progress='^ *(Compiling|Finished|Building editable|Building wheel)|^(warning|error)'
if ! .venv/bin/python -m pip install -v -e '.[cluster,test]' 2>&1 | tee "$log" \
        | { grep --line-buffered -E "$progress" || true; } >&2; then
    echo "error: the install failed; the end of $log:" >&2
    tail -n 40 "$log" >&2
    exit 1
fi
echo "setup: done" >&2
