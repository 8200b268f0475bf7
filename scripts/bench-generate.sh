#!/usr/bin/env bash
# Table generation speed, peak memory and peak disk: builds every table of one rule set up to N
# pieces in a fresh folder, then the rule tables of the variant's draw rules, sampling the
# folder's size every second. Further arguments go to `dtb generate` (`--draw-rules none`: the
# pure tables only; `--keep-raw`: keep the raw working files).
# Usage: scripts/bench-generate.sh [variant] [pieces] [dtb generate options] (default russian 5).
set -euo pipefail
cd "$(dirname "$0")/.."
variant="${1:-russian}"
pieces="${2:-5}"
shift $(($# < 2 ? $# : 2))
cargo build --release -q -p draughts-generator --bin dtb
dir="$(mktemp -d)"
peak_file="$dir.peak"
trap 'rm -rf "$dir" "$peak_file"' EXIT
# The disk sampler: the largest size the folder reached, in bytes.
(
  peak=0
  while [[ -d "$dir" ]]; do
    size=$(du -sb "$dir" 2>/dev/null | cut -f1)
    ((${size:-0} > peak)) && peak=$size && echo "$peak" > "$peak_file"
    sleep 1
  done
) &
sampler=$!
/usr/bin/time -f "wall %e s, user %U s, system %S s, peak memory %M KiB" \
  ./target/release/dtb generate --variant "$variant" --pieces "$pieces" --dir "$dir" "$@" 2>&1 |
  tail -2
final=$(du -sb "$dir" | cut -f1)
kill "$sampler" 2>/dev/null || true
peak=$(cat "$peak_file" 2>/dev/null || echo 0)
((final > peak)) && peak=$final
echo "disk: peak $(( peak / 1000000 )) MB (sampled each second), at the end $(( final / 1000000 )) MB"
