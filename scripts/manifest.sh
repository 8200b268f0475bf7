#!/usr/bin/env bash
# Rebuilds tables/manifest.json: every table up to N pieces (default 5) of the three move-rule
# sets, with its statistics and the checksum of its values. Usage: scripts/manifest.sh [pieces].
# generator/tests/integration/manifest.rs checks a fresh build of the tables up to 4 pieces against it.
set -euo pipefail
cd "$(dirname "$0")/.."
pieces="${1:-5}"
cargo build --release -q -p draughts-generator --bin dtb
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
for variant in russian brazilian portuguese; do
  # The raw files kept: the statistics are then read from their headers.
  ./target/release/dtb generate --variant "$variant" --pieces "$pieces" --dir "$dir" --zstd-level 1 \
    --keep-raw --draw-rules none 2>/dev/null
  ./target/release/dtb stats --variant "$variant" --dir "$dir" --json > "$dir/$variant.json"
done
python3 - "$dir" "$pieces" > tables/manifest.json <<'PY'
import json, sys
dir, pieces = sys.argv[1], int(sys.argv[2])
tables = []
for variant in ["russian", "brazilian", "portuguese"]:
    tables += json.load(open(f"{dir}/{variant}.json"))
json.dump({"format": 1, "max_pieces": pieces, "tables": tables}, sys.stdout, indent=1)
print()
PY
echo "wrote tables/manifest.json ($(python3 -c 'import json;print(len(json.load(open("tables/manifest.json"))["tables"]))') tables)"
