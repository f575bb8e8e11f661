#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The root side under attack by a local user: root runs `switchyard health` (the same check code
# as the prolog's gate) and `check-config` while an unprivileged user (uid 65534, switched to with
# setpriv) plants what any user can plant — files, directories, FIFOs and symbolic links in a
# shared sticky directory, and a policy of their own. Each case failed before issue 14's fixes.
# Needs root (chown, setpriv); exits 77 (skipped, not passed) otherwise.
# Usage: attacker_test.sh SWITCHYARD MAKE_NODE_TREES
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
sy=${1:?usage: attacker_test.sh SWITCHYARD MAKE_NODE_TREES}
trees=${2:?}
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: needs root (the attacks are on root's code)"
  exit 77
fi
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }

work=$(mktemp -d /tmp/sy-attack.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 0711 "$work"
shared=$work/shared  # what /tmp and /var/tmp are: anyone writes, the sticky bit protects names
mkdir -m 1777 "$shared"
"$trees" "$work/nodes" node003 >/dev/null
chmod -R a+rX "$work/nodes"
# A healthy node whose counters are not zero: a planted zero baseline would show "+50".
for c in "$work"/nodes/node003/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error; do
  echo 50 > "$(readlink -f "$c")"
done
echo precious > "$work/victim"
chmod 0644 "$work/victim"

policy=$work/policy.yaml
cat > "$policy" <<POLICY
version: 1
node:
  sysfs_root: $work/nodes/%n/sys
health:
  rdma_ports: {count: 4, hca: "mlx5_[0-3]"}
  link_errors: {max_growth: 10, hca: "mlx5_[0-3]", state: $shared/switchyard/%n.counters}
  filesystems: [{path: $shared, writable: true}]
POLICY
chmod 0644 "$policy"

echo "== 1. a link-error state planted before root made its directory"
as_user mkdir "$shared/switchyard"
as_user sh -c "printf 'mlx5_0:1/symbol_error 0\n' > '$shared/switchyard/node003.counters'"
run_capture timeout 20 "$sy" health --policy "$policy" --host node003 --json
expect_rc 0 "a healthy node is not failed by a planted zero baseline"
expect_not_contains "$out" "symbol_error +50" "the planted baseline is not compared"
expect_contains "$out" "owned by uid 65534" "the planted directory is named with its owner"
expect_eq "$(cat "$shared/switchyard/node003.counters")" "mlx5_0:1/symbol_error 0" \
  "root did not write into the attacker's directory"

echo "== 2. links sprayed at every name a probe or a state file could use"
rm -rf "$shared/switchyard"
for i in $(seq 1 400); do
  as_user ln -s "$work/victim" "$shared/.switchyard-health.$((i + $$))"
  as_user ln -s "$work/victim" "$shared/switchyard.tmp.$((i + $$))"
done
as_user ln -s "$work/victim" "$shared/switchyard"
run_capture timeout 20 "$sy" health --policy "$policy" --host node003 --json
expect_rc 0 "the node still passes"
expect_eq "$(cat "$work/victim")" "precious" "the victim file behind the links is untouched"
expect_contains "$out" "is a symbolic link" "the link in place of the state directory is named"
expect_contains "$out" "\"name\": \"filesystem:$shared\"" "the writability probe ran in the shared directory"

echo "== 3. a FIFO, a directory and /dev/zero where the policy should be"
as_user mkfifo "$shared/fifo.yaml"
run_capture timeout 10 "$sy" check-config "$shared/fifo.yaml"
expect_rc 1 "check-config refuses a FIFO (no wait for a writer)"
expect_contains "$err" "is a FIFO" "the FIFO is named"
run_capture timeout 10 "$sy" health --policy "$shared/fifo.yaml" --host node003
expect_nonzero_rc "health refuses a FIFO policy"
run_capture timeout 10 "$sy" check-config /dev/zero
expect_rc 1 "check-config refuses /dev/zero (no read until memory runs out)"
expect_contains "$err" "a device" "the device is named"
run_capture timeout 10 "$sy" check-config "$shared"
expect_rc 1 "check-config refuses a directory"
expect_contains "$err" "a directory" "the directory is named"

echo "== 4. a policy root did not write"
as_user cp "$policy" "$shared/theirs.yaml"
run_capture timeout 10 "$sy" health --policy "$shared/theirs.yaml" --host node003
expect_nonzero_rc "root refuses a policy owned by another user"
expect_contains "$err" "owner uid 65534" "its owner is named"
cp "$policy" "$work/group-writable.yaml"
chmod 0664 "$work/group-writable.yaml"
run_capture timeout 10 "$sy" health --policy "$work/group-writable.yaml" --host node003
expect_nonzero_rc "root refuses a group-writable policy"
expect_contains "$err" "0664" "its mode is named"

echo "== 5. commands: a deadline over the whole run, a clean environment"
cat > "$work/commands.yaml" <<POLICY
version: 1
node:
  sysfs_root: $work/nodes/%n/sys
health:
  commands:
    - {name: closes-output-and-sleeps, argv: [/bin/sh, -c, "exec >&- 2>&-; sleep 40"], timeout_s: 2}
    - {name: env, argv: [/usr/bin/env], fail_pattern: "SY_JOB_SECRET"}
POLICY
start=$(date +%s)
SY_JOB_SECRET=from-the-job run_capture timeout 30 "$sy" health --policy "$work/commands.yaml" \
  --host node003 --json
took=$(( $(date +%s) - start ))
expect_rc 1 "the sleeping command fails its check"
expect_contains "$out" "killed after the 2 s timeout" "it is killed at its deadline"
[ "$took" -lt 20 ] && echo "ok: health returned in ${took} s (the command slept 40 s)" ||
  fail_check "health took ${took} s: the deadline did not bound the wait"
expect_not_contains "$out" "SY_JOB_SECRET" "the job's environment does not reach the command"
expect_contains "$out" "\"name\": \"command:env\"" "the env command ran"

echo "== 6. node lists a user sends to slurmstepd"
map=$here/../golden/render/bad-plan/fabric.map
for list in 'n[18446744073709551615]' 'n[18446744073709551610-18446744073709551615]' \
  'a[0-999999]b[0-9999]' 'n[1-99999999999999999999]'; do
  # ASan reserves terabytes of address space for its shadow: no address-space limit there.
  if [ "${SWITCHYARD_ASAN:-0}" = 1 ]; then
    run_capture timeout 20 "$sy" plan --map "$map" --nodes "$list" --stages 2
  else
    run_capture timeout 20 prlimit --as=1500000000 -- "$sy" plan --map "$map" --nodes "$list" --stages 2
  fi
  [ "$rc" -lt 124 ] && echo "ok: plan answers '$list' within 1.5 GB and 20 s (exit $rc)" ||
    fail_check "plan on '$list': exit $rc (timeout, or killed by a signal or the memory limit)"
  expect_not_contains "$err" "internal error" "'$list' gets a clear message"
done
finish
