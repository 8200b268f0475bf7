#!/usr/bin/env bash
# Table generation speed and peak memory: builds every table of one rule set up to N pieces in
# a fresh folder. Usage: scripts/bench-generate.sh [variant] [pieces] (default russian 5).
set -euo pipefail
cd "$(dirname "$0")/.."
variant="${1:-russian}"
pieces="${2:-5}"
cargo build --release -q -p draughts-generator --bin dtb
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
/usr/bin/time -f "wall %e s, peak memory %M KiB" \
  ./target/release/dtb generate --variant "$variant" --pieces "$pieces" --dir "$dir" 2>&1 | tail -2
