#!/usr/bin/env bash
# The whole test suite: engine unit, property and fuzz tests (Rust); the wheel installed into a fresh
# virtual environment outside the repository, running the quick seed 000 reproduction there
# (scripts/check_wheel.sh --no-sdist); then the Python front, its fuzzers, the CLI and the fidelity checks
# against seed 000 (pytest, on the release build of the engine), last so that its summary closes the output.
# docs/testing.md lists what each part checks and how to run the fuzzers longer.
set -euo pipefail
cd "$(dirname "$0")/.."
START=$SECONDS
scripts/setup.sh
echo "test.sh: setup done in $((SECONDS - START)) s"
cargo test -p cclab-engine
cargo test -p cclab-delayline   # the live testbed's delay line (a second or so)
echo "test.sh: engine tests done at $((SECONDS - START)) s"
scripts/check_wheel.sh --no-sdist
echo "test.sh: wheel check done at $((SECONDS - START)) s"
.venv/bin/python -m pytest "$@"
