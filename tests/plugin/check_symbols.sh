#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks that a SPANK plugin exports exactly Slurm's four plugin symbols and slurm_spank_* hooks,
# with the hooks it must have and without those it must not (slurmd runs a prolog process for
# every job when a loaded plugin has slurm_spank_job_prolog).
# Usage: check_symbols.sh PLUGIN.so 'REQUIRED_HOOK...' 'ABSENT_HOOK...'
set -euo pipefail
so=${1:?usage: check_symbols.sh PLUGIN.so 'REQUIRED_HOOK...' 'ABSENT_HOOK...'}
hooks=${2-}
absent=${3-}
syms=$(nm -D --defined-only "$so" | awk '{print $3}' | sort)
echo "defined dynamic symbols of $so:"; echo "$syms" | sed 's/^/  /'
status=0
for required in plugin_name plugin_type plugin_version spank_plugin_version $hooks; do
  grep -qx "$required" <<<"$syms" || { echo "FAIL: required symbol $required is not exported"; status=1; }
done
for hook in $absent; do
  ! grep -qx "$hook" <<<"$syms" || { echo "FAIL: $hook is exported and must not be"; status=1; }
done
extra=$(grep -vxE 'plugin_name|plugin_type|plugin_version|spank_plugin_version|slurm_spank_[a-z_]+' <<<"$syms" || true)
if [ -n "$extra" ]; then
  echo "FAIL: symbols outside the allow-list:"; echo "$extra" | sed 's/^/  /'; status=1
fi
# relro/now: the dynamic section must say BIND_NOW and there must be a GNU_RELRO segment.
readelf -d "$so" | grep -qE 'BIND_NOW|FLAGS.*NOW' || { echo "FAIL: not linked with -z now"; status=1; }
readelf -l "$so" | grep -q GNU_RELRO || { echo "FAIL: no GNU_RELRO segment"; status=1; }
[ $status -eq 0 ] && echo "ok: only allowed symbols, relro+now"
exit $status
