#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The switchyard command at two revisions, side by side in one run: builds the release preset of
# BASE in a worktree (cached under /tmp) and of this checkout, then times each workload with the
# two binaries alternating (base, here, base, here, ...), and prints each one's median wall time
# and peak memory. Workloads: discover of issue 13's synthetic Dragonfly+ dump (100k hosts x 8
# rails, 800k HCAs), discover --lldp of 100k hosts' lldpctl files, and `switchyard node --json`
# of a real GPU node's hwloc XML; then fabric_bench's parse, classify, write, map-load and LLDP
# benchmarks of both builds, alternating, each repeated and its median printed side by side
# (--no-fabric-bench leaves them out). For a refactor that must not move the numbers.
# Usage: bench/compare-revisions.sh BASE [--runs N] [--hosts H] [--no-fabric-bench]
#        (defaults 5, 100000)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
base=${1:?usage: bench/compare-revisions.sh BASE [--runs N] [--hosts H]}
shift
runs=5 hosts=100000 fabric_bench=yes
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    --no-fabric-bench) fabric_bench=no; shift ;;
    *) echo "usage: bench/compare-revisions.sh BASE [--runs N] [--hosts H]" >&2; exit 2 ;;
  esac
done
cd "$top"
rev=$(git rev-parse --short "$base^{commit}")
tree=/tmp/switchyard-bench-base-$rev
if [ ! -d "$tree" ]; then
  git worktree add -q --detach "$tree" "$rev"
fi
echo "building $rev (base) and $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo '+changes') (here)"
(cd "$tree" && cmake --preset release >/dev/null &&
  cmake --build --preset release --target switchyard_cli fabric_bench >/dev/null)
cmake --preset release >/dev/null
cmake --build --preset release --target switchyard_cli fabric_bench >/dev/null
declare -A bin=([base]="$tree/build/release/cli/switchyard" [here]="$top/build/release/cli/switchyard")
work=$(mktemp -d /tmp/switchyard-compare.XXXXXX)
trap 'rm -rf "$work"' EXIT
build/release/bench/fabric_bench --write-dump "$hosts" 8 "$work/fabric.txt" >/dev/null
python3 bench/gen_lldp.py "$work/lldp" --hosts "$hosts" --rails 8 >/dev/null
xml=$(ls tests/data/real/hwloc-xml/*.xml | head -1)
sync
cat "$work/fabric.txt" "$work"/lldp/* > /dev/null  # in the page cache
# time WORKLOAD WHO ARGS...: one run, "secs kib user-secs" appended to $work/WORKLOAD.WHO
time_one() {
  local load=$1 who=$2
  shift 2
  sync  # the last run's files written back first: writeback beside a run takes its CPU
  /usr/bin/time -f "%e %M %U" -a -o "$work/$load.$who" "${bin[$who]}" "$@" >/dev/null
}
# Run 0 warms both up and is not counted. The order alternates (base first, then here first):
# on a VM whose balloon takes freed pages back, the second of a pair pays the first's memory.
for ((i = 0; i <= runs; i++)); do
  order="base here"
  [ $((i % 2)) -eq 1 ] && order="here base"
  for who in $order; do
    time_one discover-800k "$who" discover --ibnetdiscover "$work/fabric.txt" -o "$work/out-$who"
    time_one lldp-100k "$who" discover --lldp "$work/lldp" -o "$work/lldp-out-$who"
    # node --json takes milliseconds: 20 runs timed together, one sample of their mean
    t0=$(date +%s%N)
    for _ in $(seq 20); do "${bin[$who]}" node --hwloc-xml "$xml" --json >/dev/null; done
    echo "$(( ($(date +%s%N) - t0) / 20000 )) 0 0" >> "$work/node-json.$who"
    if [ "$i" -eq 0 ]; then rm -f "$work"/*."$who"; fi
  done
done
cmp -s "$work/out-base/fabric.map" "$work/out-here/fabric.map" && same=yes || same=no
printf "%-14s %-5s %10s %10s %12s\n" workload rev "median" "peak MiB" "user CPU"
for load in discover-800k lldp-100k node-json; do
  unit=s
  [ "$load" = node-json ] && unit=us
  for who in base here; do
    # Each column's own median (wall time, peak memory, user CPU).
    for col in 1 2 3; do cut -d' ' -f"$col" "$work/$load.$who" | sort -n |
      sed -n "$(( ($(wc -l < "$work/$load.$who") + 1) / 2 ))p"; done | paste -sd' ' |
      awk -v l="$load" -v w="$who" -v u="$unit" '{
        printf "%-14s %-5s %8.3f %s %10d %10.2f s\n", l, w, $1, u, $2 / 1024, $3 }'
  done
done
echo "fabric.map of the 800k dump byte-identical between the two: $same"
if [ "$fabric_bench" = yes ]; then
  declare -A bench=([base]="$tree/build/release/bench/fabric_bench" [here]="$top/build/release/bench/fabric_bench")
  filter='BM_Parse/|BM_Classify|BM_Write|BM_MapLoad|BM_ParseLldpLeaf'
  for ((i = 1; i <= runs; i++)); do
    order="base here"
    [ $((i % 2)) -eq 0 ] && order="here base"
    for who in $order; do
      # JSON, not CSV: Google Benchmark's CSV reporter aborts when benchmarks differ in counters.
      "${bench[$who]}" --benchmark_filter="$filter" --benchmark_format=json 2>/dev/null |
        python3 -c 'import json, sys
for b in json.load(sys.stdin)["benchmarks"]:
    print(b["name"], b["real_time"], b["time_unit"])' >> "$work/fb.$who"
    done
  done
  printf "%-44s %12s %12s\n" "fabric_bench (median of $runs, real time)" base here
  for name in $(awk '{print $1}' "$work/fb.base" | sort -u); do
    b=$(awk -v n="$name" '$1 == n {print $2}' "$work/fb.base" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
    h=$(awk -v n="$name" '$1 == n {print $2}' "$work/fb.here" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
    u=$(awk -v n="$name" '$1 == n {print $3; exit}' "$work/fb.base")
    printf "%-44s %10.2f %s %10.2f %s\n" "$name" "$b" "$u" "$h" "$u"
  done
fi
