#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The preflight end to end without Slurm: every node's agent (switchyard preflight --agent) run
# at once on this machine with the same hosts, map and start, the probes a real process that
# answers from a fault table (tests/support/fake-perftest: no RDMA here), their result lines
# gathered and located. A slow HCA is its node's; a probe that hangs is killed at its window's
# end and blames nobody; a probe that prints garbage is named and blames nobody.
# Usage: preflight_agents_test.sh SWITCHYARD SOURCE_DIR
set -uo pipefail
bin=${1:?switchyard binary}
src=${2:?source dir}
map=$src/tests/golden/discover/dfp16/fabric.map.expected
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi; }

cat >"$work/policy.yaml" <<YAML
version: 1
preflight:
  probe_timeout_s: 2
  deadline_s: 60
  link_rate_gbps: 400
  latency: [$src/tests/support/fake-perftest, lat, $work/table, "{hca}", "{host}", "{peer}"]
  bandwidth: [$src/tests/support/fake-perftest, bw, $work/table, "{hca}", "{host}", "{peer}"]
YAML
hosts='node[001-008]'

# run_agents TABLE-LINE — every agent at once; their lines in $work/results.jsonl.
run_agents() {
  printf '%s\n' "$1" >"$work/table"
  local start=$(( $(date +%s) + 1 )) pids=() i
  : >"$work/results.jsonl"
  for i in 1 2 3 4 5 6 7 8; do
    "$bin" preflight --agent --map "$map" --policy "$work/policy.yaml" --hosts "$hosts" \
      --me "node00$i" --start "$start" >"$work/agent$i.out" 2>"$work/agent$i.err" &
    pids+=($!)
  done
  local t0=$SECONDS rc=0
  for i in "${pids[@]}"; do wait "$i" || rc=1; done
  elapsed=$((SECONDS - t0))
  cat "$work"/agent*.out >"$work/results.jsonl"
  return $rc
}
rounds=$("$bin" preflight --map "$map" --hosts "$hosts" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["rounds"])')
pairs=$("$bin" preflight --map "$map" --hosts "$hosts" --json 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["pairs"]))')
echo "plan: $pairs pairs in $rounds rounds of 2 s"

run_agents "node007 mlx5_0 slow"; arc=$?
check "every agent exits 0" '[ $arc -eq 0 ]'
check "one line per pair ($pairs)" '[ "$(wc -l <"$work/results.jsonl")" -eq "$pairs" ]'
out=$("$bin" preflight --map "$map" --policy "$work/policy.yaml" --hosts "$hosts" --results "$work/results.jsonl" 2>&1); rc=$?
echo "$out"
check "a slow HCA is located on its node" 'grep -q "^fault: node007 mlx5_0 (port): 2 slow pair" <<<"$out"'
check "and would be drained with the owned reason" 'grep -q "would be drained: switchyard: preflight: mlx5_0: 11.2 us to 2 peers (limit 5)" <<<"$out"'
check "exit 1 for a part at fault" '[ $rc -eq 1 ]'

run_agents "node003 mlx5_0 hang"
echo "agents took $elapsed s for $rounds rounds"
check "a hanging probe is killed within the rounds' time" '[ "$elapsed" -le $((rounds * 2 + 4)) ]'
out=$("$bin" preflight --map "$map" --policy "$work/policy.yaml" --hosts "$hosts" --results "$work/results.jsonl" 2>&1); rc=$?
echo "$out"
check "the hung pairs are probe failures" 'grep -q "^probe failed (nobody drained): .*no result within" <<<"$out"'
check "nobody is blamed" '! grep -q "^fault:" <<<"$out" && grep -q "^no part at fault" <<<"$out"'
check "exit 0: no part at fault" '[ $rc -eq 0 ]'

run_agents "node005 mlx5_0 garbage"
out=$("$bin" preflight --map "$map" --policy "$work/policy.yaml" --hosts "$hosts" --results "$work/results.jsonl" 2>&1)
echo "$out"
check "garbage output is named" 'grep -q "probe failed (nobody drained): .*ib_write_lat: no result table of ib_write_lat.*garbage" <<<"$out"'
check "and blames nobody" '! grep -q "^fault:" <<<"$out"'

[ "$fails" -eq 0 ] && echo "preflight agents: all checks passed"
exit "$fails"
