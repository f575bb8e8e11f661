#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `switchyard audit` on real clusters: jobs placed well and jobs forced badly (a -w list across
# SUs), and slurmctld's topology changed under the installed map (a node moved to another
# switch, a node dropped from its block, the right file put back without a reconfigure). The
# audit must name each wrong one, and only those, in its text, its JSON, its metrics and its
# exit code. Runs on the tree cluster (every release), the block cluster (24.11+) and the
# topology.yaml cluster (26.05).
# Usage: slurm_audit_test.sh RUN FABRIC_DIR SWITCHYARD CASE
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
run=${1:?usage: slurm_audit_test.sh RUN FABRIC_DIR SWITCHYARD CASE}
: "${2:?}"  # FABRIC_DIR: the topology files are read from RUN, where the cluster uses them
sy=${3:?}
case_name=${4:?}
use_cluster "$run"
policy=${SWITCHYARD_POLICY:?the cluster\'s policy (its fabric map)}

running() { [ "$(squeue -h -j "$1" -o %T 2>/dev/null)" = RUNNING ]; }
audit() { run_capture "$sy" audit --policy "$policy" "$@"; }

cluster_units "$run"

# restore_topology — the cluster's own file back and taken, whatever a case did.
restore_topology() {
  [ -f "$run/jobs/topology.orig" ] || return 0
  cp "$run/jobs/topology.orig" "$topo_file"
  scontrol reconfigure >/dev/null 2>&1
  wait_for 60 bash -c "'$sy' audit --policy '$policy' --no-jobs >/dev/null 2>&1"
}
trap restore_topology EXIT

# topology/block (24.05+) on every partition: slurmctld refuses a job whose required nodes
# span blocks with segments ("Requested topology configuration is not available"), and a block
# smaller than the base block size is fatal to it.
block=no
grep -q '^TopologyPlugin=topology/block' "$SLURM_CONF" && block=yes

case $case_name in
  jobs)
    # Forced: three nodes of the first unit and one of the second with two stages, which cannot
    # all fit one SU. On a tree with --stage-scope=leaf and its own --switches, so it starts at
    # once and breaks its scope; a block cluster refuses that, so there a job of two SUs' nodes
    # runs with no scope: reported, not named.
    bad_nodes=$( (unit_nodes 0 | head -3; unit_nodes 1 | head -1) | paste -sd,)
    if [ "$block" = yes ]; then
      run_capture sbatch --parsable -N4 --exclusive -w "$bad_nodes" --pipeline-stages=2 \
        --stage-scope=leaf -o /dev/null --wrap 'sleep 300'
      expect_nonzero_rc "block: slurmctld refuses -w $bad_nodes with --stage-scope=leaf (segments)"
      # Nor does it take a job that fits a base block across two. Six nodes of one group, three
      # in each of two SUs, in three stages of two: one stage must cross.
      bad_nodes=$( (unit_nodes 0 | head -3; unit_nodes 1 | head -3) | paste -sd,)
      run_capture sbatch --parsable -N6 --exclusive -w "$bad_nodes" --pipeline-stages=3 \
        -o /dev/null --wrap 'sleep 300'
    else
      run_capture sbatch --parsable -N4 --exclusive --switches=4 -w "$bad_nodes" \
        --pipeline-stages=2 --stage-scope=leaf -o /dev/null --wrap 'sleep 300'
    fi
    expect_rc 0 "sbatch -w $bad_nodes --pipeline-stages=2"
    bad=$(tail -1 <<<"$out")
    run_capture sbatch --parsable -N4 --exclusive --pipeline-stages=2 --stage-scope=leaf -o /dev/null --wrap 'sleep 300'
    expect_rc 0 "sbatch of a pipeline job Slurm places"
    good=$(tail -1 <<<"$out")
    run_capture sbatch --parsable -N2 --exclusive -o /dev/null --wrap 'sleep 300'
    plain=$(tail -1 <<<"$out")
    for j in "$bad" "$good" "$plain"; do
      wait_for 60 running "$j" || fail_check "job $j did not start: $(squeue -h -j "$j" -o '%T %R')"
    done
    audit --metrics "$run/jobs/audit.prom"
    prom=$(cat "$run/jobs/audit.prom")
    expect_contains "$out" "job $good (" "the placed job is audited"
    expect_contains "$(sed -n "/^job $good /,/^job /p" <<<"$out")" "2 of 2 stage(s) in one SU" \
      "Slurm put each of its stages inside one SU"
    expect_contains "$(sed -n "/^job $bad /,/^job /p" <<<"$out")" \
      "$([ "$block" = yes ] && echo "2 of 3" || echo "1 of 2") stage(s) in one SU" \
      "the forced job's stages: one crosses SUs"
    expect_contains "$out" "3 running job(s), 2 with pipeline stages, 1 of them with every stage in one SU" "the summary"
    expect_contains "$prom" "switchyard_audit_pipeline_jobs_one_su_ratio{partition=\"$(squeue -h -j "$good" -o %P)\"} 0.5" \
      "metrics: half the pipeline jobs have every stage in one SU"
    expect_contains "$prom" "switchyard_audit_pipeline_jobs_striped{partition=\"$(squeue -h -j "$good" -o %P)\"} 0" \
      "metrics: no plan striped its stages (the test fabric's uplinks carry the pipeline sends)"
    if [ "$block" = yes ]; then
      expect_rc 0 "audit: no job promised more than it got"
      expect_contains "$(sed -n "/^job $good /,/^job /p" <<<"$out")" "--segment=2: honoured" \
        "the placed job's segments are whole in their blocks"
      expect_eq "$(grep -c 'not honoured' <<<"$out")" 0 "nothing is named"
      expect_contains "$prom" "switchyard_audit_jobs_not_honoured 0" "metrics: no job"
    else
      expect_rc 3 "audit: a job was placed worse than its request promised"
      expect_contains "$out" "placed worse than their request promised: $bad"$'\n' "it names the forced job"
      expect_eq "$(grep -c 'not honoured' <<<"$out")" 1 "and only that one's stage scope"
      run_capture "$sy" audit --policy "$policy" --json
      expect_eq "$(python3 -c 'import json,sys; print(" ".join(j["job"] for j in json.load(sys.stdin)["jobs"] if j["not_honoured"]))' <<<"$out")" \
        "$bad" "--json: only the forced job is not honoured"
      expect_eq "$(python3 -c 'import json,sys; d={j["job"]: j for j in json.load(sys.stdin)["jobs"]}; print(len(d[sys.argv[1]]["stages"]))' "$good" <<<"$out")" \
        2 "--json: the placed job's two stages"
      expect_contains "$prom" "switchyard_audit_request_not_honoured{job=\"$bad\"," "metrics: the forced job's request"
      expect_eq "$(grep -c '^switchyard_audit_request_not_honoured{' <<<"$prom")" 1 "metrics: no other job"
      expect_contains "$prom" "switchyard_audit_jobs_not_honoured 1" "metrics: one job"
    fi
    audit --jobs "$good,$plain"
    expect_rc 0 "audit --jobs of the well placed jobs: all honoured"
    # A job Slurm does not know: Slurm's words, not squeue's command line and its tabs.
    audit --jobs 999999
    expect_rc 1 "audit --jobs of a job Slurm does not know"
    expect_contains "$err" "job 999999: squeue: " "and says squeue's answer"
    if grep -qF -e "--Format" -e $'\t' <<<"$err"; then
      fail_check "audit --jobs 999999: the command line is printed: $err"
    fi
    scancel "$bad" "$good" "$plain"
    ;;
  topology)
    audit --no-jobs
    expect_rc 0 "audit --no-jobs: slurmctld's topology agrees with the installed map"
    expect_contains "$out" "agrees with the installed map" "and says so"
    cp "$topo_file" "$run/jobs/topology.orig"
    # Move the first unit's first node into the second unit; on a tree also drop the third
    # unit's first node. Blocks must keep their size: there the second unit's first node goes
    # to the first (a swap), and the dropped node is the second unit's moved one.
    moved=$(unit_nodes 0 | head -1)
    first=$(unit_nodes 0 | grep -vx "$moved" | paste -sd,)
    second=$( (unit_nodes 1; echo "$moved") | paste -sd,)
    if [ "$block" = yes ] || [ -f "$run/etc/topology.yaml" ]; then
      swapped=$(unit_nodes 1 | head -1)
      first=$( (unit_nodes 0 | grep -vx "$moved"; echo "$swapped") | paste -sd,)
      second=$( (unit_nodes 1 | grep -vx "$swapped"; echo "$moved") | paste -sd,)
      dropped=$swapped
      third_unit=1 third_as=$(unit_name 0)
      edits=("$(awk '{print $2}' <<<"${units[0]}")" "$(scontrol show hostlist "$first")"
             "$(awk '{print $2}' <<<"${units[1]}")" "$(scontrol show hostlist "$second")")
    else
      dropped=$(unit_nodes 2 | head -1)
      third=$(unit_nodes 2 | grep -vx "$dropped" | paste -sd,)
      third_unit=2 third_as="no "
      edits=("$(awk '{print $2}' <<<"${units[0]}")" "$(scontrol show hostlist "$first")"
             "$(awk '{print $2}' <<<"${units[1]}")" "$(scontrol show hostlist "$second")"
             "$(awk '{print $2}' <<<"${units[2]}")" "$(scontrol show hostlist "$third")")
    fi
    python3 - "$topo_file" "${edits[@]}" <<'EOF'
import sys
path, pairs = sys.argv[1], sys.argv[2:]
text = open(path).read()
for old, new in zip(pairs[0::2], pairs[1::2]):
    # the unit's node list as a whole word after "Nodes=" or "nodes: ", the last one (in a
    # topology.yaml the blocks come after the tree's switches)
    for lead in ("Nodes=", "nodes: "):
        at = text.rfind(lead + old + "\n")
        if at >= 0:
            text = text[:at] + lead + new + text[at + len(lead + old):]
            break
    else:
        sys.exit("no unit with nodes " + old)
open(path, "w").write(text)
EOF
    run_capture scontrol reconfigure
    expect_rc 0 "scontrol reconfigure with a node moved and a node dropped"
    wait_for 60 bash -c "'$sy' audit --policy '$policy' --no-jobs 2>&1 | grep -q '^  $dropped:'"
    audit --no-jobs --metrics "$run/jobs/audit.prom"
    expect_rc 3 "audit: slurmctld's topology disagrees with the installed map"
    expect_contains "$out" "  $moved: in $(unit_name 0) of the installed map, in $(unit_name 1) of slurmctld's topology" \
      "it names the moved node, its unit and where slurmctld has it"
    expect_contains "$out" "  $dropped: in $(unit_name "$third_unit") of the installed map, in $third_as" \
      "and the dropped (or swapped) node"
    expect_eq "$(grep -c '^  node' <<<"$out")" 2 "and no other node"
    expect_contains "$(cat "$run/jobs/audit.prom")" "switchyard_audit_topology_disagreements{topology=" "metrics: the disagreements"
    # The right file back, but slurmctld not told: it still runs the wrong one.
    cp "$run/jobs/topology.orig" "$topo_file"
    audit --no-jobs
    expect_rc 3 "the file put back without a reconfigure: slurmctld's view is still wrong"
    expect_contains "$out" "  $moved: " "and the audit still names the node"
    run_capture scontrol reconfigure
    wait_for 60 bash -c "'$sy' audit --policy '$policy' --no-jobs >/dev/null 2>&1"
    audit --no-jobs
    expect_rc 0 "after the reconfigure slurmctld agrees again"
    rm -f "$run/jobs/topology.orig"
    ;;
  ended)
    # Jobs that ran and ended, read back from sacct (the cluster runs slurmdbd): a pipeline
    # job forced across SUs and one Slurm placed, each held against what it asked and against
    # the free nodes at its start.
    timeout 10 sacct -n -X -S now-1minute >/dev/null 2>&1 || fail_check "sacct does not answer: the cluster runs no slurmdbd"
    since=$(date +%Y-%m-%dT%H:%M:%S)
    sleep 1  # the jobs of earlier cases ended before it
    # Two nodes of the last unit drained while the jobs start: not free then (a node event).
    drained=$(unit_nodes $((${#units[@]} - 1)) | tail -2 | paste -sd,)
    # Nodes an earlier test left drained or down are not free either (their node events).
    unavailable=$(sinfo -h -N -t drain,down,fail -o %N | sort -u | grep -cvxF "$(scontrol show hostnames "$drained")")
    scontrol update NodeName="$drained" State=DRAIN Reason=audit-test
    # The first unit's last node (the forced job takes its first three) reserved for another
    # user: not free to these jobs either.
    reserved=$(unit_nodes 0 | tail -1)
    restore_drained() {
      scontrol update NodeName="$drained" State=RESUME 2>/dev/null
      scontrol delete ReservationName=sy-audit 2>/dev/null
      restore_topology
    }
    trap restore_drained EXIT
    run_capture scontrol create reservation ReservationName=sy-audit StartTime=now Duration=10 \
      Nodes="$reserved" Users=daemon
    expect_rc 0 "a reservation of $reserved for another user: $out $err"
    bad_nodes=$( (unit_nodes 0 | head -3; unit_nodes 1 | head -1) | paste -sd,)
    if [ "$block" = yes ]; then
      bad_nodes=$( (unit_nodes 0 | head -3; unit_nodes 1 | head -3) | paste -sd,)
      run_capture sbatch --parsable -N6 --exclusive -w "$bad_nodes" --pipeline-stages=3 -o /dev/null --wrap 'sleep 2'
      bad_stages="2 of 3" best_stages=3
    else
      run_capture sbatch --parsable -N4 --exclusive --switches=4 -w "$bad_nodes" \
        --pipeline-stages=2 --stage-scope=leaf -o /dev/null --wrap 'sleep 2'
      bad_stages="1 of 2" best_stages=2
    fi
    expect_rc 0 "sbatch of the forced job"
    bad=$(tail -1 <<<"$out")
    run_capture sbatch --parsable -N4 --exclusive --pipeline-stages=2 --stage-scope=leaf -o /dev/null --wrap 'sleep 2'
    expect_rc 0 "sbatch of a pipeline job Slurm places"
    good=$(tail -1 <<<"$out")
    # slurmdbd may take a job's end before its start record (nodes, partition): wait for both.
    ended() { sacct -n -X -P -j "$1" -o State,Partition,NodeList 2>/dev/null | grep -q '^COMPLETED|[^|]\+|node'; }
    for j in "$bad" "$good"; do
      wait_for 90 ended "$j" || fail_check "job $j did not end in sacct: $(sacct -n -X -P -j "$j" -o State,End)"
    done
    scontrol update NodeName="$drained" State=RESUME
    scontrol delete ReservationName=sy-audit
    audit --no-topology --since "$since" --jobs "$bad,$good" --metrics "$run/jobs/audit.prom"
    expect_contains "$out" "job $bad ($(sacct -n -X -P -j "$bad" -o Partition), ended): $bad_stages stage(s) in one SU" \
      "the forced job, ended, with a stage across SUs"
    size=$(unit_nodes 0 | wc -l) n=$(scontrol show hostlist "$bad_nodes" | xargs scontrol show hostnames | wc -l)
    expect_contains "$(sed -n "/^job $bad /p" <<<"$out")" "allowed $(( (n + size - 1) / size )) SU(s) and $best_stages stage(s) in one SU" \
      "the free nodes at its start allowed every stage in one SU"
    expect_contains "$(sed -n "/^job $good /p" <<<"$out")" "2 of 2 stage(s) in one SU" "the placed job's stages"
    expect_contains "$out" "2 ended since $since, 2 with pipeline stages, 1 of them with every stage in one SU" "the summary"
    expect_contains "$(cat "$run/jobs/audit.prom")" \
      "switchyard_audit_ended_pipeline_jobs_one_su_ratio{partition=\"$(sacct -n -X -P -j "$good" -o Partition)\"} 0.5" \
      "metrics: half the ended pipeline jobs had every stage in one SU"
    if [ "$block" = yes ]; then
      expect_rc 0 "audit: no ended job promised more than it got"
      # sacct keeps no preference: the one job_submit.lua set (one group) is read from its record.
      if sed -n "/^job $good /,/^job /p" <<<"$out" | grep -qE '^  --prefer=\[[^]]+\]: honoured$'; then
        echo "ok: the placed job's preference, from the record, honoured"
      else
        fail_check "no '--prefer=[...]: honoured' for job $good: $(sed -n "/^job $good /,/^job /p" <<<"$out")"
      fi
    else
      expect_rc 3 "audit: an ended job was placed worse than its request promised"
      expect_eq "$(tail -1 <<<"$out" | sed -n 's/.*placed worse than their request promised: //p')" "$bad" "it names the forced job, and only it"
      expect_contains "$(sed -n "/^job $bad /,/^job /p" <<<"$out")" "--switches=4: honoured" \
        "its switch count, which sacct does not keep, from the record"
      expect_contains "$(cat "$run/jobs/audit.prom")" "switchyard_audit_ended_request_not_honoured{job=\"$bad\"," \
        "metrics: the forced job's request"
    fi
    run_capture "$sy" audit --policy "$policy" --no-topology --since "$since" --jobs "$bad,$good" --json
    expect_eq "$(python3 -c 'import json,sys; d={j["job"]: j for j in json.load(sys.stdin)["jobs"]}; print(d[sys.argv[1]]["ended"], d[sys.argv[1]]["at_start"]["stages_in_one_su"])' "$bad" <<<"$out")" \
      "True $best_stages" "--json: ended, and what the free nodes allowed"
    # Free at the forced job's start: its partition's nodes less the two drained and the one
    # reserved, and less the other job's when that one started first or in the same second.
    total=$(sinfo -h -N -p "$(sacct -n -X -P -j "$bad" -o Partition)" -o %N | sort -u | wc -l)
    free=$(python3 -c 'import json,sys; d={j["job"]: j for j in json.load(sys.stdin)["jobs"]}; print(d[sys.argv[1]]["at_start"]["free_nodes"])' "$bad" <<<"$out")
    expected=$((total - 3 - unavailable))
    if [ "$free" -eq "$expected" ] || [ "$free" -eq $((expected - 4)) ]; then
      echo "ok: the drained and reserved nodes were not free ($free of $total)"
    else
      fail_check "free nodes at the forced job's start: $free of $total, expected $expected or $((expected - 4)) (two drained, one reserved, $unavailable unavailable before)"
    fi
    audit --no-topology --since 'now;rm -rf /'
    expect_rc 2 "--since with a shell's words"
    expect_contains "$err" "--since 'now;rm -rf /': expected a time as sacct takes it" "names the value and what it takes"
    ;;
  *)
    echo "unknown case '$case_name'; expected jobs, topology or ended" >&2
    exit 2
    ;;
esac
finish
