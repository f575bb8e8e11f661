#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The prolog health gate in a real 16-node cluster (fixture `slurm16h`, PrologFlags=Alloc):
# node005 has a dead compute port in its fake sysfs tree.
# Usage: slurm_health_test.sh RUN POLICY BREAKER_STATE CASE SWITCHYARD_CLI
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
run=${1:?usage: slurm_health_test.sh RUN POLICY BREAKER_STATE CASE}
policy=${2:?}
breaker=${3:?}
case_name=${4:?}
cli=${5:?}
use_cluster "$run"

reason_of() { scontrol show node "$1" | sed -n 's/^ *Reason=\(.*\) \[.*$/\1/p'; }
drained() { scontrol show node "$1" | grep -qE 'State=[A-Z+]*DRAIN'; }

# breaker-and-hang adds a hanging check to the shared policy and puts it back when done; a run
# killed before that (a timeout) must not leave the hang to every later case and run.
if [ -f "$policy.orig" ]; then mv "$policy.orig" "$policy"; fi

case $case_name in
  requeue-and-drain)
    : > "$breaker"  # no drains recorded by an earlier (interrupted) run
    # node016 busy: a 15-node job must take node005, whose prolog fails; Slurm requeues the job
    # (not held: nohold_on_prolog_fail) and it runs on the 15 healthy nodes once node016 is free.
    blocker=$(sbatch --parsable -w node016 --exclusive -o /dev/null --wrap 'sleep 300')
    jid=""
    trap 'scancel $blocker $jid 2>/dev/null' EXIT  # a failed check must not leave them queued
    wait_for 30 bash -c "scontrol show job $blocker | grep -q 'JobState=RUNNING'"
    # `sleep 2` first: Slurm 22.05 may start the batch script on the batch host while another
    # node's prolog fails (reference/slurm.md 2.7); a step launched in that instant can take
    # UnkillableStepTimeout (60 s) to clean up before the requeue completes.
    jid=$(sbatch --parsable -N15 --exclusive -o /dev/null --wrap 'sleep 2; srun true')
    rc=0; wait_for 30 drained node005 || rc=$?
    expect_rc 0 "node005 is drained"
    out=$(reason_of node005)
    expect_contains "$out" "switchyard: rdma-ports: 3 of 4 compute ports usable; mlx5_2:1 DOWN/Polling" \
      "with the switchyard reason"
    # Requeue passes through COMPLETING (Restarts already counted) before PENDING.
    wait_for 90 bash -c "scontrol show job $jid | grep -q 'JobState=PENDING'"
    out=$(scontrol show job "$jid")
    expect_contains "$out" "JobState=PENDING" "the 15-node job went back to the queue"
    expect_contains "$out" "Restarts=1" "after exactly one failed launch"
    expect_not_contains "$out" "held" "ready to run again, not held"
    scancel "$blocker"
    wait_for 60 bash -c "scontrol show job $jid | grep -q 'JobState=COMPLETED'"
    out=$(scontrol show job "$jid")
    expect_contains "$out" "JobState=COMPLETED" "it ran on healthy nodes and completed"
    expect_contains "$out" "NodeList=node[001-004,006-016]" "every node but node005"
    out=$(cat "$run/log/slurmd-node005.log")
    expect_contains "$out" "switchyard: node005: check set 'debug-partition'" \
      "the prolog chose the check set of the job's partition"
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
  resume-after-repair)
    # What slurmd's HealthCheckProgram does with `switchyard health --resume`.
    rc=0; wait_for 30 drained node005 || rc=$?
    expect_rc 0 "node005 is drained from the first case"
    # The repair happens in a private copy of node005's tree, read through a private copy of the
    # policy: the shared trees are read meanwhile by tests running beside this one (cli-explain
    # expects node005's port down), and a run killed half-way must leave nothing repaired.
    trees=$(sed -n 's|^ *sysfs_root: \(.*\)/%n/sys$|\1|p' "$policy")
    priv=$(mktemp -d /tmp/switchyard-repair.XXXXXX)
    trap 'rm -rf "$priv"' EXIT
    mkdir "$priv/node005" && cp -a "$trees/node005/sys" "$priv/node005/"
    sed "s|^\( *sysfs_root: \).*|\1$priv/%n/sys|" "$policy" > "$priv/policy.yaml"
    port=$priv/node005/sys/class/infiniband/mlx5_2/ports/1
    run_capture env SLURMD_NODENAME=node005 "$cli" health --policy "$priv/policy.yaml"
    expect_rc 1 "still broken: no resume"
    expect_contains "$out" "ERROR: switchyard: rdma-ports:" "NHC-style line"
    echo "4: ACTIVE" > "$port/state"; echo "5: LinkUp" > "$port/phys_state"
    run_capture env SLURMD_NODENAME=node005 "$cli" health --policy "$priv/policy.yaml" --resume
    expect_rc 0 "the repaired node passes"
    expect_contains "$err" "resumed node005 (was: switchyard: rdma-ports: 3 of 4 compute ports usable" \
      "and is resumed, naming the reason it had"
    drained node005 && rc=1 || rc=0
    expect_rc 0 "node005 takes jobs again"
    scontrol update nodename=node011 state=drain reason="admin: cable swap"
    run_capture "$cli" health --policy "$policy" --host node011 --resume
    expect_rc 0 "node011 passes its checks"
    expect_contains "$err" "not resuming node011: held for another reason ('admin: cable swap')" \
      "a drain by someone else is left alone"
    expect_eq "$(reason_of node011)" "admin: cable swap" "node011 keeps its reason"
    scontrol update nodename=node011 state=resume
    run_capture env PATH=/nonexistent "$cli" health --policy "$policy" --host node011 --resume
    expect_rc 1 "without scontrol, --resume fails"
    expect_contains "$err" "cannot run sinfo (install slurm-client, or put it on PATH)" "and says what to change"
    ;;
  breaker-and-hang)
    cp "$policy" "$policy.orig"
    trap 'if [ -f "$policy.orig" ]; then mv "$policy.orig" "$policy"; fi' EXIT
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
    for x in $(sinfo -h -N -t drain,drained,draining -o %N -n 'node[001-004]' | sort -u); do
      echo "drained: $x: $(reason_of "$x")"
    done
    out=$(for x in $(sinfo -h -N -t drain,drained,draining -o %N -n 'node[001-004]' | sort -u); do reason_of "$x"; done)
    expect_contains "$out" "switchyard: command:hang: killed after the 1 s timeout" "the hanging check was killed at its timeout"
    out=$(cat "$run"/log/slurmd-node00[1-4].log)
    expect_contains "$out" "CIRCUIT BREAKER OPEN" "the open breaker is logged loudly"
    expect_contains "$out" "(limit: 12.5% of a 16-node partition)" "the limit comes from the partition's size read from slurmctld"
    mv "$policy.orig" "$policy"
    : > "$breaker"
    for n in $(seq -f 'node%03g' 1 4); do scontrol update nodename="$n" state=resume 2>/dev/null; done
    ;;
  stale-reason-ignored)
    # Slurm 24.11 keeps a node's last reason after it is resumed (22.05 clears it). A leftover
    # reason is no reason: it neither protects a failing node from the gate nor makes --resume
    # act, and resumed nodes do not count against the breaker.
    : > "$breaker"
    scontrol update nodename=node005 state=drain reason="admin: old note"
    scontrol update nodename=node005 state=resume
    echo "node005 after resume: $(scontrol show node node005 | grep -oE 'State=[^ ]+|Reason=.*' | paste -sd' ')"
    run_capture sbatch --parsable -w node005 -N1 --exclusive -o /dev/null --wrap true
    jid=$out
    rc=0; wait_for 30 drained node005 || rc=$?
    expect_rc 0 "node005 (still broken, leftover reason 'admin: old note') is drained by the gate"
    expect_contains "$(reason_of node005)" "switchyard: rdma-ports: 3 of 4 compute ports usable" \
      "with its own reason"
    scancel "$jid" 2>/dev/null
    scontrol update nodename=node011 state=drain reason="admin: cable swap"
    scontrol update nodename=node011 state=resume
    run_capture "$cli" health --policy "$policy" --host node011 --resume
    expect_rc 0 "node011 passes its checks"
    expect_not_contains "$err" "not resuming" "a resumed node's leftover reason is not a hold"
    expect_not_contains "$err" "resumed node011" "and there is nothing to resume"
    scontrol update nodename=node005 state=resume
    : > "$breaker"
    ;;
  *)
    echo "unknown case '$case_name'"; exit 2 ;;
esac
finish
