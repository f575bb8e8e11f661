#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the advice line adds to a submission, measured side by side on one real Slurm cluster
# (16 emulated nodes on localhost, the discovered 16-host Dragonfly+ fabric, job_submit.lua and
# cli_filter.lua installed, one node of every SU drained so the pipeline job's stages fit no SU
# and the line is printed): `sbatch --hold` timed with
#   plain     a job without --pipeline-stages (cli_filter.lua has nothing to do);
#   off       -N8 --pipeline-stages=2 --stage-scope=leaf with SWITCHYARD_ADVICE_SECONDS=0 (the
#             request decided, no advice);
#   advice    the same job as shipped: `switchyard why --quiet` (the map read, one sinfo) and
#             its line printed.
# The modes alternate in batches, so drift on the machine hits all three alike. Prints the
# median and 90th percentile per mode and each mode's median over `plain`.
#
# Usage: bench/advice-latency.sh [--jobs N] [--rounds R]    (defaults 10 x 5 per mode)
#        needs build/dev (scripts/test or cmake --build --preset dev)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=10
rounds=5
while [ $# -gt 0 ]; do
  case $1 in
    --jobs) jobs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "usage: bench/advice-latency.sh [--jobs N] [--rounds R]" >&2; exit 2 ;;
  esac
done
build=${SWITCHYARD_BUILD:-$top/build/dev}
sy=$build/cli/switchyard
plugin=$build/plugin/spank_switchyard.so
[ -x "$sy" ] && [ -f "$plugin" ] || { echo "build $build first" >&2; exit 1; }
work=$(mktemp -d /tmp/switchyard-advice.XXXXXX)
chmod 755 "$work"
run=$work/cluster
trap '"$top/tests/integration/slurm-cluster" down "$run" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$top/tests/integration/make-fabric16" "$sy" "$work/fabric" >/dev/null
printf 'version: 1\nfabric:\n  map: %s\n' "$work/fabric/fabric.map" > "$work/switchyard.yaml"
export SWITCHYARD_BIN=$sy SWITCHYARD_POLICY=$work/switchyard.yaml
export SWITCHYARD_JOB_SUBMIT_HINTS=$work/fabric/job_submit_hints.lua
"$top/tests/integration/slurm-cluster" up "$run" "$plugin" --nodes 16 --port-base 18800 \
  --topology "$work/fabric/topology.conf" --job-submit "$top/etc/job_submit.lua" \
  --cli-filter "$top/etc/cli_filter.lua" --features "$work/fabric/node-features.sh" \
  -- config="$work/switchyard.yaml" nccl_env=off 2>/dev/null
eval "$("$top/tests/integration/slurm-cluster" env "$run")"
cd "$run/jobs"
# One node of every SU drained: a stage of 4 fits no SU, and the line is printed.
drained=$(sed -n 's/^SwitchName=[^ ]* Nodes=\([^ ]*\)$/\1/p' "$work/fabric/topology.conf" |
  while read -r list; do scontrol show hostnames "$list" | head -1; done | paste -sd,)
scontrol update nodename="$drained" state=drain reason=advice-bench
line=$(sbatch --hold -N8 --pipeline-stages=2 --stage-scope=leaf -o /dev/null --wrap true 2>&1 >/dev/null)
grep -q 'cannot start now' <<<"$line" || { echo "advice-latency: no advice line: $line" >&2; exit 1; }

submit() {  # submit MODE
  case $1 in
    plain) sbatch --hold -N8 -o /dev/null --wrap true ;;
    off) SWITCHYARD_ADVICE_SECONDS=0 sbatch --hold -N8 --pipeline-stages=2 --stage-scope=leaf \
      -o /dev/null --wrap true ;;
    advice) sbatch --hold -N8 --pipeline-stages=2 --stage-scope=leaf -o /dev/null --wrap true ;;
  esac
}
modes=(plain off advice)
for m in "${modes[@]}"; do : > "$work/$m.us"; done
for ((r = 0; r < rounds; r++)); do
  for m in "${modes[@]}"; do
    for ((i = 0; i < jobs; i++)); do
      t0=$(date +%s%N)
      submit "$m" >/dev/null 2>&1
      t1=$(date +%s%N)
      echo $(((t1 - t0) / 1000)) >> "$work/$m.us"
    done
    scancel --state=PENDING --quiet "--user=$(id -un)"
  done
done

python3 - "$work" "${modes[@]}" <<'PY'
import statistics, sys
work, modes = sys.argv[1], sys.argv[2:]
us = {m: sorted(int(x) for x in open(f"{work}/{m}.us")) for m in modes}
base = statistics.median(us["plain"])
print(f"sbatch --hold on a 16-node Slurm cluster, {len(us['plain'])} submissions per mode, modes alternating")
print(f"{'mode':7} {'median ms':>10} {'p90 ms':>8} {'vs plain':>9}")
for m in modes:
    v = us[m]
    med = statistics.median(v)
    p90 = v[int(0.9 * (len(v) - 1))]
    print(f"{m:7} {med / 1000:10.2f} {p90 / 1000:8.2f} {(med - base) / 1000:+6.2f} ms")
PY
