// SPDX-License-Identifier: Apache-2.0
// Pipeline-stage planner: whole stages from each SU, then each group's leftovers, then the
// stages that must cross groups (the cost model is cost_model.cpp, the report plan_report.cpp).
//
// Optimality: a stage lies inside one SU only if all its k nodes come from that SU, so no plan
// beats Σ_su ⌊c_su/k⌋ such stages; taking whole stages from each SU reaches it. Per group the
// bound is ⌊n_g/k⌋ = Σ_{su∈g} ⌊c_su/k⌋ + ⌊r_g/k⌋ (r_g = the SUs' leftovers), which chunking each
// group's leftovers together also reaches — both bounds at once.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "placement_model.hpp"

namespace switchyard::placement {

PlanFacts facts_of(const std::vector<std::vector<std::string>>& stages,
                   const Locator& loc,
                   StageScope scope) {
    PlanFacts f;
    std::vector<std::set<std::uint32_t>> groups(stages.size());
    for (std::size_t s = 0; s < stages.size(); ++s) {
        std::set<std::uint32_t> sus;
        for (const auto& n : stages[s]) {
            sus.insert(loc.at(n).su);
            groups[s].insert(loc.at(n).group);
        }
        f.stages_in_one_su += sus.size() == 1 ? 1U : 0U;
        f.stages_in_one_group += groups[s].size() == 1 ? 1U : 0U;
        const bool outside = (scope == StageScope::Leaf && sus.size() > 1) ||
                             (scope == StageScope::Group && groups[s].size() > 1);
        f.outside_scope += outside ? 1U : 0U;
    }
    for (std::size_t s = 0; s + 1 < stages.size(); ++s) {
        std::set<std::uint32_t> both = groups[s];
        both.insert(groups[s + 1].begin(), groups[s + 1].end());
        f.adjacent_in_one_group += both.size() == 1 ? 1U : 0U;
    }
    return f;
}

std::vector<std::vector<std::string>> cut(const std::vector<std::string>& order, unsigned stages) {
    std::vector<std::vector<std::string>> out(stages);
    const auto k = order.size() / stages;
    for (std::size_t i = 0; i < order.size(); ++i) {
        out[i / k].push_back(order[i]);
    }
    return out;
}

PlanFacts order_facts(const std::vector<std::string>& order,
                      const FabricMap* map,
                      unsigned stages,
                      StageScope scope) {
    return facts_of(cut(order, stages), Locator(map, order), scope);
}

std::vector<std::vector<std::string>> stripe(const std::vector<std::string>& order,
                                             unsigned stages) {
    if (stages == 0 || order.size() % stages != 0) {
        return {};
    }
    std::vector<std::vector<std::string>> out(stages);
    for (std::size_t p = 0; p < order.size(); ++p) {
        out[p % stages].push_back(order[p]);
    }
    return out;
}

namespace {

/// Whether the fabric's shared links (not a node's port, not NVLink) pace this limit.
bool fabric_paced(const Limit& l) {
    return l.kind != Limit::Kind::Port && l.kind != Limit::Kind::NvLink;
}

/// The NVLink domain of `n` in the map, healthy or not (kNoDomain when none).
std::uint32_t domain_of(const FabricMap* map, const std::string& n) {
    const auto* h = map != nullptr ? map->find_host(n) : nullptr;
    return h != nullptr ? h->domain : fabric::kNoDomain;
}

/// One SU's nodes (sorted by name) arranged by NVLink domain: each domain's nodes together, in
/// whole groups of `group` first (domain order), the domains' remainders after them.
void arrange_by_domain(std::vector<std::string>& list, const FabricMap* map, unsigned group) {
    if (map == nullptr || map->domains.empty()) {
        return;
    }
    std::stable_sort(list.begin(), list.end(), [&](const std::string& a, const std::string& b) {
        return domain_of(map, a) < domain_of(map, b);
    });
    if (group < 2) {
        return;
    }
    std::vector<std::string> whole;
    std::vector<std::string> rest;
    for (std::size_t i = 0; i < list.size();) {
        std::size_t j = i;
        while (j < list.size() && domain_of(map, list[j]) == domain_of(map, list[i])) {
            ++j;
        }
        const bool none = domain_of(map, list[i]) == fabric::kNoDomain;
        const std::size_t full = none ? 0 : (j - i) / group * group;
        whole.insert(whole.end(), list.begin() + static_cast<std::ptrdiff_t>(i),
                     list.begin() + static_cast<std::ptrdiff_t>(i + full));
        rest.insert(rest.end(), list.begin() + static_cast<std::ptrdiff_t>(i + full),
                    list.begin() + static_cast<std::ptrdiff_t>(j));
        i = j;
    }
    whole.insert(whole.end(), rest.begin(), rest.end());
    list = std::move(whole);
}

/// Groups of `group` consecutive nodes of `order`, and those inside one NVLink domain.
void count_nvl_groups(PlanFacts& f,
                      const std::vector<std::string>& order,
                      const FabricMap* map,
                      unsigned group) {
    if (group == 0) {
        return;
    }
    for (std::size_t i = 0; i + group <= order.size(); i += group) {
        ++f.nvl_groups;
        const auto d = domain_of(map, order[i]);
        bool one = d != fabric::kNoDomain;
        for (std::size_t j = i + 1; one && j < i + group; ++j) {
            one = domain_of(map, order[j]) == d;
        }
        f.nvl_groups_in_one_domain += one ? 1U : 0U;
    }
}

}  // namespace

Result<StagePlan> plan_stages(const std::vector<std::string>& nodes,
                              const FabricMap* map,
                              unsigned stages,
                              StageScope scope,
                              const CostParams& policy_params,
                              unsigned nvl_group) {
    const auto params = with_map_rails(policy_params, map, nodes);
    if (stages == 0) {
        return fail(Error::invalid_argument("--pipeline-stages: expected at least 1 stage"));
    }
    if (nodes.empty() || nodes.size() % stages != 0) {
        return fail(Error::invalid_argument(
            "--pipeline-stages=" + std::to_string(stages) + ": " + std::to_string(nodes.size()) +
            " nodes do not split into " + std::to_string(stages) +
            " equal stages; use a node count that " + std::to_string(stages) + " divides"));
    }
    std::vector<std::string> sorted = nodes;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
        return fail(Error::invalid_argument("the node list names a node twice: " +
                                            *std::adjacent_find(sorted.begin(), sorted.end())));
    }
    const Locator loc(map, sorted);
    const std::size_t k = sorted.size() / stages;

    // SUs in order of (group, first node), nodes by name inside each.
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::string>>
        by_su;  // (group, su)
    for (const auto& n : sorted) {
        by_su[{loc.at(n).group, loc.at(n).su}].push_back(n);
    }
    std::vector<std::vector<std::string>> whole;                 // stages inside one SU
    std::map<std::uint32_t, std::vector<std::string>> leftover;  // per group, SU-ordered
    for (auto& [key, list] : by_su) {
        arrange_by_domain(list, map, nvl_group);
        std::size_t i = 0;
        for (; i + k <= list.size(); i += k) {
            whole.emplace_back(list.begin() + static_cast<std::ptrdiff_t>(i),
                               list.begin() + static_cast<std::ptrdiff_t>(i + k));
        }
        auto& rest = leftover[key.first];
        rest.insert(rest.end(), list.begin() + static_cast<std::ptrdiff_t>(i), list.end());
    }
    // Group leftovers: whole chunks stay in their group; the remainder crosses groups.
    std::map<std::uint32_t, std::vector<std::vector<std::string>>> per_group;
    for (const auto& st : whole) {
        per_group[loc.at(st.front()).group].push_back(st);
    }
    std::vector<std::string> crossing;
    for (auto& [g, rest] : leftover) {
        std::size_t i = 0;
        for (; i + k <= rest.size(); i += k) {
            per_group[g].emplace_back(rest.begin() + static_cast<std::ptrdiff_t>(i),
                                      rest.begin() + static_cast<std::ptrdiff_t>(i + k));
        }
        crossing.insert(crossing.end(), rest.begin() + static_cast<std::ptrdiff_t>(i), rest.end());
    }
    // Stage order: group by group; a crossing stage goes right after the group holding its first
    // node, so it borders the groups it spans.
    std::map<std::uint32_t, std::vector<std::vector<std::string>>> crossing_after;
    for (std::size_t i = 0; i < crossing.size(); i += k) {
        std::vector<std::string> st(crossing.begin() + static_cast<std::ptrdiff_t>(i),
                                    crossing.begin() + static_cast<std::ptrdiff_t>(i + k));
        crossing_after[loc.at(st.front()).group].push_back(std::move(st));
    }
    std::set<std::uint32_t> group_ids;
    for (const auto& [g, v] : per_group) {
        group_ids.insert(g);
    }
    for (const auto& [g, v] : crossing_after) {
        group_ids.insert(g);
    }
    std::vector<std::vector<std::string>> ordered;
    for (const auto g : group_ids) {
        for (auto& st : per_group[g]) {
            ordered.push_back(std::move(st));
        }
        for (auto& st : crossing_after[g]) {
            ordered.push_back(std::move(st));
        }
    }

    StagePlan out;
    out.stages = stages;
    out.nodes_per_stage = static_cast<unsigned>(k);
    out.cost = cost_of(ordered, loc, params);
    // Pipeline sends over thin links: every node of a boundary sends across them at once,
    // where a stage's ring, striped, enters and leaves each SU or group once.
    if (params.stripe && scope == StageScope::Any && nvl_group == 0 && stages > 1 &&
        fabric_paced(out.cost.pp_limit)) {
        std::vector<std::string> packed_order;
        for (const auto& st : ordered) {
            packed_order.insert(packed_order.end(), st.begin(), st.end());
        }
        auto alt = stripe(packed_order, stages);
        const auto alt_cost = cost_of(alt, loc, params);
        if (alt_cost.total <= kStripeGain * out.cost.total) {
            out.striped = true;
            out.packed_cost = out.cost;
            out.cost = alt_cost;
            ordered = std::move(alt);
            char line[160];
            std::snprintf(line, sizeof line,
                          "stages striped over the nodes (node p to stage p mod %u): %.3f ms "
                          "per step against %.3f ms with each stage packed",
                          stages, out.cost.total * 1e3, out.packed_cost.total * 1e3);
            out.notes.emplace_back(line);
            out.notes.push_back("packed: " + out.packed_cost.why);
        }
    }
    for (unsigned s = 0; s < ordered.size(); ++s) {
        PlannedStage ps;
        ps.index = s;
        ps.nodes = ordered[s];
        for (const auto& n : ps.nodes) {
            out.order.push_back(n);
            const auto su = loc.su_name(loc.at(n).su);
            const auto gr = loc.group_name(loc.at(n).group);
            if (std::find(ps.sus.begin(), ps.sus.end(), su) == ps.sus.end()) {
                ps.sus.push_back(su);
            }
            if (std::find(ps.groups.begin(), ps.groups.end(), gr) == ps.groups.end()) {
                ps.groups.push_back(gr);
            }
        }
        out.stage_list.push_back(std::move(ps));
    }
    out.facts = facts_of(ordered, loc, scope);
    out.slurm_facts = facts_of(cut(nodes, stages), loc, scope);
    count_nvl_groups(out.facts, out.order, map, nvl_group);
    count_nvl_groups(out.slurm_facts, nodes, map, nvl_group);
    if (nvl_group > 0 && k % nvl_group != 0) {
        out.warnings.push_back("NVLink groups of " + std::to_string(nvl_group) +
                               " do not divide stages of " + std::to_string(k) + " nodes");
    }
    for (const auto& [key, list] : by_su) {
        out.bound.stages_in_one_su += static_cast<unsigned>(list.size() / k);
    }
    std::map<std::uint32_t, std::size_t> in_group;
    for (const auto& n : sorted) {
        ++in_group[loc.at(n).group];
    }
    for (const auto& [g, count] : in_group) {
        out.bound.stages_in_one_group += static_cast<unsigned>(count / k);
    }
    out.slurm_cost = cost_of(cut(nodes, stages), loc, params);
    out.lower_bound_cost = lower_bound(stages, k, params, loc.nvlink_capacity(sorted));
    if (map == nullptr) {
        out.warnings.push_back("no fabric map: stages follow node-name order");
    } else if (!loc.unknown().empty()) {
        out.warnings.push_back(std::to_string(loc.unknown().size()) +
                               " node(s) not in the fabric map, e.g. " + loc.unknown().front());
    }
    if (out.facts.outside_scope > 0) {
        out.warnings.push_back(std::to_string(out.facts.outside_scope) +
                               " stage(s) cannot fit the requested scope (" +
                               std::string(to_string(scope)) + ") with these nodes");
    }
    return out;
}

}  // namespace switchyard::placement
