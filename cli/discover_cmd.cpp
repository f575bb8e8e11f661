// SPDX-License-Identifier: Apache-2.0
// `switchyard discover`: its options; ops::run_discover (ops/discover.hpp) does the rest.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "switchyard/ops/discover.hpp"

namespace switchyard::cli {

void discover_options(CLI::App& cmd, ops::DiscoverRequest& args) {
    cmd.add_option("--node-facts", args.node_facts,
                   "a directory of `switchyard node --json` outputs, <host>.json, or a file of "
                   "`switchyard node --nvlink-only --line` lines: each host's NVLink domain "
                   "(GB200/GB300 NVL72 racks: the level below the SU, one block "
                   "each) and, with --lldp, each host port's RDMA device (mlx5_0) instead of its "
                   "net device (eth0)");
    cmd.add_option("--expect-nvl-size", args.expect_nvl_size,
                   "hosts per NVLink domain by design (18 for an NVL72 rack of 4-GPU trays): "
                   "each domain of another size is reported")
        ->check(CLI::Range(1U, 4096U));
    cmd.add_option("--previous-map", args.previous_map,
                   "the fabric.map installed before: NVLink domains keep their block positions, "
                   "a rack that reports nothing keeps its block (a placeholder of its hosts), "
                   "and the hosts gone since are named (hosts-vanished)");
    cmd.add_option("--guid-map", args.guid_map,
                   "lines '<guid> <host> [<hca>]', or '<guid> \"<host> [<hca>]\"' as in a "
                   "--node-name-map file, naming HCAs whose description names no host; with "
                   "--lldp, '<mac> <name>' names a system by its chassis id");
    cmd.add_option(
        "--compute-hca", args.compute_hca,
        "regular expression of compute HCA names, e.g. 'mlx5_[0-7]'; others are left out");
    cmd.add_option("--expect-hosts", args.expect_hosts,
                   "the hosts the fabric should hold, as a Slurm hostlist (e.g. the NodeName "
                   "list of slurm.conf): each one without an HCA in the fabric is reported");
    cmd.add_option("--expect-cabling", args.expect_cabling,
                   "the cable counts the fabric's design gives, lines 'leaf-spine-cables N' "
                   "(per leaf and spine) and 'global-cables N' (per Dragonfly+ group pair); "
                   "without it, the largest count that many pairs have");
    cmd.add_option("-o,--output", args.out_dir, "directory for fabric.map and the Slurm files");
    cmd.add_option("--topology-plugin", args.topology_plugin,
                   "the topology the cluster runs by default: tree (topology.conf; --switches), "
                   "block (topology-block.conf installed as topology.conf, Slurm 24.05+; "
                   "--segment) or flat; told to the Lua filters through job_submit_hints.lua")
        ->check(CLI::IsMember({"tree", "block", "flat"}))
        ->default_str("tree")
        ->each([&args](const std::string&) { args.topology_plugin_given = true; });
    cmd.add_option("--partition-topology", args.partition_topology,
                   "partitions that run another topology (Slurm 25.05+ topology.yaml, partition "
                   "Topology=): PART=TOPO[,...] with TOPO tree, block, flat, other, or a name of "
                   "discover's topology.yaml (fabric, blocks); or 'slurm' to ask slurmctld "
                   "(scontrol, with your SLURM_CONF)");
    cmd.add_option("--slurm-nodes", args.slurm_nodes,
                   "the site's NodeName lines (slurm.conf, or the file it keeps them in): also "
                   "write nodes.conf, those lines with each host's SU and group features, for "
                   "slurm.conf to Include in their place (features there survive any restart)");
    cmd.add_option("--default-partition", args.default_partition,
                   "the partition a job without -p runs in (job_submit.lua asks slurmctld; "
                   "cli_filter.lua reads it from the hints)");
}

void setup_discover(CLI::App& cmd, Runner& run) {
    auto args = std::make_shared<ops::DiscoverRequest>();
    cmd.footer(
        "\nExamples:\n"
        "  ibnetdiscover > fabric.txt && switchyard discover --ibnetdiscover fabric.txt -o out/\n"
        "  switchyard discover --ibnetdiscover fabric.txt --guid-map guids.txt "
        "--compute-hca 'mlx5_[0-7]' -o /etc/slurm/switchyard\n"
        "  switchyard discover --ibnetdiscover fabric.txt --topology-plugin block -o out/\n"
        "  switchyard discover --ibnetdiscover fabric.txt --partition-topology gpu=blocks -o out/\n"
        "  switchyard discover --ibnetdiscover fabric.txt --partition-topology slurm -o out/\n"
        "  switchyard discover --lldp lldp/ -o out/    (RoCE: one lldpctl output per system)\n");
    auto* ib = cmd.add_option("--ibnetdiscover", args->input,
                              "ibnetdiscover output (default or -p format); - for stdin");
    auto* lldp = cmd.add_option(
        "--lldp", args->lldp,
        "an Ethernet (RoCE) fabric instead: a directory of lldpctl outputs, one per host or "
        "switch ('lldpcli -f json show chassis' then 'lldpctl -f json'; json0 and keyvalue "
        "read too)");
    ib->excludes(lldp);
    lldp->excludes(ib);
    discover_options(cmd, *args);
    cmd.get_option("--output")->required();
    cmd.callback([&run, args] {
        if (args->input.empty() && args->lldp.empty()) {
            throw CLI::RequiredError("--ibnetdiscover or --lldp");
        }
        run = [args] {
            switch (ops::run_discover(*args, deps())) {
                case ops::DiscoverResult::Done:
                    return kExitOk;
                case ops::DiscoverResult::Usage:
                    return kExitUsage;
                case ops::DiscoverResult::Problem:
                    break;
            }
            return kExitProblem;
        };
    });
}

}  // namespace switchyard::cli
