// SPDX-License-Identifier: Apache-2.0
// Pipeline-stage planner and α–β cost model.
//
// Optimality: a stage lies inside one SU only if all its k nodes come from that SU, so no plan
// beats Σ_su ⌊c_su/k⌋ such stages; taking whole stages from each SU reaches it. Per group the
// bound is ⌊n_g/k⌋ = Σ_{su∈g} ⌊c_su/k⌋ + ⌊r_g/k⌋ (r_g = the SUs' leftovers), which chunking each
// group's leftovers together also reaches — both bounds at once.
#include "switchyard/policy/planner.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

namespace switchyard::policy {
namespace {

using topology::FabricKind;
using topology::FabricMap;

/// Where a node sits: SU and group indices (unknown hosts get their own, past the map's).
struct Place {
    std::uint32_t su;
    std::uint32_t group;
};

class Locator {
public:
    Locator(const FabricMap* map, const std::vector<std::string>& nodes) : map_(map) {
        const std::uint32_t sus = map != nullptr ? static_cast<std::uint32_t>(map->sus.size()) : 0;
        const std::uint32_t groups =
            map != nullptr ? static_cast<std::uint32_t>(map->groups.size()) : 0;
        std::uint32_t unknown = 0;
        places_.reserve(nodes.size() * 2);
        for (const auto& n : nodes) {
            const auto* h = map != nullptr ? map->find_host(n) : nullptr;
            if (h != nullptr) {
                places_[n] = {h->su, map->sus[h->su].group};
            } else {
                places_[n] = {sus + unknown, groups + unknown};
                ++unknown;
                unknown_.push_back(n);
            }
        }
    }
    [[nodiscard]] Place at(const std::string& n) const { return places_.at(n); }
    [[nodiscard]] std::string su_name(std::uint32_t su) const {
        return map_ != nullptr && su < map_->sus.size() ? map_->sus[su].name : "?";
    }
    [[nodiscard]] std::string group_name(std::uint32_t g) const {
        return map_ != nullptr && g < map_->groups.size() ? map_->groups[g].name : "?";
    }
    /// Node ports under the SU's leaves (hosts of the SU in the map), for uplink capacity.
    [[nodiscard]] double su_ports(std::uint32_t su) const {
        return map_ != nullptr && su < map_->sus.size()
                   ? std::max<double>(1.0, static_cast<double>(map_->sus[su].fabric_hosts()))
                   : 1.0;
    }
    /// Upper bound of the SU and group ids handed out (for dense per-id tables).
    [[nodiscard]] std::uint32_t id_limit() const {
        const std::uint32_t sus =
            map_ != nullptr ? static_cast<std::uint32_t>(map_->sus.size()) : 0;
        const std::uint32_t groups =
            map_ != nullptr ? static_cast<std::uint32_t>(map_->groups.size()) : 0;
        return std::max(sus, groups) + static_cast<std::uint32_t>(unknown_.size()) + 1;
    }
    [[nodiscard]] bool dragonfly() const {
        return map_ != nullptr && map_->kind == FabricKind::DragonflyPlus;
    }
    [[nodiscard]] const std::vector<std::string>& unknown() const { return unknown_; }

private:
    const FabricMap* map_;
    std::unordered_map<std::string, Place> places_;
    std::vector<std::string> unknown_;
};

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

/// Directed flows (from, to) sharing links; bandwidth per flow after SU uplinks and Dragonfly+
/// global bundles are divided among the flows that cross them.
std::vector<double> flow_bandwidth(const std::vector<std::pair<Place, Place>>& places,
                                   const Locator& loc,
                                   const CostParams& p) {
    std::vector<double> out_of(loc.id_limit(), 0.0);
    std::vector<double> into(loc.id_limit(), 0.0);
    std::map<std::pair<std::uint32_t, std::uint32_t>, double> global;
    for (const auto& [pa, pb] : places) {
        if (pa.su != pb.su) {
            out_of[pa.su] += 1;
            into[pb.su] += 1;
        }
        if (pa.group != pb.group) {
            global[{pa.group, pb.group}] += 1;
        }
    }
    std::vector<double> bw;
    bw.reserve(places.size());
    for (const auto& [pa, pb] : places) {
        double x = p.link_bytes_per_s;
        if (pa.su != pb.su) {
            const double up = loc.su_ports(pa.su) * p.link_bytes_per_s / p.leaf_oversubscription;
            const double down = loc.su_ports(pb.su) * p.link_bytes_per_s / p.leaf_oversubscription;
            x = std::min({x, up / out_of[pa.su], down / into[pb.su]});
        }
        if (pa.group != pb.group && loc.dragonfly()) {
            x = std::min(x, p.global_links * p.link_bytes_per_s / global[{pa.group, pb.group}]);
        }
        bw.push_back(x);
    }
    return bw;
}

double alpha(const Place& pa, const Place& pb, const Locator& loc, const CostParams& p) {
    const int hops = pa.su == pb.su ? 1 : pa.group == pb.group ? 3 : (loc.dragonfly() ? 4 : 5);
    return p.alpha_net + (hops - 1) * p.alpha_hop;
}

PlanCost cost_of(const std::vector<std::vector<std::string>>& named,
                 const Locator& loc,
                 const CostParams& p) {
    std::vector<std::vector<Place>> stages(named.size());
    for (std::size_t s = 0; s < named.size(); ++s) {
        for (const auto& n : named[s]) {
            stages[s].push_back(loc.at(n));
        }
    }
    PlanCost c;
    // DP: every stage's ring at once (the all-reduces run together at the end of the step).
    std::vector<std::pair<Place, Place>> ring;
    std::vector<std::size_t> owner;
    for (std::size_t s = 0; s < stages.size(); ++s) {
        const auto& st = stages[s];
        for (std::size_t i = 0; st.size() > 1 && i < st.size(); ++i) {
            ring.emplace_back(st[i], st[(i + 1) % st.size()]);
            owner.push_back(s);
        }
    }
    const auto ring_bw = flow_bandwidth(ring, loc, p);
    std::vector<double> min_bw(stages.size(), p.link_bytes_per_s);
    std::vector<double> sum_alpha(stages.size(), 0.0);
    for (std::size_t e = 0; e < ring.size(); ++e) {
        min_bw[owner[e]] = std::min(min_bw[owner[e]], ring_bw[e]);
        sum_alpha[owner[e]] += alpha(ring[e].first, ring[e].second, loc, p);
    }
    for (std::size_t s = 0; s < stages.size(); ++s) {
        const double n = static_cast<double>(stages[s].size());
        if (n >= 2) {
            const double t = 2 * (n - 1) * (sum_alpha[s] / n) +
                             2 * (n - 1) / n * p.grad_bytes / (p.rails * min_bw[s]);
            c.dp = std::max(c.dp, t);
        }
    }
    // PP: node i of stage k sends to node i of stage k+1, all boundaries at once.
    std::vector<std::pair<Place, Place>> p2p;
    std::vector<std::size_t> boundary;
    for (std::size_t s = 0; s + 1 < stages.size(); ++s) {
        for (std::size_t i = 0; i < stages[s].size(); ++i) {
            p2p.emplace_back(stages[s][i], stages[s + 1][i]);
            boundary.push_back(s);
        }
    }
    const auto p2p_bw = flow_bandwidth(p2p, loc, p);
    std::vector<double> worst(stages.size(), 0.0);
    for (std::size_t e = 0; e < p2p.size(); ++e) {
        worst[boundary[e]] =
            std::max(worst[boundary[e]], alpha(p2p[e].first, p2p[e].second, loc, p) +
                                             p.activation_bytes / (p.rails * p2p_bw[e]));
    }
    for (const double w : worst) {
        c.pp = std::max(c.pp, 2.0 * p.micro_batches * w);
    }
    c.total = c.dp + c.pp;
    return c;
}

PlanCost lower_bound(unsigned stages, std::size_t k, const CostParams& p) {
    PlanCost c;
    const double n = static_cast<double>(k);
    if (k > 1) {
        c.dp = 2 * (n - 1) * p.alpha_net +
               2 * (n - 1) / n * p.grad_bytes / (p.rails * p.link_bytes_per_s);
    }
    if (stages > 1) {
        c.pp = 2.0 * p.micro_batches *
               (p.alpha_net + p.activation_bytes / (p.rails * p.link_bytes_per_s));
    }
    c.total = c.dp + c.pp;
    return c;
}

}  // namespace

CostParams cost_params(const PlacementPolicy& p) {
    CostParams c;
    c.link_bytes_per_s = p.link_gbps * 1e9;
    c.alpha_net = p.alpha_net_us * 1e-6;
    c.alpha_hop = p.alpha_hop_us * 1e-6;
    c.leaf_oversubscription = p.leaf_oversubscription;
    c.global_links = p.global_links;
    c.grad_bytes = p.grad_gbytes * 1e9;
    c.activation_bytes = p.activation_mbytes * 1e6;
    c.micro_batches = p.micro_batches;
    return c;
}

PlanFacts order_facts(const std::vector<std::string>& order,
                      const FabricMap* map,
                      unsigned stages,
                      StageScope scope) {
    return facts_of(cut(order, stages), Locator(map, order), scope);
}

namespace {

/// The rail count comes from the map when it knows the nodes: the fewest rails any of them
/// has (a stage's all-reduce runs at its slowest member's width), else the policy's value.
CostParams with_map_rails(CostParams p,
                          const FabricMap* map,
                          const std::vector<std::string>& nodes) {
    if (map == nullptr) {
        return p;
    }
    unsigned fewest = 0;
    for (const auto& n : nodes) {
        if (const auto* h = map->find_host(n); h != nullptr && h->rail_count > 0) {
            fewest = fewest == 0 ? h->rail_count : std::min<unsigned>(fewest, h->rail_count);
        }
    }
    if (fewest > 0) {
        p.rails = fewest;
    }
    return p;
}

}  // namespace

PlanCost order_cost(const std::vector<std::string>& order,
                    const FabricMap* map,
                    unsigned stages,
                    const CostParams& params) {
    return cost_of(cut(order, stages), Locator(map, order), with_map_rails(params, map, order));
}

Result<StagePlan> plan_stages(const std::vector<std::string>& nodes,
                              const FabricMap* map,
                              unsigned stages,
                              StageScope scope,
                              const CostParams& policy_params) {
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
        out.plan.push_back(std::move(ps));
    }
    out.facts = facts_of(ordered, loc, scope);
    out.slurm_facts = facts_of(cut(nodes, stages), loc, scope);
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
    out.cost = cost_of(ordered, loc, params);
    out.slurm_cost = cost_of(cut(nodes, stages), loc, params);
    out.lower_bound_cost = lower_bound(stages, k, params);
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
    for (const auto& s : p.plan) {
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
    for (const auto& w : p.warnings) {
        out += "  warning: " + w + "\n";
    }
    return out;
}

}  // namespace switchyard::policy
