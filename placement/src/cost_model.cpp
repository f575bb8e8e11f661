// SPDX-License-Identifier: Apache-2.0
// The α–β cost model of a placement: per step, the data-parallel all-reduce inside each stage
// and the pipeline sends between stages, over links shared by the flows that cross them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include "placement_model.hpp"

namespace switchyard::placement {
namespace {

/// A flow's bandwidth per rail and the link that limits it.
struct FlowBw {
    double bytes_per_s = 0;
    Limit limit;
};

/// Directed flows (from, to) sharing links; bandwidth per flow after SU uplinks and Dragonfly+
/// global bundles are divided among the flows that cross them: these and `others` (other jobs'
/// flows on the same fabric, which take their share but whose bandwidth is not returned).
std::vector<FlowBw> flow_bandwidth(const std::vector<std::pair<Place, Place>>& places,
                                   const std::vector<std::pair<Place, Place>>& others,
                                   const Locator& loc,
                                   const CostParams& p) {
    std::vector<double> out_of(loc.id_limit(), 0.0);
    std::vector<double> into(loc.id_limit(), 0.0);
    std::vector<double> out_of_pod(loc.id_limit(), 0.0);
    std::vector<double> into_pod(loc.id_limit(), 0.0);
    std::map<std::pair<std::uint32_t, std::uint32_t>, double> global;
    const auto nvlink = [](const Place& a, const Place& b) {
        return a.domain != fabric::kNoDomain && a.domain == b.domain;
    };
    for (const auto* set : {&places, &others}) {
        for (const auto& [pa, pb] : *set) {
            if (nvlink(pa, pb)) {
                continue;  // over NVLink: no fabric link carries it
            }
            if (pa.su != pb.su) {
                out_of[pa.su] += 1;
                into[pb.su] += 1;
            }
            if (pa.group != pb.group) {
                global[{pa.group, pb.group}] += 1;
                out_of_pod[pa.group] += 1;
                into_pod[pb.group] += 1;
            }
        }
    }
    // Per rail: the SU's uplinks from the map, else its node ports over the policy's taper;
    // the global cables between two groups from the map, else the policy's count.
    const auto uplinks = [&](std::uint32_t su) {
        const double cables = loc.su_uplinks(su);
        return cables > 0 ? cables : loc.su_ports(su) / p.leaf_oversubscription;
    };
    std::vector<FlowBw> bw;
    bw.reserve(places.size());
    for (const auto& [pa, pb] : places) {
        if (nvlink(pa, pb)) {
            bw.push_back({p.nvlink_bytes_per_s, {Limit::Kind::NvLink, pa.domain, pa.domain, 0, 0}});
            continue;
        }
        FlowBw f{p.link_bytes_per_s, {}};
        const auto consider = [&](Limit::Kind kind, std::uint32_t a, std::uint32_t b, double cables,
                                  double flows) {
            const double x = cables * p.link_bytes_per_s / flows;
            if (x < f.bytes_per_s) {
                f = {x, {kind, a, b, cables, flows}};
            }
        };
        if (pa.su != pb.su) {
            consider(Limit::Kind::Uplinks, pa.su, pa.su, uplinks(pa.su), out_of[pa.su]);
            consider(Limit::Kind::Downlinks, pb.su, pb.su, uplinks(pb.su), into[pb.su]);
        }
        if (pa.group != pb.group && loc.dragonfly()) {
            const double cables = loc.global_cables(pa.group, pb.group);
            consider(Limit::Kind::Global, pa.group, pb.group,
                     cables > 0 ? cables / p.rails : p.global_links, global[{pa.group, pb.group}]);
        }
        if (pa.group != pb.group) {  // a 3-level fat tree's pods to and from the core
            if (const double up = loc.core_cables(pa.group); up > 0) {
                consider(Limit::Kind::PodUp, pa.group, pa.group, up / p.rails,
                         out_of_pod[pa.group]);
            }
            if (const double down = loc.core_cables(pb.group); down > 0) {
                consider(Limit::Kind::PodDown, pb.group, pb.group, down / p.rails,
                         into_pod[pb.group]);
            }
        }
        bw.push_back(f);
    }
    return bw;
}

double alpha(const Place& pa, const Place& pb, const Locator& loc, const CostParams& p) {
    if (pa.domain != fabric::kNoDomain && pa.domain == pb.domain) {
        return p.alpha_nvlink;
    }
    const int hops = pa.su == pb.su ? 1 : pa.group == pb.group ? 3 : (loc.dragonfly() ? 4 : 5);
    return p.alpha_net + (hops - 1) * p.alpha_hop;
}

std::vector<std::vector<Place>> places_of(const std::vector<std::vector<std::string>>& named,
                                          const Locator& loc) {
    std::vector<std::vector<Place>> stages(named.size());
    for (std::size_t s = 0; s < named.size(); ++s) {
        for (const auto& n : named[s]) {
            stages[s].push_back(loc.at(n));
        }
    }
    return stages;
}

/// A job's flows: each stage's DP ring (node i to i+1) and, between adjacent stages, node i of
/// stage k to node i of stage k+1; `ring_owner` and `p2p_owner` get the stage of each flow.
void job_flows(const std::vector<std::vector<Place>>& stages,
               std::vector<std::pair<Place, Place>>& ring,
               std::vector<std::size_t>* ring_owner,
               std::vector<std::pair<Place, Place>>& p2p,
               std::vector<std::size_t>* p2p_owner) {
    for (std::size_t s = 0; s < stages.size(); ++s) {
        const auto& st = stages[s];
        for (std::size_t i = 0; st.size() > 1 && i < st.size(); ++i) {
            ring.emplace_back(st[i], st[(i + 1) % st.size()]);
            if (ring_owner != nullptr) {
                ring_owner->push_back(s);
            }
        }
        for (std::size_t i = 0; s + 1 < stages.size() && !stages[s + 1].empty() && i < st.size();
             ++i) {
            p2p.emplace_back(st[i], stages[s + 1][std::min(i, stages[s + 1].size() - 1)]);
            if (p2p_owner != nullptr) {
                p2p_owner->push_back(s);
            }
        }
    }
}

}  // namespace

PlanCost cost_of(const std::vector<std::vector<std::string>>& named,
                 const Locator& loc,
                 const CostParams& p,
                 const std::vector<std::vector<std::vector<std::string>>>& others) {
    const auto stages = places_of(named, loc);
    // Other jobs' DP rings and pipeline sends load the same links during this job's step.
    std::vector<std::pair<Place, Place>> busy;
    for (const auto& job : others) {
        job_flows(places_of(job, loc), busy, nullptr, busy, nullptr);
    }
    PlanCost c;
    // DP: every stage's ring at once (the all-reduces run together at the end of the step).
    // PP: node i of stage k sends to node i of stage k+1, all boundaries at once.
    std::vector<std::pair<Place, Place>> ring;
    std::vector<std::size_t> owner;
    std::vector<std::pair<Place, Place>> p2p;
    std::vector<std::size_t> boundary;
    job_flows(stages, ring, &owner, p2p, &boundary);
    const auto ring_bw = flow_bandwidth(ring, busy, loc, p);
    // Every stage of two nodes or more has ring flows: its slowest is one of them.
    std::vector<FlowBw> slowest(stages.size(), FlowBw{std::numeric_limits<double>::infinity(), {}});
    std::vector<double> sum_alpha(stages.size(), 0.0);
    for (std::size_t e = 0; e < ring.size(); ++e) {
        if (ring_bw[e].bytes_per_s < slowest[owner[e]].bytes_per_s) {
            slowest[owner[e]] = ring_bw[e];
        }
        sum_alpha[owner[e]] += alpha(ring[e].first, ring[e].second, loc, p);
    }
    for (std::size_t s = 0; s < stages.size(); ++s) {
        const double n = static_cast<double>(stages[s].size());
        if (n >= 2) {
            const double t = 2 * (n - 1) * (sum_alpha[s] / n) +
                             2 * (n - 1) / n * p.grad_bytes / (p.rails * slowest[s].bytes_per_s);
            if (t > c.dp) {
                c.dp = t;
                c.dp_bytes_per_s = slowest[s].bytes_per_s;
                c.dp_limit = slowest[s].limit;
            }
        }
    }
    const auto p2p_bw = flow_bandwidth(p2p, busy, loc, p);
    for (std::size_t e = 0; e < p2p.size(); ++e) {
        const double t = 2.0 * p.micro_batches *
                         (alpha(p2p[e].first, p2p[e].second, loc, p) +
                          p.activation_bytes / (p.rails * p2p_bw[e].bytes_per_s));
        if (t > c.pp) {  // the slowest send of any boundary paces the pipeline
            c.pp = t;
            c.pp_bytes_per_s = p2p_bw[e].bytes_per_s;
            c.pp_limit = p2p_bw[e].limit;
        }
    }
    c.total = c.dp + c.pp;
    explain(c, loc);
    return c;
}

void explain(PlanCost& c, const Locator& loc) {
    const auto part = [&](const char* name, double seconds, double bytes_per_s, const Limit& l) {
        if (seconds <= 0) {
            return std::string();
        }
        char head[96];
        std::snprintf(head, sizeof head, "%s at %.1f GB/s per rail: ", name, bytes_per_s / 1e9);
        char counts[96];
        std::snprintf(counts, sizeof counts, ", %g cable(s) per rail for %g flow(s)", l.cables,
                      l.flows);
        switch (l.kind) {
            case Limit::Kind::Uplinks:
                return head + loc.su_name(l.a) + " uplinks" + counts;
            case Limit::Kind::Downlinks:
                return head + loc.su_name(l.a) + " downlinks" + counts;
            case Limit::Kind::Global:
                return std::string(head) + "global links " + loc.group_name(l.a) + "-" +
                       loc.group_name(l.b) + counts;
            case Limit::Kind::PodUp:
                return head + std::string("pod ") + loc.group_name(l.a) + " links to the core" +
                       counts;
            case Limit::Kind::PodDown:
                return head + std::string("pod ") + loc.group_name(l.a) + " links from the core" +
                       counts;
            case Limit::Kind::NvLink:
                return std::string(head) + "NVLink domain " + loc.domain_name(l.a);
            case Limit::Kind::Port:
                break;
        }
        return std::string(head) + "node ports";
    };
    const auto dp = part("dp", c.dp, c.dp_bytes_per_s, c.dp_limit);
    const auto pp = part("pp", c.pp, c.pp_bytes_per_s, c.pp_limit);
    c.why = dp + (dp.empty() || pp.empty() ? "" : "; ") + pp;
}

PlanCost lower_bound(unsigned stages,
                     std::size_t k,
                     const CostParams& p,
                     std::size_t nvlink_capacity) {
    PlanCost c;
    const double n = static_cast<double>(k);
    const bool dp_nvlink = k > 1 && nvlink_capacity >= k;
    const bool pp_nvlink = nvlink_capacity >= 2 * k;
    const double dp_bw =
        dp_nvlink ? std::max(p.nvlink_bytes_per_s, p.link_bytes_per_s) : p.link_bytes_per_s;
    const double pp_bw =
        pp_nvlink ? std::max(p.nvlink_bytes_per_s, p.link_bytes_per_s) : p.link_bytes_per_s;
    const double dp_alpha = dp_nvlink ? std::min(p.alpha_nvlink, p.alpha_net) : p.alpha_net;
    const double pp_alpha = pp_nvlink ? std::min(p.alpha_nvlink, p.alpha_net) : p.alpha_net;
    if (k > 1) {
        c.dp = 2 * (n - 1) * dp_alpha + 2 * (n - 1) / n * p.grad_bytes / (p.rails * dp_bw);
    }
    if (stages > 1) {
        c.pp = 2.0 * p.micro_batches * (pp_alpha + p.activation_bytes / (p.rails * pp_bw));
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
    c.nvlink_bytes_per_s = p.nvlink_gbps * 1e9;
    c.alpha_nvlink = p.alpha_nvlink_us * 1e-6;
    c.stripe = p.stripe_stages;
    return c;
}

PlanCost order_cost(const std::vector<std::string>& order,
                    const FabricMap* map,
                    unsigned stages,
                    const CostParams& params) {
    return cost_of(cut(order, stages), Locator(map, order), with_map_rails(params, map, order));
}

PlanCost shared_cost(const std::vector<std::vector<std::string>>& stages,
                     const std::vector<std::vector<std::vector<std::string>>>& others,
                     const FabricMap* map,
                     const CostParams& params) {
    std::vector<std::string> own;
    std::vector<std::string> all;
    for (const auto& st : stages) {
        own.insert(own.end(), st.begin(), st.end());
    }
    all = own;
    for (const auto& job : others) {
        for (const auto& st : job) {
            all.insert(all.end(), st.begin(), st.end());
        }
    }
    return cost_of(stages, Locator(map, all), with_map_rails(params, map, own), others);
}

}  // namespace switchyard::placement
