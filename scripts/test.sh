#!/usr/bin/env bash
# The whole test suite: engine unit and property tests (Rust), then the Python front, the CLI and the
# fidelity checks against seed 000 (pytest, on the release build of the engine).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo test -p cclab-engine
.venv/bin/python -m pytest "$@"
