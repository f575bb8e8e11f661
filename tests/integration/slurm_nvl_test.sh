#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# NVL72 racks in a real 72-node cluster (fixture `slurm72n`): four NVLink domains of 18 nodes in
# two SUs (make-fabric-nvl72), rack 4 gone since the last capture (its block kept in place),
# node040's GPU 1 reporting degraded NVLink bandwidth, the health gate on (PrologFlags=Alloc),
# the shipped Lua filters. On 24.05+ the blocks are the domains (BlockSizes=18,36); on 22.05 the
# tree's leaf level is the SU and the domains are node features.
# Usage: slurm_nvl_test.sh RUN FABRIC_DIR TOPOLOGY_PLUGIN CASE
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
run=${1:?usage: slurm_nvl_test.sh RUN FABRIC_DIR tree|block CASE}
fabric=${2:?}
plugin=${3:?}
case_name=${4:?}
use_cluster "$run"

rack_of() { local n=${1#node}; echo $(( (10#$n - 1) / 18 + 1 )); }
reason_of() { scontrol show node "$1" | sed -n 's/^ *Reason=\(.*\) \[.*$/\1/p'; }
drained() { scontrol show node "$1" | grep -qE 'State=[A-Z+]*DRAIN'; }
job_id() { grep -oE '[0-9]+' <<<"$1" | tail -1; }
# The tasks' lines "T <node> <SWITCHYARD_RANK> <MNNVL> <CUMEM> <CLIQUE>": the job's output has
# slurmstepd's own lines too (24.11 warns there of the emulated nodes' hardware).
vars='echo "T $SLURMD_NODENAME $SWITCHYARD_RANK ${NCCL_MNNVL_ENABLE:--} ${NCCL_CUMEM_ENABLE:--} ${NCCL_MNNVL_CLIQUE_ID:--}"'
# job NAME SBATCH_ARGS... — runs a job whose tasks print $vars, waits for it; `f` is then the
# file of its task lines (without their mark) and `out` their text.
job() {
  local name=$1; shift
  run_capture sbatch --wait --exclusive "$@" -o "$run/jobs/$name-%j.out" --wrap "srun bash -c '$vars'"
  expect_rc 0 "sbatch $*"
  local id; id=$(job_id "$out")
  f=$run/jobs/$name-$id.tasks
  sed -n 's/^T //p' "$run/jobs/$name-$id.out" > "$f"
  out=$(cat "$f")
}

case $case_name in
  rack-down)
    # Rack 4 is powered off: its nodes are out of service, as an admin marks a rack that went
    # away (drained: their emulated slurmds still run, and a DOWN node that registers would be
    # returned to service by ReturnToService=2).
    run_capture scontrol update NodeName=node[055-072] State=DRAIN Reason="rack 4 powered off"
    expect_rc 0 "rack 4's nodes taken out of service"
    expect_eq "$(sinfo -h -N -n node[055-072] -o %t | sort -u | paste -sd,)" drain "they are drained"
    ;;
  blocks-kept)
    # The rack that reported nothing keeps its block, in the place it had: the same blocks, in
    # the same order, as the capture with every rack (so the others are not renumbered).
    expect_eq "$(sed -n 's/^BlockName=\([^ ]*\) .*/\1/p' "$fabric/topology-block.conf" | paste -sd,)" \
      "$(sed -n 's/^BlockName=\([^ ]*\) .*/\1/p' "$fabric/before/topology-block.conf" | paste -sd,)" \
      "the blocks and their order are the earlier capture's"
    expect_contains "$(cat "$fabric/topology-block.conf")" "BlockName=nvl_5eed0004_32766 Nodes=node[055-072]" \
      "rack 4's block holds its nodes"
    expect_contains "$(cat "$fabric/topology-block.conf")" "BlockSizes=18,36" "a block per domain, an aggregate per SU"
    if [ "$plugin" = block ]; then
      run_capture scontrol show topology
      expect_eq "$(grep -c '^BlockName=nvl_.*BlockSize=18' <<<"$out")" 4 "slurmctld has the 4 domain blocks of 18"
      expect_eq "$(grep -c '^AggregatedBlock=.*BlockSize=36' <<<"$out")" 2 "and an aggregate of 36 per SU"
    else
      expect_contains "$(scontrol show node node001)" "nvl_5eed0001_32766" "node001 carries its domain's feature"
      expect_contains "$(scontrol show node node040)" "nvl_5eed0003_32766" "node040 carries its domain's feature"
    fi
    ;;
  gather-with-srun)
    # The admin guide's recipe, through Slurm: one line per node into one file, then discover.
    # Emulated nodes share one host, so each names itself and its own copy of the fake library
    # (a real node needs neither). node040 is asked directly: its prolog would drain it.
    bin=${SWITCHYARD_BIN:?}
    run_capture srun -N53 -w 'node[001-039,041-054]' --ntasks-per-node=1 sh -c \
      "$bin node --nvlink-only --line --host \$SLURMD_NODENAME --nvml $fabric/nodes/\$SLURMD_NODENAME/libnvidia-ml.so.1"
    expect_rc 0 "srun ... switchyard node --nvlink-only --line on 53 nodes"
    { printf '%s\n' "$out"; "$bin" node --nvlink-only --line --host node040 \
        --nvml "$fabric/nodes/node040/libnvidia-ml.so.1"; } > "$run/jobs/facts.jsonl"
    expect_eq "$(grep -c '"host"' "$run/jobs/facts.jsonl")" 54 "54 lines, one per node of racks 1-3"
    rm -rf "$run/jobs/gathered"
    run_capture "$bin" discover --ibnetdiscover "$fabric/ibnetdiscover.txt" \
      --node-facts "$run/jobs/facts.jsonl" --expect-nvl-size 18 \
      --previous-map "$fabric/before/fabric.map" --topology-plugin "$plugin" -o "$run/jobs/gathered"
    expect_rc 0 "discover from the gathered file"
    expect_eq "$(cmp "$run/jobs/gathered/fabric.map" "$fabric/fabric.map" && echo same)" same \
      "the same map as the fixture's facts give"
    ;;
  degraded-drained)
    # A job that takes node040: its prolog finds the degraded GPU and drains it; the job waits
    # to be requeued (breaker, requeue and reason as for any check).
    jid=$(sbatch --parsable -w node040 -o /dev/null --wrap 'true')
    rc=0; wait_for 60 drained node040 || rc=$?
    expect_rc 0 "node040 is drained by the gate"
    expect_contains "$(reason_of node040)" "switchyard: nvlink: GPU 1: bandwidth degraded" \
      "with the check's own reason"
    scancel "$jid" 2>/dev/null
    for n in node039 node041; do
      ! drained "$n" && echo "ok: $n, in the same rack, is not drained" || fail_check "$n drained"
    done
    ;;
  nvl-group-in-domain)
    # 18 nodes in NVLink groups of 18: one whole domain. Rack 3 has node040 drained and rack 4
    # is down, so the job gets rack 1 or 2.
    job nvl18 -N18 --nvl-group=18
    expect_eq "$(awk '{print $1}' "$f" | sort -u | wc -l)" 18 "18 nodes ran"
    racks=$(for n in $(awk '{print $1}' "$f"); do rack_of "$n"; done | sort -u | paste -sd,)
    expect_eq "$(tr ',' '\n' <<<"$racks" | wc -l)" 1 "all in one NVLink domain (rack $racks)"
    expect_eq "$(awk '{print $3" "$4}' "$f" | sort -u)" "1 -" \
      "every task has NCCL_MNNVL_ENABLE=1, NCCL_CUMEM_ENABLE NCCL's own (one healthy domain, IMEX up)"
    ;;
  groups-in-domains)
    # 36 nodes in groups of 18 (block topology: --segment=18, one segment per domain block):
    # ranks 0-17 in one domain, 18-35 in another; across two domains NCCL chooses MNNVL itself.
    # Racks 1 and 2 must be whole for it: a node drained there by anything is named first.
    expect_eq "$(sinfo -h -N -n node[001-036] -t drain,down -o '%N %E' | sort -u | paste -sd';')" "" \
      "racks 1 and 2 have no node out of service"
    job nvl36 -N36 --nvl-group=18
    expect_eq "$(awk '{print $1}' "$f" | sort -u | wc -l)" 36 "36 nodes ran"
    for g in 0 1; do
      racks=$(awk -v g="$g" '$2 >= g * 18 && $2 < (g + 1) * 18 {print $1}' "$f" |
              while read -r n; do rack_of "$n"; done | sort -u | paste -sd,)
      expect_eq "$(tr ',' '\n' <<<"$racks" | wc -l)" 1 "ranks $((g * 18))-$((g * 18 + 17)) in one domain (rack $racks)"
    done
    expect_eq "$(awk '{print $3}' "$f" | sort -u)" "-" "NCCL_MNNVL_ENABLE left to NCCL across two domains"
    ;;
  clique-per-group)
    # NVLink groups of 9 inside one domain: a clique id per group, 9 nodes each.
    job nvl9 -N18 --nvl-group=9
    expect_eq "$(awk '{print $5}' "$f" | sort | uniq -c | awk '{print $2":"$1}' | paste -sd,)" "1:9,2:9" \
      "NCCL_MNNVL_CLIQUE_ID 1 on 9 nodes and 2 on the other 9"
    ;;
  refused)
    run_capture sbatch -N19 --nvl-group=19 --wrap true
    expect_nonzero_rc "a group of 19 nodes is refused at submission"
    expect_contains "$err" "--nvl-group=19 is larger than an NVLink domain (18 nodes)" "with the reason"
    run_capture sbatch -N20 --nvl-group=18 --wrap true
    expect_nonzero_rc "20 nodes in groups of 18 are refused"
    expect_contains "$err" "--nvl-group=18 does not divide the job's 20 nodes (try -N18 or -N36)" "with the counts to use"
    run_capture sbatch -N4 --nvl-group=0 --wrap true
    expect_nonzero_rc "--nvl-group=0 is refused by the plugin's option check"
    expect_contains "$err" "--nvl-group: expected a whole number of nodes from 1 to 4096, got '0'" "named"
    ;;
  *)
    echo "unknown case '$case_name'"; exit 2 ;;
esac
finish
