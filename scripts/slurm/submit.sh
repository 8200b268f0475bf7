#!/usr/bin/env bash
# Submits a build to Slurm: one job per unit of `dtb plan` (a pair of tables or a part of a
# large pair, then the rule tables), each after the jobs of the units whose tables it reads (sbatch
# --dependency=afterok), with the memory and time the plan estimates and one log per unit.
# Every job runs `dtb generate --unit ID` on the shared folder; a unit already built exits at
# once, so resubmitting a plan (--resubmit: first cancel the jobs of the last submission still
# queued) rebuilds exactly what failed or never ran.
#
# Usage: scripts/slurm/submit.sh --variant V --pieces N --dir SHARED_DIR [--dtb PATH]
#          [--cpus C] [--draw-rules R] [--part-positions P] [--time-factor F] [--resubmit]
#          [-- extra sbatch options]
# Needs on the submitting host: sbatch, scancel, python3 (to read the plan); on the nodes: dtb.
set -euo pipefail

variant="" pieces="" dir="" dtb="dtb" cpus=4 draw_rules="" time_factor=3 resubmit=0 parts=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --variant) variant="$2"; shift 2 ;;
    --pieces) pieces="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --dtb) dtb="$2"; shift 2 ;;
    --cpus) cpus="$2"; shift 2 ;;
    --draw-rules) draw_rules="$2"; shift 2 ;;
    --time-factor) time_factor="$2"; shift 2 ;;
    --part-positions) parts=(--part-positions "$2"); shift 2 ;;
    --resubmit) resubmit=1; shift ;;
    --) shift; break ;;
    *) echo "submit.sh: unknown argument $1 (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
if [[ -z "$variant" || -z "$pieces" || -z "$dir" ]]; then
  echo "submit.sh: --variant, --pieces and --dir are required" >&2
  exit 2
fi
mkdir -p "$dir/slurm-logs"
dir="$(cd "$dir" && pwd)"
rules=()
[[ -n "$draw_rules" ]] && rules=(--draw-rules "$draw_rules")
jobs_file="$dir/slurm-logs/$variant-$pieces.jobs"

if [[ $resubmit -eq 1 && -f "$jobs_file" ]]; then
  # Jobs of the last submission still queued wait on jobs that failed: cancel them.
  cut -f2 "$jobs_file" | xargs -r scancel 2>/dev/null || true
fi

plan="$("$dtb" plan --variant "$variant" --pieces "$pieces" --json "${rules[@]}" "${parts[@]}")"
# One line per unit: id, memory in MB, time limit in minutes, the ids it waits for.
lines="$(python3 -c '
import json, math, sys
cpus, factor = int(sys.argv[1]), float(sys.argv[2])
for u in json.load(sys.stdin)["units"]:
    memory = math.ceil(u["memory_bytes"] * 1.25 / 1e6) + 512
    minutes = math.ceil(u["cpu_seconds_estimate"] / cpus * factor / 60) + 10
    print(u["id"], memory, minutes, ",".join(u["after"]) or "-", sep="\t")
' "$cpus" "$time_factor" <<<"$plan")"

declare -A job
: > "$jobs_file"
while IFS=$'\t' read -r id memory minutes after; do
  dependency=()
  if [[ "$after" != "-" ]]; then
    ids=""
    IFS=',' read -ra waits <<<"$after"
    for unit in "${waits[@]}"; do ids+=":${job[$unit]}"; done
    dependency=(--dependency="afterok$ids")
  fi
  job[$id]="$(sbatch --parsable --job-name="dtb-$variant-$id" \
    --output="$dir/slurm-logs/$variant-$pieces-$id.log" \
    --cpus-per-task="$cpus" --mem="${memory}M" --time="$minutes" \
    "${dependency[@]}" "$@" \
    --wrap="'$dtb' generate --variant '$variant' --pieces '$pieces' --dir '$dir' --unit '$id' --threads '$cpus' ${rules[*]}")"
  job[$id]="${job[$id]%%;*}"
  printf '%s\t%s\n' "$id" "${job[$id]}" >> "$jobs_file"
done <<<"$lines"
echo "submitted $(wc -l < "$jobs_file") jobs for $variant up to $pieces pieces; job ids in $jobs_file, logs in $dir/slurm-logs"
