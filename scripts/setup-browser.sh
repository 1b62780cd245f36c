#!/usr/bin/env bash
# Chromium for the browser test of the HTML reports (tests/test_report_html.py): Debian's `chromium`
# package, installed with apt-get when it is missing. Quick when it is there already (one `command -v`).
# Run by .ci/run before scripts/test.sh. Without root or apt-get it says what to do and leaves the rest
# to the test, which skips on a developer's machine and fails in CI (CI set), so CI never passes
# without having looked at a page.
set -euo pipefail

for name in chromium chromium-browser google-chrome; do
    if command -v "$name" >/dev/null 2>&1; then
        exit 0
    fi
done
if [ -n "${CCLAB_CHROMIUM:-}" ] && [ -x "$CCLAB_CHROMIUM" ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "setup-browser: Chromium is not installed; install Debian's chromium package (sudo apt-get install chromium)" \
         "or set CCLAB_CHROMIUM to a Chromium binary, for the browser test of the HTML reports" >&2
    exit 0
fi
echo "setup-browser: installing Debian's chromium package for the browser test of the HTML reports" >&2
export DEBIAN_FRONTEND=noninteractive
# The package lists may be missing or stale on a fresh machine: refresh them once if the first try fails.
if ! apt-get install -y chromium >/dev/null; then
    apt-get update >/dev/null
    apt-get install -y chromium >/dev/null
fi
command -v chromium >/dev/null
