#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The prolog health gate in a real 16-node cluster (fixture `slurm16h`, PrologFlags=Alloc):
# node005 has a dead compute port in its fake sysfs tree.
# Usage: slurm_health_test.sh RUN POLICY BREAKER_STATE CASE
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
run=${1:?usage: slurm_health_test.sh RUN POLICY BREAKER_STATE CASE}
policy=${2:?}
breaker=${3:?}
case_name=${4:?}
use_cluster "$run"

reason_of() { scontrol show node "$1" | sed -n 's/^ *Reason=\(.*\) \[.*$/\1/p'; }
wait_for() {  # wait_for SECONDS COMMAND... until it succeeds
  local t=$1; shift
  for _ in $(seq $((t * 10))); do "$@" && return 0; sleep 0.1; done
  return 1
}
drained() { scontrol show node "$1" | grep -qE 'State=[A-Z+]*DRAIN'; }

case $case_name in
  requeue-and-drain)
    jid=$(sbatch --parsable -N16 -o /dev/null --wrap 'srun true')
    rc=0; wait_for 30 drained node005 || rc=$?
    expect_rc 0 "node005 is drained"
    out=$(reason_of node005)
    expect_contains "$out" "switchyard: rdma-ports: 3 of 4 compute ports usable; mlx5_2:1 DOWN/Polling" \
      "with the switchyard reason"
    # Requeue passes through COMPLETING (Restarts already counted) before PENDING.
    wait_for 30 bash -c "scontrol show job $jid | grep -q 'JobState=PENDING'"
    out=$(scontrol show job "$jid")
    expect_contains "$out" "JobState=PENDING" "the 16-node job went back to the queue"
    expect_contains "$out" "Restarts=1" "after exactly one failed launch"
    scancel "$jid"
    # A node drained by hand: a job that lands on it while it drains leaves the reason alone.
    scontrol update nodename=node010 state=drain reason="admin: memory test"
    run_capture sbatch --wait -N14 --exclusive -x node005,node010 -o /dev/null --wrap 'srun true'
    expect_rc 0 "a job on the other nodes runs"
    expect_eq "$(reason_of node010)" "admin: memory test" "a node drained by hand keeps its own reason"
    scontrol update nodename=node010 state=resume
    ;;
  healthy-job-runs)
    rc=0; wait_for 30 drained node005 || rc=$?
    expect_rc 0 "node005 is still drained"
    run_capture sbatch --wait -N15 --exclusive -o /dev/null --wrap 'srun true'
    expect_rc 0 "a 15-node job fits the healthy nodes and runs"
    ;;
  breaker-and-hang)
    cp "$policy" "$policy.orig"
    : > "$breaker"
    for n in $(seq -f 'node%03g' 1 16); do scontrol update nodename="$n" state=resume 2>/dev/null; done
    # A broken check that hangs on every node: killed at its timeout, counted as failed.
    printf '  commands:\n    - {name: hang, argv: [/bin/sleep, "30"], timeout_s: 1}\n' >> "$policy"
    jid=$(sbatch --parsable -N4 -w 'node[001-004]' --exclusive -o /dev/null --wrap true)
    wait_for 30 bash -c "[ \$(sinfo -h -N -t drain,drained,draining -o %N -n 'node[001-004]' | sort -u | wc -l) -ge 2 ]"
    sleep 2
    scancel "$jid"
    n=$(sinfo -h -N -t drain,drained,draining -o %N -n 'node[001-004]' | sort -u | wc -l)
    expect_eq "$n" 2 "the breaker (12.5 % of the 16-node partition) let exactly 2 of 4 failing nodes be drained"
    out=$(for x in $(sinfo -h -N -t drain,drained,draining -o %N -n 'node[001-004]' | sort -u); do reason_of "$x"; done)
    expect_contains "$out" "switchyard: command:hang: killed after the 1 s timeout" "the hanging check was killed at its timeout"
    out=$(cat "$run"/log/slurmd-node00[1-4].log)
    expect_contains "$out" "CIRCUIT BREAKER OPEN" "the open breaker is logged loudly"
    expect_contains "$out" "(limit: 12.5% of a 16-node partition)" "the limit comes from the partition's size read from slurmctld"
    mv "$policy.orig" "$policy"
    : > "$breaker"
    for n in $(seq -f 'node%03g' 1 4); do scontrol update nodename="$n" state=resume 2>/dev/null; done
    ;;
  *)
    echo "unknown case '$case_name'"; exit 2 ;;
esac
finish
