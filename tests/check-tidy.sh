#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# clang-tidy (the checks in .clang-tidy) over the project's own sources, with the compile
# commands of a build directory. Fails on any finding. Units clean in an earlier run and unchanged
# since are skipped (see below); SWITCHYARD_TIDY_CACHE=off checks them all.
# Usage: tests/check-tidy.sh BUILD_DIR [FOLDER...]
#   FOLDER: check only the units under these top folders (as lib names: fabric, cli, plugin);
#   CTest runs one test per folder (lint:clang-tidy:FOLDER), each with a time limit that holds
#   with nothing cached. --list prints the folders checked when none is named; --cache-dir the
#   cache of clean units.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: check-tidy.sh BUILD_DIR [FOLDER...] | --list | --cache-dir}
shift
# Every library folder (a CMakeLists.txt beside an include/ or src/, or beside parts that have
# them, as slurm/files and slurm/client), the plugin and the CLI: a library added later is
# checked without editing this list (the split of topology/ once left four libraries out of a
# list written by hand).
list_folders() {
  local d
  for d in "$top"/*/; do
    d=${d%/}
    [ -f "$d/CMakeLists.txt" ] && [ -n "$(find "$d" -maxdepth 2 -type d \( -name src -o -name include \) -print -quit)" ] &&
      echo "$(basename "$d")"
  done
  echo plugin
  echo cli
}
# The cache of clean units (see below): SWITCHYARD_TIDY_CACHE, else root's beside the Debian
# roots, else the user's. --cache-dir prints it (scripts/test reports and resets it).
cache_dir() {
  local cache=${SWITCHYARD_TIDY_CACHE:-}
  if [ -z "$cache" ]; then
    cache=${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/switchyard/tidy
    [ "$(id -u)" = 0 ] && cache=/var/cache/switchyard-test/tidy
  fi
  echo "$cache"
}
case $build in
  --list) list_folders; exit 0 ;;
  --cache-dir) cache_dir; exit 0 ;;
esac
tidy=$(command -v run-clang-tidy || command -v run-clang-tidy-14) ||
  { echo "lint: run-clang-tidy is not installed (scripts/install-deps installs clang-tidy)"; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if [ $# -gt 0 ]; then
  libs=("$@")
  for l in "${libs[@]}"; do
    [[ $l =~ ^[a-z0-9_]+$ && -d $top/$l ]] || { echo "lint: no source folder '$l' (expected one of: $(list_folders | xargs))"; exit 2; }
  done
else
  mapfile -t libs < <(list_folders)
fi
dirs=$(printf '%s|' "${libs[@]}")
units="$top/(${dirs%|})/.*\.cpp"
# Units found clean before and unchanged since (tests/tidy-cache.py says what "unchanged" takes)
# are not checked again. SWITCHYARD_TIDY_CACHE=off checks every unit; =DIR keeps the cache there.
cache=$(cache_dir)
targets=("$units")
keys=()
if [ "$cache" != off ]; then
  pending=$(python3 "$top/tests/tidy-cache.py" pending "$build" "$cache" "$units") ||
    { echo "lint: tests/tidy-cache.py failed"; exit 1; }
  targets=()
  while IFS=$'\t' read -r key file regex; do
    [ -n "$file" ] || continue
    [ "$key" = - ] || keys+=("$key")
    targets+=("$regex")
  done <<<"$pending"
  if [ ${#targets[@]} -eq 0 ]; then
    echo "ok: clang-tidy clean (every unit as in a clean run before; cache $cache)"
    exit 0
  fi
  echo "clang-tidy: ${#targets[@]} unit(s) new or changed since a clean run (cache $cache)"
fi
"$tidy" -p "$build" -quiet -j "$(nproc)" "${targets[@]}" > "$out" 2>&1
rc=$?
if grep -qE "(warning|error): " "$out"; then
  grep -E "(warning|error): " "$out" | sed 's/\x1b\[[0-9;]*m//g' | sort -u
  echo "lint: clang-tidy findings (see .clang-tidy)"
  exit 1
fi
[ $rc -eq 0 ] || { tail -20 "$out"; exit $rc; }
[ ${#keys[@]} -eq 0 ] || python3 "$top/tests/tidy-cache.py" store "$cache" "${keys[@]}" ||
  echo "clang-tidy: could not record the clean units in $cache (not a failure)"
echo "ok: clang-tidy clean"
