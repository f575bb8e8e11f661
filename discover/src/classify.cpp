// SPDX-License-Identifier: Apache-2.0
// Fabric classification from cabling: hosts and rails, leaves and tiers, scalable units
// (leaves sharing hosts), pods/groups (SUs sharing the switches above their leaves).
#include "switchyard/discover/classify.hpp"

#include <array>
#include <functional>
#include <string_view>
#include <tuple>

#include "classifier.hpp"
#include "switchyard/fabric/guid.hpp"

namespace switchyard::discover {

using fabric::FabricKind;
using fabric::FabricMap;
using fabric::format_guid;
using fabric::MapHost;
using fabric::MapRail;

namespace detail {

void Classifier::run() {
    auto hosts = find_hosts();
    find_spines_with_hosts(hosts);
    compute_tiers(hosts);
    settle_spine_hosts(hosts);
    build_switches();
    build_hosts_and_sus(hosts);
    build_groups();
}

/// A switch's name for messages before the switches are named: its description's name part.
std::string Classifier::switch_name(NodeIndex sw) const {
    const auto& d = g_.nodes[sw].desc;
    const auto semi = d.find(';');
    const auto colon = d.find(':', semi == std::string::npos ? 0 : semi);
    if (semi != std::string::npos && colon != std::string::npos && colon > semi + 1) {
        return d.substr(semi + 1, colon - semi - 1);
    }
    return d.empty() ? format_guid(g_.nodes[sw].guid) : d;
}

void Classifier::compute_tiers(const HostTable& hosts) {
    tier_.assign(g_.nodes.size(), 0);
    std::deque<NodeIndex> queue;
    for (const auto& [host, rails] : hosts.hosts) {
        for (const auto& r : rails) {
            if (tier_[r.leaf] == 0 && spines_with_hosts_.count(r.leaf) == 0) {
                tier_[r.leaf] = 1;
                queue.push_back(r.leaf);
            }
        }
    }
    while (!queue.empty()) {
        const auto s = queue.front();
        queue.pop_front();
        for (const auto& p : g_.nodes[s].ports) {
            if (p.remote != kNoNode && g_.nodes[p.remote].kind == NodeKind::Switch &&
                tier_[p.remote] == 0 && !idle_line_card(p.remote)) {
                tier_[p.remote] = tier_[s] + 1;
                queue.push_back(p.remote);
            }
        }
    }
}

/// A director's line card that serves no host and is cabled only to its own chassis' spine
/// cards: an empty slot's ASIC, not a tier above the spine cards.
bool Classifier::idle_line_card(NodeIndex sw) const {
    const auto card = chassis_card(g_.nodes[sw].desc);
    if (!card || card->spine) {
        return false;
    }
    for (const auto& p : g_.nodes[sw].ports) {
        if (p.remote == kNoNode) {
            continue;
        }
        const auto& other = g_.nodes[p.remote];
        const auto oc = chassis_card(other.desc);
        if (other.kind != NodeKind::Switch || !oc || !oc->spine || oc->chassis != card->chassis) {
            return false;
        }
    }
    return true;
}

/// Every switch, named, sorted by tier (unreachable last) then name.
void Classifier::build_switches() {
    std::vector<NodeIndex> nodes;
    for (NodeIndex i = 0; i < g_.nodes.size(); ++i) {
        if (g_.nodes[i].kind == NodeKind::Switch) {
            nodes.push_back(i);
        }
    }
    const auto names = name_switches(g_, nodes, map_.anomalies);
    std::vector<std::uint32_t> order(nodes.size());
    std::iota(order.begin(), order.end(), 0U);
    auto key = [&](std::uint32_t k) {
        const auto t = tier_[nodes[k]];
        return std::pair(t == 0 ? kNone : t, std::string_view(names[k]));
    };
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return key(a) < key(b); });
    switch_index_.assign(g_.nodes.size(), kNone);
    for (const auto k : order) {
        const auto n = nodes[k];
        switch_index_[n] = static_cast<std::uint32_t>(map_.switches.size());
        map_.switches.push_back({names[k], g_.nodes[n].guid, tier_[n]});
        map_.tiers = std::max(map_.tiers, tier_[n]);
        if (stats_.switches_per_tier.size() <= tier_[n]) {
            stats_.switches_per_tier.resize(tier_[n] + 1, 0);
        }
        ++stats_.switches_per_tier[tier_[n]];
        if (tier_[n] == 0 && !idle_line_card(n)) {
            anomaly("unreachable-switch", "'" + names[k] + "' (" + format_guid(g_.nodes[n].guid) +
                                              ") has no path to a leaf that serves a compute host");
        }
    }
}

void Classifier::build_hosts_and_sus(const HostTable& hosts) {
    // HCA names, sorted, and each one's place: a few names (mlx5_0..7) over every rail.
    std::unordered_map<std::string_view, std::uint32_t> hca_of;  // views into `hosts`
    for (const auto& [host, rails] : hosts.hosts) {
        for (const auto& r : rails) {
            hca_of.try_emplace(r.hca, 0);
        }
    }
    map_.hcas.reserve(hca_of.size());
    for (const auto& [name, index] : hca_of) {
        map_.hcas.emplace_back(name);
    }
    std::sort(map_.hcas.begin(), map_.hcas.end());
    for (std::uint32_t i = 0; i < map_.hcas.size(); ++i) {
        hca_of[map_.hcas[i]] = i;
    }
    Disjoint leaves(map_.switches.size());
    map_.hosts.reserve(hosts.hosts.size());
    for (const auto& [host, rails] : hosts.hosts) {
        MapHost h{host, 0, static_cast<std::uint32_t>(map_.rails.size()),
                  static_cast<std::uint32_t>(rails.size())};
        for (const auto& r : rails) {
            map_.rails.push_back({hca_of.at(r.hca), switch_index_[r.leaf], r.cables});
            leaves.join(switch_index_[rails.front().leaf], switch_index_[r.leaf]);
        }
        std::sort(map_.rails.begin() + h.rail_begin, map_.rails.end(),
                  [](const MapRail& a, const MapRail& b) { return a.hca < b.hca; });
        map_.hosts.push_back(std::move(h));
    }
    // SUs in the order of their first host (hosts are sorted by name): deterministic.
    std::vector<std::uint32_t> su_of_root(map_.switches.size(), kNone);
    for (std::uint32_t hi = 0; hi < map_.hosts.size(); ++hi) {
        auto& h = map_.hosts[hi];
        const auto root = leaves.find(map_.rails[h.rail_begin].leaf);
        if (su_of_root[root] == kNone) {
            su_of_root[root] = static_cast<std::uint32_t>(map_.sus.size());
            map_.sus.emplace_back();
        }
        h.su = su_of_root[root];
        map_.sus[h.su].hosts.push_back(hi);
    }
    for (std::uint32_t s = 0; s < map_.switches.size(); ++s) {
        if (map_.switches[s].tier == 1 ||
            (!spine_sus_.empty() && spine_sus_.count(leaf_node(s)) != 0)) {
            map_.sus[su_of_root[leaves.find(s)]].leaves.push_back(s);
        }
    }
    name_sus(map_);
    report_missing_rails();
}

/// Rails come from cabling, not from HCA names ("HCA-2" on one server and "mlx5_1" on its
/// neighbour are the same rail when both reach the same leaf). A rail of an SU is a leaf
/// that most of its hosts reach; a multi-HCA host that does not reach one is missing that
/// rail, named by its leaf. A host with one HCA in the whole dump where its peers have
/// several (a storage or management server) is reported as such, not as missing rails.
void Classifier::report_missing_rails() {
    std::map<std::uint32_t, std::size_t> reach;  // leaf → hosts of the SU that reach it
    for (const auto& su : map_.sus) {
        reach.clear();
        for (const auto hi : su.hosts) {
            std::set<std::uint32_t> leaves;
            for (const auto& r : map_.rails_of(map_.hosts[hi])) {
                leaves.insert(r.leaf);
            }
            for (const auto leaf : leaves) {
                ++reach[leaf];
            }
        }
        std::vector<std::uint32_t> rails;  // leaves more than half the hosts reach
        for (const auto& [leaf, n] : reach) {
            if (2 * n > su.hosts.size()) {
                rails.push_back(leaf);
            }
        }
        if (rails.size() < 2) {
            continue;  // a single-rail SU: nothing to miss
        }
        for (const auto hi : su.hosts) {
            const auto& host = map_.hosts[hi];
            std::set<std::uint32_t> has;
            for (const auto& r : map_.rails_of(host)) {
                has.insert(r.leaf);
            }
            std::vector<std::string> missing;
            for (const auto leaf : rails) {
                if (has.count(leaf) == 0) {
                    missing.push_back(map_.switches[leaf].name);
                }
            }
            if (missing.empty()) {
                continue;
            }
            const auto iso = isolated_hcas_.find(host.name);
            if (host.rail_count + (iso == isolated_hcas_.end() ? 0 : iso->second) <= 1) {
                anomaly("single-hca-host", host.name + " in SU " + su.name +
                                               " has one HCA where its peers reach " +
                                               std::to_string(rails.size()) +
                                               " rails (a storage or management server?)");
                continue;
            }
            anomaly("missing-rail", host.name + " in SU " + su.name + " reaches no HCA to leaf " +
                                        join(missing, ", ") + " (its SU has " +
                                        std::to_string(rails.size()) + " rails)");
        }
    }
}

void Classifier::build_groups() {
    const auto nsus = map_.sus.size();
    Disjoint groups(nsus + map_.switches.size());  // SUs, then switches shifted by nsus
    std::vector<std::uint32_t> su_of_leaf(map_.switches.size(), kNone);
    for (std::uint32_t s = 0; s < nsus; ++s) {
        for (const auto leaf : map_.sus[s].leaves) {
            su_of_leaf[leaf] = s;
        }
    }
    // One pass over the leaves' cables: up to tier 2 (uplinks), and to other leaves (small
    // fabrics, stacked edge switches: their SUs are connected, which no tier shows).
    std::vector<std::uint64_t> cables;  // leaf << 32 | upper, one per cable (sorts fast)
    std::set<std::pair<std::uint32_t, std::uint32_t>> leaf_pairs;
    std::vector<char> has_uplink(nsus, 0);
    for (std::uint32_t s = 0; s < nsus; ++s) {
        for (const auto leaf : map_.sus[s].leaves) {
            if (map_.switches[leaf].tier == 2) {  // compute hosts on a spine: its group's SU
                groups.join(s, static_cast<std::uint32_t>(nsus + leaf));
                has_uplink[s] = 1;
                continue;
            }
            for (const auto& p : g_.nodes[leaf_node(leaf)].ports) {
                const auto other = p.remote == kNoNode ? kNone : switch_index_[p.remote];
                if (other == kNone || other == leaf) {
                    continue;
                }
                if (map_.switches[other].tier == 2) {
                    groups.join(s, static_cast<std::uint32_t>(nsus + other));
                    cables.push_back(std::uint64_t{leaf} << 32 | other);
                    has_uplink[s] = 1;
                } else if (su_of_leaf[other] != kNone) {
                    leaf_pairs.insert(std::minmax(leaf, other));
                }
            }
        }
    }
    std::sort(cables.begin(), cables.end());
    UplinkCounts uplinks;
    for (const auto packed : cables) {
        const std::pair c(static_cast<std::uint32_t>(packed >> 32),
                          static_cast<std::uint32_t>(packed));
        if (uplinks.empty() || uplinks.back().first != c) {
            uplinks.push_back({c, 0});
        }
        ++uplinks.back().second;
    }
    // A leaf-to-leaf cable joins SUs only where no spine does: a stray cable between two
    // groups of a Dragonfly+ fabric must not merge the groups.
    for (const auto& [a, b] : leaf_pairs) {
        if (has_uplink[su_of_leaf[a]] == 0 && has_uplink[su_of_leaf[b]] == 0) {
            groups.join(su_of_leaf[a], su_of_leaf[b]);
        }
    }
    for (const auto& [a, b] : leaf_pairs) {
        anomaly("leaf-to-leaf", "'" + map_.switches[a].name + "' is cabled to '" +
                                    map_.switches[b].name + "', another leaf (not a tier)");
    }
    std::vector<std::uint32_t> group_of_root(nsus + map_.switches.size(), kNone);
    for (std::uint32_t s = 0; s < nsus; ++s) {
        const auto root = groups.find(s);
        if (group_of_root[root] == kNone) {
            group_of_root[root] = static_cast<std::uint32_t>(map_.groups.size());
            map_.groups.emplace_back();
        }
        map_.sus[s].group = group_of_root[root];
        map_.groups[map_.sus[s].group].sus.push_back(s);
    }
    std::vector<std::uint32_t> group_of_switch(map_.switches.size(), kNone);
    for (std::uint32_t w = 0; w < map_.switches.size(); ++w) {
        const auto root = groups.find(static_cast<std::uint32_t>(nsus + w));
        group_of_switch[w] = root < group_of_root.size() ? group_of_root[root] : kNone;
    }
    name_groups(map_, group_of_switch);
    count_links(group_of_switch);
    map_.kind = fabric_kind(group_of_switch);
    report_uplinks(uplinks);
    report_missing_uplinks(uplinks);
    if (map_.kind == FabricKind::DragonflyPlus) {
        report_global_cables(group_of_switch);
    }
    if (map_.kind == FabricKind::Islands) {
        anomaly("disconnected",
                std::to_string(map_.groups.size()) + " groups with no cable path between them");
    }
}

/// Per switch, cables to a higher tier (a leaf's uplinks: the capacity its hosts share to
/// leave it); per group, the fewest cables it has to any other group (Dragonfly+ global links
/// between same-tier switches of two groups) and its cables to switches above it that belong
/// to no group (a 3-level fat tree's pod to the core).
void Classifier::count_links(const std::vector<std::uint32_t>& group_of_switch) {
    const auto ng = map_.groups.size();
    std::vector<std::uint32_t> pair(ng * ng, 0);
    for (std::uint32_t w = 0; w < map_.switches.size(); ++w) {
        auto& sw = map_.switches[w];
        if (sw.tier == 0) {
            continue;
        }
        for (const auto& p : g_.nodes[leaf_node(w)].ports) {
            const auto o = p.remote == kNoNode ? kNone : switch_index_[p.remote];
            if (o == kNone || map_.switches[o].tier == 0) {
                continue;
            }
            if (map_.switches[o].tier > sw.tier) {
                ++sw.uplinks;
                if (group_of_switch[w] != kNone && group_of_switch[o] != group_of_switch[w]) {
                    ++map_.groups[group_of_switch[w]].uplinks;  // a pod's cable to the core
                }
            } else if (map_.switches[o].tier == sw.tier && group_of_switch[w] != kNone &&
                       group_of_switch[o] != kNone && group_of_switch[o] != group_of_switch[w]) {
                ++pair[group_of_switch[w] * ng + group_of_switch[o]];
            }
        }
    }
    for (std::size_t a = 0; ng > 1 && a < ng; ++a) {
        std::uint32_t fewest = UINT32_MAX;
        for (std::size_t b = 0; b < ng; ++b) {
            fewest = b == a ? fewest : std::min(fewest, pair[a * ng + b]);
        }
        map_.groups[a].global = fewest;
    }
    map_.link_counts = true;
}

/// Cabling validation, as UFM's topology compare does: within each group, an upper switch
/// that most of the group's leaves reach is one every leaf should reach; each leaf that has
/// no cable to it is reported, both ends named.
void Classifier::report_missing_uplinks(const UplinkCounts& uplinks) {
    // (leaf, upper) pairs in order: each leaf's uppers are one run.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    pairs.reserve(uplinks.size());
    for (const auto& [pair, cables] : uplinks) {
        pairs.push_back(pair);
    }
    auto ups_of = [&](std::uint32_t leaf) {
        const auto lo = std::lower_bound(pairs.begin(), pairs.end(), std::pair(leaf, 0U));
        auto hi = lo;
        while (hi != pairs.end() && hi->first == leaf) {
            ++hi;
        }
        return std::pair(lo, hi);
    };
    std::vector<std::uint32_t> reached_by(map_.switches.size(), 0);
    std::vector<std::uint32_t> uppers;
    for (std::uint32_t gi = 0; gi < map_.groups.size(); ++gi) {
        std::vector<std::uint32_t> leaves;
        for (const auto s : map_.groups[gi].sus) {
            if (!map_.su_on_spine(s)) {  // a spine's own hosts: no uplink to miss
                leaves.insert(leaves.end(), map_.sus[s].leaves.begin(), map_.sus[s].leaves.end());
            }
        }
        if (leaves.size() < 3) {
            continue;  // too few leaves to say what "most" cable to
        }
        uppers.clear();
        for (const auto leaf : leaves) {
            const auto [lo, hi] = ups_of(leaf);
            for (auto it = lo; it != hi; ++it) {
                if (reached_by[it->second]++ == 0) {
                    uppers.push_back(it->second);
                }
            }
        }
        std::sort(uppers.begin(), uppers.end());
        for (const auto leaf : leaves) {
            const auto [lo, hi] = ups_of(leaf);
            for (const auto up : uppers) {
                const auto n = reached_by[up];
                if (2 * std::size_t{n} > leaves.size() &&
                    !std::binary_search(lo, hi, std::pair(leaf, up))) {
                    const auto each = uplink_design_[gi].count;
                    anomaly("missing-uplink",
                            "'" + map_.switches[leaf].name + "' has no cable to '" +
                                map_.switches[up].name + "' (" + std::to_string(n) + " of " +
                                std::to_string(leaves.size()) + " leaves of group " +
                                map_.groups[gi].name + " have" +
                                (each > 1 ? ", " + std::to_string(each) + " cables each" : "") +
                                ")");
                }
            }
        }
        for (const auto up : uppers) {
            reached_by[up] = 0;
        }
    }
}

Design design_of(std::vector<std::uint32_t> counts, std::size_t members) {
    Design d;
    d.of = members;
    const auto k = std::min(members, std::max<std::size_t>(2, (members + 19) / 20));
    if (k == 0 || counts.size() < k) {
        return d;  // fewer than K members have any: the design has none
    }
    std::nth_element(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(k - 1),
                     counts.end(), std::greater<>());
    d.count = counts[k - 1];
    d.having = static_cast<std::size_t>(
        std::count_if(counts.begin(), counts.end(), [&](auto c) { return c >= d.count; }));
    return d;
}

void Design::expect(std::uint32_t n, const std::vector<std::uint32_t>& counts) {
    count = n;
    given = true;
    having = static_cast<std::size_t>(
        std::count_if(counts.begin(), counts.end(), [n](auto c) { return c >= n; }));
}

namespace {

std::string cable_count(std::uint32_t n) {
    return n == 0 ? "no cable" : std::to_string(n) + (n == 1 ? " cable" : " cables");
}

}  // namespace

/// Dragonfly+ global cables, judged against the design the fabric shows. A spine's place in
/// its group is its rank by name; where every group pair (but a few damaged ones) cables the
/// same spine places with the same counts, and those counts add up to no more than some pair
/// has in all, that pattern is the design, and each spine pair short of it is named. Each group
/// pair short of the design is reported too, most cables lost first.
void Classifier::report_global_cables(const std::vector<std::uint32_t>& group_of_switch) {
    const auto ng = map_.groups.size();
    std::vector<std::vector<std::uint32_t>> spines(ng);  // per group, its tier-2 switches by name
    std::vector<std::uint32_t> place(map_.switches.size(), kNone);
    for (std::uint32_t w = 0; w < map_.switches.size(); ++w) {
        if (map_.switches[w].tier == 2 && group_of_switch[w] != kNone) {
            place[w] = static_cast<std::uint32_t>(spines[group_of_switch[w]].size());
            spines[group_of_switch[w]].push_back(w);
        }
    }
    // One entry per cable: group pair (a < b), then the places of its two ends.
    std::vector<std::array<std::uint32_t, 4>> ends;
    for (std::uint32_t w = 0; w < map_.switches.size(); ++w) {
        if (place[w] == kNone) {
            continue;
        }
        for (const auto& p : g_.nodes[leaf_node(w)].ports) {
            const auto o = p.remote == kNoNode ? kNone : switch_index_[p.remote];
            if (o != kNone && place[o] != kNone && group_of_switch[o] > group_of_switch[w]) {
                ends.push_back({group_of_switch[w], group_of_switch[o], place[w], place[o]});
            }
        }
    }
    std::sort(ends.begin(), ends.end());
    const auto pairs = ng * (ng - 1) / 2;
    auto pair_index = [ng](std::size_t a, std::size_t b) {
        return a * ng - a * (a + 1) / 2 + b - a - 1;
    };
    std::vector<std::uint32_t> total(pairs, 0);
    // Per spine-place pair: (group pair, cables), in group pair order.
    std::map<std::pair<std::uint32_t, std::uint32_t>,
             std::vector<std::pair<std::size_t, std::uint32_t>>>
        by_places;
    for (std::size_t i = 0; i < ends.size();) {
        auto j = i;
        while (j < ends.size() && ends[j] == ends[i]) {
            ++j;
        }
        const auto pi = pair_index(ends[i][0], ends[i][1]);
        total[pi] += static_cast<std::uint32_t>(j - i);
        by_places[{ends[i][2], ends[i][3]}].emplace_back(pi, static_cast<std::uint32_t>(j - i));
        i = j;
    }
    std::vector<std::uint32_t> nonzero;
    for (const auto t : total) {
        if (t > 0) {
            nonzero.push_back(t);
        }
    }
    auto design = design_of(nonzero, pairs);
    std::uint32_t pattern_sum = 0;
    std::vector<std::pair<std::pair<std::uint32_t, std::uint32_t>, Design>> pattern;
    for (const auto& [places, list] : by_places) {
        std::vector<std::uint32_t> counts;
        counts.reserve(list.size());
        for (const auto& [pi, n] : list) {
            counts.push_back(n);
        }
        const auto d = design_of(std::move(counts), pairs);
        if (d.count > 0) {
            pattern.emplace_back(places, d);
            pattern_sum += d.count;
        }
    }
    const auto most = nonzero.empty() ? 0U : *std::max_element(nonzero.begin(), nonzero.end());
    bool by_pattern = !pattern.empty() && pattern_sum <= most && pattern_sum >= design.count;
    if (const auto* want = opt_.expected_cabling; want != nullptr && want->global) {
        by_pattern = !pattern.empty() && pattern_sum == *want->global;
        design.expect(*want->global, nonzero);
    } else if (by_pattern && pattern_sum > design.count) {
        design.expect(pattern_sum, nonzero);
        design.given = false;
    }
    // Each absent cable once, named from the switch whose name sorts first.
    std::vector<std::pair<std::pair<std::string_view, std::string_view>, std::string>> absent;
    for (const auto& [places, d] : by_pattern ? pattern : decltype(pattern){}) {
        const auto& list = by_places[places];
        auto it = list.begin();
        for (std::size_t a = 0; a < ng; ++a) {
            for (std::size_t b = a + 1; b < ng; ++b) {
                const auto pi = pair_index(a, b);
                while (it != list.end() && it->first < pi) {
                    ++it;
                }
                const auto n = it != list.end() && it->first == pi ? it->second : 0U;
                if (n >= d.count || places.first >= spines[a].size() ||
                    places.second >= spines[b].size()) {
                    continue;
                }
                std::string_view x = map_.switches[spines[a][places.first]].name;
                std::string_view y = map_.switches[spines[b][places.second]].name;
                auto px = places.first + 1;
                auto py = places.second + 1;
                if (y < x) {
                    std::swap(x, y);
                    std::swap(px, py);
                }
                absent.push_back({{x, y},
                                  "'" + std::string(x) + "' has " + cable_count(n) + " to '" +
                                      std::string(y) + "' (" + std::to_string(d.count) +
                                      " expected: " + std::to_string(d.having) + " of " +
                                      std::to_string(d.of) + " group pairs have " +
                                      cable_count(d.count) + " from spine " + std::to_string(px) +
                                      " of one group to spine " + std::to_string(py) +
                                      " of the other)"});
            }
        }
    }
    std::sort(absent.begin(), absent.end());
    for (auto& [names, detail] : absent) {
        anomaly("missing-global-cable", std::move(detail));
    }
    // Per group pair, most cables lost first, then by name.
    struct Thin {
        std::uint32_t lost;
        std::string_view x, y;
        bool operator<(const Thin& o) const {
            return std::tie(o.lost, x, y) < std::tie(lost, o.x, o.y);
        }
    };
    std::vector<Thin> thin;
    for (std::size_t a = 0; a < ng; ++a) {
        for (std::size_t b = a + 1; b < ng; ++b) {
            const auto n = total[pair_index(a, b)];
            if (n < design.count) {
                // Views of the names themselves: std::minmax of two temporaries would return
                // references to them, dangling at the end of the statement.
                const std::string_view x = map_.groups[a].name;
                const std::string_view y = map_.groups[b].name;
                thin.push_back({design.count - n, std::min(x, y), std::max(x, y)});
            }
        }
    }
    std::sort(thin.begin(), thin.end());
    for (const auto& t : thin) {
        anomaly("thin-global-links",
                "groups " + std::string(t.x) + " and " + std::string(t.y) + ": " +
                    std::to_string(design.count - t.lost) + " global cable(s), " +
                    std::to_string(t.lost) + " short of the " + std::to_string(design.count) +
                    (design.given ? " --expect-cabling gives (" : " that ") +
                    std::to_string(design.having) + " of " + std::to_string(design.of) +
                    " group pairs have" + (design.given ? " them)" : ""));
    }
}

/// Cables per (leaf, upper switch) pair against the design of the leaf's group.
void Classifier::report_uplinks(const UplinkCounts& uplinks) {
    std::map<std::uint32_t, std::size_t> histogram;
    for (const auto& [pair, n] : uplinks) {
        ++histogram[n];
    }
    stats_.uplink_cables.assign(histogram.begin(), histogram.end());
    std::vector<std::uint32_t> group_of_leaf(map_.switches.size(), kNone);
    for (const auto& su : map_.sus) {
        for (const auto leaf : su.leaves) {
            group_of_leaf[leaf] = su.group;
        }
    }
    std::vector<std::vector<std::uint32_t>> counts(map_.groups.size());
    for (const auto& [pair, n] : uplinks) {
        if (group_of_leaf[pair.first] != kNone) {
            counts[group_of_leaf[pair.first]].push_back(n);
        }
    }
    uplink_design_.clear();
    const auto* want = opt_.expected_cabling;
    for (auto& c : counts) {
        uplink_design_.push_back(design_of(c, c.size()));
        if (want != nullptr && want->leaf_spine) {
            uplink_design_.back().expect(*want->leaf_spine, c);
        }
    }
    for (const auto& [pair, n] : uplinks) {
        const auto g = group_of_leaf[pair.first];
        if (g == kNone || n >= uplink_design_[g].count) {
            continue;
        }
        const auto& d = uplink_design_[g];
        anomaly("uneven-uplinks",
                "'" + map_.switches[pair.first].name + "' to '" + map_.switches[pair.second].name +
                    "': " + cable_count(n) + ", " + std::to_string(d.count) + " expected (" +
                    (d.given ? "--expect-cabling; " : "") + std::to_string(d.having) + " of " +
                    std::to_string(d.of) + " leaf-spine pairs of group " + map_.groups[g].name +
                    " have " + cable_count(d.count) + ")");
    }
}

NodeIndex Classifier::leaf_node(std::uint32_t map_switch) const {
    // switch_index_ is the only mapping; invert lazily once.
    if (node_of_switch_.empty()) {
        node_of_switch_.assign(map_.switches.size(), kNoNode);
        for (NodeIndex n = 0; n < switch_index_.size(); ++n) {
            if (switch_index_[n] != kNone) {
                node_of_switch_[switch_index_[n]] = n;
            }
        }
    }
    return node_of_switch_[map_switch];
}

/// Several groups: Dragonfly+ when tier-2 switches of different groups are cabled to each
/// other (global links); a 3-level fat tree when a higher tier joins them; else islands.
FabricKind Classifier::fabric_kind(const std::vector<std::uint32_t>& group_of_switch) const {
    if (map_.hosts.empty()) {
        return FabricKind::Empty;
    }
    if (map_.groups.size() == 1) {
        return FabricKind::FatTree;
    }
    bool global = false;
    for (std::uint32_t w = 0; w < map_.switches.size() && !global; ++w) {
        if (map_.switches[w].tier != 2) {
            continue;
        }
        for (const auto& p : g_.nodes[leaf_node(w)].ports) {
            const auto o = p.remote == kNoNode ? kNone : switch_index_[p.remote];
            if (o != kNone && map_.switches[o].tier == 2 &&
                group_of_switch[o] != group_of_switch[w]) {
                global = true;
                break;
            }
        }
    }
    if (global) {
        return FabricKind::DragonflyPlus;
    }
    return map_.tiers >= 3 ? FabricKind::FatTree3 : FabricKind::Islands;
}

}  // namespace detail

using detail::Classifier;
using detail::kNone;

std::size_t check_expected_hosts(FabricMap& map, const std::vector<std::string>& expected) {
    std::vector<std::string> want(expected);
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    std::size_t missing = 0;
    for (const auto& h : want) {
        if (map.find_host(h) == nullptr) {
            map.anomalies.push_back(
                {"expected-host-missing", h + " is expected but has no compute HCA in the fabric "
                                              "(not cabled, powered off, or named otherwise)"});
            ++missing;
        }
    }
    return missing;
}

Classification classify(const FabricGraph& graph, const ClassifyOptions& options) {
    Classification out;
    Classifier(graph, options, out).run();
    return out;
}

}  // namespace switchyard::discover
