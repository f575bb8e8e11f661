#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `switchyard discover` end to end at issue 13's scale: a synthetic Dragonfly+ dump of 100k
# hosts x 8 rails (800k HCAs, ~320 MB of ibnetdiscover text), read from a file, classified and
# written as discover's eight files. Prints wall time and peak memory of each run and the median
# (bench/discover_bench times the parse, classify and write inside one process).
# Usage: bench/discover-800k.sh [--runs N] [--hosts H] [--rails R]     (defaults 5, 100000, 8)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=5 hosts=100000 rails=8
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    --rails) rails=$2; shift 2 ;;
    *) echo "usage: bench/discover-800k.sh [--runs N] [--hosts H] [--rails R]" >&2; exit 2 ;;
  esac
done
cd "$top"
cmake --preset release >/dev/null
cmake --build --preset release --target switchyard_cli fabric_bench >/dev/null
work=$(mktemp -d /tmp/switchyard-discover-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
build/release/bench/fabric_bench --write-dump "$hosts" "$rails" "$work/fabric.txt"
echo "dump: $hosts hosts x $rails rails, $(( $(stat -c %s "$work/fabric.txt") / 1000000 )) MB"
cat "$work/fabric.txt" > /dev/null  # in the page cache, as a dump just written by ibnetdiscover
for ((i = 1; i <= runs; i++)); do
  /usr/bin/time -f "%e %M" -o "$work/time.$i" \
    build/release/cli/switchyard discover --ibnetdiscover "$work/fabric.txt" -o "$work/out" >/dev/null
  read -r secs kib < "$work/time.$i"
  echo "run $i: $secs s, peak $(( kib / 1024 )) MiB"
done
cat "$work"/time.* | sort -n | awk '{t[NR] = $1; m[NR] = $2} END {
  printf "median: %.2f s, peak %d MiB (of %d runs)\n", t[int((NR + 1) / 2)], m[int((NR + 1) / 2)] / 1024, NR }'
