// SPDX-License-Identifier: Apache-2.0
// `switchyard node`: its options; ops::run_node (ops/node.hpp) does the rest.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "switchyard/ops/node.hpp"

namespace switchyard::cli {

void setup_node(CLI::App& cmd, Runner& run) {
    auto args = std::make_shared<ops::NodeRequest>();
    cmd.footer(
        "\nWithout options: this machine (hwloc + /sys, cross-checked with libibverbs when "
        "present).\n"
        "Examples:\n  switchyard node\n  switchyard node --hwloc-xml node.xml --json\n"
        "  switchyard node --sysfs-root /tmp/fake-sys   # a node described only by a sysfs tree\n"
        "  switchyard node --lldp off                   # without asking lldpd for neighbours\n"
        "  switchyard node --nvml off                   # without asking NVML for the NVLink "
        "domain\n"
        "  switchyard node --nvlink-only --json         # the facts discover needs of an NVL72 "
        "node\n");
    cmd.add_option("--hwloc-xml", args->hwloc_xml,
                   "hwloc XML export (lstopo --of xml) instead of this machine");
    cmd.add_option("--sysfs-root", args->sysfs_root,
                   "directory that stands for /sys (RDMA ports; alone: GPUs and NICs too)");
    cmd.add_option("--lldp", args->lldp,
                   "each RDMA port's LLDP neighbour from: lldpcli (ask lldpd; the default for this "
                   "machine), off, or a file of lldpctl output (json, json0 or keyvalue)");
    cmd.add_option("--lldpd-socket", args->lldpd_socket,
                   "lldpd's control socket, when not the default (lldpcli -u)");
    cmd.add_option("--nvml", args->nvml,
                   "each GPU's multi-node NVLink fabric (cluster UUID, clique, state, health) "
                   "and the node's NVLink domain from: libnvidia-ml.so.1 (the default for this "
                   "machine), off, or a path to an NVML library (5 s deadline)");
    cmd.add_flag("--nvlink-only", args->nvlink_only,
                 "only the NVLink part (NVML; no hwloc, sysfs or lldpd): what discover "
                 "--node-facts needs of an NVL72 node on InfiniBand");
    cmd.add_flag("--line", args->line,
                 "with --nvlink-only: one compact JSON line naming the host, for discover "
                 "--node-facts FILE (srun -N... switchyard node --nvlink-only --line > "
                 "facts.jsonl)")
        ->needs("--nvlink-only");
    cmd.add_option("--host", args->host, "with --line: the host's name (default: the host name)");
    cmd.add_flag("--json", args->json,
                 "JSON: gpus, nics with ports (and their lldp neighbours), paths, nvlink, shape, "
                 "warnings");
    cmd.callback([&run, args] {
        run = [args] {
            const auto report = ops::run_node(*args, deps());
            ops::print_node(*args, report, std::cout, std::cerr);
            return report.rc;
        };
    });
}

}  // namespace switchyard::cli
