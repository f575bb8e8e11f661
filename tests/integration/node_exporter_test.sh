#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `switchyard health --prometheus` read by a real node_exporter's textfile collector (Debian's
# prometheus-node-exporter): the metrics are served, labels intact, no scrape error.
# Usage: node_exporter_test.sh SWITCHYARD MAKE_NODE_TREES
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
sy=${1:?usage: node_exporter_test.sh SWITCHYARD MAKE_NODE_TREES}
trees=${2:?}
exporter=$(command -v prometheus-node-exporter || command -v node_exporter) ||
  { echo "FAIL: prometheus-node-exporter is not installed (scripts/install-deps installs it)"; exit 1; }
work=$(mktemp -d /tmp/sy-node-exporter.XXXXXX)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
"$trees" "$work/nodes" node003 node005 --down=node005:mlx5_2 >/dev/null
cat > "$work/policy.yaml" <<POLICY
version: 1
node:
  sysfs_root: $work/nodes/%n/sys
health:
  rdma_ports: {count: 4, min_rate_gbps: 400, link_layer: InfiniBand, hca: "mlx5_[0-3]"}
  gpus: 4
POLICY
mkdir -p "$work/textfile"
run_capture "$sy" health --policy "$work/policy.yaml" --host node005 --prometheus "$work/textfile/node005.prom"
expect_rc 1 "node005 fails its checks"
run_capture "$sy" health --policy "$work/policy.yaml" --host node003 --prometheus "$work/textfile/node003.prom"
expect_rc 0 "node003 passes"

port=17690
"$exporter" --web.listen-address=127.0.0.1:$port --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$work/textfile" > "$work/exporter.log" 2>&1 &
pid=$!
metrics=""
for _ in $(seq 100); do
  metrics=$(python3 -c "import urllib.request,sys; print(urllib.request.urlopen('http://127.0.0.1:$port/metrics', timeout=2).read().decode())" 2>/dev/null) && break
  sleep 0.1
done
[ -n "$metrics" ] || { echo "FAIL: node_exporter did not serve metrics"; cat "$work/exporter.log"; exit 1; }
# node_exporter orders labels by name.
expect_contains "$metrics" 'switchyard_health_verdict{node="node005"} 2' "node005's verdict is served: fail"
expect_contains "$metrics" 'switchyard_health_verdict{node="node003"} 0' "node003's verdict is served: pass"
expect_contains "$metrics" 'switchyard_health_check_status{check="rdma-ports",node="node005"} 2' "per-check status with its labels"
expect_contains "$metrics" 'switchyard_health_check_duration_seconds{check="gpus",node="node003"}' "check durations"
expect_contains "$metrics" 'node_textfile_scrape_error 0' "the textfile collector read the files without error"
expect_not_contains "$(cat "$work/exporter.log")" "level=error" "node_exporter logged no error"
finish
