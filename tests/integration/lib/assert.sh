# SPDX-License-Identifier: Apache-2.0
# Assertions for the integration test scripts: each failure says what was expected and what came.
# shellcheck shell=bash

_sy_failures=0

# run_capture CMD... — runs CMD, sets $out, $err and $rc (never aborts the script). CMD gets
# SWITCHYARD_CMD_DEADLINE seconds (100), then is killed (rc 124): a hung srun fails its check
# with the cluster's state shown, before CTest's own timeout would kill the script silently.
run_capture() {
  local o e
  o=$(mktemp); e=$(mktemp)
  rc=0
  timeout -k 5 "${SWITCHYARD_CMD_DEADLINE:-100}" "$@" >"$o" 2>"$e" || rc=$?
  out=$(cat "$o"); err=$(cat "$e")
  rm -f "$o" "$e"
  [ "$rc" = 124 ] && echo "run_capture: $1 ran out of its ${SWITCHYARD_CMD_DEADLINE:-100} s and was killed"
  return 0
}

# cluster_state — once per script, after the first failure in a cluster: the nodes that are not
# idle, the queue, sanitizer reports and the last errors in the daemons' logs.
_sy_state_shown=0
cluster_state() {
  [ -n "${SLURM_CONF:-}" ] && [ "$_sy_state_shown" = 0 ] || return 0
  _sy_state_shown=1
  local logdir
  logdir=$(dirname "$(dirname "$SLURM_CONF")")/log
  echo "--- cluster state after the first failure ($SLURM_CONF)"
  timeout 10 sinfo -N -h -o '%N %T %E' 2>&1 | grep -vw idle | head -20
  timeout 10 squeue -h -o '%i %T %R %N %j' 2>&1 | head -20
  grep -l -e 'ERROR: AddressSanitizer' -e 'runtime error:' -e 'Segmentation fault' "$logdir"/* 2>/dev/null |
    while read -r f; do echo "sanitizer or crash report in $f:"; grep -m5 -A8 -e 'AddressSanitizer' -e 'runtime error:' "$f"; done
  for f in "$logdir"/slurmctld.log "$logdir"/slurmd-node00[1-4].log; do
    [ -f "$f" ] && grep -E 'error|fatal' "$f" | tail -5 | sed "s|^|$(basename "$f"): |"
  done
  echo "---"
}

fail_check() {
  echo "FAIL: $*"
  echo "  stdout: ${out:-}" | head -20
  echo "  stderr: ${err:-}" | head -20
  _sy_failures=$((_sy_failures + 1))
  cluster_state
}

expect_rc() {  # expect_rc WANT "what"
  [ "$rc" = "$1" ] && echo "ok: $2 (exit $rc)" || fail_check "$2: exit $rc, expected $1"
}

expect_nonzero_rc() {
  [ "$rc" != 0 ] && echo "ok: $1 (exit $rc)" || fail_check "$1: exit 0, expected a failure"
}

expect_eq() {  # expect_eq GOT WANT "what"
  [ "$1" = "$2" ] && echo "ok: $3" || fail_check "$3: got '$1', expected '$2'"
}

expect_contains() {  # expect_contains HAYSTACK NEEDLE "what"
  grep -qF -- "$2" <<<"$1" && echo "ok: $3" || fail_check "$3: '$2' not found"
}

expect_not_contains() {  # expect_not_contains HAYSTACK NEEDLE "what"
  grep -qF -- "$2" <<<"$1" && fail_check "$3: '$2' found" || echo "ok: $3"
}

finish() {
  if [ "$_sy_failures" -ne 0 ]; then
    echo "$_sy_failures check(s) failed"
    exit 1
  fi
  echo "all checks passed"
}

wait_for() {  # wait_for SECONDS COMMAND... until it succeeds
  local t=$1; shift
  for _ in $(seq $((t * 10))); do "$@" && return 0; sleep 0.1; done
  return 1
}

# use_cluster RUN — talk to the cluster the slurm16 fixture started in RUN, from its scratch dir
# (a crashing task drops its core file there).
use_cluster() {
  export SLURM_CONF=$1/etc/slurm.conf
  [ -f "$SLURM_CONF" ] || { echo "no cluster at $1 (the slurm16 fixture did not run)"; exit 1; }
  cd "$1/jobs" || exit 1
  # Tests of one cluster run one at a time, each with a clean queue: a test CTest killed at its
  # deadline (a hung step) leaves its jobs holding nodes, and every later test, its own second
  # run included, would wait behind them.
  local left
  left=$(squeue -h -o %i 2>/dev/null | paste -sd' ')
  if [ -n "$left" ]; then
    echo "note: cancelling the jobs an earlier test left in the queue: $left"
    # shellcheck disable=SC2086  # one word per job id
    scancel $left 2>/dev/null
    wait_for 60 bash -c '[ -z "$(squeue -h)" ]' ||
      echo "note: still in the queue after 60 s: $(squeue -h -o '%i %T %N' | paste -sd';')"
  fi
}

# cluster_units RUN — the units of the cluster's topology file, in file order: sets topo_file
# and units ("NAME NODES" per leaf switch or block; in a topology.yaml the blocks). unit_nodes I
# and unit_name I read unit I.
cluster_units() {
  if [ -f "$1/etc/topology.yaml" ]; then
    topo_file=$1/etc/topology.yaml
    mapfile -t units < <(awk '/- block:/ {n=$3} /nodes:/ && n != "" {print n, $2; n=""}' "$topo_file")
  else
    topo_file=$1/etc/topology.conf
    mapfile -t units < <(sed -n 's/^\(SwitchName\|BlockName\)=\([^ ]*\) Nodes=\([^ ]*\)$/\2 \3/p' "$topo_file")
  fi
}
unit_nodes() { scontrol show hostnames "$(awk '{print $2}' <<<"${units[$1]}")"; }
unit_name() { awk '{print $1}' <<<"${units[$1]}"; }
