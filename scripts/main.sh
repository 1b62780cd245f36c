#!/usr/bin/env bash
# The main job: seed 000's Table I (NewReno and CUBIC rows, full 2000 s runs) beside the paper's numbers,
# with the congestion-window figures. Reports go to results/seed000-table1/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/cclab reproduce seed000 --only table1 "$@"
