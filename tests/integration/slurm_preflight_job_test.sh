#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The --preflight job option on the real cluster of the `slurm16h` fixture (the gate's prolog on
# every node, PrologFlags=Alloc): no step in the job script, no change to it. Each node's prolog
# runs `switchyard preflight --prolog`; the job's first node gathers over TCP (ports under 1024),
# locates and acts through scontrol. The probes are a real process answering from a fault table
# (tests/support/fake-perftest: no RDMA here).
# Usage: slurm_preflight_job_test.sh RUN POLICY FABRIC_DIR SWITCHYARD_CLI SOURCE_DIR WORK CASE
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
run=${1:?usage: slurm_preflight_job_test.sh RUN POLICY FABRIC_DIR SWITCHYARD_CLI SOURCE_DIR WORK CASE}
policy=${2:?}
fabric=${3:?}
sy=${4:?}
src=${5:?}
work=${6:?}
case_name=${7:?}
use_cluster "$run"
map=$fabric/fabric.map
rail=$(awk '$1 == "hcas" {print $2; exit}' "$map")
reports=$work/reports

# The shared policy gains a preflight section for this case and gets it back after (a run killed
# half-way leaves the .orig, which the next case restores first).
if [ -f "$policy.preflight-orig" ]; then mv "$policy.preflight-orig" "$policy"; fi
cp -p "$policy" "$policy.preflight-orig"
restore() { mv "$policy.preflight-orig" "$policy"; }
on_link_fault=warn
[ "$case_name" = link-fault-requeue ] && on_link_fault=requeue
mkdir -p "$work"
chmod 755 "$work"
cat >>"$policy" <<YAML
fabric:
  map: $map
preflight:
  command: $sy
  port: 962
  ports: 1
  join_s: 5
  probe_timeout_s: 2
  deadline_s: 60
  link_rate_gbps: 400
  on_link_fault: $on_link_fault
  reports: $reports
  latency: [$src/tests/support/fake-perftest, lat, $work/table, "{hca}", "{host}", "{peer}"]
  bandwidth: [$src/tests/support/fake-perftest, bw, $work/table, "{hca}", "{host}", "{peer}"]
YAML
"$sy" check-config "$policy" >/dev/null || fail_check "the test's policy does not load"
table() { printf '%s\n' "$1" >"$work/table"; chmod 644 "$work/table"; }
reason() { scontrol show node "$1" | grep -oE 'Reason=.*' | sed -E 's/^Reason=//; s/ \[.*$//'; }
state() { scontrol show job "$1" | grep -oE 'JobState=[A-Z_]+' | cut -d= -f2; }
job_is() { [ "$(state "$1")" = "$2" ]; }
job_brief() {
  scontrol show job "$1" | grep -oE 'JobState=[^ ]+|Reason=[^ ]+|Restarts=[0-9]+|ExcNodeList=[^ ]+' | paste -sd' '
}
# requeued_then_done JOB — the job goes back to the queue once; once the blocker is gone it
# completes.
requeued_then_done() {
  wait_for 90 bash -c "scontrol show job $1 | grep -q 'Restarts=1'" ||
    fail_check "the job was not requeued: $(job_brief "$1")"
  scancel "$blocker"
  wait_for 150 job_is "$1" COMPLETED || fail_check "the job did not complete: $(job_brief "$1")"
}
# run_job SECONDS SBATCH-ARGS... — submits and waits for the job's end, polling every 0.1 s
# (sbatch --wait polls every few seconds); $out is its state then.
run_job() {
  local t=$1 id; shift
  id=$(sbatch --parsable "$@") || { out="sbatch failed"; return 1; }
  jid=$id
  wait_for "$t" bash -c "case \$(scontrol show job $id | grep -oE 'JobState=[A-Z_]+') in JobState=COMPLETED|JobState=FAILED|JobState=CANCELLED|JobState=TIMEOUT) exit 0;; esac; exit 1"
  out=$(state "$id")
}
back_in_service() {
  scontrol update NodeName="$1" State=RESUME
  wait_for 60 bash -c "[ \"\$(sinfo -h -n $1 -o %T)\" = idle ]" ||
    fail_check "$1 is not idle again: $(sinfo -h -n "$1" -o '%T %E')"
}
blocker=""
jid=""
trap 'scancel $blocker $jid 2>/dev/null; restore' EXIT

case $case_name in
  node-drained)
    # node016 busy and node005 (its port down: the health gate's) left out, so a 14-node job
    # takes node007, whose HCA the table makes slow.
    table "node007 $rail slow"
    blocker=$(sbatch --parsable -w node016 --exclusive -o /dev/null --wrap 'sleep 300')
    wait_for 30 job_is "$blocker" RUNNING
    jid=$(sbatch --parsable -N14 --exclusive -x node005 --preflight -o "$work/job.out" \
          --wrap 'srun bash -c "echo \$SLURMD_NODENAME" | sort | paste -sd" "')
    wait_for 90 bash -c "[ \"\$(scontrol show node node007 | grep -c 'Reason=switchyard: preflight')\" = 1 ]" ||
      fail_check "node007 was not drained by the preflight: $(reason node007)"
    expect_eq "$(reason node007)" "switchyard: preflight: $rail: 11.2 us to 2 peers (limit 5)" \
      "node007 is drained with the owned reason"
    requeued_then_done "$jid"
    out=$(scontrol show job "$jid")
    expect_contains "$out" "Restarts=1" "requeued once"
    nodes=$(grep -oE ' NodeList=[^ ]+' <<<"$out" | cut -d= -f2)
    expect_not_contains "$(scontrol show hostnames "$nodes")" "node007" \
      "it ran on nodes without node007 ($nodes)"
    expect_contains "$(cat "$work/job.out" 2>/dev/null)" "node016" "the job's own step ran"
    expect_not_contains "$(cat "$work/job.out" 2>/dev/null)" "node007" "and not on node007"
    log=$(cat "$run/log/slurmd-node001.log")
    expect_contains "$log" "fault: node007 $rail (port): 2 slow pair(s)" \
      "the first node's prolog located node007 (slurmd's log)"
    expect_contains "$(cat "$run/log/slurmd-node007.log")" "node007 is at fault and drained" \
      "node007's own prolog failed for it"
    expect_eq "$(stat -c %a "$reports")" 700 "the reports directory is root's alone"
    expect_contains "$(cat "$reports"/job-"$jid"-*.json 2>/dev/null)" "\"node007 $rail\"" \
      "the job's report names the part"
    back_in_service node007
    ;;
  probe-hangs)
    table "node003 $rail hang"
    t0=$SECONDS
    run_job 90 -N4 -w 'node[001-004]' --exclusive --preflight -o "$work/job.out" --wrap 'echo ran'
    expect_eq "$out" COMPLETED "the job ran"
    expect_eq "$(( SECONDS - t0 < 90 ))" 1 "within the preflight's deadline ($(( SECONDS - t0 )) s)"
    expect_eq "$(cat "$work/job.out")" "ran" "its script ran once"
    for n in node001 node002 node003 node004; do
      expect_eq "$(reason "$n")" "" "$n is not drained"
    done
    expect_contains "$(cat "$run/log/slurmd-node001.log")" "probe failed (nobody drained)" \
      "the hung probe is reported"
    ;;
  link-fault-warn|link-fault-requeue)
    # Every pair leaving g1-leaf1 is slow: its uplinks are at fault, nobody's node.
    leaf=$(awk '$1 == "host" && $2 == "node001" {print $3}' "$map")
    mates=$(awk -v l="$leaf" '$1 == "host" && $3 == l {print $2}' "$map" | paste -sd' ')
    table "across $rail $mates"
    other=$(awk '$1 == "host" && $2 == "node003" {print $3}' "$map")
    if [ "$case_name" = link-fault-warn ]; then
      # The job on two leaves, node001's and node003's (node005, the gate's, left out).
      list=$(awk -v l="$leaf" -v o="$other" '$1 == "host" && ($3 == l || $3 == o) && $2 != "node005" {print $2}' "$map" | paste -sd,)
      count=$(tr , '\n' <<<"$list" | wc -l)
      run_job 90 -N"$count" -w "$list" --exclusive --preflight -o "$work/job.out" --wrap 'echo ran'
      expect_eq "$out" COMPLETED "the job ran (on_link_fault: warn)"
      expect_eq "$(cat "$work/job.out")" "ran" "its script ran once, on the same nodes"
    else
      # The other group busy and node005 left out: a 6-node job must take 3 or more of the
      # leaf's hosts. It is requeued away from them and runs on the other group once free.
      busy=$(awk -v l="$leaf" -v o="$other" '$1 == "host" && $3 != l && $3 != o {print $2}' "$map" | paste -sd,)
      blocker=$(sbatch --parsable -w "$busy" -N"$(tr , '\n' <<<"$busy" | wc -l)" --exclusive \
                -o /dev/null --wrap 'sleep 300')
      wait_for 30 job_is "$blocker" RUNNING
      jid=$(sbatch --parsable -N6 --exclusive -x node005 --preflight -o "$work/job.out" \
            --wrap 'srun bash -c "echo \$SLURMD_NODENAME" | sort | paste -sd" "')
      requeued_then_done "$jid"
      out=$(scontrol show job "$jid")
      nodes=$(grep -oE ' NodeList=[^ ]+' <<<"$out" | cut -d= -f2)
      for n in $mates; do
        expect_not_contains "$(scontrol show hostnames "$nodes")" "$n" "it ran away from $n ($nodes)"
      done
      excluded=$(scontrol show hostnames "$(grep -oE 'ExcNodeList=[^ ]+' <<<"$out" | cut -d= -f2)")
      for n in $mates; do
        expect_contains "$excluded" "$n" "kept off $n, behind the part"
      done
    fi
    expect_contains "$(cat "$run"/log/slurmd-node*.log)" "fault: $leaf uplinks (leaf-uplinks)" \
      "the first node's prolog located the leaf's uplinks (slurmd's log)"
    for n in $mates; do
      expect_eq "$(reason "$n")" "" "$n is not drained"
    done
    # The report of the run that found it (a requeued job's next run writes its own).
    expect_contains "$(cat $(ls -t "$reports"/job-*.json | head -2))" "\"$leaf uplinks\"" \
      "the report names the leaf's uplinks"
    run_capture "$sy" steer --map "$map" --preflight "$reports"
    expect_rc 0 "steer reads the reports"
    expect_contains "$out" "$(scontrol show hostlist "${mates// /,}"): score 0.50" \
      "and weights the hosts behind the part"
    expect_contains "$out" "preflight: $leaf uplinks at fault" "saying why"
    ;;
  *) echo "unknown case $case_name"; exit 2 ;;
esac
finish
