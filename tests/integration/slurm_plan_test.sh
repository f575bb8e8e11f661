#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Stage plans in the real cluster of the `slurm16` fixture (topology and map from discover).
# Usage: slurm_plan_test.sh RUN FABRIC_DIR SWITCHYARD_BINARY CASE
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
run=${1:?usage: slurm_plan_test.sh RUN FABRIC_DIR SWITCHYARD_BINARY CASE}
fabric=${2:?}
sy=${3:?}
case_name=${4:?}
use_cluster "$run"
vars='echo "$SLURMD_NODENAME $SWITCHYARD_STAGE $SWITCHYARD_SU $SWITCHYARD_GROUP ${RANK:-unset} $SWITCHYARD_RANK"'

# plan_json NODES STAGES — what `switchyard plan` says for these nodes.
plan_json() { "$sy" plan --map "$fabric/fabric.map" --nodes "$1" --stages "$2" --json; }
py() { python3 -c "import json,sys; d=json.load(sys.stdin); $1"; }

case $case_name in
  stage-vars-follow-plan)
    run_capture srun -N8 --exclusive --pipeline-stages=2 --rank-order=topology -w 'node[001-008]' bash -c "$vars"
    expect_rc 0 "srun -N8 --pipeline-stages=2 --rank-order=topology"
    got=$out
    plan=$(plan_json 'node[001-008]' 2)
    expect_eq "$(sort -k5 -n <<<"$got" | awk '{print $1}' | paste -sd,)" "$(py 'print(",".join(d["order"]))' <<<"$plan")" \
      "RANK follows the planner's order"
    for s in 0 1; do
      expect_eq "$(awk -v s=$s '$2==s {print $1}' <<<"$got" | sort | paste -sd,)" \
                "$(py "print(','.join(sorted(d['stages'][$s]['nodes'])))" <<<"$plan")" "stage $s has the planned nodes"
    done
    expect_eq "$(awk '$5!=$6' <<<"$got")" "" "RANK equals SWITCHYARD_RANK with --rank-order=topology"
    ;;
  fragmented-sbatch)
    # Hold one node in each of three SUs, so the 8 free-node allocations are fragmented.
    held=$(py 'print(",".join(su["hosts"][0] for su in d["sus"][:3]))' <<<"$("$sy" fabric show --map "$fabric/fabric.map" --json)")
    jid=$(sbatch --parsable -N3 -w "$held" --exclusive -o /dev/null --wrap 'sleep 120')
    for _ in $(seq 50); do [ "$(squeue -h -j "$jid" -o %T)" = RUNNING ] && break; sleep 0.1; done
    run_capture sbatch --wait -N8 --exclusive --pipeline-stages=2 -o "$run/jobs/frag-%j.out" \
      --wrap "srun bash -c '$vars'; echo NODES=\$SLURM_JOB_NODELIST"
    scancel "$jid"
    expect_rc 0 "sbatch -N8 --pipeline-stages=2 with three nodes held"
    job_out=$(cat "$run"/jobs/frag-"$(grep -oE '[0-9]+' <<<"$out" | tail -1)".out)
    nodes=$(sed -n 's/^NODES=//p' <<<"$job_out")
    best=$(py 'print(d["facts"]["best"]["stages_in_one_su"])' <<<"$(plan_json "$nodes" 2)")
    single=0
    for s in 0 1; do
      n=$(awk -v s=$s '$2==s {print $3}' <<<"$job_out" | sort -u | wc -l)
      [ "$n" -eq 1 ] && single=$((single + 1))
    done
    out=$job_out
    expect_eq "$single" "$best" "stages with one SU ($single) = the best these nodes allow ($best) on $nodes"
    ;;
  topo-report)
    run_capture srun -N4 --exclusive --pipeline-stages=2 --topo-report -w 'node[001-004]' true
    expect_rc 0 "srun --topo-report"
    expect_contains "$err" "stage plan: 2 stages x 2 nodes" "the plan is on the client's stderr"
    expect_contains "$err" "cost per step: plan" "with its cost, Slurm's order and the lower bound"
    expect_eq "$(grep -c 'stage plan:' <<<"$err")" 1 "once per step"
    ;;
  not-divisible-refused)
    run_capture srun -N3 --pipeline-stages=2 true
    expect_nonzero_rc "a 3-node job in 2 stages is refused at submission (job_submit.lua)"
    expect_contains "$err" "--pipeline-stages=2 needs a node count it divides" "with the reason"
    # A step on part of an allocation never meets job_submit.lua: the plugin refuses it.
    run_capture sbatch --wait -N4 -o "$run/jobs/part-%j.out" --wrap 'srun -N3 --pipeline-stages=2 true; echo rc=$?'
    out=$(cat "$run"/jobs/part-"$(grep -oE '[0-9]+' <<<"$out" | tail -1)".out)
    expect_contains "$out" "3 nodes do not split into 2 equal stages" "the step fails with the reason"
    expect_contains "$out" "rc=1" "and a non-zero exit"
    ;;
  cli-filter-rank-order)
    # An srun inside the allocation: cli_filter.lua hands Slurm the planner's order, so
    # SLURM_PROCID itself follows the plan.
    run_capture sbatch --wait -N8 --exclusive --pipeline-stages=2 -o "$run/jobs/order-%j.out" \
      --wrap "srun bash -c 'echo \$SLURM_PROCID \$SLURMD_NODENAME \$SWITCHYARD_RANK \$SWITCHYARD_STAGE'; echo NODES=\$SLURM_JOB_NODELIST"
    expect_rc 0 "sbatch -N8 --pipeline-stages=2"
    job_out=$(cat "$run"/jobs/order-"$(grep -oE '[0-9]+' <<<"$out" | tail -1)".out)
    nodes=$(sed -n 's/^NODES=//p' <<<"$job_out")
    out=$job_out
    expect_eq "$(grep -v NODES= <<<"$job_out" | sort -n | awk '{print $2}' | paste -sd,)" \
              "$(py 'print(",".join(d["order"]))' <<<"$(plan_json "$nodes" 2)")" "SLURM_PROCID follows the plan"
    expect_eq "$(grep -v NODES= <<<"$job_out" | awk '$1!=$3')" "" "SLURM_PROCID equals SWITCHYARD_RANK"
    plan=$(plan_json "$nodes" 2)
    for s in 0 1; do
      expect_eq "$(grep -v NODES= <<<"$job_out" | awk -v s=$s '$4==s {print $2}' | sort | paste -sd,)" \
                "$(py "print(','.join(sorted(d['stages'][$s]['nodes'])))" <<<"$plan")" "stage $s (from SLURM_PROCID) has the planned nodes"
    done
    ;;
  striped-stages)
    # placement.stripe_stages: auto. node[001-008] lies in three SUs of 2 uplinks: the packed
    # boundary's sends would share them, so the plan stripes the stages, and the plugin (RANK,
    # SWITCHYARD_STAGE, --topo-report), cli_filter.lua (SLURM_PROCID) and `plan` agree.
    policy=${SWITCHYARD_POLICY:?}
    cp "$policy" "$run/jobs/policy.striped-backup"
    trap 'cp "$run/jobs/policy.striped-backup" "$policy"' EXIT
    printf 'placement:\n  stripe_stages: auto\n' >> "$policy"
    plan=$("$sy" plan --policy "$policy" --nodes 'node[001-008]' --stages 2 --json)
    expect_eq "$(py 'print(d["striped"])' <<<"$plan")" True "plan stripes these nodes"
    run_capture srun -N8 --exclusive --pipeline-stages=2 --rank-order=topology --topo-report \
      -w 'node[001-008]' bash -c "$vars"
    expect_rc 0 "srun -N8 --pipeline-stages=2 with stripe_stages: auto"
    expect_contains "$err" "note: stages striped over the nodes (node p to stage p mod 2)" \
      "--topo-report says why"
    expect_eq "$(sort -k5 -n <<<"$out" | awk '{print $1}' | paste -sd,)" \
      "$(py 'print(",".join(d["order"]))' <<<"$plan")" "RANK follows the striped plan"
    for s in 0 1; do
      expect_eq "$(awk -v s=$s '$2==s {print $1}' <<<"$out" | sort | paste -sd,)" \
        "$(py "print(','.join(sorted(d['stages'][$s]['nodes'])))" <<<"$plan")" "stage $s has the striped plan's nodes"
      expect_eq "$(awk -v s=$s '$2==s {print $4}' <<<"$out" | sort -u | paste -sd,)" "g1,g2" \
        "stage $s spans both groups"
    done
    run_capture sbatch --wait -N8 --exclusive -w 'node[001-008]' --pipeline-stages=2 \
      -o "$run/jobs/striped-%j.out" --wrap "srun bash -c 'echo \$SLURM_PROCID \$SLURMD_NODENAME \$SWITCHYARD_STAGE'"
    expect_rc 0 "sbatch -N8 --pipeline-stages=2 with stripe_stages: auto"
    job_out=$(cat "$run"/jobs/striped-"$(grep -oE '[0-9]+' <<<"$out" | tail -1)".out)
    out=$job_out
    expect_eq "$(sort -n <<<"$job_out" | awk '{print $2}' | paste -sd,)" \
      "$(py 'print(",".join(d["order"]))' <<<"$plan")" "cli_filter.lua: SLURM_PROCID follows the striped plan"
    # A scope asked for keeps each stage packed, whatever the policy.
    run_capture srun -N8 --exclusive --pipeline-stages=2 --stage-scope=group --rank-order=topology \
      -w 'node[001-008]' bash -c "$vars"
    expect_rc 0 "srun --stage-scope=group"
    expect_eq "$(awk '$2==0 {print $4}' <<<"$out" | sort -u)" g1 "stage 0 packed in g1"
    ;;
  job-submit-refuses)
    run_capture sbatch -N8 --pipeline-stages=3 --wrap true
    expect_nonzero_rc "job_submit.lua refuses --pipeline-stages=3 -N8"
    expect_contains "$err" "switchyard: --pipeline-stages=3 needs a node count it divides; -N8 gives stages of 2.67 nodes (try -N6 or -N9)" \
      "with a message that says what to change"
    run_capture sbatch -N10 --pipeline-stages=2 --stage-scope=leaf --wrap true
    expect_nonzero_rc "a 5-node stage cannot fit a 4-node SU with --stage-scope=leaf"
    expect_contains "$err" "cannot fit one scalable unit (4 nodes)" "named"
    jid=$(sbatch --parsable --hold -N4 --pipeline-stages=2 --stage-scope=leaf --wrap true)
    out=$(scontrol show job "$jid"); scancel "$jid"
    expect_contains "$out" "Switches=2@00:01:00" "--stage-scope=leaf asks for at most one SU per stage"
    jid=$(sbatch --parsable --hold -N8 --pipeline-stages=2 --stage-scope=group --wrap true)
    out=$(scontrol show job "$jid"); scancel "$jid"
    expect_contains "$out" "Features=[grp_g1|grp_g2]" "--stage-scope=group with a job that fits one group: matching-OR constraint"
    ;;
  *)
    echo "unknown case '$case_name'"; exit 2 ;;
esac
finish
