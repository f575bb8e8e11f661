#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `switchyard steer --apply` on a real 16-node Slurm cluster whose fabric (ibsim, discovered)
# has one SU with half its uplinks pulled: the SU's nodes get a higher Weight and jobs land
# elsewhere first; a weight an admin set by hand (before, or over switchyard's) never changes.
# Usage: slurm_steer_test.sh PLUGIN.so SWITCHYARD_BINARY
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
plugin=${1:?usage: slurm_steer_test.sh PLUGIN.so SWITCHYARD_BINARY}
sy=${2:?usage: slurm_steer_test.sh PLUGIN.so SWITCHYARD_BINARY}
work=$(mktemp -d /tmp/switchyard-steer.XXXXXX)
chmod 755 "$work"
run=$work/c
trap 'env -u LD_PRELOAD "$here/slurm-cluster" down "$run" >/dev/null 2>&1; rm -rf "$work"' EXIT
# Under ASan the clients (srun) get libasan preloaded to load the plugin; the tools that make the
# fabric and the cluster (dd, ibsim, the daemons' own preload) must not.
nopreload() { env -u LD_PRELOAD "$@"; }

# 2 groups x 2 leaves x 4 hosts, 4 uplinks per leaf; g1-leaf1 keeps 2 of its 4.
nopreload "$here/../fabric/gen_fabric.py" dfp --groups 2 --leaves 2 --spines 2 --hosts-per-leaf 4 \
  --parallel 2 --global-links 4 --host-prefix node --host-digits 3 --halve-uplinks g1-leaf1 \
  -o "$work/net" >/dev/null || { echo "FAIL: gen_fabric"; exit 1; }
nopreload "$here/../fabric/ibsim-capture" "$work/net.net" "$work/ibnetdiscover.txt" 2>/dev/null ||
  { echo "FAIL: ibsim-capture"; exit 1; }
"$sy" discover --ibnetdiscover "$work/ibnetdiscover.txt" -o "$work/fabric" >/dev/null ||
  { echo "FAIL: discover"; exit 1; }
nopreload "$here/slurm-cluster" up "$run" "$plugin" --nodes 16 --port-base 17400 2>/dev/null ||
  { echo "FAIL: cluster up"; exit 1; }
use_cluster "$run"
map=$work/fabric/fabric.map
mkdir -m 700 "$work/state"
state=$work/state/steer.state
weight() { scontrol show node "$1" | grep -oE 'Weight=[0-9]+' | cut -d= -f2; }
degraded=$("$sy" fabric show --map "$map" --json | python3 -c '
import json, sys
print(" ".join(h for s in json.load(sys.stdin)["sus"] if s["name"] == "g1-leaf1" for h in s["hosts"]))')
read -r -a bad <<<"$degraded"
expect_eq "${#bad[@]}" 4 "the degraded SU g1-leaf1 has 4 hosts"
admin=${bad[0]}

run_capture "$sy" steer --map "$map"
expect_rc 0 "steer (dry run)"
expect_contains "$out" "score 0.50, weight 501: SU g1-leaf1 has 2 uplinks per rail, the usual SU 4" \
  "the SU short of uplinks is named, with its score and weight"
expect_eq "$(weight "${bad[1]}")" 1 "a dry run changes nothing"

# The admin's own weight on one node of the degraded SU, set by hand before switchyard runs.
scontrol update NodeName="$admin" Weight=5
run_capture "$sy" steer --map "$map" --apply --state "$state"
expect_rc 0 "steer --apply"
expect_eq "$(weight "$admin")" 5 "the admin's weight on $admin is left alone"
expect_contains "$out" "$admin: weight 5 was not set by switchyard (base 1): left alone" \
  "and steer says so"
for n in "${bad[@]:1}"; do
  expect_eq "$(weight "$n")" 501 "$n (degraded SU) gets weight 501"
done
healthy=$(comm -23 <(printf 'node%03d\n' $(seq 16)) <(printf '%s\n' "${bad[@]}") | head -1)
expect_eq "$(weight "$healthy")" 1 "$healthy (healthy) keeps weight 1"
expect_eq "$(wc -l < "$state")" 3 "the state records the 3 weights switchyard set"

# Slurm fills lower weights first: a 12-node job takes every healthy node, none of the SU.
run_capture srun -N12 --exclusive hostname
expect_rc 0 "srun -N12"
for n in "${bad[@]}"; do
  expect_not_contains "$out" "$n" "a 12-node job avoids $n of the degraded SU"
done

# An admin changes one of switchyard's weights by hand: it is theirs from then on.
scontrol update NodeName="${bad[1]}" Weight=9
run_capture "$sy" steer --map "$map" --apply --state "$state" --min-interval 0
expect_rc 0 "steer --apply again"
expect_eq "$(weight "${bad[1]}")" 9 "a weight the admin changed over switchyard's stays"
expect_not_contains "$(cat "$state")" "${bad[1]} " "and switchyard forgets it"
expect_eq "$(weight "${bad[2]}")" 501 "switchyard's other weights stay"
expect_not_contains "$out" "set Weight=" "nothing to change on a second run"

# The same fabric repaired: switchyard gives its own nodes the base back (the admin's stay).
nopreload "$here/../fabric/gen_fabric.py" dfp --groups 2 --leaves 2 --spines 2 --hosts-per-leaf 4 \
  --parallel 2 --global-links 4 --host-prefix node --host-digits 3 -o "$work/net2" >/dev/null
nopreload "$here/../fabric/ibsim-capture" "$work/net2.net" "$work/ib2.txt" 2>/dev/null
"$sy" discover --ibnetdiscover "$work/ib2.txt" -o "$work/fabric2" >/dev/null
run_capture "$sy" steer --map "$work/fabric2/fabric.map" --apply --state "$state" --min-interval 0
expect_rc 0 "steer --apply after the repair"
expect_eq "$(weight "${bad[2]}")" 1 "a repaired SU's node gets the base weight back"
expect_eq "$(weight "$admin")" 5 "the admin's weight still stands"
expect_eq "$(weight "${bad[1]}")" 9 "so does the one the admin took over"
expect_eq "$(wc -c < "$state")" 0 "nothing of switchyard's remains in the state"

# A node switchyard drained and Slurm put back counts as degraded for a while; a node drained
# for another reason does not.
other=$(comm -23 <(printf 'node%03d\n' $(seq 16)) <(printf '%s\n' "${bad[@]}" "$healthy") | head -1)
scontrol update NodeName="$healthy" State=DRAIN Reason="switchyard: rdma-ports: mlx5_0 port 1 DOWN"
scontrol update NodeName="$other" State=DRAIN Reason="maintenance"
run_capture "$sy" steer --map "$work/fabric2/fabric.map" --apply --state "$state" --min-interval 0
expect_rc 0 "steer --apply with two nodes drained"
expect_contains "$(cat "$state")" "flap $healthy " "switchyard's drain of $healthy is recorded"
expect_not_contains "$(cat "$state")" "flap $other " "the admin's drain of $other is not"
scontrol update NodeName="$healthy,$other" State=RESUME
run_capture "$sy" steer --map "$work/fabric2/fabric.map" --apply --state "$state" --min-interval 0
expect_rc 0 "steer --apply after both are back"
expect_contains "$out" "$healthy: score 0.50, weight 501: health: drained by switchyard, back in service" \
  "the node switchyard drained counts as degraded once back"
expect_eq "$(weight "$healthy")" 501 "and gets weight 501"
expect_eq "$(weight "$other")" 1 "the node drained for maintenance keeps the base weight"
run_capture "$sy" steer --map "$work/fabric2/fabric.map" --apply --state "$state" --min-interval 0 \
  --flap-window 0
expect_eq "$(weight "$healthy")" 1 "after the window it gets the base back"
expect_eq "$(wc -c < "$state")" 0 "and the state forgets it"
finish
