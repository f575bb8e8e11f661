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
out=$(mktemp); err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
(cd "$dir" && LANG=C LC_ALL=C TZ=UTC "$bin" "${args[@]}" >"$out" 2>"$err")
rc=$?
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
  cp "$out" "$dir/expected.out"; cp "$err" "$dir/expected.err"; echo "$rc" > "$dir/expected.rc"
  echo "golden: updated $dir"; exit 0
fi
status=0
diff -u "$dir/expected.out" "$out" || { echo "golden: stdout differs ($dir)"; status=1; }
diff -u "$dir/expected.err" "$err" || { echo "golden: stderr differs ($dir)"; status=1; }
want_rc=$(cat "$dir/expected.rc")
[ "$rc" = "$want_rc" ] || { echo "golden: exit code $rc, expected $want_rc ($dir)"; status=1; }
exit $status
