// SPDX-License-Identifier: Apache-2.0
// `switchyard nccl-env`: its options; ops::run_nccl_env (ops/nccl_env.hpp) does the rest.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "switchyard/common/job_options.hpp"
#include "switchyard/ops/nccl_env.hpp"

namespace switchyard::cli {

void setup_nccl_env(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<ops::NcclEnvRequest>();
    cmd.footer(
        "\nExamples:\n  switchyard nccl-env --explain\n"
        "  switchyard nccl-env --policy /etc/slurm/switchyard.yaml --nodes 'gpu[001-064]' --json\n"
        "  switchyard nccl-env --sysfs-root /tmp/fake-sys --host node003 --nccl-env debug\n");
    cmd.add_option("--policy", a->policy,
                   "policy file (default /etc/slurm/switchyard.yaml if present)");
    cmd.add_option("--hwloc-xml", a->hwloc_xml, "hwloc XML of the node instead of the policy's");
    cmd.add_option("--sysfs-root", a->sysfs_root, "directory standing for /sys (%n = --host)");
    cmd.add_option("--map", a->map, "fabric map instead of the policy's");
    cmd.add_option("--nodes", a->nodes, "the job's nodes as a Slurm hostlist (default: this node)");
    cmd.add_option("--host", a->host, "this node's Slurm name (default: the host name)");
    cmd.add_option("--nccl-env", a->choice, "auto, off or a profile name, as users pass it");
    cmd.add_option("--nvl-group", a->nvl_group,
                   "nodes per NVLink group, as users pass --nvl-group (NCCL_MNNVL_CLIQUE_ID)")
        ->check(CLI::Range(1U, kMaxNvlGroup));
    cmd.add_option("--tasks-per-node", a->tasks_per_node, "ranks on this node")
        ->check(CLI::Range(1U, 4096U));
    cmd.add_option("--partition", a->partition, "the job's partition (nccl.inspector)");
    cmd.add_option("--job", a->job,
                   "the job's id (nccl.inspector.dump_dir's %j; NCCL_RAS_ADDR on a shared node)");
    cmd.add_flag("--shared", a->shared, "the node is shared with other jobs");
    cmd.add_flag("--explain", a->explain, "each variable's rule and facts, and what stays unset");
    cmd.add_flag("--json", a->json, "JSON: set [{name, value, rule, why}], unset, warnings");
    cmd.callback([&run, a] {
        run = [a] {
            const auto report = ops::run_nccl_env(*a, deps());
            ops::print_nccl_env(*a, report, std::cout, std::cerr);
            return report.rc;
        };
    });
}

}  // namespace switchyard::cli
