// SPDX-License-Identifier: Apache-2.0
// A stage plan as text: `switchyard plan` and the plugin's --topo-report.
#include <cstdio>
#include <string>

#include "switchyard/placement/planner.hpp"

namespace switchyard::placement {

std::string format_plan(const StagePlan& p) {
    auto ms = [](double s) {
        char b[32];
        std::snprintf(b, sizeof b, "%.3f ms", s * 1e3);
        return std::string(b);
    };
    std::string out = "stage plan: " + std::to_string(p.stages) + " stages x " +
                      std::to_string(p.nodes_per_stage) + " nodes; in one SU " +
                      std::to_string(p.facts.stages_in_one_su) + "/" + std::to_string(p.stages) +
                      " (best " + std::to_string(p.bound.stages_in_one_su) + ", Slurm order " +
                      std::to_string(p.slurm_facts.stages_in_one_su) + "), in one group " +
                      std::to_string(p.facts.stages_in_one_group) + "/" + std::to_string(p.stages) +
                      " (best " + std::to_string(p.bound.stages_in_one_group) + ", Slurm order " +
                      std::to_string(p.slurm_facts.stages_in_one_group) + ")\n";
    if (p.facts.nvl_groups > 0) {
        out +=
            "  NVLink groups in one domain: " + std::to_string(p.facts.nvl_groups_in_one_domain) +
            "/" + std::to_string(p.facts.nvl_groups) + " (Slurm order " +
            std::to_string(p.slurm_facts.nvl_groups_in_one_domain) + ")\n";
    }
    for (const auto& s : p.stage_list) {
        std::string nodes;
        for (const auto& n : s.nodes) {
            nodes += (nodes.empty() ? "" : ",") + n;
        }
        std::string sus;
        for (const auto& x : s.sus) {
            sus += (sus.empty() ? "" : ",") + x;
        }
        std::string groups;
        for (const auto& x : s.groups) {
            groups += (groups.empty() ? "" : ",") + x;
        }
        out += "  stage " + std::to_string(s.index) + ": " + nodes + "  su " + sus + "  group " +
               groups + "\n";
    }
    out += "  cost per step: plan " + ms(p.cost.total) + " (dp " + ms(p.cost.dp) + ", pp " +
           ms(p.cost.pp) + "), Slurm order " + ms(p.slurm_cost.total) + ", lower bound " +
           ms(p.lower_bound_cost.total) + "\n";
    if (!p.cost.why.empty()) {
        out += "    plan: " + p.cost.why + "\n";
    }
    if (!p.slurm_cost.why.empty()) {
        out += "    Slurm order: " + p.slurm_cost.why + "\n";
    }
    for (const auto& n : p.notes) {
        out += "  note: " + n + "\n";
    }
    for (const auto& w : p.warnings) {
        out += "  warning: " + w + "\n";
    }
    return out;
}

}  // namespace switchyard::placement
