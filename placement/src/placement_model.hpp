// SPDX-License-Identifier: Apache-2.0
// The placement model shared by the planner and the cost model (internal to the placement
// library): where each node sits (SU, group), a plan's facts, the α–β cost of an order.
#pragma once

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "switchyard/placement/planner.hpp"

namespace switchyard::placement {

using fabric::FabricKind;
using fabric::FabricMap;

/// Where a node sits: SU and group indices (unknown hosts get their own, past the map's), and
/// its NVLink domain when that domain is healthy (flows inside it go over NVLink).
struct Place {
    std::uint32_t su;
    std::uint32_t group;
    std::uint32_t domain = fabric::kNoDomain;
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
                const bool nvlink = h->domain != fabric::kNoDomain &&
                                    map->domains[h->domain].state == fabric::DomainState::Ok;
                places_[n] = {h->su, map->sus[h->su].group, nvlink ? h->domain : fabric::kNoDomain};
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
    [[nodiscard]] std::string domain_name(std::uint32_t d) const {
        return map_ != nullptr && d < map_->domains.size() ? map_->domains[d].name : "?";
    }
    /// The most of `nodes` that one healthy NVLink domain holds (0: none in one).
    [[nodiscard]] std::size_t nvlink_capacity(const std::vector<std::string>& nodes) const {
        std::unordered_map<std::uint32_t, std::size_t> count;
        std::size_t most = 0;
        for (const auto& n : nodes) {
            if (const auto d = at(n).domain; d != fabric::kNoDomain) {
                most = std::max(most, ++count[d]);
            }
        }
        return most;
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
    /// Cables per rail from the SU's leaves to the tier above (the map's uplink counts, split
    /// over its hosts' rails), or 0 when the map does not know them (an older map).
    [[nodiscard]] double su_uplinks(std::uint32_t su) const {
        return map_ != nullptr ? map_->su_uplinks_per_rail(su) : 0;
    }
    /// Dragonfly+ cables between groups a and b (the fewer either has to any other group), or 0
    /// when the map does not know them.
    [[nodiscard]] double global_cables(std::uint32_t a, std::uint32_t b) const {
        if (map_ == nullptr || !map_->link_counts || a >= map_->groups.size() ||
            b >= map_->groups.size()) {
            return 0;
        }
        return std::min(map_->groups[a].global, map_->groups[b].global);
    }
    /// 3-level fat tree: cables from pod `g` to the core, or 0 when the map does not know them
    /// (or the fabric is another kind).
    [[nodiscard]] double core_cables(std::uint32_t g) const {
        if (map_ == nullptr || !map_->link_counts || map_->kind != FabricKind::FatTree3 ||
            g >= map_->groups.size()) {
            return 0;
        }
        return map_->groups[g].uplinks;
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

/// Counts stages inside one SU, one group, outside the scope, adjacent pairs in one group.
[[nodiscard]] PlanFacts facts_of(const std::vector<std::vector<std::string>>& stages,
                                 const Locator& loc,
                                 StageScope scope);

/// `order` cut into `stages` consecutive stages of equal size.
[[nodiscard]] std::vector<std::vector<std::string>> cut(const std::vector<std::string>& order,
                                                        unsigned stages);

/// The α–β cost of one training step with these stages (data-parallel all-reduce within each
/// stage, pipeline sends between adjacent stages), flows sharing SU uplinks and global links
/// with each other and with the flows of `others` (other jobs' stages, placed by `loc` too).
[[nodiscard]] PlanCost cost_of(
    const std::vector<std::vector<std::string>>& named,
    const Locator& loc,
    const CostParams& p,
    const std::vector<std::vector<std::vector<std::string>>>& others = {});

/// `c.why`: the bandwidth per rail of the DP and PP flows that pace the step and what limits
/// each ("su03 uplinks: 16 cables per rail for 32 flows").
void explain(PlanCost& c, const Locator& loc);

/// The cost if every stage sat in one SU and every boundary in one group; at NVLink speed
/// where a healthy NVLink domain holds `nvlink_capacity` of the nodes: a stage's all-reduce
/// when it holds a stage (k), a boundary's sends when it holds two stages.
[[nodiscard]] PlanCost lower_bound(unsigned stages,
                                   std::size_t k,
                                   const CostParams& p,
                                   std::size_t nvlink_capacity = 0);

/// The rail count comes from the map when it knows the nodes: the fewest rails any of them
/// has (a stage's all-reduce runs at its slowest member's width), else the policy's value.
[[nodiscard]] CostParams with_map_rails(CostParams p,
                                        const FabricMap* map,
                                        const std::vector<std::string>& nodes);

}  // namespace switchyard::placement
