// SPDX-License-Identifier: Apache-2.0
// Stage plan → task variables (DESIGN.md "Variables a task receives").
#include "plan_hooks.hpp"

#include <algorithm>
#include <regex>

#include "hooks.hpp"
#include "plugin_state.hpp"

namespace switchyard::spank {
namespace {

/// SLURM_STEP_TASKS_PER_NODE "4(x8)" or "4" means the same count everywhere; "4,3" does not.
bool uniform_tasks(const std::optional<std::string>& layout) {
    static const std::regex kUniform(R"(^\d+(\(x\d+\))?$)");
    return !layout || std::regex_match(*layout, kUniform);
}

}  // namespace

void prepare_plan(SpankApi& api,
                  Logger& log,
                  const policy::Policy& pol,
                  const policy::JobOptions& opts,
                  const policy::JobFacts& job,
                  const topology::FabricMap* map) {
    auto& st = plugin_state();
    if (!opts.pipeline_stages) {
        return;
    }
    st.rank_topology = opts.rank_order == policy::RankOrder::Topology;
    auto plan = policy::plan_stages(job.hosts, map, *opts.pipeline_stages,
                                    opts.stage_scope.value_or(policy::StageScope::Any),
                                    policy::cost_params(pol.placement));
    if (!plan) {
        st.plan_error = plan.error().message();
        return;
    }
    if (map != nullptr) {
        if (const auto* h = map->find_host(job.this_host)) {
            st.su = map->sus[h->su].name;
            st.group = map->groups[map->sus[h->su].group].name;
        }
    }
    if (opts.topo_report && api.node_index() == 0) {
        log.log(Level::Notice, Component::Plugin, policy::format_plan(*plan));
    }
    for (const auto& w : plan->warnings) {
        if (api.node_index() == 0) {
            log.warning(Component::Plugin, w);
        }
    }
    st.plan = std::move(*plan);
}

Result<void> export_task_plan(SpankApi& api, Logger& log) {
    auto& st = plugin_state();
    if (!st.plan_error.empty()) {
        return fail(Error::invalid_argument(st.plan_error));
    }
    if (!st.plan) {
        return {};
    }
    const auto& plan = *st.plan;
    const auto host = api.node_name();
    const auto it = std::find(plan.order.begin(), plan.order.end(), host);
    const auto task = api.local_task_id();
    if (it == plan.order.end() || !task) {
        return fail(Error::internal("node " + host + " is not in the step's plan"));
    }
    const auto index = static_cast<std::uint32_t>(it - plan.order.begin());
    const auto tpn = std::max<std::uint32_t>(1, api.local_task_count());
    if (!uniform_tasks(api.getenv("SLURM_STEP_TASKS_PER_NODE"))) {
        return fail(Error::invalid_argument(
            "--pipeline-stages needs the same number of tasks on every node (got " +
            api.getenv("SLURM_STEP_TASKS_PER_NODE").value_or("?") + ")"));
    }
    const auto k = plan.nodes_per_stage;
    const auto rank = index * tpn + *task;
    const std::pair<const char*, std::string> vars[] = {
        {"SWITCHYARD_STAGE", std::to_string(index / k)},
        {"SWITCHYARD_STAGE_RANK", std::to_string((index % k) * tpn + *task)},
        {"SWITCHYARD_RANK", std::to_string(rank)},
        {"SWITCHYARD_SU", st.su.empty() ? "unknown" : st.su},
        {"SWITCHYARD_GROUP", st.group.empty() ? "unknown" : st.group},
    };
    for (const auto& [name, value] : vars) {
        if (auto r = export_var(api, log, name, value); !r) {
            return r;
        }
    }
    if (!st.rank_topology) {
        return {};
    }
    const std::pair<const char*, std::string> torch[] = {
        {"RANK", std::to_string(rank)},
        {"WORLD_SIZE", std::to_string(plan.order.size() * tpn)},
        {"LOCAL_RANK", std::to_string(*task)},
        {"LOCAL_WORLD_SIZE", std::to_string(tpn)},
        {"MASTER_ADDR", plan.order.front()},
        {"MASTER_PORT", std::to_string(20000 + api.job_id() % 20000)},
    };
    for (const auto& [name, value] : torch) {
        if (auto r = export_var(api, log, name, value); !r) {
            return r;
        }
    }
    return {};
}

}  // namespace switchyard::spank
