#!/usr/bin/env bash
# Bit-identity check for changes meant to leave behaviour alone (optimisations, refactorings): runs the
# scenarios of crates/engine/examples/fingerprints.rs (recovery modes x algorithms x buffers, lossy links,
# delayed ACKs, several flows, large windows) on the work tree and on a base revision, and compares every
# summary and time-series checksum.
#
#   scripts/equivalence.sh              # work tree against HEAD
#   scripts/equivalence.sh 35aa230      # work tree against any revision
#   scripts/equivalence.sh HEAD~3 --only linux-2.6     # a subset (passed on to the example)
#
# The base is checked out in a temporary git worktree and built with its own target directory
# (target/equivalence-base); the example file is copied from the work tree, so it needs only the engine's
# public interface at the base. Exit status 0 when every scenario is identical, 1 otherwise.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
base="${1:-HEAD}"
shift || true
out="$repo/target/equivalence"
mkdir -p "$out"
base_tree="$(mktemp -d)"
trap 'git -C "$repo" worktree remove --force "$base_tree" >/dev/null 2>&1 || true; rm -rf "$base_tree"' EXIT

git -C "$repo" worktree add --detach --quiet "$base_tree" "$base"
mkdir -p "$base_tree/crates/engine/examples"
cp "$repo/crates/engine/examples/fingerprints.rs" "$base_tree/crates/engine/examples/fingerprints.rs"

echo "building base ($(git -C "$repo" rev-parse --short "$base")) and work tree..." >&2
(cd "$base_tree" && CARGO_TARGET_DIR="$repo/target/equivalence-base" nice cargo build --quiet --release -p cclab-engine --example fingerprints)
(cd "$repo" && nice cargo build --quiet --release -p cclab-engine --example fingerprints)

echo "running the scenarios on both..." >&2
nice "$repo/target/equivalence-base/release/examples/fingerprints" "$@" > "$out/base.txt" &
base_pid=$!
nice "$repo/target/release/examples/fingerprints" "$@" > "$out/work.txt"
wait "$base_pid"

total=$(wc -l < "$out/work.txt")
if cmp -s "$out/base.txt" "$out/work.txt"; then
    echo "identical: all $total scenarios (summaries and series checksums)"
    exit 0
fi
echo "DIFFERENT (outputs in $out/base.txt and $out/work.txt):"
diff "$out/base.txt" "$out/work.txt" | grep '^[<>]' | grep -o '"scenario":"[^"]*"' | sort -u | head -50
exit 1
