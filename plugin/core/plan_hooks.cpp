// SPDX-License-Identifier: Apache-2.0
// Stage plan → task variables (DESIGN.md "Variables a task receives").
#include "plan_hooks.hpp"

#include <algorithm>
#include <vector>

#include "hooks.hpp"
#include "plugin_state.hpp"

namespace switchyard::spank {
namespace {

/// The node's SU from the map, checked against (or, without a map entry, taken from) Slurm's leaf.
void resolve_su(SpankApi& api, Logger& log, const std::string& host) {
    auto& st = plugin_state();
    const auto addr = api.getenv("SLURM_TOPOLOGY_ADDR");
    const auto pattern = api.getenv("SLURM_TOPOLOGY_ADDR_PATTERN");
    const auto leaf = addr && pattern ? slurm_leaf(*addr, *pattern) : std::nullopt;
    if (!leaf) {
        return;
    }
    if (st.su.empty()) {
        st.su = *leaf;
    } else if (*leaf != st.su) {
        log.warning(Component::Plugin,
                    "Slurm places " + host + " under '" + *leaf + "' (SLURM_TOPOLOGY_ADDR=" +
                        *addr + ") but the fabric map puts it in SU '" + st.su +
                        "': the map and Slurm's topology file come from different discover "
                        "runs; the plan follows the map — rerun switchyard discover and install "
                        "both");
    }
}

}  // namespace

bool uniform_tasks_per_node(std::string_view v) {
    const auto digits = [](std::string_view d) {
        return !d.empty() && d.size() <= 10 &&
               std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    const auto open = v.find('(');
    if (open == std::string_view::npos) {
        return digits(v);
    }
    return digits(v.substr(0, open)) && v.size() >= open + 4 && v.substr(open, 2) == "(x" &&
           v.back() == ')' && digits(v.substr(open + 2, v.size() - open - 3));
}

std::optional<std::string> slurm_leaf(std::string_view addr, std::string_view pattern) {
    std::vector<std::string_view> levels;
    for (std::size_t start = 0;;) {
        const auto dot = pattern.find('.', start);
        levels.push_back(pattern.substr(start, dot - start));
        if (dot == std::string_view::npos) {
            break;
        }
        start = dot + 1;
    }
    if (levels.size() < 2 || levels.back() != "node") {
        return std::nullopt;
    }
    // The first levels.size()-1 dot-separated fields are switches or blocks; the rest the node.
    std::string_view rest = addr;
    std::string_view leaf;
    for (std::size_t i = 0; i + 1 < levels.size(); ++i) {
        const auto dot = rest.find('.');
        if (dot == std::string_view::npos || dot == 0) {
            return std::nullopt;
        }
        leaf = rest.substr(0, dot);
        rest.remove_prefix(dot + 1);
    }
    if (rest.empty()) {
        return std::nullopt;
    }
    return std::string(leaf);
}

void prepare_plan(SpankApi& api,
                  Logger& log,
                  const policy::Policy& pol,
                  const JobOptions& opts,
                  const nccl::JobFacts& job,
                  const fabric::FabricMap* map) {
    auto& st = plugin_state();
    if (!opts.pipeline_stages && !opts.nvl_group) {
        return;
    }
    st.rank_topology = opts.rank_order == RankOrder::Topology;
    // --nvl-group alone: one stage of every node, its ranks in NVLink groups.
    auto plan =
        placement::plan_stages(job.hosts, map, opts.pipeline_stages.value_or(1),
                               opts.stage_scope.value_or(StageScope::Any),
                               placement::cost_params(pol.placement), opts.nvl_group.value_or(0));
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
    resolve_su(api, log, job.this_host);
    if (opts.topo_report && api.node_index() == 0) {
        log.log(Level::Notice, Component::Plugin, placement::format_plan(*plan));
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
    if (const auto layout = api.getenv("SLURM_STEP_TASKS_PER_NODE");
        layout && !uniform_tasks_per_node(*layout)) {
        const auto& got = *layout;
        return fail(Error::invalid_argument(
            "--pipeline-stages needs the same number of tasks on every node (got " +
            (got.size() > 64
                 ? got.substr(0, 64) + "... (" + std::to_string(got.size()) + " characters)"
                 : got) +
            ")"));
    }
    // The ranks the job runs with: the plan's order with --rank-order=topology (RANK below),
    // else Slurm's own task ids (SLURM_PROCID). Never the node index: 26.05 may number tasks
    // in topology order while node indexes stay in name order, and cli_filter.lua's arbitrary
    // distribution numbers them in the plan's order.
    const auto stages = static_cast<std::uint32_t>(plan.stages);
    std::uint32_t rank = index * tpn + *task;
    std::uint32_t world = static_cast<std::uint32_t>(plan.order.size()) * tpn;
    if (!st.rank_topology) {
        const auto global = api.task_global_id();
        if (!global) {
            return fail(Error::internal("task " + std::to_string(*task) + " on " + host +
                                        " has no global task id (S_TASK_GLOBAL_ID)"));
        }
        const auto total = api.total_task_count();
        world = total > 0 ? total : world;
        rank = *global;
        if (rank >= world) {
            return fail(Error::internal("task " + std::to_string(rank) + " on " + host +
                                        " is beyond the step's " + std::to_string(world) +
                                        " tasks"));
        }
        if (stages == 0 || world % stages != 0) {
            return fail(Error::invalid_argument("--pipeline-stages=" + std::to_string(stages) +
                                                ": the step's " + std::to_string(world) +
                                                " tasks do not split into " +
                                                std::to_string(stages) + " equal stages"));
        }
    }
    const auto per_stage = world / std::max<std::uint32_t>(1, stages);
    const std::pair<const char*, std::string> vars[] = {
        {"SWITCHYARD_STAGE", std::to_string(rank / per_stage)},
        {"SWITCHYARD_STAGE_RANK", std::to_string(rank % per_stage)},
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
        {"WORLD_SIZE", std::to_string(world)},
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
