#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs one golden case: `switchyard <cmd>` from the case folder with LANG=C TZ=UTC, then diffs
# stdout, stderr and the exit code against expected.out, expected.err, expected.rc.
# UPDATE_GOLDEN=1 rewrites the expectations instead (review the diff before committing).
# Usage: run_case.sh SWITCHYARD_BINARY CASE_DIR
set -uo pipefail
bin=${1:?usage: run_case.sh SWITCHYARD_BINARY CASE_DIR}
dir=${2:?usage: run_case.sh SWITCHYARD_BINARY CASE_DIR}
[ -f "$dir/cmd" ] || { echo "golden: $dir/cmd is missing"; exit 1; }
read -r -a args < "$dir/cmd"
out=$(mktemp); err=$(mktemp); scratch=$(mktemp -d)
trap 'rm -rf "$out" "$err" "$scratch"' EXIT
# @OUT@: a scratch directory for written files; @REAL@: tests/data/real (the real captures the
# project carries); @SHARED@: ../shared/fixtures/real (captures whose licence keeps them there).
real=$(cd "$(dirname "$0")/../data/real" && pwd)
shared=$(cd "$(dirname "$0")/../../.." && pwd)/shared/fixtures/real
args=("${args[@]//@OUT@/$scratch}")
args=("${args[@]//@REAL@/$real}")
args=("${args[@]//@SHARED@/$shared}")
(cd "$dir" && LANG=C LC_ALL=C TZ=UTC "$bin" "${args[@]}" >"$out" 2>"$err")
rc=$?
# Outputs name the scratch directory as @OUT@, so expectations do not depend on mktemp, and the
# Slurm release of the build (SWITCHYARD_SLURM_RELEASE) as @SLURM@: one expectation per release.
sed -i "s|$scratch|@OUT@|g; s|$real|@REAL@|g; s|$shared|@SHARED@|g" "$out" "$err"
# CLI11 2.3 (Debian 12) ends --help with a blank line, 2.4 (Debian 13) does not: trailing blank
# lines are not part of any expectation.
sed -i -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$out" "$err"
# hwloc names its own version when it maps a newer XML (2.9 on Debian 12, 2.12 on Debian 13).
sed -i -E "s/read by hwloc [0-9]+\.[0-9]+\.[0-9]+/read by hwloc @HWLOC@/g" "$out" "$err"
if [ -n "${SWITCHYARD_SLURM_RELEASE:-}" ]; then
  sed -i "s|built for Slurm $SWITCHYARD_SLURM_RELEASE)|built for Slurm @SLURM@)|g" "$out" "$err"
fi
# A case may list files it writes under @OUT@ in `files`; each must equal <name>.expected.
if [ -f "$dir/files" ]; then
  while read -r f; do
    [ -n "$f" ] || continue
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then cp "$scratch/$f" "$dir/$f.expected"; continue; fi
    diff -u "$dir/$f.expected" "$scratch/$f" || { echo "golden: written file $f differs ($dir)"; rc_files=1; }
  done < "$dir/files"
fi
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
  cp "$out" "$dir/expected.out"; cp "$err" "$dir/expected.err"; echo "$rc" > "$dir/expected.rc"
  echo "golden: updated $dir"; exit 0
fi
status=${rc_files:-0}
diff -u "$dir/expected.out" "$out" || { echo "golden: stdout differs ($dir)"; status=1; }
diff -u "$dir/expected.err" "$err" || { echo "golden: stderr differs ($dir)"; status=1; }
want_rc=$(cat "$dir/expected.rc")
[ "$rc" = "$want_rc" ] || { echo "golden: exit code $rc, expected $want_rc ($dir)"; status=1; }
exit $status
