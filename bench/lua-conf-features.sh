#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What job_submit.lua's read of slurm.conf's node features (conf_features() in
# etc/switchyard_conf.lua) costs when slurmctld loads the script, under Slurm's Lua 5.1:
# 100k hosts as discover --slurm-nodes writes them (one NodeName line per SU of 32 hosts) and as
# a site may keep them (one line per host). Usage: bench/lua-conf-features.sh [HOSTS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
hosts=${1:-100000}
work=$(mktemp -d /tmp/switchyard-conf-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$hosts" <<'PY'
import sys
work, hosts = sys.argv[1], int(sys.argv[2])
def feats(i):
    su = i // 32
    return f"gpu,su_g{su // 32}-leaf{su % 32},grp_g{su // 32},grp2_g{(su // 64) * 2}"
with open(f"{work}/per-host.conf", "w") as f:
    f.write("NodeName=DEFAULT CPUs=64 RealMemory=500000\n")
    for i in range(hosts):
        f.write(f"NodeName=gpu{i:06d} NodeAddr=10.{i // 65536}.{(i // 256) % 256}.{i % 256} Features={feats(i)} Weight=1\n")
with open(f"{work}/per-su.conf", "w") as f:
    f.write("NodeName=DEFAULT CPUs=64 RealMemory=500000\n")
    for a in range(0, hosts, 32):
        f.write(f"NodeName=gpu[{a:06d}-{min(a + 31, hosts - 1):06d}] Features={feats(a)} Weight=1\n")
for form in ("per-host", "per-su"):
    with open(f"{work}/slurm-{form}.conf", "w") as f:
        f.write(f"ClusterName=bench\nInclude {form}.conf\n")
PY
cat > "$work/run.lua" <<'LUA'
local lib = dofile(arg[1] .. "/etc/switchyard_conf.lua")
local best = math.huge
local count = 0
for _ = 1, 5 do
    local t0 = os.clock()
    local set = assert(lib.conf_features(arg[2]))
    best = math.min(best, os.clock() - t0)
    count = 0
    for _ in pairs(set) do count = count + 1 end
end
print(string.format("%-9s %7d lines  %5d features  %7.1f ms CPU (best of 5)", arg[3], arg[4], count, best * 1000))
LUA
for form in per-su per-host; do
  lua5.1 "$work/run.lua" "$top" "$work/slurm-$form.conf" "$form" "$(wc -l < "$work/$form.conf")"
done
