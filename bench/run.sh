#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the release preset and runs the benchmarks; prints Google Benchmark's table.
# Usage: bench/run.sh [benchmark args, e.g. --benchmark_filter=MapLoad]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release --target fabric_bench discover_bench node_bench nccl_bench \
  health_bench render_bench audit_bench
build/release/bench/fabric_bench --benchmark_counters_tabular=true "$@"
# discover's own allocator (jemalloc, as the switchyard command), beside glibc's above
build/release/bench/discover_bench --benchmark_counters_tabular=true \
  --benchmark_filter="${SWITCHYARD_DISCOVER_FILTER:-DiscoverPipeline|Parse|Classify|Write}"
build/release/bench/node_bench --benchmark_counters_tabular=true "$@"
build/release/bench/nccl_bench --benchmark_counters_tabular=true "$@"
build/release/bench/health_bench --benchmark_counters_tabular=true "$@"
build/release/bench/render_bench --benchmark_counters_tabular=true "$@"
build/release/bench/audit_bench --benchmark_counters_tabular=true "$@"
