#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the split of the steps' plugin: the front (spank_switchyard.so, loaded by every srun)
# needs no C++ runtime, yaml-cpp or hwloc, and the step module exports only switchyard_step_v1.
# Neither brings an allocator of its own into srun or slurmstepd; the switchyard command does
# (jemalloc) when the build is not sanitized: ALLOCATOR is jemalloc or none.
# Usage: check_front.sh FRONT.so STEP.so [CLI ALLOCATOR]
set -euo pipefail
front=${1:?usage: check_front.sh FRONT.so STEP.so [CLI ALLOCATOR]}
step=${2:?usage: check_front.sh FRONT.so STEP.so [CLI ALLOCATOR]}
cli=${3:-} allocator=${4:-none}
status=0
for module in "$front" "$step"; do
  if readelf -d "$module" | grep -E 'NEEDED.*lib(jemalloc|mimalloc|tcmalloc)'; then
    echo "FAIL: $module brings its own allocator into srun and slurmstepd"; status=1
  fi
done
if [ -n "$cli" ]; then
  if readelf -d "$cli" | grep -qE 'NEEDED.*\[libjemalloc'; then has=jemalloc; else has=none; fi
  echo "$cli allocates with: $has (expected $allocator)"
  [ "$has" = "$allocator" ] || status=1
fi
needed=$(readelf -d "$front" | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p')
echo "$front needs:"; echo "$needed" | sed 's/^/  /'
# Sanitizer builds add their runtimes (libasan, libubsan); nothing else of C++ may appear.
bad=$(grep -E '^lib(stdc\+\+|yaml-cpp|hwloc|udev|gcc_s)' <<<"$needed" || true)
if [ -n "$bad" ]; then
  echo "FAIL: the front needs:"; echo "$bad" | sed 's/^/  /'; status=1
fi
undefined=$(nm -D --undefined-only "$front" | awk '{print $2}' | grep -E '^_Z|^__cxa|^__gxx' | grep -v '@GLIBC_' || true)
if [ -n "$undefined" ]; then
  echo "FAIL: the front refers to C++ runtime symbols:"; echo "$undefined" | sed 's/^/  /'; status=1
fi
exported=$(nm -D --defined-only "$step" | awk '{print $3}' | sort | tr '\n' ' ')
echo "$step exports: $exported"
[ "$exported" = "switchyard_step_v1 " ] || { echo "FAIL: the step module must export switchyard_step_v1 alone"; status=1; }
readelf -d "$step" | grep -qE 'BIND_NOW|FLAGS.*NOW' || { echo "FAIL: $step not linked with -z now"; status=1; }
[ $status -eq 0 ] && echo "ok: the front needs no C++ runtime; the step module exports one entry"
exit $status
