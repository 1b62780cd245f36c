#!/usr/bin/env bash
# cclab as a new user gets it: build the wheel and the sdist, install the wheel into a fresh virtual
# environment in a temporary folder outside the repository, and run the README's commands there, the whole
# quick seed 000 reproduction included (126 runs: about a minute of simulation on 2 idle cores). Everything
# the commands read at run time must come from the installed package, never from this checkout.
# scripts/test.sh runs it with --no-sdist: the wheel alone, packed from the checkout's release build (the
# sdist's build compiles the engine from scratch in a folder of its own, minutes more); the dependencies
# come from the package index (pip's cache makes a second run quick).
#
#   scripts/check_wheel.sh               # exit status 0 when every check passes
#   scripts/check_wheel.sh --no-sdist    # the wheel only (what scripts/test.sh runs)
#   scripts/check_wheel.sh --keep        # keep the temporary folder (its path is printed) to look around
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
PYTHON=${PYTHON:-python3}
KEEP=""
SDIST=yes
for arg in "$@"; do
    case "$arg" in
        --keep) KEEP=--keep ;;
        --no-sdist) SDIST=no ;;
        *) echo "usage: scripts/check_wheel.sh [--no-sdist] [--keep]" >&2; exit 2 ;;
    esac
done
START=$SECONDS

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cclab-wheel.XXXXXX")
if [[ "$KEEP" != "--keep" ]]; then
    trap 'rm -rf "$WORK"' EXIT
fi
echo "check_wheel: working in $WORK"
fail() { echo "check_wheel: FAILED: $*" >&2; exit 1; }
ok() { echo "check_wheel: ok: $*"; }

# The wheel's engine with the same profile-guided optimisation as scripts/setup.sh's build (scripts/pgo.sh;
# the profile is reused, and the checkout's target/ then holds this very build).
pgo_flags=$(scripts/pgo.sh) || { echo "$(basename "$0"): the profile could not be made; an ordinary release build" >&2; pgo_flags=""; }
if [ -n "$pgo_flags" ]; then
    export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }$pgo_flags"
fi

# 1. Build with maturin, the version pyproject.toml's build-system asks for. With --sdist, maturin builds
#    the sdist first and the wheel from it, in a folder of its own: so the sdist is proven to build too.
"$PYTHON" -m venv "$WORK/build"
"$WORK/build/bin/pip" install --quiet --upgrade pip
MATURIN=$("$PYTHON" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"][0])')
"$WORK/build/bin/pip" install --quiet "$MATURIN"
if [[ "$SDIST" == yes ]]; then
    "$WORK/build/bin/maturin" build --release --sdist --out "$WORK/dist" >"$WORK/build.log" 2>&1 \
        || { tail -30 "$WORK/build.log" >&2; fail "maturin build (log: $WORK/build.log)"; }
    SDIST_FILE=$(ls "$WORK"/dist/cclab-*.tar.gz)
else
    # From the checkout: its target/ holds the release build of scripts/setup.sh, so little is compiled.
    "$WORK/build/bin/maturin" build --release --out "$WORK/dist" >"$WORK/build.log" 2>&1 \
        || { tail -30 "$WORK/build.log" >&2; fail "maturin build (log: $WORK/build.log)"; }
    SDIST_FILE=""
fi
WHEEL=$(ls "$WORK"/dist/cclab-*.whl)
ok "built $(basename "$WHEEL")${SDIST_FILE:+ and $(basename "$SDIST_FILE")} ($((SECONDS - START)) s)"

# 2. Both carry every study file of the checkout.
STUDY_FILES=$(cd python && find cclab/studies -name '*.toml' | sort)
[[ -n "$STUDY_FILES" ]] || fail "no study files under python/cclab/studies"
"$PYTHON" - "$WHEEL" "$SDIST_FILE" $STUDY_FILES <<'EOF' || fail "a study file is missing from the wheel or the sdist"
import sys, tarfile, zipfile
wheel, sdist, *wanted = sys.argv[1:]
in_wheel = set(zipfile.ZipFile(wheel).namelist())
in_sdist = {name.split("/", 1)[1] for name in tarfile.open(sdist).getnames() if "/" in name} if sdist else None
missing = [f"wheel: {w}" for w in wanted if w not in in_wheel] + \
          [f"sdist: {w}" for w in wanted if in_sdist is not None and f"python/{w}" not in in_sdist]
if missing:
    sys.exit("\n".join(missing))
EOF
ok "$(echo "$STUDY_FILES" | wc -l) study files in the wheel${SDIST_FILE:+ and in the sdist}"

# 3. A fresh venv with the wheel alone (no extras), used from a folder that is not the repository.
"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet --upgrade pip
"$WORK/venv/bin/pip" install --quiet "$WHEEL"
cd "$WORK"
unset PYTHONPATH CCLAB_EXPERIMENTS CCLAB_STORE
CCLAB="$WORK/venv/bin/cclab"
PACKAGE=$("$WORK/venv/bin/python" -c 'import cclab, pathlib; print(pathlib.Path(cclab.__file__).parent)')
[[ "$PACKAGE" == "$WORK/venv/"* ]] || fail "cclab imported from $PACKAGE, not from the fresh venv"
ok "cclab imported from $PACKAGE"

VERSION=$("$CCLAB" --version)
FINGERPRINT=$("$WORK/venv/bin/python" -c 'import cclab._engine as e; print(e.source_hash())')
[[ "$VERSION" =~ ^cclab\ [0-9][^\ ]*\ \(engine\ ${FINGERPRINT}\)$ ]] || fail "cclab --version printed '$VERSION'"
ok "cclab --version: $VERSION"

LIST=$("$CCLAB" reproduce --list)
for id in seed000-table1 seed000-table2 seed000-figure13 seed001-figure1; do
    grep -q "^$id	$PACKAGE/studies/" <<<"$LIST" || fail "cclab reproduce --list lacks $id from the package: $LIST"
done
ok "cclab reproduce --list: $(wc -l <<<"$LIST") experiments, all from the installed package"

ALGORITHMS=$("$CCLAB" algorithms)
for name in newreno cubic bbr; do
    grep -q "$name" <<<"$ALGORITHMS" || fail "cclab algorithms lacks $name"
done
ok "cclab algorithms"

# Live measurement (docs/live.md): its commands, and the delay line the testbed starts from the package.
"$CCLAB" live --help >/dev/null || fail "cclab live --help"
"$CCLAB" compare --help >/dev/null || fail "cclab compare --help"
"$WORK/venv/bin/python" -c 'import cclab._engine as e, cclab.live.delayline; assert callable(e.DelayLine)' \
    || fail "the live testbed's delay line is missing from the wheel"
ok "cclab live and compare, and the delay line, in the wheel"

"$CCLAB" run "$PACKAGE/studies/seed000/single-flow.toml" --set run.duration=5s --set run.measure_from=1s \
    --out "$WORK/run" >"$WORK/run.txt" 2>&1 || fail "cclab run of a packaged scenario: $(cat "$WORK/run.txt")"
[[ -s "$WORK/run/timeseries.parquet" ]] || fail "cclab run --out wrote no time series"
ok "cclab run of a packaged scenario, with --out"

if "$CCLAB" reproduce seed000 --quick --only table1 --cluster local:1 --store "$WORK/store" 2>"$WORK/cluster.txt"; then
    fail "--cluster without the cluster extra did not fail"
fi
grep -q "pip install 'cclab\[cluster\]'" "$WORK/cluster.txt" || fail "--cluster without Dask said: $(cat "$WORK/cluster.txt")"
ok "--cluster without the extra: $(cat "$WORK/cluster.txt")"

# The whole quick reproduction (every table and figure of seed 000, in its quick form), as the README's
# first command runs it from the checkout.
"$CCLAB" reproduce seed000 --quick --jobs 2 --store "$WORK/store" --out "$WORK/results" \
    >"$WORK/seed000.txt" 2>"$WORK/seed000.err" || fail "quick seed 000: $(tail -5 "$WORK/seed000.err")"
[[ -s "$WORK/results/seed000-quick/report.md" ]] || fail "quick seed 000 wrote no report"
for part in "Table I" "Table II" "Figure 13"; do
    grep -q "$part" "$WORK/results/seed000-quick/report.md" || fail "quick seed 000's report lacks $part"
done
# report.html is drawn from the templates shipped in the package (cclab/templates/*.html.j2).
grep -q "data:image/png;base64," "$WORK/results/seed000-quick/report.html" \
    || fail "quick seed 000 wrote no HTML report with its figures (templates missing from the wheel?)"
[[ -s "$WORK/results/index.html" ]] || fail "cclab reproduce wrote no index.html"
ok "cclab reproduce seed000 --quick: $(tail -1 "$WORK/seed000.err")"

echo "check_wheel: all checks passed (the wheel works outside $REPO) in $((SECONDS - START)) s"
