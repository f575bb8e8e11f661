#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every CLI command that reads a file, given a FIFO (no writer), a directory, /dev/zero, N MB of
# random bytes, and hostile option values: each must answer with a clear error (exit 1 or 2, a
# message, no "internal error"), within 60 s and 1.5 GB of address space (RLIMIT_AS; with
# SWITCHYARD_ASAN=1, 1.5 GB of peak RSS, as ASan needs the address space; a command
# killed by the limit or a signal fails). Prints one row per case: exit, seconds, peak RSS.
#   bench/hostile-inputs.sh SWITCHYARD [RANDOM_MB]   (default 300; the CTest case uses 16)
# Exit 0 when every case answered as it should.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sy=${1:?usage: hostile-inputs.sh SWITCHYARD [RANDOM_MB]}
mb=${2:-300}
good_map=$here/../tests/golden/render/bad-plan/fabric.map
good_dump=$here/../tests/data/ib/dfp16.ibnetdiscover
work=$(mktemp -d /tmp/sy-hostile.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkfifo "$work/fifo"
mkdir "$work/dir" "$work/out"
head -c "$((mb * 1024 * 1024))" /dev/urandom > "$work/random"
long=$(head -c 100000 /dev/zero | tr '\0' '9')  # one argument may hold 128 KiB

failures=0
printf '%-58s %-10s %5s %8s %10s\n' "command" "input" "exit" "seconds" "peak MB"
# case LABEL INPUT_NAME CMD... — runs CMD (with @ replaced by the input's path).
case_() {
  local label=$1 name=$2 input=$3; shift 3
  local args=() a
  for a in "$@"; do args+=("${a//@/$input}"); done
  local rc secs peak
  # rc, seconds and peak RSS (MB) of the command under a 60 s deadline and a 1.5 GB limit.
  read -r rc secs peak < <(python3 - "$work" "$sy" "${args[@]}" <<'PY'
import resource, subprocess, sys, time
import os
work, argv = sys.argv[1], sys.argv[2:]
# ASan reserves terabytes of address space for its shadow: there the bound is the peak RSS,
# checked after the run, instead of an address-space limit.
asan = os.environ.get("SWITCHYARD_ASAN") == "1"
limit = None if asan else (lambda: resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20)))
t0 = time.monotonic()
with open(work + "/stdout", "wb") as out, open(work + "/stderr", "wb") as err:
    try:
        rc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                            preexec_fn=limit, timeout=60).returncode
    except subprocess.TimeoutExpired:
        rc = 124
rc = 128 - rc if rc < 0 else rc  # killed by signal N: 128+N, as the shell says
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
if asan and peak > 1536:
    rc = 137  # as if the limit had killed it
print(rc, "%.2f" % (time.monotonic() - t0), "%.1f" % peak)
PY
)
  printf '%-58s %-10s %5s %8s %10s\n' "$label" "$name" "$rc" "$secs" "$peak"
  if [ "$rc" != 1 ] && [ "$rc" != 2 ]; then
    echo "  FAIL: exit $rc, expected 1 or 2 (124 is the 60 s timeout; above 128 a signal)"
    failures=$((failures + 1))
  elif grep -q "internal error" "$work/stderr" || [ ! -s "$work/stderr" ]; then
    echo "  FAIL: no clear message: $(head -c 300 "$work/stderr")"
    failures=$((failures + 1))
  fi
}

for input in fifo dir zero random; do
  case $input in
    fifo) path=$work/fifo ;;
    dir) path=$work/dir ;;
    zero) path=/dev/zero ;;
    random) path=$work/random ;;
  esac
  name=$input
  [ "$input" = random ] && name="${mb}MB-rand"
  case_ "discover --ibnetdiscover @" "$name" "$path" discover --ibnetdiscover @ -o "$work/out"
  case_ "discover --guid-map @" "$name" "$path" discover --ibnetdiscover "$good_dump" --guid-map @ -o "$work/out"
  case_ "fabric show --map @" "$name" "$path" fabric show --map @
  case_ "node --hwloc-xml @" "$name" "$path" node --hwloc-xml @
  case_ "check-config @" "$name" "$path" check-config @
  case_ "nccl-env --policy @" "$name" "$path" nccl-env --policy @ --host node001
  case_ "nccl-env --map @" "$name" "$path" nccl-env --map @ --hwloc-xml @ --host node001
  case_ "plan --map @" "$name" "$path" plan --map @ --nodes 'node[001-004]' --stages 2
  case_ "plan --policy @" "$name" "$path" plan --policy @ --nodes 'node[001-004]' --stages 2
  case_ "health --policy @" "$name" "$path" health --policy @ --host node001
  case_ "render --map @" "$name" "$path" render --map @
  case_ "render --plan @" "$name" "$path" render --map "$good_map" --plan @
  # --health takes a directory: an empty one is a valid input (no node failed).
  [ "$input" != dir ] && case_ "render --health @" "$name" "$path" render --map "$good_map" --health @
done
# --lldp directories of four files of tiny JSON values ("0,0,0,..."): each value read costs a
# 32-byte node, so before the bound these cost 16 times their size (2.7 GB for four of 63 MB).
# Files under the 16 MiB file bound are refused by the value bound; larger ones by the file bound.
for lldp_mb in $((mb < 15 ? mb : 15)) $((mb > 63 ? 63 : 0)); do
  [ "$lldp_mb" -gt 0 ] || continue
  mkdir -p "$work/lldp-$lldp_mb"
  for i in 1 2 3 4; do
    python3 -c 'import sys; n = int(sys.argv[1]) << 19; sys.stdout.write("{\"lldp\": [" + "0," * n + "0]}")' \
      "$lldp_mb" > "$work/lldp-$lldp_mb/host$i.json"
  done
  case_ "discover --lldp <4 files of tiny values>" "4x${lldp_mb}MB" - discover --lldp "$work/lldp-$lldp_mb" -o "$work/out"
  rm -rf "$work/lldp-$lldp_mb"
done
# Hostile values.
case_ "plan --nodes 'n[18446744073709551615-18446744073709551615]x'" value - plan --map "$good_map" --nodes 'n[18446744073709551615-18446744073709551615]x[0-9]' --stages 3
case_ "plan --nodes 'a[0-999999]b[0-9999]'" value - plan --map "$good_map" --nodes 'a[0-999999]b[0-9999]' --stages 2
case_ "plan --nodes <100k digits>" value - plan --map "$good_map" --nodes "n$long" --stages 2
case_ "plan --nodes 'n[1-<100k digits>]'" value - plan --map "$good_map" --nodes "n[1-$long]" --stages 2
case_ "plan --stages 4294967297" value - plan --map "$good_map" --nodes 'node[001-004]' --stages 4294967297
case_ "nccl-env --nccl-env <100k characters>" value - nccl-env --map "$good_map" --nodes node001 --host node001 --nccl-env "$long"
case_ "nccl-env --tasks-per-node 99999999999999999999" value - nccl-env --map "$good_map" --host node001 --tasks-per-node 99999999999999999999
case_ "discover --compute-hca 'a{77777777777777777777}'" value - discover --ibnetdiscover "$good_dump" --compute-hca 'a{77777777777777777777}' -o "$work/out"
case_ "discover --compute-hca '((((((((((a*)*)*)*)*)*)*)*)*)*)b'" value - discover --ibnetdiscover "$good_dump" --compute-hca '((((((((((a*)*)*)*)*)*)*)*)*)*)b' -o "$work/out"
case_ "discover --topology-plugin torus" value - discover --ibnetdiscover "$good_dump" --topology-plugin torus -o "$work/out"
case_ "discover -o <a FIFO>" value - discover --ibnetdiscover "$good_dump" -o "$work/fifo"
case_ "render -o <a directory>" value - render --map "$good_map" -o "$work/dir"
if [ $failures -eq 0 ]; then
  echo "hostile inputs: every case answered with a clear error"
else
  echo "hostile inputs: $failures case(s) failed"
fi
[ $failures -eq 0 ]
