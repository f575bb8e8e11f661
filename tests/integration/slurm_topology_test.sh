#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The topology that `switchyard discover` wrote, loaded by the real slurmctld of the `slurm16`
# fixture: what Slurm shows, and where it places jobs.
# Usage: slurm_topology_test.sh RUN FABRIC_DIR SWITCHYARD_BINARY CASE
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
run=${1:?usage: slurm_topology_test.sh RUN FABRIC_DIR SWITCHYARD_BINARY CASE}
fabric=${2:?}
sy=${3:?}
case_name=${4:?}
use_cluster "$run"

# su_of HOST / group_of HOST, from the fabric map through the CLI's JSON.
json=$("$sy" fabric show --map "$fabric/fabric.map" --json)
su_of() { python3 -c 'import json,sys; d=json.load(sys.stdin); print({h["host"]: h["su"] for h in d["hosts"]}[sys.argv[1]])' "$1" <<<"$json"; }
group_of() { python3 -c 'import json,sys; d=json.load(sys.stdin); print({h["host"]: h["group"] for h in d["hosts"]}[sys.argv[1]])' "$1" <<<"$json"; }
distinct() { local f=$1; shift; for h in "$@"; do "$f" "$h"; done | sort -u | wc -l; }

case $case_name in
  topology-loaded)
    cmp -s "$fabric/topology.conf" "$run/etc/topology.conf"
    rc=$?; expect_rc 0 "the cluster runs on the topology.conf that discover wrote"
    run_capture scontrol show topology
    expect_rc 0 "scontrol show topology"
    # Every SwitchName=... Nodes=... line of the file is a switch with the same nodes in Slurm.
    while read -r line; do
      name=$(sed -E 's/^SwitchName=([^ ]+).*/\1/' <<<"$line")
      nodes=$(sed -E 's/.* Nodes=([^ ]+).*/\1/' <<<"$line")
      got=$(grep -E "^SwitchName=$name " <<<"$out" | grep -oE 'Nodes=[^ ]+' | cut -d= -f2)
      expect_eq "$(scontrol show hostnames "$got" | sort | tr '\n' ' ')" \
                "$(scontrol show hostnames "$nodes" | sort | tr '\n' ' ')" "switch $name holds $nodes"
    done < <(grep -E '^SwitchName=.* Nodes=' "$fabric/topology.conf")
    expect_contains "$out" "SwitchName=root Level=2" "root is the third level (SU, group, root)"
    ;;
  switches-one-su)
    for i in 1 2 3; do
      run_capture srun -N4 --exclusive --switches=1 bash -c 'echo $SLURMD_NODENAME'
      expect_rc 0 "srun -N4 --switches=1 (run $i)"
      mapfile -t nodes < <(sort -u <<<"$out")
      expect_eq "${#nodes[@]}" 4 "four nodes"
      expect_eq "$(distinct su_of "${nodes[@]}")" 1 "all four in one SU: ${nodes[*]} ($(su_of "${nodes[0]}"))"
    done
    ;;
  group-placement)
    # Hold one node of the first group, so the only group that can take 8 nodes is the other.
    held=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(sorted(h["host"] for h in d["hosts"] if h["group"]==d["groups"][0]["name"])[0])' <<<"$json")
    jid=$(sbatch --parsable -N1 -w "$held" --exclusive -o /dev/null --wrap 'sleep 60')
    for _ in $(seq 50); do [ "$(squeue -h -j "$jid" -o %T)" = RUNNING ] && break; sleep 0.1; done
    run_capture srun -N8 --exclusive bash -c 'echo $SLURMD_NODENAME'
    scancel "$jid"
    expect_rc 0 "srun -N8 while $held is busy"
    mapfile -t nodes < <(sort -u <<<"$out")
    expect_eq "${#nodes[@]}" 8 "eight nodes"
    expect_eq "$(distinct group_of "${nodes[@]}")" 1 "all eight in one Dragonfly+ group"
    expect_eq "$(group_of "${nodes[0]}")" "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["groups"][1]["name"])' <<<"$json")" \
      "the group without the busy node"
    run_capture srun -N4 --exclusive bash -c 'echo $SLURMD_NODENAME'
    mapfile -t nodes < <(sort -u <<<"$out")
    expect_eq "$(distinct su_of "${nodes[@]}")" 1 "without --switches, a 4-node job still fits one SU (tree best fit)"
    ;;
  hints-from-slurm)
    # discover asks slurmctld which topology it runs (topoconf from 25.05 on, else the one
    # TopologyPlugin of `scontrol show config`) and which partition is the default.
    run_capture "$sy" discover --ibnetdiscover "$fabric/ibnetdiscover.txt" --partition-topology slurm \
      -o "$run/jobs/hints-from-slurm"
    expect_rc 0 "discover --partition-topology slurm"
    expect_contains "$out" "slurm topologies (for the Lua filters): cluster default tree; default partition debug" \
      "slurmctld's tree and its default partition"
    expect_eq "$(grep -E '^  (topology|default_partition|partitions) ' "$run/jobs/hints-from-slurm/job_submit_hints.lua" | paste -sd' ')" \
      '  topology = "tree",   default_partition = "debug",' "the hints name them"
    # No cluster to ask (a slurm.conf scontrol cannot use): a clear error naming the command,
    # nothing written.
    : > "$run/jobs/empty-slurm.conf"
    run_capture env SLURM_CONF="$run/jobs/empty-slurm.conf" "$sy" discover --ibnetdiscover "$fabric/ibnetdiscover.txt" \
      --partition-topology slurm -o "$run/jobs/hints-none"
    expect_nonzero_rc "discover --partition-topology slurm without a cluster"
    expect_contains "$err" "--partition-topology slurm: scontrol show partition --oneliner: " "names the command that failed"
    expect_eq "$(ls "$run/jobs/hints-none" 2>/dev/null | wc -l)" 0 "and writes nothing"
    ;;
  node-features)
    # The scontrol lines discover wrote give every node its SU and group features.
    run_capture bash "$fabric/node-features.sh"
    expect_rc 0 "node-features.sh applies"
    run_capture sinfo -h -N -o '%N %f'
    host=$(python3 -c 'import json,sys; d=json.load(sys.stdin); h=d["hosts"][5]; print(h["host"], "su_"+h["su"]+",grp_"+h["group"])' <<<"$json")
    expect_contains "$out" "$host" "sinfo shows ${host% *} with its SU and group features"
    groups=$(python3 -c 'import json,sys; print("|".join("grp_"+g["name"] for g in json.load(sys.stdin)["groups"]))' <<<"$json")
    run_capture srun -N6 --exclusive --constraint="[$groups]" bash -c 'echo $SLURMD_NODENAME'
    expect_rc 0 "srun -N6 --constraint=[$groups] (matching OR)"
    mapfile -t nodes < <(sort -u <<<"$out")
    expect_eq "${#nodes[@]}" 6 "six nodes"
    expect_eq "$(distinct group_of "${nodes[@]}")" 1 "a matching-OR group constraint keeps the job in one group"
    ;;
  *)
    echo "unknown case '$case_name'"; exit 2 ;;
esac
finish
