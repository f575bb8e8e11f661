// SPDX-License-Identifier: Apache-2.0
// The α–β cost model of a placement: per step, the data-parallel all-reduce inside each stage
// and the pipeline sends between stages, over links shared by the flows that cross them.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "placement_model.hpp"

namespace switchyard::policy {
namespace {

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

}  // namespace

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

PlanCost order_cost(const std::vector<std::string>& order,
                    const FabricMap* map,
                    unsigned stages,
                    const CostParams& params) {
    return cost_of(cut(order, stages), Locator(map, order), with_map_rails(params, map, order));
}

}  // namespace switchyard::policy
