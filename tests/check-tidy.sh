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
# Every library folder (a CMakeLists.txt beside an include/ or src/), the plugin and the CLI: a
# library added later is checked without editing this list (the split of topology/ once left
# four libraries out of a list written by hand).
libs=()
for d in "$top"/*/; do
  d=${d%/}
  [ -f "$d/CMakeLists.txt" ] && { [ -d "$d/src" ] || [ -d "$d/include" ]; } && libs+=("$(basename "$d")")
done
dirs=$(printf '%s|' "${libs[@]}" plugin cli)
"$tidy" -p "$build" -quiet -j "$(nproc)" "$top/(${dirs%|})/.*\.cpp" > "$out" 2>&1
rc=$?
if grep -qE "(warning|error): " "$out"; then
  grep -E "(warning|error): " "$out" | sed 's/\x1b\[[0-9;]*m//g' | sort -u
  echo "lint: clang-tidy findings (see .clang-tidy)"
  exit 1
fi
[ $rc -eq 0 ] && echo "ok: clang-tidy clean" || { tail -20 "$out"; exit $rc; }
