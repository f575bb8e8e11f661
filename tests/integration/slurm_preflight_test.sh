#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The preflight on the real cluster of the `slurm16` fixture: the agents run as one srun step
# (a task per node, each `switchyard preflight --agent --me $SLURMD_NODENAME`), the probes a real
# process answering from a fault table (tests/support/fake-perftest: no RDMA here), srun gathers
# their result lines, and `switchyard preflight --results - --act` locates and acts through
# scontrol: a leaf's uplinks drain nobody; a batch job that measures its own nodes first is
# requeued away from the node it drained, and completes. (A drained node and a hung probe are
# the --preflight job option's cases: slurm_preflight_job_test.sh.)
# Usage: slurm_preflight_test.sh RUN FABRIC_DIR SWITCHYARD_BINARY SOURCE_DIR CASE
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
run=${1:?usage: slurm_preflight_test.sh RUN FABRIC_DIR SWITCHYARD_BINARY SOURCE_DIR CASE}
fabric=${2:?}
sy=${3:?}
src=${4:?}
case_name=${5:?}
use_cluster "$run"
map=$fabric/fabric.map
work=$(mktemp -d /tmp/switchyard-preflight.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
rail=$(awk '$1 == "hcas" {print $2; exit}' "$map")
cat >"$work/policy.yaml" <<YAML
version: 1
preflight:
  probe_timeout_s: 3
  link_rate_gbps: 400
  latency: [$src/tests/support/fake-perftest, lat, $work/table, "{hca}", "{host}", "{peer}"]
  bandwidth: [$src/tests/support/fake-perftest, bw, $work/table, "{hca}", "{host}", "{peer}"]
health:
  breaker:
    max_nodes: 2
YAML
chmod 644 "$work/policy.yaml"

# agents TABLE-LINE — the agents of a 16-node step; their lines in $work/results.jsonl.
agents() {
  printf '%s\n' "$1" >"$work/table"
  chmod 644 "$work/table"
  local start=$(( $(date +%s) + 4 ))
  run_capture srun -N16 --ntasks-per-node=1 --exclusive -w 'node[001-016]' bash -c \
    "exec '$sy' preflight --agent --map '$map' --policy '$work/policy.yaml' \
       --hosts \"\$SLURM_JOB_NODELIST\" --me \"\$SLURMD_NODENAME\" --start $start"
  expect_rc 0 "the agents' step"
  printf '%s\n' "$out" | grep '^{' >"$work/results.jsonl"
}
reason() { scontrol show node "$1" | grep -oE 'Reason=.*' | sed -E 's/^Reason=//; s/ \[.*$//'; }
# back_in_service NODE — resume a node this test drained and wait until it is idle and
# responding (the next test of this cluster finds it as it was).
back_in_service() {
  scontrol update NodeName="$1" State=RESUME
  wait_for 60 bash -c "[ \"\$(sinfo -h -n $1 -o %T)\" = idle ]" ||
    fail_check "$1 is not idle again: $(sinfo -h -n "$1" -o '%T %E')"
}

case $case_name in
  link-fault-no-drain)
    # Every pair leaving node001's leaf is slow: the leaf's uplinks, nobody's node.
    leaf=$(awk '$1 == "host" && $2 == "node001" {print $3}' "$map")
    mates=$(awk -v l="$leaf" '$1 == "host" && $3 == l {print $2}' "$map" | paste -sd' ')
    agents ""
    python3 - "$work/results.jsonl" "$mates" >"$work/slowed.jsonl" <<'PY'
import json, sys
mates = set(sys.argv[2].split())
for line in open(sys.argv[1]):
    r = json.loads(line)
    if (r["client"] in mates) != (r["server"] in mates):
        r["latency_us"], r["bandwidth_gbps"] = 11.2, 190.4
    print(json.dumps(r))
PY
    run_capture "$sy" preflight --map "$map" --policy "$work/policy.yaml" --hosts 'node[001-016]' \
      --results "$work/slowed.jsonl" --act
    expect_rc 1 "a part at fault"
    expect_contains "$out" "fault: $leaf uplinks (leaf-uplinks)" "the leaf's uplinks are located"
    expect_contains "$out" "is at fault: no node drained" "and nobody is drained"
    for n in $mates; do
      expect_eq "$(reason "$n")" "" "$n is not held"
    done
    ;;
  requeued-elsewhere)
    # A batch job measures its own nodes first; the third is slow: it is drained, the job is
    # requeued and runs on eight nodes without it.
    cat >"$work/job.sh" <<JOB
#!/bin/bash
if [ "\${SLURM_RESTART_COUNT:-0}" = 0 ]; then
  bad=\$(scontrol show hostnames "\$SLURM_JOB_NODELIST" | sed -n 3p)
  echo "\$bad $rail slow" > $work/table
  echo "\$bad" > $work/bad
  start=\$(( \$(date +%s) + 4 ))
  srun --ntasks-per-node=1 bash -c "exec '$sy' preflight --agent --map '$map' \\
    --policy '$work/policy.yaml' --hosts '\$SLURM_JOB_NODELIST' --me \\\$SLURMD_NODENAME \\
    --start \$start" > $work/pairs.jsonl
  '$sy' preflight --map '$map' --policy '$work/policy.yaml' --hosts "\$SLURM_JOB_NODELIST" \\
    --results $work/pairs.jsonl --act --job "\$SLURM_JOB_ID" > $work/preflight.out 2>&1
  sleep 120
fi
echo "ran on \$SLURM_JOB_NODELIST after \${SLURM_RESTART_COUNT:-0} requeue(s)" > $work/done
JOB
    run_capture sbatch --parsable -N8 --exclusive --requeue -o "$work/job.out" "$work/job.sh"
    expect_rc 0 "sbatch -N8 --requeue"
    job=$out
    # A requeued job waits out a begin time Slurm sets (about two minutes); the test does not.
    if wait_for 60 bash -c "grep -q 'requeuing job' '$work/preflight.out' 2>/dev/null &&
                             squeue -h -j $job -o %T | grep -q PENDING"; then
      scontrol update JobId="$job" StartTime=now
    fi
    wait_for 170 test -s "$work/done" || fail_check "the job did not complete within 170 s: $(squeue -h -j "$job" -o '%T %r' 2>&1)"
    bad=$(cat "$work/bad" 2>/dev/null)
    expect_contains "$(cat "$work/preflight.out" 2>/dev/null)" "drained $bad: switchyard: preflight:" \
      "the slow node ($bad) is drained by the job's own preflight"
    expect_contains "$(cat "$work/preflight.out" 2>/dev/null)" "requeuing job $job" "and the job requeued"
    done_line=$(cat "$work/done" 2>/dev/null)
    expect_contains "$done_line" "after 1 requeue(s)" "the job ran again"
    expect_not_contains "$(scontrol show hostnames "$(awk '{print $3}' <<<"$done_line")")" "$bad" \
      "on nodes without $bad"
    expect_contains "$(reason "$bad")" "switchyard: preflight: $rail:" "$bad is held with the owned reason"
    back_in_service "$bad"
    ;;
  *) echo "unknown case $case_name"; exit 2 ;;
esac
finish
