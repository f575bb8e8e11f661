#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Partitions with their own topologies (Slurm 25.11.2+; run on 26.05): the `slurm32y` fixture
# runs 32 nodes on discover's own topology.yaml of the fabric32b Dragonfly+ (8 SUs of 4 hosts
# in 4 groups): "fabric" (the tree) is the cluster default and the default partition "debug"
# runs it; partition "gpu" runs "blocks" (BlockSizes=4,8). Only job_submit.lua is installed (no
# cli_filter.lua): it sets segment_size itself on the block partition and --switches on the
# tree one, from the hints discover wrote with --partition-topology gpu=blocks.
# Usage: slurm_yaml_test.sh RUN FABRIC_DIR SWITCHYARD_BINARY CASE
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
run=${1:?usage: slurm_yaml_test.sh RUN FABRIC_DIR SWITCHYARD_BINARY CASE}
fabric=${2:?}
sy=${3:?}
case_name=${4:?}
use_cluster "$run"
vars='echo "$SLURM_PROCID $SLURMD_NODENAME $SWITCHYARD_STAGE $SWITCHYARD_SU ${RANK:-none} $SWITCHYARD_RANK $SWITCHYARD_STAGE_RANK"'

# The base blocks in file order; aggregated blocks (groups) are the pairs (0,1), (2,3), ...
mapfile -t blocks < <(awk '/- block:/ {b=$3} /nodes:/ && b {print b, $2; b=""}' "$fabric/topology.yaml")
block_nodes() { scontrol show hostnames "$(awk '{print $2}' <<<"${blocks[$1]}")"; }
state_of() { squeue -h -j "$1" -o %T 2>/dev/null; }
running() { [ "$(state_of "$1")" = RUNNING ]; }
started() { scontrol show job "$1" | grep -qE 'JobState=(RUNNING|COMPLETING|COMPLETED)'; }
finished() { scontrol show job "$1" | grep -qE 'JobState=COMPLETED'; }
job_id() { grep -oE '[0-9]+' <<<"$1" | tail -1; }
cleanup_jobs() { scancel --quiet "$@" 2>/dev/null; wait_for 20 bash -c '[ -z "$(squeue -h)" ]'; }

# fragment — hold (on the default partition) the first node of the first block of every group:
# no whole group is free, four whole SUs are. Prints the holding job ids.
fragment() {
  local g node jid
  for g in 0 2 4 6; do
    node=$(block_nodes "$g" | head -1)
    jid=$(sbatch --parsable -N1 -w "$node" --exclusive -o /dev/null --wrap 'sleep 300')
    wait_for 20 running "$jid" || echo "FAIL: holder $jid on $node did not start" >&2
    echo "$jid"
  done
}

# stages_in_one_su FILE COLUMN — "k/n": of the n stages (column COLUMN of the lines
# "<procid> <node> <stage> <su> ..."), how many have every node in one SU.
stages_in_one_su() {
  local pairs; pairs=$(awk -v c="$2" '{print $c, $4}' "$1" | sort -u)
  echo "$(awk '{print $1}' <<<"$pairs" | uniq -u | wc -l)/$(awk '{print $1}' <<<"$pairs" | sort -u | wc -l)"
}

case $case_name in
  yaml-loaded)
    # discover's topology.yaml, as written, runs slurmctld 26.05: both topologies and the
    # partition that names one.
    run_capture scontrol show topology blocks
    expect_rc 0 "scontrol show topology blocks"
    expect_eq "$(grep -c '^BlockName=.*BlockSize=4' <<<"$out")" 8 "8 base blocks of 4 nodes (one per SU)"
    expect_eq "$(grep -c '^AggregatedBlock=.*BlockSize=8' <<<"$out")" 4 "and 4 aggregated blocks of 8 (one per group)"
    run_capture scontrol show topology
    expect_eq "$(grep -c '^SwitchName=' <<<"$out")" 13 "the cluster default is the tree: 8 SU, 4 group and 1 root switch"
    run_capture scontrol show partition gpu
    expect_contains "$out" "Topology=blocks" "partition gpu runs the blocks"
    ;;
  hints-from-slurm)
    # discover asks slurmctld which partition runs what: the same hints as the option gave.
    run_capture "$sy" discover --ibnetdiscover "$fabric/ibnetdiscover.txt" --partition-topology slurm \
      -o "$run/jobs/from-slurm"
    expect_rc 0 "discover --partition-topology slurm"
    expect_contains "$out" "slurm topologies (for the Lua filters): cluster default tree, partition gpu block; default partition debug" \
      "it names the tree default, the block partition and the default partition"
    expect_eq "$(diff <(grep -v '^--' "$fabric/job_submit_hints.lua") <(grep -v '^--' "$run/jobs/from-slurm/job_submit_hints.lua"))" "" \
      "its hints are those of --partition-topology gpu=blocks --default-partition debug"
    ;;
  block-partition-leaf)
    mapfile -t holders < <(fragment)
    # On the block partition, only job_submit.lua: segments of 4 (one SU each), set in
    # slurmctld. --rank-order=topology: RANK follows the plan, whose stages are the segments.
    run_capture sbatch --parsable -p gpu -N8 --exclusive --pipeline-stages=2 --stage-scope=leaf \
      --rank-order=topology -o "$run/jobs/leaf-%j.out" --wrap "srun bash -c '$vars'"
    jid=$(job_id "$out")
    wait_for 30 started "$jid"
    expect_eq "$(started "$jid" && echo started)" started "sbatch -p gpu -N8 --pipeline-stages=2 --stage-scope=leaf started at once on the fragmented cluster"
    expect_contains "$(scontrol show job "$jid")" "SegmentSize=4" "job_submit.lua set segment_size (no cli_filter.lua)"
    wait_for 90 finished "$jid"
    f=$run/jobs/leaf-$jid.out
    expect_eq "$(stages_in_one_su "$f" 3)" "2/2" "every stage inside one SU ($(sort -n -k5 "$f" | awk '{print $2"/"$3"/"$4}' | paste -sd' '))"
    expect_eq "$(awk '$5 != $6 || int($5 / 4) != $3 || $5 % 4 != $7' "$f")" "" "RANK = SWITCHYARD_RANK, and the stage is RANK / 4"
    # The fabric's host names do not follow its cabling: cut in name order (the node index,
    # and the task order 26.05.5 gave), the same nodes would not make stages inside SUs.
    expect_eq "$(sort -k2 "$f" | awk '{print int((NR - 1) / 4), $2, $3, $4}' > "$f.names"; stages_in_one_su "$f.names" 1)" "0/2" \
      "this job's topology order differs from its name order (name order would put no stage inside one SU)"
    # The same job with Slurm's ranks: the stage is SLURM_PROCID's block, whatever order Slurm
    # numbered the tasks in (26.05: topology or name order; node ids stay in name order).
    run_capture sbatch --parsable -p gpu -N8 --exclusive --pipeline-stages=2 --stage-scope=leaf \
      -o "$run/jobs/slurm-%j.out" --wrap "srun bash -c '$vars'"
    jid=$(job_id "$out")
    wait_for 90 finished "$jid"
    f=$run/jobs/slurm-$jid.out
    expect_eq "$(wc -l < "$f")" 8 "8 tasks ran"
    expect_eq "$(awk '$1 != $6 || int($1 / 4) != $3 || $1 % 4 != $7 || $5 != "none"' "$f")" "" \
      "with Slurm's ranks: SWITCHYARD_RANK = SLURM_PROCID, the stage is SLURM_PROCID / 4, RANK untouched"
    cleanup_jobs "${holders[@]}"
    ;;
  tree-partition)
    # The default partition runs the tree: --switches for --stage-scope=leaf, never a segment.
    # Slurm 26.05.5 numbers this job's tasks in name order, which mixes the group's two SUs:
    # --rank-order=topology numbers them in the plan's order.
    run_capture sbatch --parsable --hold -N8 --exclusive --pipeline-stages=2 --stage-scope=leaf \
      --rank-order=topology -o "$run/jobs/tree-%j.out" --wrap "srun bash -c '$vars'"
    jid=$(job_id "$out")
    job=$(scontrol show job "$jid")
    expect_contains "$job" "Switches=2@00:01:00" "job_submit.lua asked for --switches=2 on the tree partition"
    expect_not_contains "$job" "SegmentSize=4" "and no segment"
    scontrol release "$jid"
    wait_for 90 finished "$jid"
    expect_eq "$(finished "$jid" && echo done)" done "the job ran"
    f=$run/jobs/tree-$jid.out
    expect_eq "$(stages_in_one_su "$f" 3)" "2/2" "each stage inside one SU ($(sort -n "$f" | awk '{print $2"/"$3"/"$4}' | paste -sd' '))"
    ;;
  impossible-refused)
    run_capture sbatch -p gpu -N12 --pipeline-stages=2 --segment=4 --wrap true
    expect_nonzero_rc "a segment that splits a stage is refused at submission"
    expect_contains "$err" "--segment=4 does not make whole stages of 6 nodes" "with the reason"
    run_capture sbatch -p gpu -N8 --pipeline-stages=1 --segment=8 --wrap true
    expect_nonzero_rc "a segment larger than a block is refused"
    expect_contains "$err" "--segment=8 is larger than a block (4 nodes)" "with the reason"
    run_capture sbatch -p gpu -N16 --pipeline-stages=2 --stage-scope=leaf --wrap true
    expect_nonzero_rc "a stage larger than an SU with --stage-scope=leaf is refused"
    expect_contains "$err" "a stage of 8 nodes cannot fit one block (scalable unit of 4 nodes)" "with what to change"
    # The tree partition ignores --segment: no check of it there, the job is taken.
    run_capture sbatch --parsable --hold -N8 --pipeline-stages=2 --segment=3 --wrap true
    expect_nonzero_rc "the client itself refuses a segment that does not divide N (26.05)"
    ;;
  prefer-after-restart)
    # The group features are on nodes.conf's NodeName lines: after a restart without -c a job
    # of two groups on the block partition still gets its preference, and is taken. With the
    # features taken out of nodes.conf, the same job is taken without it and says so.
    cluster=$here/slurm-cluster
    two_groups() {
      run_capture sbatch --parsable --hold -p gpu -N16 --exclusive --pipeline-stages=4 -o /dev/null --wrap true
      jid=$(job_id "$out")
    }
    "$cluster" restart-slurmctld "$run" 2>/dev/null
    wait_for 30 bash -c '[ "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq 32 ]'
    expect_eq "$(sinfo -h -N -p gpu -o %f | grep -c 'grp2_')" 32 "after a restart without -c every node has its group-pair feature"
    two_groups
    expect_rc 0 "a job of two groups is taken after the restart"
    expect_not_contains "$err" "switchyard:" "and sbatch says nothing"
    expect_contains "$(scontrol show job "$jid")" "Prefer=[grp2_" "it prefers a pair of groups"
    scancel "$jid"
    cp "$run/etc/nodes.conf" "$run/jobs/nodes.conf.with-features"
    sed -i 's/ Features=[^ ]*//' "$run/etc/nodes.conf"
    run_capture scontrol reconfigure
    wait_for 30 bash -c '[ "$(sinfo -h -N -p gpu -o %f | grep -c grp2_)" -eq 0 ]'
    two_groups
    expect_rc 0 "without the features in nodes.conf the job is still taken"
    expect_contains "$err" "switchyard: this job runs without --prefer=[grp2_" "sbatch says which preference was left out"
    expect_not_contains "$(scontrol show job "$jid")" "Prefer=" "and the job has none"
    scancel "$jid"
    cp "$run/jobs/nodes.conf.with-features" "$run/etc/nodes.conf"
    run_capture scontrol reconfigure
    wait_for 30 bash -c '[ "$(sinfo -h -N -p gpu -o %f | grep -c grp2_)" -eq 32 ]'
    expect_eq "$(sinfo -h -N -p gpu -o %f | grep -c 'grp2_')" 32 "the features are back for the next cases"
    ;;
  mixed-partitions)
    run_capture sbatch --parsable --hold -p gpu,debug -N8 --exclusive --pipeline-stages=4 --stage-scope=leaf --wrap true
    expect_rc 0 "sbatch -p gpu,debug (block and tree)"
    jid=$(job_id "$out")
    job=$(scontrol show job "$jid")
    scancel "$jid"
    expect_contains "$job" "SegmentSize=2" "--segment for the block partition (the tree ignores it)"
    expect_contains "$job" "Switches=4@00:01:00" "--switches for the tree partition (the blocks ignore it)"
    expect_not_contains "$job" "Prefer=" "no preference: the tree partition would read it too"
    expect_contains "$(cat "$run/log/slurmctld.log")" "partitions gpu (block), debug (tree) run different topologies: asked --segment=2 --switches=4; left out --prefer=" \
      "slurmctld's log says what was asked and left out"
    ;;
  *)
    echo "unknown case '$case_name'"; exit 2 ;;
esac
finish
