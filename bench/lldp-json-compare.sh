#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The LLDP reader's own JSON reader against nlohmann/json, side by side in one run, on the
# lldpctl files of a rail-optimised Ethernet fabric (bench/gen_lldp.py; 100k hosts x 8 rails by
# default, ~26,600 files, ~1.25 GB): the two alternate (switchyard, nlohmann, ...) and each run
# prints its parsing CPU time; the peak memory (max RSS) comes from /usr/bin/time. Medians at
# the end. Why discover keeps its own reader is this measurement (docs/design.md).
# Usage: bench/lldp-json-compare.sh [--runs N] [--hosts H] [--rails R]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=3 hosts=100000 rails=8
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    --rails) rails=$2; shift 2 ;;
    *) echo "usage: bench/lldp-json-compare.sh [--runs N] [--hosts H] [--rails R]" >&2; exit 2 ;;
  esac
done
cd "$top"
cmake --preset release >/dev/null
cmake --build --preset release --target lldp_json_compare >/dev/null
work=$(mktemp -d /tmp/switchyard-json-compare.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 bench/gen_lldp.py "$work/lldp" --hosts "$hosts" --rails "$rails" >/dev/null
sync
cat "$work"/lldp/* > /dev/null  # in the page cache
for ((i = 1; i <= runs; i++)); do
  for who in switchyard nlohmann; do
    /usr/bin/time -f "%M" -o "$work/rss" build/release/bench/lldp_json_compare "$who" "$work/lldp" \
      > "$work/out"
    cpu=$(sed -nE 's/.*parsing ([0-9.]+) s CPU.*/\1/p' "$work/out")
    echo "$cpu $(cat "$work/rss")" >> "$work/$who"
    echo "run $i: $(cat "$work/out"), peak $(( $(cat "$work/rss") / 1024 )) MiB"
  done
done
for who in switchyard nlohmann; do
  cpu=$(cut -d' ' -f1 "$work/$who" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
  rss=$(cut -d' ' -f2 "$work/$who" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
  echo "median $who: parsing $cpu s CPU, peak $(( rss / 1024 )) MiB"
done
