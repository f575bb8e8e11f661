#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Placement scenarios on the real 16-node Slurm cluster with a discovered Dragonfly+ topology:
# for each fragmentation pattern (nodes held busy), an 8-node 2-stage job with Switchyard
# (--pipeline-stages=2: filters, plugin and planner) and the same job without it (plain Slurm:
# stages are Slurm's node order cut in two). Prints stages inside one SU / one group and the
# cost model's step time for both, side by side, in one run.
# Usage: bench/placement-scenarios.sh [BUILD_DIR]     (default build/dev; builds nothing)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/dev}
sy=$build/cli/switchyard
plugin=$build/plugin/spank_switchyard.so
[ -x "$sy" ] && [ -f "$plugin" ] || { echo "build first: cmake --build --preset dev" >&2; exit 1; }
work=$(mktemp -d /tmp/switchyard-scenarios.XXXXXX)
chmod 755 "$work"
run=$work/cluster
trap '"$top/tests/integration/slurm-cluster" down "$run" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

"$top/tests/integration/make-fabric16" "$sy" "$work/fabric" >/dev/null
"$top/tests/integration/make-node-trees" "$work/trees" $(printf 'node%03d ' $(seq 16)) >/dev/null
cat > "$work/switchyard.yaml" <<POLICY
version: 1
fabric:
  map: $work/fabric/fabric.map
node:
  sysfs_root: $work/trees/%n/sys
POLICY
export SWITCHYARD_JOB_SUBMIT_HINTS=$work/fabric/job_submit_hints.lua SWITCHYARD_BIN=$sy SWITCHYARD_POLICY=$work/switchyard.yaml
"$top/tests/integration/slurm-cluster" up "$run" "$plugin" --nodes 16 --port-base 17500 \
  --topology "$work/fabric/topology.conf" --job-submit "$top/etc/job_submit.lua" \
  --cli-filter "$top/etc/cli_filter.lua" --features "$work/fabric/node-features.sh" \
  -- config="$work/switchyard.yaml" 2>/dev/null
export SLURM_CONF=$run/etc/slurm.conf
cd "$run/jobs"

# SU members from the map: su 1..4 in map order.
mapfile -t SU < <("$sy" fabric show --map "$work/fabric/fabric.map" --json |
  python3 -c 'import json,sys; [print(" ".join(s["hosts"])) for s in json.load(sys.stdin)["sus"]]')
pick() { local su=$1 n=$2; echo "${SU[$su]}" | tr ' ' '\n' | head -"$n"; }

declare -a NAMES PATTERNS
add() { NAMES+=("$1"); PATTERNS+=("$(printf '%s\n' "${@:2}" | sed '/^$/d' | paste -sd,)"); }
add "idle cluster"
add "1 busy in SU1" "$(pick 0 1)"
add "1 busy in SU1, SU2" "$(pick 0 1)" "$(pick 1 1)"
add "1 busy in every SU" "$(pick 0 1)" "$(pick 1 1)" "$(pick 2 1)" "$(pick 3 1)"
add "2 busy in SU1" "$(pick 0 2)"
add "SU1 all busy" "$(pick 0 4)"
add "1 busy in SU1, SU3" "$(pick 0 1)" "$(pick 2 1)"
add "3 busy in SU1" "$(pick 0 3)"
add "2 in SU3, 1 in SU4" "$(pick 2 2)" "$(pick 3 1)"
add "1 busy in SU1, SU2, SU3" "$(pick 0 1)" "$(pick 1 1)" "$(pick 2 1)"

alloc() {  # alloc [sbatch options] -> the 8 nodes Slurm gave
  local out jid
  out=$(sbatch --wait -N8 --exclusive "$@" -o "$run/jobs/a-%j.out" --wrap 'echo $SLURM_JOB_NODELIST')
  jid=$(grep -oE '[0-9]+' <<<"$out" | tail -1)
  cat "$run/jobs/a-$jid.out"
}
facts() {  # facts NODES WHICH -> "in-SU in-group cost_ms"
  "$sy" plan --map "$work/fabric/fabric.map" --nodes "$1" --stages 2 --json | python3 -c '
import json,sys; d=json.load(sys.stdin); w=sys.argv[1]
f=d["facts"]["plan" if w=="plan" else "slurm_order"]; c=d["cost"]["plan" if w=="plan" else "slurm_order"]
print(f["stages_in_one_su"], f["stages_in_one_group"], "%.3f" % (c*1e3))' "$2"
}

printf '%-26s | %-28s | %-22s | %-22s | %s\n' "busy nodes" "switchyard: in SU, group, ms" "plain: in SU, group, ms" "best: in SU, group" "allocation"
total_sy=0; total_plain=0; total_best=0
for i in "${!NAMES[@]}"; do
  held=${PATTERNS[$i]}
  jid=""
  if [ -n "$held" ]; then
    n=$(tr ',' '\n' <<<"$held" | wc -l)
    jid=$(sbatch --parsable -N"$n" -w "$held" --exclusive -o /dev/null --wrap 'sleep 300')
    for _ in $(seq 50); do [ "$(squeue -h -j "$jid" -o %T)" = RUNNING ] && break; sleep 0.1; done
  fi
  a_sy=$(alloc --pipeline-stages=2)
  a_plain=$(alloc)
  [ -n "$jid" ] && scancel "$jid" && sleep 0.5
  read -r su_s gr_s ms_s <<<"$(facts "$a_sy" plan)"
  read -r su_p gr_p ms_p <<<"$(facts "$a_plain" slurm)"
  best=$("$sy" plan --map "$work/fabric/fabric.map" --nodes "$a_sy" --stages 2 --json |
    python3 -c 'import json,sys; b=json.load(sys.stdin)["facts"]["best"]; print(b["stages_in_one_su"], b["stages_in_one_group"])')
  total_sy=$((total_sy + su_s)); total_plain=$((total_plain + su_p)); total_best=$((total_best + ${best%% *}))
  printf '%-26s | %-28s | %-22s | %-22s | %s\n' "${NAMES[$i]}" "$su_s/2 $gr_s/2 $ms_s" "$su_p/2 $gr_p/2 $ms_p" "$best" "$a_sy"
done
echo "stages inside one SU over all scenarios: switchyard $total_sy, plain Slurm $total_plain, best possible $total_best"
