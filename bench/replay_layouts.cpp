// SPDX-License-Identifier: Apache-2.0
// The layouts bench/replay_report prices besides the ones the jobs ran: each job alone at its
// best on an empty cluster, and stages striped over a job's nodes.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "replay_report.hpp"
#include "switchyard/placement/planner.hpp"

namespace replay {

using switchyard::fabric::FabricMap;

std::vector<std::uint32_t> hosts_in_map_order(const FabricMap& map) {
    std::vector<std::uint32_t> out;
    out.reserve(map.hosts.size());
    for (const auto& g : map.groups) {
        for (const auto su : g.sus) {
            out.insert(out.end(), map.sus[su].hosts.begin(), map.sus[su].hosts.end());
        }
    }
    return out;
}

std::optional<AloneCosts> best_alone(const FabricMap& map,
                                     const std::vector<std::uint32_t>& map_order,
                                     std::size_t nodes,
                                     std::size_t stages,
                                     const switchyard::placement::CostParams& params) {
    if (map_order.size() < nodes || stages == 0) {
        return std::nullopt;
    }
    std::vector<std::string> first;
    for (std::size_t i = 0; i < nodes; ++i) {
        first.push_back(map.hosts[map_order[i]].name);
    }
    const auto plan = switchyard::placement::plan_stages(first, &map, static_cast<unsigned>(stages),
                                                         switchyard::StageScope::Any, params);
    if (!plan) {
        return std::nullopt;
    }
    const auto striped = switchyard::placement::stripe(first, static_cast<unsigned>(stages));
    return AloneCosts{plan->cost.total * 1e3,
                      switchyard::placement::shared_cost(striped, {}, &map, params).total * 1e3};
}

}  // namespace replay
