#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Placement scenarios on real 16-node Slurm clusters with a discovered Dragonfly+ fabric
# (2 groups x 2 SUs x 4 hosts), on both supported releases, side by side in one run:
#   Slurm 22.05 (this host), topology/tree: Switchyard (--switches from job_submit.lua, the
#     planner's stages) and plain Slurm (the same job without --pipeline-stages);
#   Slurm 24.11 (the Debian 13 root), topology/block: Switchyard (--segment from cli_filter.lua)
#     and plain Slurm;
#   the best possible: how many 4-node stages fit whole SUs among the free nodes.
# For each fragmentation pattern (nodes held busy) an 8-node 2-stage job: stages inside one SU,
# the cost model's step time and the time from submission to start (a job that has not started
# after WAIT seconds is reported as "wait" and cancelled).
#
# Usage: bench/placement-scenarios.sh                 both releases (needs build/dev and, in the
#                                                     root, build/slurm-24.11: scripts/test makes both)
#        bench/placement-scenarios.sh --one BUILD tree|block OUT    one release, rows to OUT
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
WAIT=${SWITCHYARD_SCENARIO_WAIT:-15}

one_release() {
  local build=$1 topo_plugin=$2 rows=$3
  local sy=$build/cli/switchyard plugin=$build/plugin/spank_switchyard.so
  [ -x "$sy" ] && [ -f "$plugin" ] || { echo "build $build first" >&2; exit 1; }
  local work; work=$(mktemp -d /tmp/switchyard-scenarios.XXXXXX)
  chmod 755 "$work"
  local run=$work/cluster
  trap '"$top/tests/integration/slurm-cluster" down "'"$run"'" >/dev/null 2>&1 || true; rm -rf "'"$work"'"' EXIT
  "$top/tests/integration/make-fabric16" "$sy" "$work/fabric" >/dev/null
  if [ "$topo_plugin" = block ]; then  # the same fabric, hints for the block plugin
    "$sy" discover --ibnetdiscover "$work/fabric/ibnetdiscover.txt" --topology-plugin block -o "$work/fabric" >/dev/null
  fi
  local topo_file=$work/fabric/topology.conf
  [ "$topo_plugin" = block ] && topo_file=$work/fabric/topology-block.conf
  printf 'version: 1\nfabric:\n  map: %s\n' "$work/fabric/fabric.map" > "$work/switchyard.yaml"
  export SWITCHYARD_JOB_SUBMIT_HINTS=$work/fabric/job_submit_hints.lua SWITCHYARD_BIN=$sy SWITCHYARD_POLICY=$work/switchyard.yaml
  "$top/tests/integration/slurm-cluster" up "$run" "$plugin" --nodes 16 --port-base 17500 \
    --topology "$topo_file" --topology-plugin "$topo_plugin" --job-submit "$top/etc/job_submit.lua" \
    --cli-filter "$top/etc/cli_filter.lua" --features "$work/fabric/node-features.sh" \
    -- config="$work/switchyard.yaml" nccl_env=off 2>/dev/null
  export SLURM_CONF=$run/etc/slurm.conf
  cd "$run/jobs"

  # SU members from the map: su 1..4 in map order.
  local -a SU
  mapfile -t SU < <("$sy" fabric show --map "$work/fabric/fabric.map" --json |
    python3 -c 'import json,sys; [print(" ".join(s["hosts"])) for s in json.load(sys.stdin)["sus"]]')
  pick() { echo "${SU[$1]}" | tr ' ' '\n' | head -"$2"; }
  local -a NAMES PATTERNS
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

  # alloc [sbatch options] -> "NODES SECONDS_TO_START", or "- wait" when not started in WAIT s.
  alloc() {
    local jid j i
    jid=$(sbatch --parsable -N8 --exclusive "$@" -o /dev/null --wrap 'true')
    for ((i = 0; i < WAIT * 10; i++)); do
      j=$(scontrol show job "$jid")
      grep -qE 'JobState=(RUNNING|COMPLETING|COMPLETED)' <<<"$j" && break
      sleep 0.1
    done
    if ! grep -qE 'JobState=(RUNNING|COMPLETING|COMPLETED)' <<<"$j"; then
      scancel "$jid"; echo "- wait"; return
    fi
    echo "$(grep -oE ' NodeList=[^ ]+' <<<"$j" | head -1 | cut -d= -f2)" \
      $(( $(date -d "$(grep -o 'StartTime=[^ ]*' <<<"$j" | cut -d= -f2)" +%s) - \
          $(date -d "$(grep -o 'SubmitTime=[^ ]*' <<<"$j" | cut -d= -f2)" +%s) ))
    for ((i = 0; i < 300; i++)); do [ -z "$(squeue -h -j "$jid" 2>/dev/null)" ] && break; sleep 0.1; done
  }
  facts() {  # facts NODES plan|slurm -> "in-SU cost_ms"
    [ "$1" = - ] && { echo "- -"; return; }
    "$sy" plan --map "$work/fabric/fabric.map" --nodes "$1" --stages 2 --json | python3 -c '
import json,sys; d=json.load(sys.stdin); w="plan" if sys.argv[1]=="plan" else "slurm_order"
print(d["facts"][w]["stages_in_one_su"], "%.3f" % (d["cost"][w]*1e3))' "$2"
  }
  best_possible() {  # best_possible HELD -> stages of 4 that fit whole SUs among the free nodes
    local n=0 s free
    for s in "${SU[@]}"; do
      free=$(comm -23 <(tr ' ' '\n' <<<"$s" | sort) <(tr ',' '\n' <<<"$1" | sort) | wc -l)
      [ "$free" -ge 4 ] && n=$((n + 1))
    done
    echo $((n > 2 ? 2 : n))
  }
  : > "$rows"
  local i held node sy_nodes sy_wait pl_nodes pl_wait su_s ms_s best su_p ms_p
  local -a jids
  for i in "${!NAMES[@]}"; do
    held=${PATTERNS[$i]}
    # One holding job per node: on a block topology a job's nodes must share a block.
    jids=()
    for node in $(tr ',' ' ' <<<"$held"); do
      jids+=("$(sbatch --parsable -N1 -w "$node" --exclusive -o /dev/null --wrap 'sleep 300')")
    done
    for _ in $(seq 50); do [ -z "$(squeue -h -t PENDING)" ] && break; sleep 0.1; done
    read -r sy_nodes sy_wait <<<"$(alloc --pipeline-stages=2)"
    read -r pl_nodes pl_wait <<<"$(alloc)"
    if [ "${#jids[@]}" -gt 0 ]; then
      scancel "${jids[@]}"
      for _ in $(seq 50); do [ -z "$(squeue -h)" ] && break; sleep 0.1; done
    fi
    read -r su_s ms_s <<<"$(facts "$sy_nodes" plan)"
    read -r su_p ms_p <<<"$(facts "$pl_nodes" slurm)"
    best=$(best_possible "$held")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${NAMES[$i]}" "$su_s" "$sy_wait" "$ms_s" \
      "$su_p" "$pl_wait" "$ms_p" "$best" "$sy_nodes" >> "$rows"
  done
}

if [ "${1:-}" = --one ]; then
  one_release "$2" "$3" "$4"
  exit 0
fi

out=$(mktemp -d /tmp/switchyard-scenario-rows.XXXXXX)
trap 'rm -rf "$out"' EXIT
chmod 777 "$out"
echo "== Slurm 22.05 (host), topology/tree" >&2
"$0" --one "$top/build/dev" tree "$out/22.05"
echo "== Slurm 24.11 (Debian 13 root), topology/block" >&2
# The root has its own /tmp: the rows come back through the checkout's build folder.
mkdir -p "$top/build/scenarios"
"$top/scripts/in-slurm-root" "$0" --one "$top/build/slurm-24.11" block "$top/build/scenarios/24.11"
python3 - "$out/22.05" "$top/build/scenarios/24.11" <<'PY'
import sys
def rows(p):
    return [l.rstrip("\n").split("\t") for l in open(p)]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
def cell(su, wait):
    return ("%s/2" % su if su != "-" else "-") + (" %ss" % wait if wait != "wait" else " waits")
print("%-24s | %-13s | %-13s | %-13s | %-13s | %s" % ("busy nodes", "plain 22.05", "switchyard 22.05",
      "plain 24.11", "switchyard 24.11", "best"))
print("%-24s | %-13s | %-13s | %-13s | %-13s | %s" % ("", "(tree)", "(--switches)", "(block)", "(--segment)", "in SU"))
tot = [0, 0, 0, 0, 0]
waits = [0, 0, 0, 0]
for r22, r24 in zip(a, b):
    cols = [(r22[4], r22[5]), (r22[1], r22[2]), (r24[4], r24[5]), (r24[1], r24[2])]
    print("%-24s | %-13s | %-16s | %-13s | %-16s | %s/2" % ((r22[0],) + tuple(cell(*c) for c in cols) + (r22[7],)))
    for i, (su, wait) in enumerate(cols):
        tot[i] += int(su) if su != "-" else 0
        waits[i] += wait == "wait"
    tot[4] += int(r22[7])
print("stages inside one SU (of %d): plain 22.05 %d, switchyard 22.05 %d, plain 24.11 %d, switchyard 24.11 %d, best %d"
      % (2 * len(a), tot[0], tot[1], tot[2], tot[3], tot[4]))
print("jobs not started within the wait: plain 22.05 %d, switchyard 22.05 %d, plain 24.11 %d, switchyard 24.11 %d"
      % tuple(waits))
PY
