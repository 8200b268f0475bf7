#!/usr/bin/env bash
# Table generation speed and peak memory: builds every table of one rule set up to N pieces in
# a fresh folder, then the rule tables of the variant's draw rules. Further arguments go to
# `dtb generate` (`--draw-rules none`: the pure tables only).
# Usage: scripts/bench-generate.sh [variant] [pieces] [dtb generate options] (default russian 5).
set -euo pipefail
cd "$(dirname "$0")/.."
variant="${1:-russian}"
pieces="${2:-5}"
shift $(($# < 2 ? $# : 2))
cargo build --release -q -p draughts-generator --bin dtb
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
/usr/bin/time -f "wall %e s, peak memory %M KiB" \
  ./target/release/dtb generate --variant "$variant" --pieces "$pieces" --dir "$dir" "$@" 2>&1 |
  tail -2
