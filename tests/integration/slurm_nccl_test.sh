#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# NCCL variables injected by the plugin in the real cluster of the `slurm16` fixture; every node
# reads its own fake sysfs tree through the policy's %n path (node005 has mlx5_2 down).
# Usage: slurm_nccl_test.sh RUN CASE
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
run=${1:?usage: slurm_nccl_test.sh RUN CASE}
case_name=${2:?usage: slurm_nccl_test.sh RUN CASE}
use_cluster "$run"
unset NCCL_IB_HCA NCCL_DEBUG SWITCHYARD_NCCL_SET
show='echo "$SLURMD_NODENAME ${NCCL_IB_HCA:-unset} ${NCCL_DEBUG:-unset} ${SWITCHYARD_NCCL_SET:-unset}"'

case $case_name in
  hca-per-node)
    run_capture srun -N4 -w node001,node002,node003,node004 bash -c "$show"
    expect_rc 0 "srun on node[001-004]"
    expect_eq "$(awk '{print $2}' <<<"$out" | sort -u)" "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1" \
      "NCCL_IB_HCA = the four ACTIVE compute ports; the storage HCA mlx5_4 is not in it"
    expect_eq "$(awk '{print $1}' <<<"$out" | sort -u | wc -l)" 4 "four nodes answered"
    expect_contains "$out" "NCCL_IB_HCA" "SWITCHYARD_NCCL_SET names NCCL_IB_HCA"
    ;;
  down-port-left-out)
    run_capture srun -N2 -w node004,node005 bash -c "$show"
    expect_rc 0 "srun on node004,node005"
    expect_eq "$(grep '^node005 ' <<<"$out" | awk '{print $2}')" "=mlx5_0:1,mlx5_1:1,mlx5_3:1" \
      "node005 leaves its DOWN port mlx5_2 out"
    expect_eq "$(grep '^node004 ' <<<"$out" | awk '{print $2}')" "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1" \
      "node004 keeps all four"
    ;;
  user-value-kept)
    run_capture env NCCL_IB_HCA==mlx5_9:1 srun -N2 bash -c "$show"
    expect_rc 0 "srun with a user-exported NCCL_IB_HCA"
    expect_eq "$(awk '{print $2}' <<<"$out" | sort -u)" "=mlx5_9:1" "the user's NCCL_IB_HCA is untouched"
    expect_contains "$err" "NCCL_IB_HCA: your value is kept" "the user is told which value switchyard would set"
    grep -q 'NCCL_IB_HCA' <<<"$(awk '{print $4}' <<<"$out")" && fail_check "SWITCHYARD_NCCL_SET must not claim NCCL_IB_HCA"
    ;;
  off-sets-nothing)
    run_capture srun -N2 --nccl-env=off bash -c "$show"
    expect_rc 0 "srun --nccl-env=off"
    expect_eq "$(awk '{print $2, $3, $4}' <<<"$out" | sort -u)" "unset unset unset" "no NCCL variable and no SWITCHYARD_NCCL_SET"
    ;;
  unknown-profile-refused)
    run_capture srun -N1 --nccl-env=nosuch true
    expect_nonzero_rc "srun --nccl-env=nosuch is refused at submit"
    expect_contains "$err" "--nccl-env: unknown profile 'nosuch'; allowed: auto, off, debug" "the message lists the allowed profiles"
    run_capture sbatch --nccl-env=site-only --wrap true
    expect_nonzero_rc "sbatch --nccl-env=site-only (not user-selectable) is refused"
    expect_contains "$err" "is not user-selectable" "the message says why"
    ;;
  debug-profile)
    run_capture srun -N1 --nccl-env=debug bash -c "$show"
    expect_rc 0 "srun --nccl-env=debug"
    expect_eq "$(awk '{print $3}' <<<"$out")" INFO "the debug profile sets NCCL_DEBUG=INFO"
    ;;
  node-cache)
    # A step's slurmstepd, still root in init, caches each node's facts (root's, 0644); a damaged
    # cache is replaced by the next step, whose variables stay those of the live node (ports
    # read live). No job prolog runs: spank_switchyard.so has none.
    cache=${SWITCHYARD_TEST_TREES:?}/cache/node006.node
    run_capture srun -N1 -w node006 bash -c "$show"
    expect_rc 0 "srun on node006"
    expect_eq "$(head -1 "$cache")" "switchyard-node-facts 1" "the step wrote node006's facts"
    expect_eq "$(stat -c '%a %u' "$cache")" "644 $(id -u)" "owned by the daemons' user, mode 0644"
    expect_eq "$(grep -c '^gpu ' "$cache") $(grep -c '^nic ' "$cache")" "4 5" "4 GPUs and 5 NICs cached"
    expected=$out
    printf 'switchyard-node-facts 1\nkey 0000000000000000\nend 0 0 0\n' > "$cache"
    run_capture srun -N1 -w node006 bash -c "$show"
    expect_eq "$out" "$expected" "the same variables after the cache was damaged"
    expect_eq "$(grep -c '^gpu ' "$cache")" 4 "the next step wrote it again"
    ;;
  step-cache)
    # slurmstepd (root) keeps each plain step's decision in a root-only file; the next step like
    # it is set up by the front from that file alone (no step module, policy, map or node read),
    # with the same variables. A port that goes down is seen by the next step.
    cache=/var/lib/switchyard/step-cache.node007
    rm -f "$cache"
    run_capture srun -N1 -w node007 bash -c "$show"
    expect_rc 0 "srun on node007"
    first=$out
    expect_eq "$(head -1 "$cache" | cut -d' ' -f1-2)" "switchyard-step-cache 1" "the step's decision was kept"
    expect_eq "$(stat -c '%a %u' "$cache") $(stat -c '%a %u' "${cache%/*}")" "600 0 700 0" \
      "root's file (0600) in root's directory (0700)"
    run_capture srun --slurmd-debug=verbose -N1 -w node007 bash -c "$show"
    expect_rc 0 "srun on node007 again"
    expect_eq "$out" "$first" "the same variables from the cache"
    expect_contains "$err" "variables from the step cache $cache" "the second step was set up from the cache"
    trees=${SWITCHYARD_TEST_TREES:?}
    state=$trees/node007/sys/class/infiniband/mlx5_1/ports/1/state
    cp "$state" "$state.saved"
    echo "1: DOWN" > "$state"
    run_capture srun --slurmd-debug=verbose -N1 -w node007 bash -c "$show"
    mv "$state.saved" "$state"
    expect_rc 0 "srun on node007 with mlx5_1 down"
    expect_eq "$(awk '{print $2}' <<<"$out")" "=mlx5_0:1,mlx5_2:1,mlx5_3:1" "the port that went down is left out"
    expect_not_contains "$err" "variables from the step cache" "decided again, not from the cache"
    ;;
  *)
    echo "unknown case '$case_name'"; exit 2 ;;
esac
finish
