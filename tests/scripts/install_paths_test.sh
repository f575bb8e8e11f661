#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# switchyard install with relative paths, from a directory only its user can write: --state as a
# bare file name (its directory is "."), and SLURM_CONF as a bare file name (slurm.conf's
# directory is ".", as Slurm opens it, not /etc/slurm).
# Usage: install_paths_test.sh SWITCHYARD_BINARY MAP
set -uo pipefail
sy=${1:?usage: install_paths_test.sh SWITCHYARD_BINARY MAP}
map=${2:?}
tmp=$(mktemp -d /tmp/switchyard-install-paths.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 700 "$tmp"
cd "$tmp" || exit 1
mkdir from && cp "$map" from/fabric.map
failed=0
SLURM_CONF=slurm.conf "$sy" install --from from --state install.state > out 2> err
rc=$?
if [ "$rc" -eq 1 ] && grep -qF ". holds neither topology.conf nor topology.yaml" err; then
  echo "ok: SLURM_CONF=slurm.conf means the current directory"
else
  echo "FAIL: exit $rc, expected 1 and '. holds neither ...': $(cat err)"; failed=1
fi
if [ -s install.state ] && grep -q '^last_result failed$' install.state; then
  echo "ok: --state install.state is kept in the current directory"
else
  echo "FAIL: no install.state here: $(ls -A) / $(cat err)"; failed=1
fi
exit "$failed"
