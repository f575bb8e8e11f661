#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The CPU one `switchyard health` run costs with NHC's basic checks (memory, / mounted
# read-write, free space on / and /tmp), side by side with LBNL NHC running the same checks:
# each run's user + system CPU (its children included) from getrusage, the commands interleaved
# run by run so that both see the same machine, medians printed. Also the floor (exec of
# /bin/true), Switchyard's start-up alone (--version), and the same health run with a check that
# reads the node's facts (gpus: 0) against a fake sysfs of --pci N PCI devices (300: a GPU
# node's count), which is what a run cost before it read the node only when a check needs it.
# NHC is not a Debian package: give a checkout of github.com/mej/nhc with --nhc DIR (nothing is
# downloaded here); without it only Switchyard's figures are printed.
# Usage: bench/health-vs-nhc.sh [--runs N] [--nhc DIR] [--pci N]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=200 nhc="" pci=300
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --nhc) nhc=$(cd "$2" && pwd); shift 2 ;;
    --pci) pci=$2; shift 2 ;;
    *) echo "usage: bench/health-vs-nhc.sh [--runs N] [--nhc DIR] [--pci N]" >&2; exit 2 ;;
  esac
done
cd "$top"
cmake --preset release >/dev/null
cmake --build --preset release --target switchyard_cli >/dev/null
sy=$top/build/release/cli/switchyard
work=$(mktemp -d /tmp/switchyard-health-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 0755 "$work"

cat > "$work/basic.yaml" <<'EOF'
version: 1
health:
  enabled: true
  min_memory_gb: 1
  filesystems:
    - {path: /, min_free_gb: 1, writable: false}
    - {path: /tmp, min_free_gb: 1, writable: true}
EOF
sed 's/^  min_memory_gb: 1$/  min_memory_gb: 1\n  gpus: 0/' "$work/basic.yaml" > "$work/scan.yaml"
# A fake /sys: N PCI bridges (class, vendor, device, NUMA node), no RDMA device.
for ((i = 0; i < pci; i++)); do
  d=$work/sys/bus/pci/devices/$(printf '0000:%02x:%02x.0' $((i / 32)) $((i % 32)))
  mkdir -p "$d"
  echo 0x060400 > "$d/class"; echo 0x15b3 > "$d/vendor"; echo 0x1979 > "$d/device"
  echo $((i % 2)) > "$d/numa_node"
done
mkdir -p "$work/sys/class/infiniband" "$work/sys/devices/system/node"

cat > "$work/nhc.conf" <<'EOF'
* || check_hw_physmem 1gb 100tb
* || check_fs_mount_rw -f /
* || check_fs_free / 1%
* || check_fs_free /tmp 1%
EOF
cmds=("/bin/true" "$sy --version" "$sy health --policy $work/basic.yaml"
      "$sy health --policy $work/scan.yaml --sysfs-root $work/sys")
names=("exec floor (/bin/true)" "switchyard --version (start-up)"
       "switchyard health, NHC's basic checks" "the same + a check reading $pci PCI devices")
for c in "$sy health --policy $work/basic.yaml" "$sy health --policy $work/scan.yaml --sysfs-root $work/sys"; do
  $c >/dev/null || { echo "bench: '$c' did not pass" >&2; $c; exit 1; }
done
if [ -n "$nhc" ]; then
  mkdir -p "$work/nhc-etc" && cp -r "$nhc/scripts" "$work/nhc-etc/scripts"
  n="$nhc/nhc -D $work/nhc-etc -c $work/nhc.conf -l /dev/null NHC_RM=none HELPERDIR=$nhc/helpers"
  $n || { echo "bench: NHC's basic checks did not pass here" >&2; exit 1; }
  cmds+=("$n"); names+=("LBNL NHC, the same checks")
fi
python3 - "$runs" "${#cmds[@]}" "${cmds[@]}" "${names[@]}" <<'EOF'
import resource, shlex, statistics, subprocess, sys
runs, n = int(sys.argv[1]), int(sys.argv[2])
cmds, names = [shlex.split(c) for c in sys.argv[3:3 + n]], sys.argv[3 + n:3 + 2 * n]
cpu = [[] for _ in cmds]
for _ in range(runs):
    for k, c in enumerate(cmds):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu[k].append(1000 * (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
med = [statistics.median(x) for x in cpu]
print(f"CPU per run, median of {runs} (user + system, children included):")
for name, m, x in zip(names, med, cpu):
    print(f"  {m:8.2f} ms  (p90 {sorted(x)[int(0.9 * len(x))]:7.2f})  {name}")
if n > 4:
    print(f"NHC / switchyard health: {med[4] / med[2]:.1f}x; without the exec floor both pay: "
          f"{(med[4] - med[0]) / (med[2] - med[0]):.1f}x")
EOF
