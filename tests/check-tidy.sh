#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# clang-tidy (the checks in .clang-tidy) over the project's own sources, with the compile
# commands of a build directory. Fails on any finding.
# Usage: tests/check-tidy.sh BUILD_DIR
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: check-tidy.sh BUILD_DIR}
tidy=$(command -v run-clang-tidy || command -v run-clang-tidy-14) ||
  { echo "lint: run-clang-tidy is not installed (scripts/install-deps installs clang-tidy)"; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$tidy" -p "$build" -quiet -j "$(nproc)" "$top/(common|topology|nccl|placement|health|policy|plugin|cli)/.*\.cpp" > "$out" 2>&1
rc=$?
if grep -qE "(warning|error): " "$out"; then
  grep -E "(warning|error): " "$out" | sed 's/\x1b\[[0-9;]*m//g' | sort -u
  echo "lint: clang-tidy findings (see .clang-tidy)"
  exit 1
fi
[ $rc -eq 0 ] && echo "ok: clang-tidy clean" || { tail -20 "$out"; exit $rc; }
