#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Cluster-scale replay: one job trace (bench/replay_trace.py, fixed seed) replayed on real
# 128-node Slurm clusters of emulated nodes, over a fabric captured from ibsim and discovered:
#   plain 22.05       Slurm 22.05 (this host), topology/tree, the jobs without Switchyard's options
#   switchyard 22.05  the same jobs with --pipeline-stages (job_submit.lua asks for --switches)
#   plain 24.11       Slurm 24.11 (the Debian 13 root), topology/block, no options
#   switchyard 24.11  --pipeline-stages (cli_filter.lua asks for --segment)
#   plain/switchyard 26.05  the same on Slurm 26.05 (the Debian testing root; --runs)
#   steered 22.05/24.11  as switchyard, after `switchyard steer --apply` raised the Weight of
#                     the nodes in degraded places of the fabric (see --degrade)
# Every job is exclusive, sleeps its duration and asks for a time limit of twice it, in whole
# minutes (--time, at least 1), as users on a production cluster must: backfill then holds nodes
# for a waiting large job instead of starting every small one that fits (with no limit, Slurm's
# default of a year leaves the large jobs of the trace waiting longest). Slurm's job completion
# log gives each job's nodes, submit and start times; bench/replay_report turns them into the
# side-by-side table (stages inside one SU / group, stage spread, modelled step time with the
# other running jobs' traffic on the same links, wait) and one SVG per run.
#
# Usage: bench/replay.sh [--fabric rail|dfp] [--shuffle SEED] [--cut] [--check] [--runs LIST]
#                        [--stripe-stages auto|never] [--out DIR]
#   --fabric rail  4 SUs x 32 hosts, 2 rails, leaves tapered 2:1 to 8 spines (the default)
#   --fabric dfp   8 Dragonfly+ groups x 16 hosts, global links thinner than local ones
#   --shuffle SEED hosts numbered in a random order (names that do not follow the cabling, as
#                  where racks were renumbered or moved); by default they follow it
#   --degrade      pull half the uplinks of one SU (rail: su02, dfp: g3-leaf1) and give one
#                  node elsewhere (node001's SU) growing link errors (a health --json output
#                  whose link-errors check is at 90 % of its limit); the report adds how much
#                  of the jobs' node time landed on those nodes
#   --cut          the short cut CI runs: 32 jobs of 2-8 s offered at 1.5 x the cluster
#                  (~35 s per run); default: 200 jobs of 5-120 s at 1.0 x (~15 min per run)
#   --runs LIST    comma-separated runs among plain-, switchyard- and steered-22.05, -24.11
#                  and -26.05 (default: plain and switchyard on 22.05 and 24.11)
#   --check        fail unless, per release, Switchyard has at least plain Slurm's share of
#                  stages inside one SU and no wider worst stage spread (what CI asserts)
#   --stripe-stages the policy's placement.stripe_stages in the runs and the report (default
#                  auto: both fabrics join their SUs or groups by few cables; never: the
#                  policy's default, every stage packed)
#   --out DIR      where the tables, job lists and pictures go (default build/replay/<fabric>)
# Needs build/dev and, for 24.11 and 26.05, build/slurm-<release> in its root (scripts/test makes
# them); the plugin and the command are copied into the output folder first, so a rebuild during
# a long replay does not change what it runs.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
fabric=rail cut=0 check=() shuffle=() degrade=() out="" runs=plain-22.05,switchyard-22.05,plain-24.11,switchyard-24.11
stripe=auto

# one_run BIN tree|block plain|switchyard|steered WORK [LIMIT]: replays WORK/trace.txt with
# BIN's switchyard and spank_switchyard.so, writes WORK/<mode>-<release>.jobcomp; fails when the
# queue has not drained LIMIT seconds (7200) after the last submission
one_run() {
  local bin=$1 topo_plugin=$2 mode=$3 work=$4 limit=${5:-7200}
  local sy=$bin/switchyard plugin=$bin/spank_switchyard.so
  [ -x "$sy" ] && [ -f "$plugin" ] || { echo "replay: no switchyard build in $bin" >&2; exit 1; }
  local run; run=$(mktemp -d /tmp/switchyard-replay.XXXXXX)
  chmod 755 "$run"
  trap '"$top/tests/integration/slurm-cluster" down "'"$run/cluster"'" >/dev/null 2>&1 || true; rm -rf "'"$run"'"' EXIT
  local topo_file=$work/fabric/topology.conf
  [ "$topo_plugin" = block ] && topo_file=$work/fabric/topology-block.conf
  printf 'version: 1\nfabric:\n  map: %s\nplacement:\n  stripe_stages: %s\n' \
    "$work/fabric/fabric.map" "$(cat "$work/stripe_stages")" > "$run/switchyard.yaml"
  export SWITCHYARD_JOB_SUBMIT_HINTS=$work/fabric/job_submit_hints.$topo_plugin.lua SWITCHYARD_BIN=$sy
  export SWITCHYARD_POLICY=$run/switchyard.yaml
  # The first port range no other cluster listens on (another replay may be running).
  local base
  for base in 19000 19400 19800 20200; do  # a connection succeeds where something listens
    (exec 3<>"/dev/tcp/127.0.0.1/$((base + 17))") 2>/dev/null || break
  done
  "$top/tests/integration/slurm-cluster" up "$run/cluster" "$plugin" --nodes 128 --port-base "$base" \
    --topology "$topo_file" --topology-plugin "$topo_plugin" --job-submit "$work/bin/etc/job_submit.lua" \
    --cli-filter "$work/bin/etc/cli_filter.lua" --features "$work/fabric/node-features.sh" \
    -- config="$run/switchyard.yaml" nccl_env=off 2>/dev/null
  export SLURM_CONF=$run/cluster/etc/slurm.conf
  cd "$run/cluster/jobs"
  if [ "$mode" = steered ]; then
    mkdir -m 700 "$run/state"
    local health=()
    [ -d "$work/health" ] && health=(--health "$work/health")
    "$sy" steer --map "$work/fabric/fabric.map" ${health[@]+"${health[@]}"} --apply \
      --state "$run/state/steer.state" >&2
  fi
  # Submit on the trace's clock; then wait for the queue to drain.
  python3 - "$work/trace.txt" "$mode" <<'PY'
import math, subprocess, sys, time
trace, mode = sys.argv[1], sys.argv[2]
t0 = time.monotonic()
for line in open(trace):
    if line.startswith("#") or not line.strip():
        continue
    jid, at, nodes, stages, dur = line.split()
    delay = float(at) - (time.monotonic() - t0)
    if delay > 0:
        time.sleep(delay)
    limit_min = max(1, math.ceil(2 * float(dur) / 60))
    cmd = ["sbatch", "--parsable", "-J", "r" + jid, "-N", nodes, "--exclusive", "-o", "/dev/null",
           "--time=%d" % limit_min]
    # Every job asks for Switchyard's order, a data-parallel one with --pipeline-stages=1: its
    # ranks (NCCL's ring) then go SU by SU, group by group, not in host-name order.
    if mode in ("switchyard", "steered"):
        cmd.append("--pipeline-stages=" + stages)
    cmd += ["--wrap", "sleep " + dur]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        sys.exit("replay: sbatch of job %s got no answer in 60 s" % jid)
    if r.returncode != 0:
        sys.exit("replay: job %s refused: %s" % (jid, r.stderr.strip()))
PY
  local i
  for ((i = 0; i < limit; i++)); do
    [ -z "$(squeue -h 2>/dev/null)" ] && break
    sleep 1
  done
  if [ -n "$(squeue -h)" ]; then
    echo "replay: jobs still queued $limit s after the last submission:" >&2
    squeue >&2
    exit 1
  fi
  # The completion log: one line per job with its nodes and times (jobcomp/filetxt).
  cp "$run/cluster/log/jobcomp.log" "$work/$mode-$(sinfo -V | awk '{print $2}' | cut -d. -f1,2).jobcomp"
}

if [ "${1:-}" = --one ]; then
  one_run "$2" "$3" "$4" "$5" "${6:-}"
  exit 0
fi

while [ $# -gt 0 ]; do
  case $1 in
    --fabric) fabric=$2; shift 2 ;;
    --cut) cut=1; shift ;;
    --check) check=(--check); shift ;;
    --shuffle) shuffle=(--shuffle "$2"); shift 2 ;;
    --degrade) degrade=(--halve-uplinks); shift ;;
    --out) out=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --stripe-stages) stripe=$2; shift 2 ;;
    -h|--help) sed -n '3,42p' "$0"; exit 0 ;;
    *) echo "replay: unknown argument '$1'; expected --fabric rail|dfp, --shuffle SEED, --degrade, --cut, --check, --out DIR, --runs LIST or --stripe-stages auto|never" >&2; exit 2 ;;
  esac
done
case $stripe in
  auto|never) ;;
  *) echo "replay: --stripe-stages '$stripe': expected auto or never" >&2; exit 2 ;;
esac
case $fabric in
  rail) shape=(rail --sus 4 --hosts-per-su 32 --rails 2 --spines 8 --parallel 2) ;;
  dfp) shape=(dfp --groups 8 --leaves 2 --spines 2 --hosts-per-leaf 8 --parallel 4 --global-links 2) ;;
  *) echo "replay: --fabric '$fabric': expected rail or dfp" >&2; exit 2 ;;
esac
if [ ${#degrade[@]} -gt 0 ]; then  # the degraded SU's leaves
  [ "$fabric" = rail ] && degrade+=(su02-) || degrade+=(g3-leaf1)
fi
# The work folder is under the checkout: the Debian 13 root sees the checkout, not the host's /tmp.
out=$(realpath -m "${out:-$top/build/replay/$fabric}")
rm -rf "$out"
mkdir -p "$out/fabric"
chmod 755 "$out" "$out/fabric"
echo "$stripe" > "$out/stripe_stages"  # read by every run (one_run), in its root too
# Snapshots of the builds and filters this replay runs (a rebuild or an edit meanwhile must not
# reach a running job).
snapshot() {  # snapshot BUILD DIR
  mkdir -p "$2"
  cp "$1/cli/switchyard" "$1/plugin/spank_switchyard.so" "$1/plugin/switchyard_step.so" "$2/"
}
snapshot "$top/build/dev" "$out/bin/22.05"
cp "$top/build/dev/bench/replay_report" "$out/bin/"
mkdir -p "$out/bin/etc"  # slurmctld reloads job_submit.lua when the file changes
cp "$top"/etc/{job_submit,cli_filter,switchyard_stages,switchyard_conf}.lua "$out/bin/etc/"
for release in 24.11 26.05; do
  case $runs in
    *"$release"*) [ -d "$top/build/slurm-$release" ] && snapshot "$top/build/slurm-$release" "$out/bin/$release" ;;
  esac
done
sy=$out/bin/22.05/switchyard
"$top/tests/fabric/gen_fabric.py" "${shape[@]}" ${shuffle[@]+"${shuffle[@]}"} ${degrade[@]+"${degrade[@]}"} --host-prefix node --host-digits 3 -o "$out/fabric/net" >/dev/null
"$top/tests/fabric/ibsim-capture" "$out/fabric/net.net" "$out/fabric/ibnetdiscover.txt" 2>/dev/null
# The filters' hints differ by topology plugin: one file for the tree runs, one for the block runs.
"$sy" discover --ibnetdiscover "$out/fabric/ibnetdiscover.txt" -o "$out/fabric" >/dev/null
mv "$out/fabric/job_submit_hints.lua" "$out/fabric/job_submit_hints.tree.lua"
"$sy" discover --ibnetdiscover "$out/fabric/ibnetdiscover.txt" --topology-plugin block -o "$out/fabric" >/dev/null
mv "$out/fabric/job_submit_hints.lua" "$out/fabric/job_submit_hints.block.lua"
flaky=()
if [ ${#degrade[@]} -gt 0 ]; then  # a node with link errors growing, below the drain limit
  mkdir -p "$out/health"
  printf '{"verdict": "pass", "node": "node001", "checks": [{"name": "link-errors", "status": "pass", "detail": "1 growing (largest +9, max 10)", "soft": 0.9}]}\n' \
    > "$out/health/node001.json"
  flaky=(--flaky node001)
fi
limit=7200  # seconds the queue may take to drain after the last submission
if [ $cut = 1 ]; then
  limit=300
  "$top/bench/replay_trace.py" --jobs 32 --load 1.5 --min-duration 2 --max-duration 8 > "$out/trace.txt"
else
  "$top/bench/replay_trace.py" --jobs 200 --min-duration 5 --max-duration 120 > "$out/trace.txt"
fi
chmod -R a+rX "$out"

for r in ${runs//,/ }; do
  mode=${r%-*} release=${r##*-}
  case $mode/$release in
    plain/22.05|switchyard/22.05|steered/22.05) "$0" --one "$out/bin/22.05" tree "$mode" "$out" "$limit" ;;
    plain/24.11|switchyard/24.11|steered/24.11|plain/26.05|switchyard/26.05|steered/26.05)
      "$top/scripts/in-slurm-root" --release "$release" "$0" --one "$out/bin/$release" block "$mode" "$out" "$limit" ;;
    *) echo "replay: --runs: unknown run '$r'" >&2; exit 2 ;;
  esac
  echo "replay: $r done" >&2
done
logs=()
for r in ${runs//,/ }; do logs+=("$out/$r.jobcomp"); done
"$out/bin/replay_report" --map "$out/fabric/fabric.map" --trace "$out/trace.txt" \
  --svg "$out" --stripe-stages "$stripe" ${check[@]+"${check[@]}"} ${flaky[@]+"${flaky[@]}"} "${logs[@]}" > "$out/report.txt" || status=$?
cat "$out/report.txt"
exit "${status:-0}"
