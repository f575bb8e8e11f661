#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The preflight's fault simulator and speed figures, from the release build: accuracy on four
# simulated fabrics (map only, and with the forwarding tables), the schedule for a 4,096-node
# job, locating 100k pair results on a 100k-host map, and the rounds for 16, 128 and 1,024
# nodes. Printed, never asserted.
#   bench/preflight-sim.sh [--trials N] [--seed S] [--show-misses N]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
cmake --preset release >/dev/null
cmake --build --preset release --target preflight_sim >/dev/null
exec build/release/bench/preflight_sim "$@"
