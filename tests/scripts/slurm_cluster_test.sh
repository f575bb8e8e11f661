#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The test cluster's own start-up, without Slurm: `slurm-cluster up` counts idle nodes with sinfo,
# which times out on a loaded machine. A failed try counts as none idle and the count goes on; if
# the nodes never come, the message says what sinfo said (before, `set -e` ended `up` there with
# no message at all).
# Usage: slurm_cluster_test.sh SLURM_CLUSTER
set -uo pipefail
script=${1:?usage: slurm_cluster_test.sh SLURM_CLUSTER}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi; }
: >"$work/pids"

# A sinfo that times out twice, then lists four idle nodes (one twice: two partitions).
out=$(bash -c '
  set -euo pipefail
  . "$1"
  # Each call runs in a command substitution: the count lives in a file.
  calls=$2/calls
  sinfo() {
    echo x >>"$calls"
    if [ "$(wc -l <"$calls")" -le 2 ]; then
      echo "sinfo: error: Socket timed out on send/recv operation" >&2
      return 1
    fi
    printf "node1\nnode2\nnode2\nnode3\nnode4\n"
  }
  SLURM_CLUSTER_IDLE_TRIES=20 wait_idle "$2" 4
  echo "idle after $(wc -l <"$calls") tries"' _ "$script" "$work" 2>&1); rc=$?
echo "$out"
check "a sinfo that times out is tried again" '[ $rc -eq 0 ] && grep -q "idle after 3 tries" <<<"$out"'

# A sinfo that never answers: the message names it.
out=$(bash -c '
  set -euo pipefail
  . "$1"
  sinfo() { echo "sinfo: error: Socket timed out on send/recv operation" >&2; return 1; }
  SLURM_CLUSTER_IDLE_TRIES=5 wait_idle "$2" 4' _ "$script" "$work" 2>&1); rc=$?
echo "$out"
check "and when it never answers, up fails" '[ $rc -ne 0 ]'
check "saying what sinfo said" 'grep -q "only 0 of 4 nodes idle after 0 s (sinfo failed: sinfo: error: Socket timed out on send/recv operation)" <<<"$out"'

# Three of four idle: the count is in the message.
out=$(bash -c '
  set -euo pipefail
  . "$1"
  sinfo() { printf "node1\nnode2\nnode3\n"; }
  SLURM_CLUSTER_IDLE_TRIES=3 wait_idle "$2" 4' _ "$script" "$work" 2>&1); rc=$?
check "nodes that never come are counted" '[ $rc -ne 0 ] && grep -q "only 3 of 4 nodes idle" <<<"$out"'

[ "$fails" -eq 0 ] && echo "slurm-cluster: all checks passed"
exit "$fails"
