#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A Slurm cluster on an Ethernet fabric's files: the `slurm16e` fixture runs the 16 nodes of
# fabric16 on what `discover --lldp` made of the fabric's LLDP capture (tests/data/lldp/fabric16,
# lldpd's own output from the namespace twin of fabric16): topology.conf (tree) before Slurm
# 24.05, topology-block.conf (block) from 24.05 on, the shipped Lua filters, the LLDP map.
# Usage: slurm_ethernet_test.sh RUN LLDP_FABRIC_DIR IB_FABRIC_DIR SWITCHYARD_BINARY CASE
#   same-sus-as-infiniband   the LLDP map's SUs and groups are the InfiniBand capture's (no cluster)
#   topology-loaded          slurmctld's leaf switches or base blocks are the LLDP map's SUs
#   stages-in-leaf-groups    an 8-node job of 2 pipeline stages has each stage inside one SU
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
usage="usage: slurm_ethernet_test.sh RUN LLDP_FABRIC_DIR IB_FABRIC_DIR SWITCHYARD_BINARY CASE"
run=${1:?$usage}
fabric=${2:?$usage}
ib_fabric=${3:?$usage}
sy=${4:?$usage}
case_name=${5:?$usage}

# sus MAP — one line per SU: its group, then its hosts sorted, comma-separated; lines sorted.
sus() {
  "$sy" fabric show --map "$1" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
lines = [s.get("group", "-") + " " + ",".join(sorted(s["hosts"])) for s in d["sus"]]
print("\n".join(sorted(lines)))'
}
# Only the SUs' host lists.
su_sets() { sus "$1" | awk '{print $2}'; }

case $case_name in
  same-sus-as-infiniband)
    lldp=$(sus "$fabric/fabric.map")
    expect_eq "$(su_sets "$fabric/fabric.map")" "$(su_sets "$ib_fabric/fabric.map")" \
      "the SUs discovered from LLDP are the SUs discovered from ibnetdiscover"
    expect_eq "$(wc -l <<<"$lldp")" 4 "4 SUs of 4 hosts"
    expect_eq "$(awk '{print $1}' <<<"$lldp" | sort -u | wc -l)" 2 "in 2 groups"
    expect_eq "$(sus "$fabric/fabric.map" | awk '{g[$1] = g[$1] " " $2} END {for (k in g) print g[k]}' | sort)" \
              "$(sus "$ib_fabric/fabric.map" | awk '{g[$1] = g[$1] " " $2} END {for (k in g) print g[k]}' | sort)" \
      "each group holds the same SUs on both fabrics"
    ;;
  topology-loaded)
    use_cluster "$run"
    run_capture scontrol show topology
    expect_rc 0 "scontrol show topology"
    if grep -q '^BlockName=' <<<"$out"; then
      leaves=$(sed -n 's/^BlockName=[^ ]* .*Nodes=\([^ ]*\) .*BlockSize=4.*/\1/p' <<<"$out")
      what="base block"
    else
      leaves=$(grep -E '^SwitchName=.* Level=0 ' <<<"$out" | sed 's/.* Nodes=\([^ ]*\).*/\1/')
      what="leaf switch"
    fi
    got=$(while read -r l; do scontrol show hostnames "$l" | sort | paste -sd,; done <<<"$leaves" | sort)
    expect_eq "$got" "$(su_sets "$fabric/fabric.map")" "slurmctld's ${what} level is the LLDP map's SUs"
    ;;
  stages-in-leaf-groups)
    use_cluster "$run"
    vars='echo "$SLURMD_NODENAME $SWITCHYARD_STAGE $SWITCHYARD_SU"'
    run_capture sbatch --wait -N8 --exclusive --pipeline-stages=2 -o "$run/jobs/eth-%j.out" \
      --wrap "srun bash -c '$vars'"
    expect_rc 0 "sbatch --wait -N8 --pipeline-stages=2"
    job_out=$(cat "$run"/jobs/eth-"$(grep -oE '[0-9]+' <<<"$out" | tail -1)".out)
    out=$job_out
    expect_eq "$(wc -l <<<"$job_out")" 8 "8 tasks ran"
    for s in 0 1; do
      nodes=$(awk -v s=$s '$2==s {print $1}' <<<"$job_out" | sort | paste -sd,)
      expect_eq "$(awk -v s=$s '$2==s {print $3}' <<<"$job_out" | sort -u | wc -l)" 1 "stage $s ($nodes) is inside one SU"
      expect_eq "$(su_sets "$fabric/fabric.map" | grep -cxF "$nodes")" 1 "stage $s's nodes are a whole SU of the LLDP map"
    done
    expect_eq "$(awk '{print $3}' <<<"$job_out" | sort -u | wc -l)" 2 "the two stages are in two SUs"
    ;;
  *) echo "unknown case $case_name"; exit 2 ;;
esac
finish
