#!/usr/bin/env bash
# Move-generation speed: perft leaves per second from the initial position, one thread,
# bulk counting at the last ply. Usage: scripts/bench-perft.sh [depth] (default 11).
set -euo pipefail
cd "$(dirname "$0")/.."
depth="${1:-11}"
cargo build --release -q -p draughts-generator --bin dtb
for variant in russian brazilian portuguese; do
  ./target/release/dtb perft --variant "$variant" --depth "$depth" 2>&1 >/dev/null
done
