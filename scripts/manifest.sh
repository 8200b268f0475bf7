#!/usr/bin/env bash
# tables/manifest.json: every table of the three move-rule sets with its statistics and the
# checksum of its values, as `dtb generate --json` and `dtb stats --json` print them.
#
#   scripts/manifest.sh [pieces]         rebuilds it: every table up to N pieces (default 5) of
#                                        the three move-rule sets, built here;
#   scripts/manifest.sh --merge FILE...  adds the tables of builds made elsewhere or at more
#                                        pieces (the lines `dtb generate --json` printed, e.g.
#                                        `dtb generate --variant portuguese --pieces 7 --json >
#                                        iberian-7.jsonl`). A table already listed must have the
#                                        same figures, or nothing is written.
#
# generator/tests/integration/manifest.rs checks a fresh build of the tables up to 4 pieces
# against it.
set -euo pipefail
cd "$(dirname "$0")/.."

# Writes tables/manifest.json from the current one (if $1 is "keep") and the JSON-lines files
# after it.
write_manifest() {
  python3 - "$@" <<'PY'
import json, sys

keep, files = sys.argv[1] == "keep", sys.argv[2:]
rule_sets = ["russian", "brazilian", "iberian"]
tables = json.load(open("tables/manifest.json"))["tables"] if keep else []
listed = {(t["rule_set"], t["table"]): t for t in tables}
added = 0
for name in files:
    for line in open(name):
        entry = json.loads(line)
        key = (entry["rule_set"], entry["table"])
        if key in listed:
            if listed[key] != entry:
                sys.exit(f"{name}: {key[0]} {key[1]} differs from the manifest: {entry} "
                         f"against {listed[key]}; nothing written")
            continue
        listed[key] = entry
        tables.append(entry)
        added += 1
# By rule set, each in the order its tables were built.
tables.sort(key=lambda t: rule_sets.index(t["rule_set"]))
max_pieces = {r: max((t["pieces"] for t in tables if t["rule_set"] == r), default=0)
              for r in rule_sets}
with open("tables/manifest.json", "w") as out:
    json.dump({"format": 2, "max_pieces": max_pieces, "tables": tables}, out, indent=1)
    out.write("\n")
print(f"wrote tables/manifest.json: {len(tables)} tables ({added} added), "
      f"up to {max_pieces} pieces")
PY
}

if [[ "${1:-}" == "--merge" ]]; then
  shift
  [[ $# -gt 0 ]] || { echo "usage: scripts/manifest.sh --merge FILE..." >&2; exit 2; }
  write_manifest keep "$@"
  exit
fi

pieces="${1:-5}"
cargo build --release -q -p draughts-generator --bin dtb
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
for variant in russian brazilian portuguese; do
  ./target/release/dtb generate --variant "$variant" --pieces "$pieces" --dir "$dir" --zstd-level 1 \
    --draw-rules none --json > "$dir/$variant.jsonl"
done
write_manifest new "$dir"/russian.jsonl "$dir"/brazilian.jsonl "$dir"/portuguese.jsonl
