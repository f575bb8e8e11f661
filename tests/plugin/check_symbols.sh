#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks that a SPANK plugin exports exactly Slurm's four plugin symbols and slurm_spank_* hooks.
# Usage: check_symbols.sh PLUGIN.so
set -euo pipefail
so=${1:?usage: check_symbols.sh PLUGIN.so}
syms=$(nm -D --defined-only "$so" | awk '{print $3}' | sort)
echo "defined dynamic symbols of $so:"; echo "$syms" | sed 's/^/  /'
status=0
for required in plugin_name plugin_type plugin_version spank_plugin_version slurm_spank_init; do
  grep -qx "$required" <<<"$syms" || { echo "FAIL: required symbol $required is not exported"; status=1; }
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
