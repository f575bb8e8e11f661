#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the plugin adds to a step, measured side by side on one real Slurm cluster (4 emulated
# nodes on localhost, each with the fake sysfs tree of a 4-GPU node and the discovered 16-host
# Dragonfly+ fabric): `srun -N1 true` timed with
#   none      no plugin (an empty plugstack.conf: srun and slurmstepd load nothing);
#   live      the plugin, node facts read from sysfs at each step (node.cache: off,
#             step_cache=off);
#   cached    the plugin, node facts from the node cache, ports read live (step_cache=off): the
#             step module decides every step;
#   stepcache the plugin as shipped: a step like an earlier one is set up by the front from the
#             step cache (the step module is not loaded), its inputs checked;
#   floor     a SPANK plugin that does nothing (C, built here with cc, no C++ runtime): what
#             Slurm charges any plugin (the module's dlopen in srun and slurmstepd, the SPANK
#             stack's own work), the least a SPANK plugin can cost;
#   hooks     the same with empty init_post_opt, user_init, task_init and exit hooks: the least a
#             plugin that sets a step's variables (as switchyard's hooks do) can cost;
# The modes alternate in batches (plugstack.conf and the policy are rewritten between batches;
# each srun and step's slurmstepd reads them afresh), so drift on the machine hits all three
# alike. slurmd keeps the plugin it loaded at start, which is fair only because the plugin has
# no job prolog hook (with one, slurmd would run a prolog process for every job in every
# modes; the health gate is a separate module, spank_switchyard_gate.so, not listed here).
# Prints the median and 90th percentile per mode, each mode's median over `none`, and the CPU
# time the machine spent per step in each mode (so what the plugin adds per step, on a node
# whose daemons all run here).
#
# Usage: bench/step-overhead.sh [--steps N] [--rounds R]    (defaults 20 x 5 per mode)
#        needs build/dev (scripts/test or cmake --build --preset dev)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
steps=20
rounds=5
while [ $# -gt 0 ]; do
  case $1 in
    --steps) steps=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "usage: bench/step-overhead.sh [--steps N] [--rounds R]" >&2; exit 2 ;;
  esac
done
build=${SWITCHYARD_BUILD:-$top/build/dev}
sy=$build/cli/switchyard
plugin=$build/plugin/spank_switchyard.so
[ -x "$sy" ] && [ -f "$plugin" ] || { echo "build $build first" >&2; exit 1; }
work=$(mktemp -d /tmp/switchyard-overhead.XXXXXX)
chmod 755 "$work"
run=$work/cluster
trap '"$top/tests/integration/slurm-cluster" down "$run" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$top/tests/integration/make-fabric16" "$sy" "$work/fabric" >/dev/null
"$top/tests/integration/make-node-trees" "$work/trees" node001 node002 node003 node004 >/dev/null
policy() {  # policy FILE CACHE
  printf 'version: 1\nfabric:\n  map: %s\nnode:\n  sysfs_root: %s\n  cache: %s\nnccl:\n  compute_hca: "mlx5_[0-3]"\n' \
    "$work/fabric/fabric.map" "$work/trees/%n/sys" "$2" > "$1"
}
policy "$work/cached.yaml" "$work/trees/cache/%n.node"
policy "$work/live.yaml" off
"$top/tests/integration/slurm-cluster" up "$run" "$plugin" --nodes 4 --port-base 17700 \
  --topology "$work/fabric/topology.conf" -- config="$work/cached.yaml" 2>/dev/null
eval "$("$top/tests/integration/slurm-cluster" env "$run")"
# The floor: Slurm's four plugin symbols and an init that returns 0. No Slurm header is needed;
# Slurm compares the major and minor release of plugin_version with its own.
IFS=. read -r major minor _ < <(srun --version | awk '{print $2}')
printf '%s\n' 'const char plugin_name[] = "floor";' 'const char plugin_type[] = "spank";' \
  "const unsigned int plugin_version = ($major << 16) | ($minor << 8);" \
  'const unsigned int spank_plugin_version = 1;' \
  'int slurm_spank_init(void *sp, int ac, char **av) { (void)sp; (void)ac; (void)av; return 0; }' \
  > "$work/floor.c"
cc -O2 -shared -fPIC -o "$work/spank_floor.so" "$work/floor.c"
# hooks: the same with every hook spank_switchyard.so has (each returns 0): what Slurm charges a
# plugin that runs in a step's init, init_post_opt, user_init, task_init and exit.
for hook in init_post_opt user_init task_init exit; do
  echo "int slurm_spank_$hook(void *sp, int ac, char **av) { (void)sp; (void)ac; (void)av; return 0; }"
done | cat "$work/floor.c" - > "$work/hooks.c"
cc -O2 -shared -fPIC -o "$work/spank_hooks.so" "$work/hooks.c"
plugstack=$run/etc/plugstack.conf
with_plugin=$(cat "$plugstack")

set_mode() {
  case $1 in
    none) : > "$plugstack" ;;
    live) sed "s|config=[^ ]*|config=$work/live.yaml|" <<<"$with_plugin step_cache=off" > "$plugstack" ;;
    cached) printf '%s\n' "$with_plugin step_cache=off" > "$plugstack" ;;
    stepcache) printf '%s\n' "$with_plugin step_cache=$work/state/step-cache.%n" > "$plugstack" ;;
    floor) echo "required $work/spank_floor.so" > "$plugstack" ;;
    hooks) echo "required $work/spank_hooks.so" > "$plugstack" ;;
  esac
}
modes=(none floor hooks live cached stepcache)
for m in "${modes[@]}"; do : > "$work/$m.ms"; : > "$work/$m.cpu"; done
# The whole machine's busy CPU time (user, nice, system, irq, softirq, steal) in clock ticks:
# per batch, what srun, slurmctld, slurmd and slurmstepd (and the timing's own `date`s, alike in
# every mode) spent; the difference between modes is what the plugin adds per step.
busy_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9; exit}' /proc/stat; }
srun -N1 -w node001 true  # the first step warms the daemons and writes the cache
for ((r = 0; r < rounds; r++)); do
  for m in "${modes[@]}"; do
    set_mode "$m"
    srun -N1 -w node001 true  # one untimed step after each switch
    c0=$(busy_ticks)
    for ((i = 0; i < steps; i++)); do
      t0=$(date +%s%N)
      srun -N1 -w node001 true
      t1=$(date +%s%N)
      echo $(((t1 - t0) / 1000)) >> "$work/$m.ms"
    done
    echo "$(($(busy_ticks) - c0)) $steps" >> "$work/$m.cpu"
  done
done
set_mode cached
[ -f "$work/trees/cache/node001.node" ] || { echo "step-overhead: the steps wrote no node cache" >&2; exit 1; }
[ -f "$work/state/step-cache.node001" ] || { echo "step-overhead: the steps wrote no step cache" >&2; exit 1; }

python3 - "$work" "$(getconf CLK_TCK)" "${modes[@]}" <<'PY'
import statistics, sys
work, hz, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
us = {m: sorted(int(x) for x in open(f"{work}/{m}.ms")) for m in modes}
cpu = {}
for m in modes:
    ticks = steps = 0
    for line in open(f"{work}/{m}.cpu"):
        t, n = map(int, line.split())
        ticks, steps = ticks + t, steps + n
    cpu[m] = 1000.0 * ticks / hz / steps
base = statistics.median(us["none"])
print(f"srun -N1 true on a 4-node Slurm cluster, {len(us['none'])} steps per mode, modes alternating")
print("CPU: the whole machine's busy time per step (srun and every daemon run here)")
print(f"{'mode':9} {'median ms':>10} {'p90 ms':>8} {'vs none':>9} {'CPU ms':>8} {'CPU vs none':>12}")
for m in modes:
    v = us[m]
    med = statistics.median(v)
    p90 = v[int(0.9 * (len(v) - 1))]
    print(f"{m:9} {med / 1000:10.2f} {p90 / 1000:8.2f} {100 * (med - base) / base:+8.1f}%"
          f" {cpu[m]:8.2f} {cpu[m] - cpu['none']:+11.2f}")
PY
