#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 43's two numbers, side by side in one run (release build):
#  1. discover at 100k hosts x 8 rails, without and with --node-facts, 18 hosts per NVLink
#     domain (5,556 domains): as one file of `switchyard node --nvlink-only --line` lines (what
#     `srun ... > facts.jsonl` gathers), and as 100,000 files of `--nvlink-only --json`; runs
#     alternate, medians compared (the target: at most 20 % more with facts);
#  2. `switchyard node` on a fake 4-GPU node (sysfs tree, the fake libnvidia-ml) with the fabric
#     queries, whole and --nvlink-only (the target: under 50 ms).
# Usage: bench/nvl-100k.sh [--runs N] [--hosts H]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=5 hosts=100000
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    *) echo "usage: bench/nvl-100k.sh [--runs N] [--hosts H]" >&2; exit 2 ;;
  esac
done
cd "$top"
cmake --preset release >/dev/null
cmake --build --preset release --target switchyard_cli fabric_bench fake_nvml >/dev/null
bin=build/release/cli/switchyard
nvml=$(ls build/release/libfake-nvml.so)
work=$(mktemp -d /tmp/switchyard-nvl-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
build/release/bench/fabric_bench --write-dump "$hosts" 8 "$work/fabric.txt"
# One real answer of the fake NVML for a 4-GPU node, as the template of every host's file.
for g in 0 1 2 3; do
  echo "gpu uuid=GPU-$g fabric=completed cluster=abcdef01-0000-4000-8000-000000000000 clique=32766 health=0x1aa"
done > "$work/nvml.conf"
SWITCHYARD_FAKE_NVML=$work/nvml.conf "$bin" node --nvlink-only --nvml "$nvml" --json > "$work/template.json"
SWITCHYARD_FAKE_NVML=$work/nvml.conf "$bin" node --nvlink-only --line --host HOSTNAME --nvml "$nvml" > "$work/template.line"
mkdir "$work/facts"
grep -o '"host[0-9]* ' "$work/fabric.txt" | tr -d '" ' | sort -u > "$work/hosts"
python3 - "$work" <<'PY'
import os, sys
work = sys.argv[1]
template = open(os.path.join(work, "template.json")).read()
line = open(os.path.join(work, "template.line")).read()
hosts = open(os.path.join(work, "hosts")).read().split()
with open(os.path.join(work, "facts.jsonl"), "w") as lines:
    for i, h in enumerate(hosts):
        uuid = "%08x" % (i // 18 + 1)
        with open(os.path.join(work, "facts", h + ".json"), "w") as f:
            f.write(template.replace("abcdef01", uuid))
        lines.write(line.replace("abcdef01", uuid).replace("HOSTNAME", h))
PY
echo "dump: $hosts hosts x 8 rails, $(( $(stat -c %s "$work/fabric.txt") / 1000000 )) MB;" \
  "facts: $(wc -l < "$work/facts.jsonl") lines, $(( $(stat -c %s "$work/facts.jsonl") / 1000000 )) MB;" \
  "$(ls "$work/facts" | wc -l) files, $(( $(du -sk "$work/facts" | cut -f1) / 1024 )) MiB"
cat "$work/fabric.txt" "$work/facts.jsonl" > /dev/null  # in the page cache, with the facts
find "$work/facts" -type f -print0 | xargs -0 cat > /dev/null
one() {  # one LABEL ARGS... — a discover run's seconds and peak MiB into $work/LABEL.times
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/t" "$bin" discover --ibnetdiscover "$work/fabric.txt" "$@" \
    -o "$work/out-$label" > "$work/out-$label.txt"
  cat "$work/t" >> "$work/$label.times"
}
one warmup
for ((i = 1; i <= runs; i++)); do
  one plain
  one lines --node-facts "$work/facts.jsonl" --expect-nvl-size 18
  one files --node-facts "$work/facts" --expect-nvl-size 18
done
grep -m1 "nvlink domains" "$work/out-lines.txt"
cmp "$work/out-lines/fabric.map" "$work/out-files/fabric.map" && echo "the two forms give the same map"
median() { sort -n "$1" | awk '{t[NR] = $1; m[NR] = $2} END { printf "%.2f %d", t[int((NR + 1) / 2)], m[int((NR + 1) / 2)] / 1024 }'; }
read -r p pm <<<"$(median "$work/plain.times")"
echo "discover, median of $runs: without facts $p s ($pm MiB)"
for form in lines files; do
  read -r f fm <<<"$(median "$work/$form.times")"
  echo "  with facts as $form: $f s ($fm MiB): $(awk -v a="$p" -v b="$f" 'BEGIN { printf "%+.1f %%", (b / a - 1) * 100 }')"
done

# switchyard node on a fake 4-GPU node with the fabric queries.
"$top/tests/integration/make-node-trees" "$work/trees" gb001 >/dev/null
sed "s/abcdef01/0000abcd/" "$work/nvml.conf" > "$work/nvml-node.conf"
export SWITCHYARD_FAKE_NVML=$work/nvml-node.conf
python3 - "$bin" "$work/trees/gb001/sys" "$nvml" <<'PY'
import statistics, subprocess, sys, time
bin, sysfs, nvml = sys.argv[1:4]
for label, args in (("whole, --json", ["node", "--sysfs-root", sysfs, "--lldp", "off", "--nvml", nvml, "--json"]),
                    ("--nvlink-only --json", ["node", "--nvlink-only", "--nvml", nvml, "--json"])):
    times = []
    for _ in range(30):
        t = time.perf_counter()
        subprocess.run([bin] + args, check=True, stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - t) * 1000)
    print("switchyard node %s: median %.1f ms, max %.1f ms (30 runs)" % (label, statistics.median(times), max(times)))
PY
