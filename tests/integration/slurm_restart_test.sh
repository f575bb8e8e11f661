#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The SU and group features after slurmctld restarts as a site restarts it (no -c): on a
# 16-node cluster of its own (the fabric16 fabric, job_submit.lua installed), features applied
# with scontrol (node-features.sh) are compared with features in the site's own NodeName lines
# (discover --slurm-nodes, installed in place of the file slurm.conf includes). A pipeline job
# whose group scope becomes a feature constraint is taken whatever slurmctld knows: with the
# constraint when slurm.conf gives the features, without it (and saying so) when it does not.
# Usage: slurm_restart_test.sh PLUGIN.so FABRIC_DIR SWITCHYARD_BINARY RUN
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
plugin=${1:?usage: slurm_restart_test.sh PLUGIN.so FABRIC_DIR SWITCHYARD_BINARY RUN}
fabric=${2:?}
sy=${3:?}
run=${4:?}
cluster=$here/slurm-cluster
trap '"$cluster" down "$run" >/dev/null 2>&1' EXIT
export SWITCHYARD_JOB_SUBMIT_HINTS=$fabric/job_submit_hints.lua
"$cluster" up "$run" "$plugin" --nodes 16 --port-base 18200 --topology "$fabric/topology.conf" \
  --job-submit "$here/../../etc/job_submit.lua" -- nccl_env=off >"$run.up.log" 2>&1 ||
  { cat "$run.up.log"; echo "FAIL: the cluster did not start"; exit 1; }
use_cluster "$run"
release=$(scontrol --version | awk '{print $2}')
features() { sinfo -h -N -o '%N %f' | awk '{print $2}' | tr ',' '\n' | grep -c '^grp_' ; }
jid=
group_job() {  # a job that fits one group, --stage-scope=group: a constraint on grp_ features
  run_capture sbatch --parsable --hold -N8 --exclusive --pipeline-stages=2 --stage-scope=group \
    -o /dev/null --wrap true
  jid=$(grep -oE '^[0-9]+' <<<"$out" | tail -1)
}
runs_to_completion() {  # runs_to_completion WHAT — releases the held job, which must complete
  scontrol release "$jid"
  wait_for 60 bash -c "scontrol show job $jid | grep -q 'JobState=COMPLETED'"
  expect_contains "$(scontrol show job "$jid")" "JobState=COMPLETED" "$1"
}
# slurmctld reloads job_submit.lua (and with it the features of slurm.conf) at every
# reconfigure from 23.11 on; 22.05 reloads it when its mtime changes, as switchyard install does.
# Its mtime counts whole seconds: each reconfigure moves it on by one at least.
reconfigure() {
  local lua=$run/etc/job_submit.lua now was
  now=$(date +%s) was=$(stat -c %Y "$lua")
  touch -d "@$(( now > was ? now : was + 1 ))" "$lua"
  run_capture scontrol reconfigure
  expect_rc 0 "scontrol reconfigure"
}
without_constraint() {  # without_constraint WHEN — the job was taken, told why, and runs plain
  expect_rc 0 "$1: the --stage-scope=group job is taken (not refused for an unknown feature)"
  expect_contains "$err" "switchyard: this job runs without --constraint=[grp_g1|grp_g2]: no NodeName line of slurm.conf gives the features grp_g1, grp_g2" \
    "$1: sbatch says once which constraint was left out and why"
  expect_eq "$(grep -c 'switchyard: this job runs without' <<<"$err")" 1 "$1: once"
  expect_not_contains "$(scontrol show job "$jid")" "Features=[grp_" "$1: the job has no group constraint"
  runs_to_completion "$1: it runs"
}

# With scontrol: the features are there until slurmctld restarts from its state, and slurm.conf
# never has them, so job_submit.lua does not ask for them.
bash "$fabric/node-features.sh" >/dev/null
expect_eq "$(features)" 16 "node-features.sh gave every node its group feature"
"$cluster" restart-slurmctld "$run" 2>/dev/null
echo "after a restart, nodes with a group feature set by scontrol: $(features) of 16 (Slurm $release)"
expect_eq "$(features)" 0 "a restart without -c loses the features scontrol set"
group_job
without_constraint "after a restart that lost scontrol's features"
expect_contains "$(cat "$run/log/slurmctld.log")" "runs without --constraint=[grp_g1|grp_g2]" \
  "slurmctld's log says it for the admin"
expect_contains "$(cat "$run/log/slurmctld.log")" "[1 such jobs since slurmctld loaded job_submit.lua]" \
  "and counts the jobs"

# In the site's NodeName lines: discover merges them, the site includes the result.
cp "$run/etc/nodes.conf" "$run/jobs/nodes.conf.site"
run_capture "$sy" discover --ibnetdiscover "$fabric/ibnetdiscover.txt" --slurm-nodes "$run/etc/nodes.conf" \
  -o "$run/jobs/discover"
expect_rc 0 "discover --slurm-nodes (the file slurm.conf includes)"
expect_contains "$out" "nodes.conf: 17 NodeName lines of $run/etc/nodes.conf" "it read the site's 17 lines (DEFAULT and 16 nodes)"
cp "$run/jobs/discover/nodes.conf" "$run/etc/nodes.conf"
reconfigure
wait_for 30 bash -c '[ "$(sinfo -h -N -o %f | grep -c grp_)" -eq 16 ]'
expect_eq "$(features)" 16 "after reconfigure every node has its group feature from slurm.conf"
expect_eq "$(sinfo -h -N -n node001 -o '%f')" \
  "$(sed -n 's/^NodeName=node001 .*Features=\([^ ]*\).*/\1/p' "$run/etc/nodes.conf")" \
  "node001's features are those of its nodes.conf line"
"$cluster" restart-slurmctld "$run" 2>/dev/null
wait_for 30 bash -c '[ "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq 16 ]'
expect_eq "$(features)" 16 "after a restart without -c every node still has its group feature"
group_job
expect_rc 0 "a --stage-scope=group job is taken after the restart"
expect_not_contains "$err" "switchyard:" "and sbatch says nothing"
expect_contains "$(scontrol show job "$jid")" "Features=[grp_g1|grp_g2]" "with its group constraint"
runs_to_completion "and it runs"

# Includes slurmctld's own parser reads as empty (a directory, a FIFO no one writes, /dev/zero):
# job_submit.lua, which reads slurm.conf for its features when slurmctld loads it, reads them
# as empty too, neither failing (slurmctld would have no script) nor waiting nor spinning.
mkdir -p "$run/etc/empty.d"
mkfifo "$run/etc/nothing.fifo"
cp "$run/etc/slurm.conf" "$run/jobs/slurm.conf.before"
printf 'Include %s\nInclude %s\nInclude /dev/zero\n' "$run/etc/empty.d" "$run/etc/nothing.fifo" \
  >> "$run/etc/slurm.conf"
start=$(date +%s)
reconfigure
wait_for 30 bash -c 'scontrol ping | grep -q "is UP"'
group_job
expect_rc 0 "with odd Includes in slurm.conf a --stage-scope=group job is taken"
expect_contains "$(scontrol show job "$jid")" "Features=[grp_g1|grp_g2]" \
  "job_submit.lua loaded over them and still knows the features"
expect_eq "$(( $(date +%s) - start < 30 ))" 1 "without waiting on the FIFO"
expect_not_contains "$(cat "$run/log/slurmctld.log")" "switchyard: node features of" \
  "and logged no trouble reading slurm.conf"
scancel "$jid"
cp "$run/jobs/slurm.conf.before" "$run/etc/slurm.conf"  # as it was: the next reconfigure reads it

# An admin takes the features out of slurm.conf by hand: the jobs run without them and say so.
cp "$run/jobs/nodes.conf.site" "$run/etc/nodes.conf"
reconfigure
wait_for 30 bash -c 'scontrol ping | grep -q "is UP"'
group_job
without_constraint "after the features were taken out of nodes.conf"
finish
