// SPDX-License-Identifier: Apache-2.0
// `switchyard plan` (ops/plan.hpp).
#include "switchyard/ops/plan.hpp"

#include <nlohmann/json.hpp>
#include <ostream>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/job_options.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/policy/loaders.hpp"
#include "switchyard/policy/step_input.hpp"

namespace switchyard::ops {
namespace {

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

}  // namespace

PlanReport run_plan(const PlanRequest& a, Deps& /*deps*/) {
    PlanReport r;
    const auto stop = [&](int rc, std::string why) {
        r.rc = rc;
        r.error = std::move(why);
        return std::move(r);
    };
    auto hosts = expand_hostlist(a.nodes);
    if (!hosts) {
        return stop(kExitUsage, "--nodes: " + hosts.error().message());
    }
    auto scope = parse_stage_scope(a.scope);
    if (!scope) {
        return stop(kExitUsage, scope.error().message());
    }
    std::string map_path = a.map;
    placement::CostParams params;
    policy::Policy pol;
    if (!a.policy.empty()) {
        auto loaded = policy::load_policy_file(a.policy);
        if (!loaded) {
            return stop(kExitProblem, loaded.error().message());
        }
        pol = std::move(*loaded);
        params = placement::cost_params(pol.placement);
        if (map_path.empty()) {
            map_path = pol.fabric_map;
        }
    }
    // The map as a step loads it, without the node (the planner reads none).
    const auto in = policy::load_step_input(
        pol, {"", *hosts, map_path, /*step=*/false, /*node=*/false, "", ""});
    if (in.map_error) {
        return stop(kExitProblem, in.map_error->to_string());
    }
    const auto& map = in.map;
    auto plan = placement::plan_stages(*hosts, map ? &*map : nullptr, a.stages, *scope, params,
                                       a.nvl_group);
    if (!plan) {
        return stop(kExitUsage, plan.error().message());
    }
    r.plan = std::move(*plan);
    return r;
}

void print_plan(const PlanRequest& a, const PlanReport& r, std::ostream& out, std::ostream& err) {
    if (!r.error.empty()) {
        err << "switchyard plan: " << r.error << "\n";
        return;
    }
    const auto& plan = r.plan;
    if (a.order) {  // for cli_filter.lua: the node order, one line
        std::string line;
        for (const auto& n : plan->order) {
            line += (line.empty() ? "" : ",") + n;
        }
        out << line << "\n";
        return;
    }
    if (!a.json) {
        out << placement::format_plan(*plan);
        return;
    }
    nlohmann::json o;
    auto& stages = o["stages"] = nlohmann::json::array();
    for (const auto& s : plan->stage_list) {
        stages.push_back(
            {{"stage", s.index}, {"nodes", s.nodes}, {"sus", s.sus}, {"groups", s.groups}});
    }
    o["order"] = plan->order;
    o["cost"] = {{"plan", plan->cost.total},
                 {"slurm_order", plan->slurm_cost.total},
                 {"lower_bound", plan->lower_bound_cost.total},
                 {"plan_dp", plan->cost.dp},
                 {"plan_pp", plan->cost.pp}};
    o["striped"] = plan->striped;
    if (plan->striped) {
        o["cost"]["packed"] = plan->packed_cost.total;
    }
    o["notes"] = plan->notes;
    o["facts"] = {{"plan", facts_json(plan->facts)},
                  {"slurm_order", facts_json(plan->slurm_facts)},
                  {"best", facts_json(plan->bound)}};
    o["warnings"] = plan->warnings;
    out << o.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace switchyard::ops
