#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The topology's life on a running cluster, as the unattended timer lives it: a 16-node cluster
# of its own (the fabric16 fabric, job_submit.lua installed), the fabric captured by the real
# ibnetdiscover against ibsim, and etc/switchyard-refresh (what switchyard-refresh.service
# runs) installing it under the guard. Cables are pulled and a host moved with ibsim's own
# console commands; half a fabric is refused; --force and --rollback; steer's weights come back
# after a slurmctld restart.
# Usage: slurm_install_test.sh PLUGIN.so FABRIC_DIR SWITCHYARD_BINARY RUN
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
plugin=${1:?usage: slurm_install_test.sh PLUGIN.so FABRIC_DIR SWITCHYARD_BINARY RUN}
fabric=${2:?}
sy=${3:?}
run=${4:?}
cluster=$here/slurm-cluster
trap '"$cluster" down "$run" >/dev/null 2>&1' EXIT
# job_submit.lua reads the installed set's hints, as a site's does.
export SWITCHYARD_JOB_SUBMIT_HINTS=$run/etc/switchyard/job_submit_hints.lua
"$cluster" up "$run" "$plugin" --nodes 16 --port-base 18600 --topology "$fabric/topology.conf" \
  --job-submit "$here/../../etc/job_submit.lua" -- nccl_env=off >"$run.up.log" 2>&1 ||
  { cat "$run.up.log"; echo "FAIL: the cluster did not start"; exit 1; }
use_cluster "$run"
etc=$run/etc
jobs=$run/jobs
echo "Slurm $(scontrol --version | awk '{print $2}')"

# The capture the timer runs: ibnetdiscover against ibsim, after the console's faults.
console=$jobs/ibsim-console
: > "$console"
cat > "$jobs/capture" <<EOF
#!/bin/sh
set -e
t=\$(mktemp /tmp/switchyard-capture.XXXXXX)
IBSIM_CONSOLE=\$( [ -s "$console" ] && echo "$console" ) "$here/../fabric/ibsim-capture" "$fabric/fabric16.net" "\$t"
cat "\$t"
rm -f "\$t"
EOF
chmod +x "$jobs/capture"
cp "$etc/nodes.conf" "$jobs/site-nodes.conf"  # the site's own NodeName lines
refresh() {
  run_capture env SWITCHYARD_BIN="$sy" SWITCHYARD_IBNETDISCOVER="$jobs/capture" \
    SWITCHYARD_SITE_NODES="$jobs/site-nodes.conf" SWITCHYARD_SLURM_DIR="$etc" \
    SWITCHYARD_WORK="$jobs/refresh" SWITCHYARD_METRICS="$jobs/metrics.prom" \
    SWITCHYARD_AUDIT_METRICS="$jobs/audit.prom" "$here/../../etc/switchyard-refresh"
}
metric() { awk -v m="$1" '$1 == m {print $2}' "$jobs/metrics.prom"; }
topology() { scontrol show topology | tr '\n' ' '; }
su_of() { sinfo -h -N -n "$1" -o '%f' | tr ',' '\n' | grep '^su_'; }

# 1. The first run: the set installed, the site's hand-made topology.conf kept to go back to.
refresh
expect_rc 0 "the first run installs"
[ "$rc" = 0 ] || finish  # nothing below can work
expect_contains "$out" "no installed map to compare with: 16 hosts, 4 SUs, 2 groups (dragonfly+)" "it says what it found"
expect_contains "$out" "slurmctld: reconfigured; scontrol show topology lists the 4 SUs" "slurmctld shows it"
first=$(readlink "$etc/switchyard")
expect_contains "$first" "switchyard.sets/" "switchyard is a link into switchyard.sets"
expect_eq "$(cat "$etc/$(readlink "$etc/switchyard.previous")/slurm/topology.conf")" "$(cat "$fabric/topology.conf")" \
  "the topology.conf it replaced is kept as the previous set"
# Rollback to the hand-made files (item 8): slurmctld reloads them; the next install is still
# guarded (against the newest set's map), so a capture of 4 of the 16 hosts is refused.
run_capture "$sy" install --rollback --slurm-dir "$etc" --state "$jobs/refresh/install.state"
expect_rc 0 "--rollback to the hand-made topology.conf"
expect_contains "$out" "(the files in place before the first install; no fabric map" "saying what it went back to"
expect_contains "$out" "slurmctld: reconfigured" "and slurmctld took them"
expect_eq "$(cat "$etc/topology.conf")" "$(cat "$fabric/topology.conf")" "topology.conf is the hand-made one"
printf 'Unlink "H-node%s-mlx5_0"\n' 001 002 003 005 006 007 008 010 011 012 013 014 > "$console"
"$jobs/capture" > "$jobs/quarter.txt" && : > "$console"
"$sy" discover --ibnetdiscover "$jobs/quarter.txt" --slurm-nodes "$jobs/site-nodes.conf" -o "$jobs/quarter" >/dev/null 2>&1
run_capture "$sy" install --from "$jobs/quarter" --slurm-dir "$etc" --state "$jobs/refresh/admin.state"
expect_eq "$rc" 4 "a capture of 4 of the 16 hosts is refused after that rollback"
expect_contains "$out" "has no fabric map; comparing with $first's, the newest set's" "comparing with the newest set's map"
expect_contains "$err" "12 of the 16 installed hosts (75.0 %" "naming what would be lost"
run_capture "$sy" install --rollback --slurm-dir "$etc" --state "$jobs/refresh/install.state"
expect_rc 0 "--rollback again goes forward to the first set"
expect_eq "$(readlink "$etc/switchyard")" "$first" "the first set is in use"

# The admin points slurm.conf at the installed NodeName lines, once.
sed -i "s|^Include $etc/nodes.conf\$|Include $etc/switchyard/nodes.conf|" "$etc/slurm.conf"
touch "$etc/job_submit.lua"
run_capture scontrol reconfigure
expect_rc 0 "slurm.conf includes switchyard/nodes.conf"
wait_for 30 bash -c '[ "$(sinfo -h -N -o %f | grep -c grp_)" -eq 16 ]'
expect_eq "$(su_of node011)" "su_g1-leaf1" "node011 is in SU g1-leaf1"
run_capture sbatch --parsable --hold -N8 --exclusive --pipeline-stages=2 --stage-scope=group -o /dev/null --wrap true
expect_rc 0 "a --stage-scope=group job is taken"
expect_contains "$(scontrol show job "$(grep -oE '^[0-9]+' <<<"$out")")" "Features=[grp_g1|grp_g2]" "with its group constraint"
scancel "$(grep -oE '^[0-9]+' <<<"$out")"

# 2. A change: a cable pulled (g1-leaf1 to g1-spine1) and node011 moved to g1-leaf2.
printf '%s\n' 'Unlink "S-g1-leaf1"[5]' 'Unlink "H-node011-mlx5_0"' 'Link "H-node011-mlx5_0"[1] "S-g1-leaf2"[7]' > "$console"
refresh
expect_rc 0 "the run after the change installs"
expect_contains "$out" "hosts: 16 -> 16" "no host gained or lost"
expect_contains "$out" "hosts moved: 1
  node011: SU g1-leaf1 -> g1-leaf2" "it reports the move"
expect_contains "$out" "switch g1-leaf1 uplinks: 2 -> 1 (lost 1)" "and the pulled cable"
expect_not_contains "$out" "hosts removed" "and nothing else of hosts"
expect_contains "$(topology)" "SwitchName=g1-leaf2 Level=0 LinkSpeed=1 Nodes=node[003,005,007,010-011]" \
  "slurmctld's topology follows: node011 under g1-leaf2"
wait_for 30 bash -c '[ "$(sinfo -h -N -n node011 -o %f | grep -c su_g1-leaf2)" -eq 1 ]'
expect_eq "$(su_of node011)" "su_g1-leaf2" "and so does its SU feature"
expect_eq "$(metric 'switchyard_fabric_cables_missing')" 1 "metrics: one cable missing"
expect_eq "$(metric 'switchyard_install_last_result{result="installed"}')" 1 "metrics: installed"
# The audit after the round: slurmctld runs the map just installed.
expect_contains "$out" "switchyard-refresh: audit: slurmctld's topology (tree, " "the round audits"
expect_contains "$out" "agrees with the installed map" "slurmctld agrees with the new map"
expect_eq "$(awk '$1 ~ /^switchyard_audit_topology_disagreements[{]/ {n++; s += $2} END {print n + 0, s + 0}' "$jobs/audit.prom")" \
  "1 0" "audit metrics: one topology, no disagreement"
second=$(readlink "$etc/switchyard")
expect_eq "$(readlink "$etc/switchyard.previous")" "$first" "the first set is now the previous one"
# steer: g1-leaf1 lost half its uplinks, its hosts weigh more; a restart takes the weights
# away and the next run puts them back.
weight() { sinfo -h -N -n "$1" -o '%w' | head -1; }
expect_eq "$( [ "$(weight node001)" -gt 1 ] && echo raised)" raised "steer raised node001's weight (g1-leaf1)"
raised=$(weight node001)
"$cluster" restart-slurmctld "$run" 2>/dev/null
wait_for 30 bash -c '[ "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq 16 ]'
echo "node001's weight after a slurmctld restart: $(weight node001) (was $raised)"
expect_eq "$(sinfo -h -N -o %f | grep -c grp_)" 16 "the features are still there after the restart"
refresh
expect_rc 0 "the run after the restart"
expect_contains "$out" "installed: unchanged, nothing to do" "nothing changed in the fabric"
expect_eq "$(weight node001)" "$raised" "steer's weight is back"

# 3. The guard: g2-leaf2's four hosts are gone from the capture (a leaf's ports down).
printf '%s\n' 'Unlink "H-node009-mlx5_0"' 'Unlink "H-node013-mlx5_0"' 'Unlink "H-node014-mlx5_0"' \
  'Unlink "H-node015-mlx5_0"' >> "$console"
cp "$etc/topology.conf" "$jobs/topology.conf.before"
refresh
expect_eq "$rc" 4 "the run refuses a capture without a leaf's hosts (exit 4)"
expect_contains "$err" "4 of the 16 installed hosts (25.0 %, more than 5.0 %) are not in the new capture: node[009,013-015]" \
  "the refusal names the hosts"
expect_contains "$err" "a whole SU is gone, none of its hosts in the new capture: SU g2-leaf2 (4 hosts)" "and the SU"
expect_eq "$(readlink "$etc/switchyard")" "$second" "the installed set stays"
expect_eq "$(cat "$etc/topology.conf")" "$(cat "$jobs/topology.conf.before")" "and so does topology.conf"
expect_contains "$(topology)" "SwitchName=g2-leaf2" "slurmctld still shows g2-leaf2"
expect_eq "$(metric switchyard_install_refused_total)" 1 "metrics: one refusal"
expect_eq "$(metric 'switchyard_install_last_result{result="refused"}')" 1 "metrics: the last run was refused"
# A truncated dump: whatever discover makes of it, the guard keeps it out.
head -n 60 "$jobs/refresh/ibnetdiscover.txt" > "$jobs/truncated.txt"
if "$sy" discover --ibnetdiscover "$jobs/truncated.txt" --slurm-nodes "$jobs/site-nodes.conf" -o "$jobs/truncated" >/dev/null 2>&1; then
  run_capture "$sy" install --from "$jobs/truncated" --slurm-dir "$etc" --state "$jobs/refresh/install.state"
  expect_eq "$rc" 4 "a truncated dump is refused too"
else
  echo "ok: discover refuses the truncated dump itself"
fi
expect_eq "$(readlink "$etc/switchyard")" "$second" "the installed set stays"
# Files that are not what discover wrote: a topology.conf edited after discover (refused before
# the guard, naming the line), and 2 MiB of hints (more than the filters read: not read at all).
cp -r "$jobs/refresh/discover" "$jobs/edited"
sed -i 's/^SwitchName=g1-leaf1 /SwitchName=g1-leaf1x /' "$jobs/edited/topology.conf"
run_capture "$sy" install --from "$jobs/edited" --slurm-dir "$etc" --state "$jobs/refresh/install.state"
expect_eq "$rc" 4 "a capture with an edited topology.conf is refused (exit 4)"
expect_contains "$err" "topology.conf is not what discover writes from fabric.map: line" "naming the file and its line"
expect_contains "$err" "'SwitchName=g1-leaf1x " "and what the line says"
cp -r "$jobs/refresh/discover" "$jobs/big"
head -c 2097152 /dev/zero | tr '\0' '-' > "$jobs/big/job_submit_hints.lua"
run_capture "$sy" install --from "$jobs/big" --slurm-dir "$etc" --state "$jobs/refresh/install.state"
expect_eq "$rc" 1 "a capture with 2 MiB of hints is not read (exit 1)"
expect_contains "$err" "job_submit_hints.lua" "naming the file"
expect_eq "$(readlink "$etc/switchyard")" "$second" "the installed set stays"
expect_eq "$(cat "$etc/topology.conf")" "$(cat "$jobs/topology.conf.before")" "and so does topology.conf"
# --force installs it.
run_capture "$sy" install --from "$jobs/refresh/discover" --slurm-dir "$etc" --state "$jobs/refresh/install.state" --force
expect_rc 0 "--force installs the capture"
expect_contains "$out" "forced: a whole SU is gone" "saying what it forced"
expect_not_contains "$(topology)" "SwitchName=g2-leaf2" "slurmctld no longer shows g2-leaf2"

# 4. Rollback: the previous set, and slurmctld loads it.
run_capture "$sy" install --rollback --slurm-dir "$etc" --state "$jobs/refresh/install.state"
expect_rc 0 "--rollback"
expect_eq "$(readlink "$etc/switchyard")" "$second" "the previous set is back"
expect_contains "$(topology)" "SwitchName=g2-leaf2 Level=0 LinkSpeed=1 Nodes=node[009,013-015]" "slurmctld shows g2-leaf2 again"
expect_eq "$(cat "$etc/topology.conf")" "$(cat "$jobs/topology.conf.before")" "topology.conf is the one before --force"

# slurmctld does not take a set (it is down): the set before is put back, the link, the
# previous link and topology.conf agree again, and the message says slurmctld has not reloaded.
cur=$(readlink "$etc/switchyard")
prev=$(readlink "$etc/switchyard.previous")
"$cluster" stop-slurmctld "$run" 2>/dev/null
run_capture "$sy" install --from "$jobs/refresh/discover" --slurm-dir "$etc" --state "$jobs/refresh/install.state" --force
expect_rc 1 "an install slurmctld does not take fails"
expect_contains "$err" "slurmctld did not take switchyard.sets/" "saying so"
expect_contains "$err" "put back $etc/switchyard -> $cur and its topology file (previous: $prev)" "and what it put back"
expect_contains "$err" "slurmctld did not reconfigure for $cur either" "and that slurmctld has not reloaded"
expect_eq "$(readlink "$etc/switchyard"):$(readlink "$etc/switchyard.previous")" "$cur:$prev" "both links as they were"
expect_eq "$(cat "$etc/topology.conf")" "$(cat "$etc/$cur/slurm/topology.conf")" "topology.conf is the linked set's"
"$cluster" restart-slurmctld "$run" 2>/dev/null
wait_for 30 bash -c '[ "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq 16 ]'
expect_contains "$(topology)" "SwitchName=g2-leaf2 Level=0 LinkSpeed=1 Nodes=node[009,013-015]" "slurmctld restarted shows that set"
# topology.yaml then a rollback: no topology.yaml is left for Slurm 25.05+ to read first.
run_capture "$sy" install --from "$jobs/refresh/discover" --slurm-dir "$etc" --state "$jobs/refresh/install.state" --force --topology yaml --no-reconfigure
expect_rc 0 "an install as topology.yaml"
expect_eq "$( [ -f "$etc/topology.yaml" ] && echo there)" there "topology.yaml is in place"
run_capture "$sy" install --rollback --slurm-dir "$etc" --state "$jobs/refresh/install.state"
expect_rc 0 "its rollback"
expect_eq "$( [ -e "$etc/topology.yaml" ] && echo there)" "" "leaves no topology.yaml"
expect_eq "$(readlink "$etc/switchyard"):$(cat "$etc/topology.conf")" "$cur:$(cat "$etc/$cur/slurm/topology.conf")" "the set and its topology.conf are back"
expect_contains "$(topology)" "SwitchName=g2-leaf2 Level=0 LinkSpeed=1 Nodes=node[009,013-015]" "and slurmctld shows it"
second=$cur

# 5. The structure (item 9): the four hosts left on g1-leaf2 re-cabled to g1-leaf1 lose no host
# and no whole SU, yet g1-leaf2's hosts would join g1-leaf1's: refused, the merge named.
printf '%s\n' 'Unlink "S-g1-leaf1"[5]' 'Unlink "H-node011-mlx5_0"' 'Link "H-node011-mlx5_0"[1] "S-g1-leaf2"[7]' > "$console"
port=8
for n in node003 node005 node007 node010; do
  printf '%s\n' "Unlink \"H-$n-mlx5_0\"" "Link \"H-$n-mlx5_0\"[1] \"S-g1-leaf1\"[$port]" >> "$console"
  port=$((port + 1))
done
refresh
expect_eq "$rc" 4 "a capture that merges two SUs is refused (exit 4)"
expect_contains "$err" "5 of the 16 installed hosts (31.2 %, more than 10.0 %) would be in another SU than the rest of theirs: node[003,005,007,010-011]; SUs merged: g1-leaf1, g1-leaf2 -> g1-leaf1" \
  "naming the hosts and the merge"
expect_eq "$(readlink "$etc/switchyard")" "$second" "the installed set stays"
run_capture "$sy" install --from "$jobs/refresh/discover" --slurm-dir "$etc" --state "$jobs/refresh/install.state" --max-hosts-moved 40 --no-reconfigure
expect_rc 0 "--max-hosts-moved 40 takes it"
run_capture "$sy" install --rollback --slurm-dir "$etc" --state "$jobs/refresh/install.state"
expect_rc 0 "and a rollback puts the set back"
expect_eq "$(readlink "$etc/switchyard")" "$second" "the set before"

# 6. What install copies is only what root put there (issue 46, item 6): a capture directory
# another user owns, whose links point at a file only root can read; a link in root's own
# capture; a link at DIR/topology.conf. Each is refused and nothing is copied.
here_set=$(readlink "$etc/switchyard")
printf 'root only\n' > "$jobs/secret" && chmod 0600 "$jobs/secret"
mkdir "$jobs/theirs" && cp "$jobs/refresh/discover"/* "$jobs/theirs/"
ln -sf "$jobs/secret" "$jobs/theirs/nodes.conf"
chown -R 65534 "$jobs/theirs"
run_capture "$sy" install --from "$jobs/theirs" --slurm-dir "$etc" --state "$jobs/refresh/install.state" --force
expect_rc 1 "a capture directory another user owns is refused, even with --force"
expect_contains "$err" "--from: refusing '$jobs/theirs' (owner uid 65534" "naming the directory and its owner"
mkdir "$jobs/linked" && cp "$jobs/refresh/discover"/* "$jobs/linked/"
ln -sf "$jobs/secret" "$jobs/linked/nodes.conf"
run_capture "$sy" install --from "$jobs/linked" --slurm-dir "$etc" --state "$jobs/refresh/install.state" --force
expect_rc 1 "a link in root's own capture is refused"
expect_contains "$err" "cannot read '$jobs/linked/nodes.conf': it is a symbolic link" "naming the link"
expect_eq "$(grep -rl 'root only' "$etc" | head -1)" "" "the root-only file was copied nowhere"
mv "$etc/topology.conf" "$jobs/topology.conf.real" && ln -s "$jobs/topology.conf.real" "$etc/topology.conf"
run_capture "$sy" install --from "$jobs/refresh/discover" --slurm-dir "$etc" --state "$jobs/refresh/install.state" --force
expect_rc 1 "a link at DIR/topology.conf is refused"
expect_contains "$err" "$etc/topology.conf is a symbolic link" "naming it"
expect_eq "$(readlink "$etc/topology.conf")" "$jobs/topology.conf.real" "the link stays as it was"
rm "$etc/topology.conf" && mv "$jobs/topology.conf.real" "$etc/topology.conf"
expect_eq "$(readlink "$etc/switchyard")" "$here_set" "the installed set stays"

# 7. One lock (item 7): an install waits for the one that holds DIR/switchyard.lock, or gives
# up after --lock-wait; installs of two captures run at once leave topology.conf and the link
# on the same set.
cp -r "$etc/$here_set" "$jobs/capture-a"
flock "$etc/switchyard.lock" sleep 4 &
holder=$!
sleep 0.5
run_capture "$sy" install --from "$jobs/capture-a" --slurm-dir "$etc" --state "$jobs/refresh/install.state" --lock-wait 1
expect_rc 1 "an install gives up after --lock-wait while another holds the lock"
expect_contains "$err" "another install or rollback holds $etc/switchyard.lock" "saying which lock"
run_capture "$sy" install --from "$jobs/capture-a" --slurm-dir "$etc" --state "$jobs/refresh/install.state"
expect_rc 0 "the next one waits for it"
expect_contains "$out" "waiting for another install or rollback to finish" "saying it waits"
wait "$holder"
for round in 1 2 3 4 5; do
  "$sy" install --from "$jobs/capture-a" --slurm-dir "$etc" --state "$jobs/refresh/install.state" --force --no-reconfigure >/dev/null 2>&1 &
  a=$!
  "$sy" install --from "$jobs/refresh/discover" --slurm-dir "$etc" --state "$jobs/refresh/install.state" --force --no-reconfigure >/dev/null 2>&1 &
  b=$!
  wait "$a" "$b"
  [ "$(cat "$etc/topology.conf")" = "$(cat "$etc/switchyard/slurm/topology.conf")" ] || break
done
expect_eq "$(cat "$etc/topology.conf")" "$(cat "$etc/switchyard/slurm/topology.conf")" \
  "two installs at once: topology.conf is the linked set's (round $round of 5)"
run_capture "$sy" install --from "$jobs/capture-a" --slurm-dir "$etc" --state "$jobs/refresh/install.state" --force
expect_rc 0 "an install after the race"
expect_contains "$(topology)" "SwitchName=g2-leaf2 Level=0 LinkSpeed=1 Nodes=node[009,013-015]" "slurmctld shows the installed set"
finish
