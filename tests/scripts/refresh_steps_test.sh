#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `switchyard refresh` over a capture, without Slurm (install --no-reconfigure, no steer): each
# step's words are split as the shell splits an unquoted setting and parsed by that command's
# own options (discover's --compute-hca pattern and --topology-plugin reach it as written, from
# a directory holding a file the pattern would match); the round's files are where the timer
# expects them; a word no step knows is refused, naming the setting, before anything is done;
# a discover that fails leaves the installed files untouched.
# Usage: refresh_steps_test.sh SWITCHYARD DUMP
set -uo pipefail
sy=${1:?usage: refresh_steps_test.sh SWITCHYARD DUMP}
dump=${2:?usage: refresh_steps_test.sh SWITCHYARD DUMP}
tmp=$(mktemp -d /tmp/switchyard-refresh-steps.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
touch mlx5_0  # what the pattern would match here
mkdir -m 0700 work slurm
: > slurm/slurm.conf
printf 'NodeName=node[001-016] CPUs=4\n' > site-nodes.conf
failed=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; failed=1; }
"$sy" refresh --ibnetdiscover "$dump" --slurm-nodes site-nodes.conf --slurm-dir slurm \
  --work "$tmp/work" --no-steer "--install-args=--no-reconfigure --topology block" \
  '--discover-args=--compute-hca mlx5_[0-7]  --topology-plugin block' > out 2> err
rc=$?
[ "$rc" -eq 0 ] && ok "the round ends well" || bad "exit $rc: $(cat out err)"
[ -f work/discover/fabric.map ] && ok "discover's output is WORK/discover" || bad "no work/discover/fabric.map"
[ ! -e work/discover.new ] && ok "no half output left" || bad "work/discover.new left"
[ -f work/discover/nodes.conf ] && ok "discover got the site's NodeName lines" || bad "no nodes.conf"
grep -q '^  topology = "block",$' work/discover/job_submit_hints.lua &&
  ok "discover got --topology-plugin block from the words" || bad "the hints do not say block"
grep -qF 'mlx5_[0-7]' err out && bad "the pattern was shown as unknown" || true
[ -L slurm/switchyard ] && [ -f slurm/topology.conf ] && ok "install put the set in place" ||
  bad "install did not put the set in place: $(ls slurm)"
[ -f work/install.state ] && ok "install's record is WORK/install.state" || bad "no work/install.state"
# A word no step knows: refused with the setting named, nothing run.
before=$(ls -l slurm)
"$sy" refresh --ibnetdiscover "$dump" --slurm-nodes site-nodes.conf --slurm-dir slurm \
  --work "$tmp/work" --no-steer '--install-args=--no-reconfigure --colour red' > out 2> err
rc=$?
[ "$rc" -eq 2 ] && grep -q "switchyard refresh: --install-args '--no-reconfigure --colour red': " err &&
  ok "an unknown word is refused, naming the setting" || bad "exit $rc: $(cat err)"
[ "$(ls -l slurm)" = "$before" ] && ok "nothing changed" || bad "slurm/ changed"
# A capture discover cannot read: the round fails, the installed set stays.
echo "not a dump" > broken.txt
"$sy" refresh --ibnetdiscover broken.txt --slurm-nodes site-nodes.conf --slurm-dir slurm \
  --work "$tmp/work" --no-steer "--install-args=--no-reconfigure --topology block" > out 2> err
rc=$?
[ "$rc" -eq 1 ] && grep -qx "switchyard-refresh: discover failed; the installed topology is unchanged" err &&
  ok "a failed discover fails the round" || bad "exit $rc: $(cat err)"
[ "$(ls -l slurm)" = "$before" ] && ok "the installed set stays" || bad "slurm/ changed"
exit "$failed"
