// SPDX-License-Identifier: Apache-2.0
// The classifier's judgement of the cabling: links counted per leaf and upper switch and per
// group pair, and each count set against the design (--expect-cabling, else the count most
// pairs have): missing uplinks, missing and extra global cables.
#include <array>
#include <functional>
#include <string_view>
#include <tuple>

#include "classifier.hpp"
#include "switchyard/discover/classify/classify.hpp"
#include "switchyard/fabric/guid.hpp"

namespace switchyard::discover {

using fabric::FabricKind;
using fabric::FabricMap;
using fabric::format_guid;
using fabric::MapHost;
using fabric::MapRail;

namespace detail {

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

}  // namespace detail

}  // namespace switchyard::discover
