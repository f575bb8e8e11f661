// SPDX-License-Identifier: Apache-2.0
// `switchyard plan`: the stage plan for a node list, compared with Slurm's plain order.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "switchyard/common/hostlist.hpp"
#include "switchyard/placement/planner.hpp"
#include "switchyard/policy/loaders.hpp"

namespace switchyard::cli {
namespace {

struct PlanArgs {
    std::string map;
    std::string policy;
    std::string nodes;
    unsigned stages = 1;
    unsigned nvl_group = 0;
    std::string scope = "any";  // as a job without --stage-scope
    bool json = false;
    bool order = false;
};

nlohmann::json facts_json(const placement::PlanFacts& f) {
    nlohmann::json out{{"stages_in_one_su", f.stages_in_one_su},
                       {"stages_in_one_group", f.stages_in_one_group},
                       {"adjacent_in_one_group", f.adjacent_in_one_group},
                       {"outside_scope", f.outside_scope}};
    if (f.nvl_groups > 0) {
        out["nvl_groups"] = f.nvl_groups;
        out["nvl_groups_in_one_domain"] = f.nvl_groups_in_one_domain;
    }
    return out;
}

int run_plan(const PlanArgs& a) {
    auto hosts = expand_hostlist(a.nodes);
    if (!hosts) {
        std::cerr << "switchyard plan: --nodes: " << hosts.error().message() << "\n";
        return kExitUsage;
    }
    auto scope = parse_stage_scope(a.scope);
    if (!scope) {
        std::cerr << "switchyard plan: " << scope.error().message() << "\n";
        return kExitUsage;
    }
    std::string map_path = a.map;
    placement::CostParams params;
    if (!a.policy.empty()) {
        auto pol = policy::load_policy_file(a.policy);
        if (!pol) {
            std::cerr << "switchyard plan: " << pol.error().message() << "\n";
            return kExitProblem;
        }
        params = placement::cost_params(pol->placement);
        if (map_path.empty()) {
            map_path = pol->fabric_map;
        }
    }
    std::optional<fabric::FabricMap> map;
    if (!map_path.empty()) {
        auto m = policy::load_fabric_map_file(map_path);
        if (!m) {
            std::cerr << "switchyard plan: " << m.error().to_string() << "\n";
            return kExitProblem;
        }
        map = std::move(*m);
    }
    auto plan = placement::plan_stages(*hosts, map ? &*map : nullptr, a.stages, *scope, params,
                                       a.nvl_group);
    if (!plan) {
        std::cerr << "switchyard plan: " << plan.error().message() << "\n";
        return kExitUsage;
    }
    if (a.order) {  // for cli_filter.lua: the node order, one line
        std::string line;
        for (const auto& n : plan->order) {
            line += (line.empty() ? "" : ",") + n;
        }
        std::cout << line << "\n";
        return kExitOk;
    }
    if (!a.json) {
        std::cout << placement::format_plan(*plan);
        return kExitOk;
    }
    nlohmann::json out;
    auto& stages = out["stages"] = nlohmann::json::array();
    for (const auto& s : plan->stage_list) {
        stages.push_back(
            {{"stage", s.index}, {"nodes", s.nodes}, {"sus", s.sus}, {"groups", s.groups}});
    }
    out["order"] = plan->order;
    out["cost"] = {{"plan", plan->cost.total},
                   {"slurm_order", plan->slurm_cost.total},
                   {"lower_bound", plan->lower_bound_cost.total},
                   {"plan_dp", plan->cost.dp},
                   {"plan_pp", plan->cost.pp}};
    out["striped"] = plan->striped;
    if (plan->striped) {
        out["cost"]["packed"] = plan->packed_cost.total;
    }
    out["notes"] = plan->notes;
    out["facts"] = {{"plan", facts_json(plan->facts)},
                    {"slurm_order", facts_json(plan->slurm_facts)},
                    {"best", facts_json(plan->bound)}};
    out["warnings"] = plan->warnings;
    std::cout << out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitOk;
}

}  // namespace

void setup_plan(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<PlanArgs>();
    cmd.footer(
        "\nExamples:\n  switchyard plan --map fabric.map --nodes 'gpu[001-032]' --stages 4\n"
        "  switchyard plan --policy /etc/slurm/switchyard.yaml --nodes \"$SLURM_JOB_NODELIST\" "
        "--stages 8 --json\n");
    cmd.add_option("--map", a->map, "fabric map written by 'switchyard discover'");
    cmd.add_option("--policy", a->policy, "policy file whose fabric.map to use");
    cmd.add_option("--nodes", a->nodes, "the job's nodes as a Slurm hostlist")->required();
    cmd.add_option("--stages", a->stages, "pipeline stages")
        ->required()
        ->check(CLI::Range(1U, 1024U));
    cmd.add_option("--scope", a->scope,
                   "leaf, group or any (default, as a job): where a stage must fit");
    cmd.add_option("--nvl-group", a->nvl_group,
                   "nodes per NVLink group (tensor/expert parallel): N consecutive ranks kept "
                   "inside one NVLink domain")
        ->check(CLI::Range(1U, kMaxNvlGroup));
    cmd.add_flag("--json", a->json, "JSON: stages, order, cost, facts, warnings");
    cmd.add_flag("--order", a->order, "only the node order, comma-separated (for cli_filter.lua)");
    cmd.callback([&run, a] { run = [a] { return run_plan(*a); }; });
}

}  // namespace switchyard::cli
