#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# etc/switchyard-refresh passes its *_ARGS settings and the capture command word for word: run
# from a directory holding a file mlx5_0, the shipped example --compute-hca mlx5_[0-7] must reach
# `switchyard refresh` as written (one word, --discover-args=...), not as the file name the
# pattern matches. Stand-ins record the words they get (no fabric and no Slurm needed for what
# is checked here); how refresh splits the words for each step is refresh_steps_test.sh's.
# Usage: refresh_args_test.sh REFRESH_SCRIPT
set -uo pipefail
refresh=${1:?usage: refresh_args_test.sh REFRESH_SCRIPT}
tmp=$(mktemp -d /tmp/switchyard-refresh-args.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
touch mlx5_0 mlx5_1 'grp_[a]'  # what a pattern in the settings would match here
cat > capture <<'SH'
#!/bin/sh
printf '%s\n' "$@" > "$(dirname "$0")/capture.args"
echo "a dump"
SH
cat > switchyard <<'SH'
#!/bin/sh
dir=$(dirname "$0")
printf '%s\n' "$@" > "$dir/$1.args"
exit 0
SH
chmod +x capture switchyard
echo "NodeName=n1" > site-nodes.conf
SWITCHYARD_BIN=$tmp/switchyard SWITCHYARD_IBNETDISCOVER="$tmp/capture --ports mlx5_[0-7]" \
  SWITCHYARD_SITE_NODES=$tmp/site-nodes.conf SWITCHYARD_SLURM_DIR=$tmp SWITCHYARD_WORK=$tmp/work \
  SWITCHYARD_DISCOVER_ARGS="--compute-hca mlx5_[0-7]" SWITCHYARD_INSTALL_ARGS="--note grp_[a]" \
  SWITCHYARD_STEER=no "$refresh" > out 2>&1
rc=$?
failed=0
check() {  # check WHAT FILE WORD
  if grep -qxF -- "$3" "$2" 2>/dev/null; then echo "ok: $1"; else
    echo "FAIL: $1: '$3' not among the words $(tr '\n' ' ' < "$2" 2>/dev/null)"; failed=1; fi
}
[ "$rc" -eq 0 ] && echo "ok: the round ends well (exit 0)" || { echo "FAIL: exit $rc: $(cat out)"; failed=1; }
check "refresh gets discover's words as written" refresh.args '--discover-args=--compute-hca mlx5_[0-7]'
check "refresh gets install's words as written" refresh.args '--install-args=--note grp_[a]'
check "refresh is told to leave the weights alone" refresh.args '--no-steer'
check "the capture command gets its words as written" capture.args 'mlx5_[0-7]'
exit "$failed"
