// SPDX-License-Identifier: Apache-2.0
// The subcommand table of the switchyard command and its dispatch.
#include "commands.hpp"

#include <iostream>
#include <string>
#include <vector>

namespace switchyard::cli {

const std::vector<Subcommand>& subcommands() {
    static const std::vector<Subcommand> table{
        {"discover", "read ibnetdiscover output; write the fabric map and Slurm topology files",
         "#3"},
        {"fabric", "show the fabric map: scalable units, groups, rails, hosts", "#3"},
        {"node", "show this node: GPUs, NICs, NUMA, GPU-NIC paths, RDMA port state", "#4"},
        {"nccl-env", "print the NCCL variables a job would get here, and why", "#5"},
        {"plan", "plan pipeline stages over a node list and compare with Slurm's order", "#6"},
        {"health", "run the node health checks (exit 0 pass, 1 fail)", "#7"},
        {"check-config", "validate a policy file and print every problem", "#5"},
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

void register_subcommands(CLI::App& app, std::string& chosen) {
    for (const auto& sub : subcommands()) {
        auto* cmd = app.add_subcommand(std::string(sub.name), std::string(sub.summary));
        // Options of a subcommand arrive with its issue; until then its arguments are accepted
        // so that the "not implemented" message, not a parse error, is what users see.
        cmd->allow_extras();
        cmd->callback([&chosen, name = sub.name] { chosen = std::string(name); });
    }
}

int run_subcommand(const std::string& chosen) {
    for (const auto& sub : subcommands()) {
        if (sub.name == chosen && !sub.pending_issue.empty()) {
            std::cerr << "switchyard: '" << chosen << "' is not implemented in this version yet "
                      << "(tracked by issue " << sub.pending_issue << ")\n";
            return kExitUsage;
        }
    }
    std::cerr << "switchyard: no handler for '" << chosen << "'\n";
    return kExitUsage;
}

}  // namespace switchyard::cli
