// SPDX-License-Identifier: Apache-2.0
// Fabric classification from cabling: hosts and rails, leaves and tiers, scalable units
// (leaves sharing hosts), pods/groups (SUs sharing the switches above their leaves).
#include "switchyard/discover/classify/classify.hpp"

#include <array>
#include <functional>
#include <string_view>
#include <tuple>

#include "classifier.hpp"
#include "switchyard/common/hostlist.hpp"
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
    settle_management_hosts(hosts);
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
    settle_empty_leaves();
}

void Classifier::settle_empty_leaves() {
    const auto spines_of = [&](NodeIndex sw) {
        std::vector<NodeIndex> out;
        for (const auto& p : g_.nodes[sw].ports) {
            if (p.remote != kNoNode && g_.nodes[p.remote].kind == NodeKind::Switch) {
                out.push_back(p.remote);
            }
        }
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    };
    std::vector<NodeIndex> empty;
    for (NodeIndex n = 0; n < g_.nodes.size(); ++n) {
        if (g_.nodes[n].kind != NodeKind::Switch || tier_[n] != 3) {
            continue;
        }
        const auto up = spines_of(n);
        if (up.empty() ||
            std::any_of(up.begin(), up.end(), [&](NodeIndex s) { return tier_[s] != 2; })) {
            continue;
        }
        // A leaf of the same spines: a core joins spines no one leaf reaches together.
        bool leaf_like = false;
        for (const auto& p : g_.nodes[up.front()].ports) {
            if (leaf_like || p.remote == kNoNode || tier_[p.remote] != 1 ||
                g_.nodes[p.remote].kind != NodeKind::Switch) {
                continue;
            }
            const auto theirs = spines_of(p.remote);
            leaf_like = std::includes(theirs.begin(), theirs.end(), up.begin(), up.end());
        }
        if (leaf_like) {
            empty.push_back(n);
        }
    }
    for (const auto n : empty) {
        tier_[n] = 1;
        anomaly("empty-leaf", "'" + switch_name(n) +
                                  "' serves no host and is cabled only to spines the leaves "
                                  "use (an empty rack, or its hosts down or not cabled): kept "
                                  "as a leaf, in no SU");
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
        const auto su = su_of_root[leaves.find(s)];
        if (su != kNone && (map_.switches[s].tier == 1 ||
                            (!spine_sus_.empty() && spine_sus_.count(leaf_node(s)) != 0))) {
            map_.sus[su].leaves.push_back(s);  // an empty leaf is in no SU
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
        stats_.rails = std::max(stats_.rails, rails.size());
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

std::size_t check_previous_hosts(FabricMap& map, const FabricMap& previous) {
    std::set<std::string> switches;
    for (const auto& sw : map.switches) {
        switches.insert(sw.name);
    }
    std::size_t vanished = 0;
    for (const auto& su : previous.sus) {
        std::vector<std::string> gone;
        for (const auto hi : su.hosts) {
            if (map.find_host(previous.hosts[hi].name) == nullptr) {
                gone.push_back(previous.hosts[hi].name);
            }
        }
        if (gone.empty()) {
            continue;
        }
        const bool leaves_gone = std::none_of(su.leaves.begin(), su.leaves.end(), [&](auto l) {
            return switches.contains(previous.switches[l].name);
        });
        vanished += gone.size();
        map.anomalies.push_back(
            {"hosts-vanished",
             std::to_string(gone.size()) + " of the " + std::to_string(su.hosts.size()) +
                 " host(s) of SU " + su.name + " in the previous map are not in this capture (" +
                 compress_hostlist(gone) + ")" +
                 (leaves_gone ? ", nor are its leaf switches: powered down or unplugged?"
                              : ": down, uncabled, or renamed?")});
    }
    return vanished;
}

Classification classify(const FabricGraph& graph, const ClassifyOptions& options) {
    Classification out;
    Classifier(graph, options, out).run();
    return out;
}

}  // namespace switchyard::discover
