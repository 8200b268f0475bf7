#!/usr/bin/env bash
# Runs a build on a real Slurm: installs Debian's slurm-wlm and munge if missing, configures a
# one-node cluster on this machine, submits the build of one rule set up to N pieces (pure and
# rule tables) with scripts/slurm/submit.sh, waits for every job, and checks the tables'
# statistics against tables/manifest.json. Needs root (it starts munged, slurmctld and slurmd).
# Usage: scripts/slurm/test-local.sh [variant] [pieces] [part-positions]   (default: russian 5;
# a part limit builds the pairs above it in parts, as the largest 8-piece pairs are built)
set -euo pipefail
cd "$(dirname "$0")/../.."
variant="${1:-russian}"
pieces="${2:-5}"
parts=()
[[ -n "${3:-}" ]] && parts=(--part-positions "$3")
started=$(date +%s)

if ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

# munge: the key Slurm's daemons authenticate with.
if [[ ! -s /etc/munge/munge.key ]]; then
  mkdir -p /etc/munge
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown munge:munge /etc/munge/munge.key 2>/dev/null || true
chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
if ! pgrep -x munged >/dev/null; then
  runuser -u munge -- /usr/sbin/munged
fi

# A one-node cluster: this machine, its cores and most of its memory.
node="$(hostname -s)"
cpus="$(nproc)"
memory_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10 ))
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=dtb-local
SlurmctldHost=$node
AuthType=auth/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
if ! pgrep -x slurmctld >/dev/null; then slurmctld; fi
if ! pgrep -x slurmd >/dev/null; then slurmd; fi
for _ in $(seq 60); do
  state="$(sinfo -h -n "$node" -o %T 2>/dev/null || true)"
  [[ "$state" == idle* || "$state" == mixed* ]] && break
  sleep 1
done
echo "slurm: node $node $(sinfo -h -n "$node" -o %T), $cpus CPUs, ${memory_mb} MB"

cargo build --release -q -p draughts-generator --bin dtb
dtb="$PWD/target/release/dtb"
dir="$(mktemp -d /tmp/dtb-slurm.XXXXXX)"
scripts/slurm/submit.sh --variant "$variant" --pieces "$pieces" --dir "$dir" --dtb "$dtb" \
  --cpus "$cpus" "${parts[@]}"
jobs="$(cut -f2 "$dir/slurm-logs/$variant-$pieces.jobs" | paste -sd,)"
while [[ -n "$(squeue -h -j "$jobs" 2>/dev/null)" ]]; do
  sleep 5
done

# Every unit's log ends with its report; a failed one is named.
failed=0
while IFS=$'\t' read -r unit _; do
  log="$dir/slurm-logs/$variant-$pieces-$unit.log"
  if [[ ! -s "$log" ]] || grep -q '^error' "$log"; then
    echo "unit $unit failed or never ran: $log"
    failed=1
  fi
done < "$dir/slurm-logs/$variant-$pieces.jobs"

# The tables' statistics against the manifest (up to the pieces it holds).
"$dtb" stats --variant "$variant" --dir "$dir" --json > "$dir/stats.json"
python3 - "$dir/stats.json" tables/manifest.json "$pieces" <<'PY'
import json, sys
built = {(r["rule_set"], r["table"]): r for r in json.load(open(sys.argv[1]))}
manifest = json.load(open(sys.argv[2]))
keys = ["positions", "wins", "draws", "losses", "captures", "max_dtw", "checksum"]
rule_set = next(iter(built))[0]
pieces = min(int(sys.argv[3]), manifest["max_pieces"][rule_set])
expected = [e for e in manifest["tables"] if e["rule_set"] == rule_set and e["pieces"] <= pieces]
wrong = [e["table"] for e in expected
         if (rule_set, e["table"]) not in built
         or any(built[(rule_set, e["table"])][k] != e[k] for k in keys)]
rules = sum(1 for r in built.values() if "rule_wins" in r)
print(f"{len(expected)} tables checked against the manifest, {len(wrong)} differ {wrong[:5]}; "
      f"{rules} with rule tables")
sys.exit(1 if wrong or rules != len(built) else 0)
PY
echo "$(wc -l < "$dir/slurm-logs/$variant-$pieces.jobs") jobs, $(( $(date +%s) - started )) s in all; tables in $dir"
exit $failed
