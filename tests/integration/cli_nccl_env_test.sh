#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `switchyard nccl-env` on the test cluster's policy, node trees and fabric map (no Slurm needed):
# the same decisions the plugin makes, with their reasons.
# Usage: cli_nccl_env_test.sh SWITCHYARD_BINARY POLICY
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
sy=${1:?usage: cli_nccl_env_test.sh SWITCHYARD_BINARY POLICY}
policy=${2:?}

run_capture "$sy" nccl-env --policy "$policy" --host node005 --nodes 'node[001-016]' --explain
expect_rc 0 "nccl-env --explain for node005 in a 16-node job"
expect_contains "$out" "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_3:1    # R1 compute ports: 3 ACTIVE compute port(s), by the policy's nccl.compute_hca; left out: mlx5_2:1 (DOWN/Polling)" \
  "the down port is left out, with the reason"
expect_contains "$out" "NCCL_IB_TIMEOUT=22    # R6 IB timeout: the job spans 2 Dragonfly+ groups" "R6 from the fabric map"
expect_contains "$out" "NCCL_CROSS_NIC=1    # R4 rails: all HCAs of node005 on leaf" "R4 from the fabric map"
expect_contains "$out" "# NCCL_SOCKET_IFNAME: not set:" "unset rules say why"

run_capture "$sy" nccl-env --policy "$policy" --host node001 --nodes 'node001' --json
expect_rc 0 "nccl-env --json"
expect_eq "$(python3 -c 'import json,sys; d=json.load(sys.stdin); print([s["value"] for s in d["set"] if s["name"]=="NCCL_IB_HCA"][0])' <<<"$out")" \
  "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1" "JSON carries the same value"

run_capture "$sy" nccl-env --policy "$policy" --host node001 --nccl-env off
expect_eq "$out" "" "--nccl-env off prints nothing"

run_capture "$sy" nccl-env --policy "$policy" --host node001 --nccl-env Bad/Name
expect_rc 2 "a malformed --nccl-env value is a usage error"
finish
