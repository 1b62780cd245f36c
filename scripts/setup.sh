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
# test tools.
.venv/bin/python -m pip install --quiet -e '.[cluster,test]'
