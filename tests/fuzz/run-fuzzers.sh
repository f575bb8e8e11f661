#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harnesses with clang (ASan + UBSan + fuzzer) and runs each for a while
# on a corpus seeded from tests/data/ib. A crash leaves crash-* in the work folder and fails.
# Usage: tests/fuzz/run-fuzzers.sh [SECONDS_PER_HARNESS]   (default 30)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-30}
cd "$top"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target ibnetdiscover_fuzz fabric_map_fuzz
work=$(mktemp -d /tmp/switchyard-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus-ib" "$work/corpus-map"
cp tests/data/ib/* "$work/corpus-ib/"
for f in tests/golden/discover/*/fabric.map.expected; do
  cp "$f" "$work/corpus-map/$(basename "$(dirname "$f")").map"
done
status=0
for h in ibnetdiscover:corpus-ib fabric_map:corpus-map; do
  name=${h%%:*}; corpus=$work/${h#*:}
  echo "== fuzzing $name for ${seconds}s"
  if ! (cd "$work" && "$top/build/fuzz/tests/fuzz/${name}_fuzz" -max_total_time="$seconds" \
          -max_len=65536 -timeout=10 -print_final_stats=1 -artifact_prefix="$work/" "$corpus" 2>&1 | tail -12); then
    status=1
  fi
  if compgen -G "$work/crash-*" >/dev/null || compgen -G "$work/timeout-*" >/dev/null; then
    echo "fuzz: $name found a failing input:"; ls "$work"/crash-* "$work"/timeout-* 2>/dev/null
    mkdir -p "$top/build/fuzz/findings" && cp "$work"/crash-* "$work"/timeout-* "$top/build/fuzz/findings/" 2>/dev/null || true
    status=1
  fi
done
[ $status -eq 0 ] && echo "fuzz: no failure"
exit $status
