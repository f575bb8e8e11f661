#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The --preflight job option's wall time: N prologs (`switchyard preflight --prolog`) started at
# once on this machine, over the real wire (TCP on 127.0.0.1, ports under 1024: run as root),
# on the hosts of the superpod map (120 hosts, 8 rails). The probe is /bin/cat of a perftest
# table, so a round's cost is the design's (its 1-second window), not perftest's; the first
# node's address comes from a stand-in `scontrol show node` (there is no slurmctld here).
# Prints per N: rounds, the wall time, and the overhead beyond rounds x 1 s (the join, the
# start offset, the gathering, the locating).
# Usage: bench/preflight-prolog.sh SWITCHYARD [N...]   (default N: 16 64 120)
set -euo pipefail
sy=$(realpath "${1:?usage: preflight-prolog.sh SWITCHYARD [N...]}")
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(16 64 120)
[ "$(id -u)" = 0 ] || { echo "preflight-prolog.sh: run as root (ports under 1024)" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
map=$top/tests/golden/discover/superpod/fabric.map.expected
work=$(mktemp -d /tmp/switchyard-pfbench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
cat >"$work/bin/scontrol" <<'SH'
#!/bin/sh
echo "NodeName=$4 NodeAddr=127.0.0.1 NodeHostName=$4"
SH
chmod 755 "$work/bin/scontrol"
cat >"$work/lat.txt" <<'TXT'
---------------------------------------------------------------------------------------
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
 2       1000          2.10           2.10         2.10               2.10           0.05            2.10                    2.10
---------------------------------------------------------------------------------------
TXT
cat >"$work/bw.txt" <<'TXT'
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      5000             391.20             391.20              0.746154
---------------------------------------------------------------------------------------
TXT
cat >"$work/policy.yaml" <<YAML
version: 1
preflight:
  probe_timeout_s: 1
  deadline_s: 120
  join_s: 10
  port: 965
  ports: 1
  link_rate_gbps: 400
  reports: ""
  latency: [/bin/cat, $work/lat.txt]
  bandwidth: [/bin/cat, $work/bw.txt]
YAML
printf '%-6s %-7s %-8s %-10s %-10s %s\n' nodes rounds pairs wall_s rounds_s overhead_s
for n in "${sizes[@]}"; do
  mapfile -t hosts < <(awk '$1 == "host" {print $2}' "$map" | sort | head -n "$n")
  list=$(IFS=,; echo "${hosts[*]}")
  plan=$("$sy" preflight --map "$map" --policy "$work/policy.yaml" --hosts "$list" --json 2>/dev/null)
  rounds=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["rounds"])' <<<"$plan")
  pairs=$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["pairs"]))' <<<"$plan")
  t0=$(date +%s.%N)
  pids=()
  for h in "${hosts[@]}"; do
    PATH=$work/bin:$PATH "$sy" preflight --prolog --map "$map" --policy "$work/policy.yaml" \
      --job 7 --hosts "$list" --me "$h" >"$work/$h.out" 2>"$work/$h.err" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || true; done
  t1=$(date +%s.%N)
  first=$(printf '%s\n' "${hosts[@]}" | head -1)
  measured=$(grep -oE '^preflight: [0-9]+ hosts, [0-9]+ pairs, [0-9]+ slow, [0-9]+ probe' "$work/$first.out" || true)
  failed=$(grep -m1 -A1 '^probe failed' "$work/$first.out" | tail -1 | cut -c1-120 || true)
  python3 - "$n" "$rounds" "$pairs" "$t0" "$t1" "$measured" <<'PY'
import sys
n, rounds, pairs, t0, t1, measured = sys.argv[1:7]
wall = float(t1) - float(t0)
print(f"{n:<6} {rounds:<7} {pairs:<8} {wall:<10.1f} {int(rounds):<10} {wall - int(rounds):.1f}   ({measured})")
PY
  [ -z "$failed" ] || echo "       e.g. $failed"
done
