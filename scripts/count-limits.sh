#!/usr/bin/env bash
# How short a counted rule must be before it binds: builds one variant's tables up to N pieces
# once, then its rule tables with one setting at each value given, and prints per value the
# cursed wins and blessed losses of one table with fresh counts (`dtb stats`).
# Usage: scripts/count-limits.sh VARIANT PIECES TABLE SETTING VALUE...
# Example: scripts/count-limits.sh portuguese 4 KKKvK forcada-moves 12 8 6 4
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -lt 5 ]; then
  sed -n 2,6p "$0" | sed 's/^# //'
  exit 2
fi
variant="$1" pieces="$2" table="$3" setting="$4"
shift 4
cargo build --release -q -p draughts-generator --bin dtb
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
./target/release/dtb generate --variant "$variant" --pieces "$pieces" --dir "$dir" \
  --zstd-level 3 --draw-rules none >/dev/null 2>&1
echo "$variant $table, $setting: cursed wins, blessed losses (fresh counts)"
for value in "$@"; do
  ./target/release/dtb generate --variant "$variant" --pieces "$pieces" --dir "$dir" \
    --rules-zstd-level 3 --rule-setting "$setting=$value" >/dev/null 2>&1
  ./target/release/dtb stats --variant "$variant" --dir "$dir" --json \
    --rule-setting "$setting=$value" |
    python3 -c "
import json, sys
row = next(t for t in json.load(sys.stdin) if t['table'] == '$table')
print('$value', row['cursed_wins'], row['blessed_losses'])"
done
