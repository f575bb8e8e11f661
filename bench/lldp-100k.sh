#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `switchyard discover --lldp` end to end at issue 36's scale: the lldpctl outputs of a
# rail-optimised Ethernet fabric of 100k hosts x 8 rails (bench/gen_lldp.py: one pretty-printed
# `show chassis` + `show neighbors` JSON per switch, ~26,600 files, ~1.25 GB; --host-files adds
# one per host), read, classified and written as discover's eight files. Prints wall time, CPU
# time and peak memory of each run and the median. The first --warmup runs (1) are printed and
# left out of the median: on a VM whose balloon reports free pages to the host (as the
# development machine's does), the first run after a pause gets its ~400 MB back from the host
# page by page, and its kernel time doubles (design.md, "Ethernet fabrics from LLDP").
# --plain: every file plain `lldpctl -f json` (no `show chassis`), named from the cables.
# Usage: bench/lldp-100k.sh [--runs N] [--warmup N] [--hosts H] [--rails R] [--host-files] [--plain]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=3 warmup=1 hosts=100000 rails=8 extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    --rails) rails=$2; shift 2 ;;
    --host-files) extra+=(--host-files); shift ;;
    --plain) extra+=(--plain); shift ;;
    *) echo "usage: bench/lldp-100k.sh [--runs N] [--warmup N] [--hosts H] [--rails R] [--host-files] [--plain]" >&2; exit 2 ;;
  esac
done
cd "$top"
cmake --preset release >/dev/null
cmake --build --preset release --target switchyard_cli >/dev/null
work=$(mktemp -d /tmp/switchyard-lldp-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 bench/gen_lldp.py "$work/lldp" --hosts "$hosts" --rails "$rails" "${extra[@]}"
sync  # the files written back to disk first: writeback beside the runs took their CPU
cat "$work"/lldp/* > /dev/null  # in the page cache, as files just gathered
for ((i = 1 - warmup; i <= runs; i++)); do
  /usr/bin/time -f "%e %U %S %M" -o "$work/time.$i" \
    build/release/cli/switchyard discover --lldp "$work/lldp" -o "$work/out" >/dev/null
  read -r secs user sys kib < "$work/time.$i"
  if ((i < 1)); then
    echo "warm-up: $secs s ($user user, $sys sys), peak $(( kib / 1024 )) MiB (not counted)"
    rm "$work/time.$i"
  else
    echo "run $i: $secs s ($user user, $sys sys), peak $(( kib / 1024 )) MiB"
  fi
done
cat "$work"/time.* | sort -n | awk '{t[NR] = $1; m[NR] = $4} END {
  printf "median: %.2f s, peak %d MiB (of %d runs)\n", t[int((NR + 1) / 2)], m[int((NR + 1) / 2)] / 1024, NR }'
