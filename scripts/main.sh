#!/usr/bin/env bash
# The main job: every experiment of seed 000 (Tables I and II, Figures 2-13) in quick mode, beside the
# paper and ns-2.35, with the paper's findings checked; 4 to 15 minutes in a fresh clone on 2 shared cores
# (2026-11-24, lightly loaded to load average 15; README.md has the breakdown). The report page is
# results/seed000-quick/report.md. For the full study (2000 s runs, about 25 min on 2 quiet cores):
#   scripts/main.sh --full          (or: .venv/bin/cclab reproduce seed000)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [[ "${1:-}" == "--full" ]]; then
    shift
    exec .venv/bin/cclab reproduce seed000 "$@"
fi
exec .venv/bin/cclab reproduce seed000 --quick "$@"
