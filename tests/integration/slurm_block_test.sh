#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Stage-aligned allocation through Slurm's own block scheduler (24.05+): the `slurm32b` fixture
# runs 32 nodes on discover's topology-block.conf of a Dragonfly+ fabric (8 SUs of 4 hosts in 4
# groups; BlockSizes=4,8), with the shipped Lua filters. For a job larger than one group
# cli_filter.lua turns --pipeline-stages into --segment and job_submit.lua makes it prefer a pair
# of groups; slurmctld then places every stage inside one block (SU). A job that fits one group
# is left to the block plugin, which keeps it inside one group.
# Usage: slurm_block_test.sh RUN FABRIC_DIR CASE
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
run=${1:?usage: slurm_block_test.sh RUN FABRIC_DIR CASE}
fabric=${2:?}
case_name=${3:?}
use_cluster "$run"
vars='echo "$SLURMD_NODENAME $SWITCHYARD_STAGE $SWITCHYARD_SU $SWITCHYARD_GROUP ${SLURM_TOPOLOGY_ADDR:-none}"'

# The base blocks in file order; aggregated blocks (groups) are the pairs (0,1), (2,3), ...
mapfile -t blocks < <(sed -n 's/^BlockName=\([^ ]*\) Nodes=\(.*\)$/\1 \2/p' "$fabric/topology-block.conf")
block_nodes() { scontrol show hostnames "$(awk '{print $2}' <<<"${blocks[$1]}")"; }
state_of() { squeue -h -j "$1" -o %T 2>/dev/null; }
running() { [ "$(state_of "$1")" = RUNNING ]; }
started() { scontrol show job "$1" | grep -qE 'JobState=(RUNNING|COMPLETING|COMPLETED)'; }
finished() { scontrol show job "$1" | grep -qE 'JobState=COMPLETED'; }
start_delay() {  # seconds between submission and start, from slurmctld
  local j; j=$(scontrol show job "$1")
  echo $(( $(date -d "$(grep -o 'StartTime=[^ ]*' <<<"$j" | cut -d= -f2)" +%s) - \
           $(date -d "$(grep -o 'SubmitTime=[^ ]*' <<<"$j" | cut -d= -f2)" +%s) ))
}
cleanup_jobs() { scancel --quiet "$@" 2>/dev/null; wait_for 20 bash -c '[ -z "$(squeue -h)" ]'; }

# fragment — hold the first node of the first block of every group: no whole 8-node aggregate
# is free, four whole 4-node blocks are. Prints the holding job ids, group by group.
fragment() {
  local g node jid
  for g in 0 2 4 6; do
    node=$(block_nodes "$g" | head -1)
    jid=$(sbatch --parsable -N1 -w "$node" --exclusive -o /dev/null --wrap 'sleep 300')
    wait_for 20 running "$jid" || echo "FAIL: holder $jid on $node did not start" >&2
    echo "$jid"
  done
}

# check_stages FILE — every stage's nodes in one SU, and Slurm's block for the node equal to
# the SU switchyard exported (SLURM_TOPOLOGY_ADDR=<block>.<node>).
check_stages() {
  local f=$1 stages
  stages=$(awk '{print $2}' "$f" | sort -u | wc -l)
  for s in $(awk '{print $2}' "$f" | sort -u); do
    expect_eq "$(awk -v s="$s" '$2==s {print $3}' "$f" | sort -u | wc -l)" 1 \
      "stage $s: its nodes ($(awk -v s="$s" '$2==s {print $1}' "$f" | sort | paste -sd,)) are inside one SU"
  done
  expect_eq "$(awk '{split($5, a, "."); if (a[1] != $3) print $1": block "a[1]" vs SU "$3}' "$f")" "" \
    "every task's SLURM_TOPOLOGY_ADDR block is the SU switchyard exported"
  echo "stages: $stages; $(awk '{print $2": "$1" "$3}' "$f" | sort | paste -sd' ')"
}

case $case_name in
  topology-loaded)
    run_capture scontrol show topology
    expect_rc 0 "scontrol show topology"
    expect_eq "$(grep -c '^BlockName=.*BlockSize=4' <<<"$out")" 8 "slurmctld has 8 base blocks of 4 nodes (one per SU)"
    expect_eq "$(grep -c '^AggregatedBlock=.*BlockSize=8' <<<"$out")" 4 "and 4 aggregated blocks of 8 (one per group)"
    first=$(grep -m1 '^AggregatedBlock=' <<<"$out" | sed 's/.* Nodes=\([^ ]*\) .*/\1/')
    expect_eq "$(scontrol show hostnames "$first" | sort | paste -sd,)" "$( (block_nodes 0; block_nodes 1) | sort | paste -sd,)" \
      "the first aggregate is the first group's two SUs"
    ;;
  segment-starts-at-once)
    mapfile -t holders < <(fragment)
    t0=$(date +%s)
    # 12 nodes, more than a group: segments of 4, one in each group's whole free block. Held
    # at first: Slurm drops a preference it could not meet once the job runs.
    pipe=$(sbatch --parsable --hold -N12 --exclusive --pipeline-stages=3 -o "$run/jobs/seg-%j.out" \
      --wrap "srun bash -c '$vars'")
    expect_eq "$(scontrol show job "$pipe" | grep -oE '(Features|Prefer)=\[grp2_' | head -1 | cut -d= -f2)" "[grp2_" \
      "job_submit.lua made it prefer a pair of groups"
    scontrol release "$pipe"
    plain=$(sbatch --parsable -N12 --exclusive -o /dev/null --wrap 'true')
    wait_for 30 started "$pipe"
    expect_eq "$(started "$pipe" && echo started)" started \
      "sbatch -N12 --pipeline-stages=3 started on the fragmented cluster ($(start_delay "$pipe") s after submission)"
    # A plain 12-node job, larger than the largest aggregate (8), is Slurm's to place: it may
    # wait, or start on whatever blocks are free (24.11 and 26.05 both did, depending on which
    # job a scheduling pass met first); its stages would be thirds of whatever it got.
    echo "plain job: $(squeue -h -j "$plain" -o '%T %r')"
    wait_for 90 finished "$pipe"
    check_stages "$run/jobs/seg-$pipe.out"
    cleanup_jobs "$plain" "${holders[@]}"
    ;;
  small-job-in-one-group)
    mapfile -t holders < <(fragment)
    # Every group has a whole free block (4) and one with 3 free nodes. A job that fits one
    # group gets no --segment: the block plugin keeps it inside one group's aggregate, as it
    # does any job (with segments, each placed on its own, it could land in several groups and
    # its pipeline sends cross the global links). Seven free nodes in a group hold 6.
    pipe=$(sbatch --parsable -N6 --exclusive --pipeline-stages=3 -o "$run/jobs/onegrp-%j.out" \
      --wrap "srun bash -c '$vars'")
    wait_for 30 started "$pipe"
    expect_eq "$(started "$pipe" && echo started)" started \
      "sbatch -N6 --pipeline-stages=3 started on the fragmented cluster ($(start_delay "$pipe") s after submission)"
    expect_eq "$(scontrol show job "$pipe" | grep -oE '(Features|Prefer)=[^ ]*grp' | head -1)" "" \
      "with no group feature asked for (the block plugin's own placement)"
    wait_for 90 finished "$pipe"
    f=$run/jobs/onegrp-$pipe.out
    expect_eq "$(awk '{print $4}' "$f" | sort -u | wc -l)" 1 \
      "its 6 nodes are in one group ($(awk '{print $1":"$4}' "$f" | sort | paste -sd,))"
    # 8 nodes, one whole group: it waits for one, as plain Slurm's job would, then runs there
    # with each stage of 2 inside an SU (the step's rank order: 4 + 4 nodes).
    whole=$(sbatch --parsable -N8 --exclusive --pipeline-stages=4 -o "$run/jobs/whole-%j.out" \
      --wrap "srun bash -c '$vars'")
    sleep 3
    expect_eq "$(state_of "$whole")" PENDING "sbatch -N8 --pipeline-stages=4 waits while no group is wholly free"
    scancel "${holders[1]}"  # the second group becomes free
    wait_for 30 started "$whole"
    wait_for 90 finished "$whole"
    f=$run/jobs/whole-$whole.out
    expect_eq "$(awk '{print $1}' "$f" | sort | paste -sd,)" "$( (block_nodes 2; block_nodes 3) | sort | paste -sd,)" \
      "then it runs on the nodes of the group that was freed"
    check_stages "$f"
    cleanup_jobs "${holders[@]}"
    ;;
  group-scope)
    mapfile -t holders < <(fragment)
    # Small stages: segments of 2 nodes, each inside one SU (so inside one group). The job is
    # larger than a group, so it prefers none and starts at once.
    small=$(sbatch --parsable -N12 --exclusive --pipeline-stages=6 --stage-scope=group \
      -o "$run/jobs/grp-small-%j.out" --wrap "srun bash -c '$vars'")
    wait_for 30 started "$small"
    expect_eq "$(started "$small" && echo started)" started \
      "6 stages of 2 nodes (--segment=2) started with no group free ($(start_delay "$small") s after submission)"
    wait_for 90 finished "$small"
    check_stages "$run/jobs/grp-small-$small.out"
    # A stage of a whole group (8 nodes > one block): no segment; the block plugin keeps a job
    # of one aggregate's size inside one aggregated block, so it waits for a whole group.
    whole=$(sbatch --parsable -N8 --exclusive --pipeline-stages=1 --stage-scope=group \
      -o "$run/jobs/grp-whole-%j.out" --wrap "srun bash -c '$vars'")
    sleep 3
    expect_eq "$(state_of "$whole")" PENDING "a stage of 8 nodes waits while no group is wholly free"
    scancel "${holders[1]}"  # the second group becomes free
    wait_for 30 started "$whole"
    wait_for 90 finished "$whole"
    f=$run/jobs/grp-whole-$whole.out
    expect_eq "$(awk '{print $4}' "$f" | sort -u | wc -l)" 1 "then it runs inside one group ($(awk '{print $4}' "$f" | sort -u | paste -sd,))"
    expect_eq "$(awk '{print $1}' "$f" | sort | paste -sd,)" "$( (block_nodes 2; block_nodes 3) | sort | paste -sd,)" \
      "on the nodes of the group that was freed"
    cleanup_jobs "${holders[@]}"
    ;;
  striped-stages)
    # placement.stripe_stages: auto. An 8-node job fits one group: the block plugin gives it the
    # group's two SUs, whose 2 uplinks each would carry the packed boundary's 4 sends, so the
    # plan stripes the stages over both SUs. What Slurm is asked, and gives, does not change.
    policy=${SWITCHYARD_POLICY:?}
    cp "$policy" "$run/jobs/policy.striped-backup"
    trap 'cp "$run/jobs/policy.striped-backup" "$policy"' EXIT
    printf 'placement:\n  stripe_stages: auto\n' >> "$policy"
    jid=$(sbatch --parsable -N8 --exclusive --pipeline-stages=2 -o "$run/jobs/striped-%j.out" \
      --wrap "srun bash -c 'echo \$SLURM_PROCID \$SLURMD_NODENAME \$SWITCHYARD_STAGE \$SWITCHYARD_GROUP'; echo NODES=\$SLURM_JOB_NODELIST")
    wait_for 90 finished "$jid"
    f=$run/jobs/striped-$jid.out
    out=$(cat "$f")
    nodes=$(sed -n 's/^NODES=//p' "$f")
    plan=$("${SWITCHYARD_BIN:?}" plan --policy "$policy" --nodes "$nodes" --stages 2 --json)
    field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)" <<<"$plan"; }
    expect_eq "$(field 'd["striped"]')" True "the plan of its nodes ($nodes) is striped"
    expect_eq "$(grep -v NODES= "$f" | awk '{print $4}' | sort -u | wc -l)" 1 "the job is inside one group"
    expect_eq "$(grep -v NODES= "$f" | sort -n | awk '{print $2}' | paste -sd,)" "$(field '",".join(d["order"])')" \
      "SLURM_PROCID follows the striped plan (cli_filter.lua)"
    for s in 0 1; do
      expect_eq "$(grep -v NODES= "$f" | awk -v s=$s '$3==s {print $2}' | sort | paste -sd,)" \
        "$(field "','.join(sorted(d['stages'][$s]['nodes']))")" "stage $s has the striped plan's nodes"
    done
    expect_eq "$(field '",".join(sorted(set(d["stages"][0]["sus"])))')" "$(field '",".join(sorted(set(d["stages"][1]["sus"])))')" \
      "both stages span the same two SUs"
    ;;
  bad-requests-refused)
    # Each refused at submission with one line saying what to change; nothing is queued.
    while IFS='|' read -r args want; do
      # shellcheck disable=SC2086
      run_capture sbatch $args --exclusive -o /dev/null --wrap true
      expect_nonzero_rc "sbatch $args is refused"
      expect_contains "$err" "switchyard: $want" "sbatch $args: says what to change"
    done <<'CASES'
-N6 --pipeline-stages=4|--pipeline-stages=4 needs a node count it divides; -N6 gives stages of 1.50 nodes (try -N4 or -N8)
-N16 --pipeline-stages=2 --stage-scope=leaf|--stage-scope=leaf: a stage of 8 nodes cannot fit one block (scalable unit of 4 nodes); use --pipeline-stages=4 or more
-N12 --pipeline-stages=2 --segment=4|--segment=4 does not make whole stages of 6 nodes (-N12 --pipeline-stages=2); drop --segment or give a divisor of 6
-N8 --pipeline-stages=1 --segment=8|--segment=8 is larger than a block (4 nodes): Slurm can never place it
-N16 --pipeline-stages=1 --stage-scope=group|--stage-scope=group: a stage of 16 nodes cannot fit one group (8 nodes)
CASES
    expect_eq "$(squeue -h | wc -l)" 0 "no refused job was queued"
    ;;
  *)
    echo "unknown case '$case_name'"; exit 2 ;;
esac
finish
