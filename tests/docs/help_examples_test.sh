#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every subcommand listed by `switchyard --help` has --help with examples that run `switchyard`.
set -uo pipefail
sy=${1:?usage: help_examples_test.sh SWITCHYARD}
status=0
cmds=$("$sy" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF {print $1}')
[ -n "$cmds" ] || { echo "FAIL: no subcommands in switchyard --help"; exit 1; }
for c in $cmds; do
  help=$("$sy" "$c" --help)
  if grep -q '^Examples:' <<<"$help" && grep -q "^  switchyard $c" <<<"$help"; then
    echo "ok: switchyard $c --help has examples"
  else
    echo "FAIL: switchyard $c --help has no 'Examples:' running 'switchyard $c'"; status=1
  fi
done
exit $status
