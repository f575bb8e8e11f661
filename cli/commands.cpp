// SPDX-License-Identifier: Apache-2.0
// The subcommand table of the switchyard command and its dispatch.
#include "commands.hpp"

#include <iostream>
#include <string>
#include <vector>

namespace switchyard::cli {

ops::Deps& deps() {
    static slurm::RealClient client;
    static const ops::SystemClock clock;
    static ops::Deps d{client, clock, "", std::cout, std::cerr};
    return d;
}

const std::vector<Subcommand>& subcommands() {
    static const std::vector<Subcommand> table{
        {"discover",
         "read the fabric (ibnetdiscover or LLDP output) and node facts; write the fabric map "
         "and Slurm topology files",
         setup_discover},
        {"fabric", "show the fabric map: scalable units, groups, rails, hosts", setup_fabric},
        {"node", "show this node: GPUs, NICs, NUMA, GPU-NIC paths, RDMA port state", setup_node},
        {"nccl-env", "print the NCCL variables a job would get here, and why", setup_nccl_env},
        {"plan", "plan pipeline stages over a node list and compare with Slurm's order",
         setup_plan},
        {"health", "run the node health checks (exit 0 pass, 1 fail)", setup_health},
        {"install", "put a discover output in place for slurmctld, guarded; --rollback",
         setup_install},
        {"audit", "check running jobs' placement and slurmctld's topology against the map",
         setup_audit},
        {"why", "say whether a pipeline job's placement can start now, and what would", setup_why},
        {"preflight", "a job's pairs to measure, and from their results the part at fault",
         setup_preflight},
        {"locate", "a running job's slow ranks (NCCL Inspector), placed on the fabric",
         setup_locate},
        {"steer", "raise the Slurm Weight of nodes in degraded places of the fabric", setup_steer},
        {"refresh", "one unattended round over a capture: discover, install, steer, audit",
         setup_refresh},
        {"render", "draw the fabric (and a job's stages, drained nodes) as an SVG picture",
         setup_render},
        {"check-config", "validate a policy file and print every problem", setup_check_config},
    };
    return table;
}

bool is_subcommand(std::string_view name) {
    for (const auto& sub : subcommands()) {
        if (sub.name == name) {
            return true;
        }
    }
    return false;
}

std::string subcommand_names() {
    std::string out;
    for (const auto& sub : subcommands()) {
        out += out.empty() ? "" : ", ";
        out += sub.name;
    }
    return out;
}

void register_subcommands(CLI::App& app, Runner& run) {
    for (const auto& sub : subcommands()) {
        sub.setup(*app.add_subcommand(std::string(sub.name), std::string(sub.summary)), run);
    }
}

}  // namespace switchyard::cli
