#!/usr/bin/env bash
# Profile-guided optimisation (PGO) of the engine. Prints the rustc flag that builds with the profile
# (`-Cprofile-use=<file>`) on stdout, after making the profile if this source has none yet; prints nothing,
# and says why on stderr, when PGO is off or cannot be done here: the build is then an ordinary release
# build. scripts/setup.sh, scripts/check_wheel.sh and benchmarks/suite.py build with what it prints.
#
# Why: the engine's time goes to a few hot, branchy paths (the event loop, the links, the sender's ACK
# handling), and knowing which branches are taken lets LLVM lay them out and inline for the common case.
# Measured 8-11 % less CPU time per simulated packet, the same results bit for bit (docs/benchmarks.md,
# run 20): PGO changes how the code is arranged, never what it computes (no floating-point reassociation).
#
# How: build the engine instrumented (`-Cprofile-generate`) into target/pgo/build, run the scenarios of
# crates/engine/examples/fingerprints.rs in their training set (`--training`: the 270 of the three main
# recovery modes with every algorithm, lossy links, many flows, large windows, traffic sources; 3-5 s) twice, sampled every 10 ms and every 100 ms (the engine's default, with
# which a lone flow's receiver takes packets at the bottleneck's hand-off), merge the counts with the toolchain's own llvm-profdata (rustup's
# `llvm-tools` component, added here when missing). The profile is named by a hash of everything that
# shapes the code (rustc version, Cargo.lock and manifests, this script, the engine's source), so an edit makes a new
# one on the next set-up and an unchanged tree reuses it.
#
# The profile only helps a build whose engine crate is the very same unit as the trained one (LLVM matches
# functions by their symbol names, which carry cargo's hash of the crate's resolved features): both are
# therefore built with the bindings' package selection (PACKAGES below), as maturin builds them.
#
#   CCLAB_PGO=0 scripts/setup.sh     # an ordinary release build
set -euo pipefail
cd "$(dirname "$0")/.."

# The package selection of the bindings' build (crates/pybind, with maturin's feature from pyproject.toml).
# The engine's features resolved in it differ from the engine built alone, and so would its symbols.
PACKAGES=(-p cclab-py -p cclab-engine --features pyo3/extension-module --lib)

if [ "${1:-}" = "--packages" ]; then
    echo "${PACKAGES[*]}"
    exit 0
fi
if [ "${CCLAB_PGO:-1}" = 0 ]; then
    echo "pgo: off (CCLAB_PGO=0): an ordinary release build" >&2
    exit 0
fi
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ] && command -v rustup >/dev/null 2>&1; then
    echo "pgo: adding rustup's llvm-tools component (llvm-profdata of this rustc's LLVM)" >&2
    rustup component add llvm-tools >&2 || true
fi
if [ ! -x "$profdata" ]; then
    echo "pgo: no llvm-profdata for this toolchain ($profdata): an ordinary release build" >&2
    exit 0
fi

key=$( { rustc -vV; cat Cargo.lock Cargo.toml crates/*/Cargo.toml scripts/pgo.sh;
         find crates/engine/src crates/engine/build.rs crates/engine/examples/fingerprints.rs -type f \
             | LC_ALL=C sort | while read -r f; do echo "$f"; cat "$f"; done; } | sha256sum | cut -c1-16)
dir="$PWD/target/pgo"
profile="$dir/engine-$key.profdata"
if [ ! -f "$profile" ]; then
    echo "pgo: training the engine's profile (an instrumented build, then the fingerprint scenarios)" >&2
    rm -rf "$dir/raw"
    RUSTFLAGS="-Cprofile-generate=$dir/raw" CARGO_TARGET_DIR="$dir/build" \
        cargo build --quiet --release "${PACKAGES[@]}" --example fingerprints >&2
    "$dir/build/release/examples/fingerprints" --training > /dev/null
    # Again with the engine's default sampling (100 ms): the lone flows then take the path of a receiver
    # that takes packets at the bottleneck's hand-off, which the 10-ms fingerprints never do, and which
    # seed 000's runs and most users' take (docs/benchmarks.md, run 26).
    "$dir/build/release/examples/fingerprints" --training --sample-interval-ns 100000000 > /dev/null
    "$profdata" merge -o "$profile.tmp" "$dir/raw"
    mv "$profile.tmp" "$profile"
    # One profile is kept: the one of this tree.
    find "$dir" -maxdepth 1 -name 'engine-*.profdata' ! -name "engine-$key.profdata" -delete
    rm -rf "$dir/raw"
    echo "pgo: profile ready ($(basename "$profile"))" >&2
fi
echo "-Cprofile-use=$profile"
