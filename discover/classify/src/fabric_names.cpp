// SPDX-License-Identifier: Apache-2.0
// Stable names for switches, scalable units and groups.
#include "fabric_names.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/fabric/guid.hpp"

namespace switchyard::discover {

using fabric::Anomaly;
using fabric::FabricMap;
using fabric::format_guid;
using fabric::MapSwitch;
using fabric::parse_guid;

namespace {

bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
}

bool is_separator(char c) {
    return c == '-' || c == '_' || c == '.';
}

}  // namespace

std::optional<ChassisCard> chassis_card(std::string_view desc) {
    // "MF0;<chassis>:<model>/L<nn>/U<n>" (line card) or ".../S<nn>/U<n>" (spine card).
    if (!desc.starts_with("MF0;")) {
        return std::nullopt;
    }
    desc.remove_prefix(4);
    const auto colon = desc.find(':');
    if (colon == std::string_view::npos || colon == 0) {
        return std::nullopt;
    }
    const auto parts = split(desc.substr(colon + 1), '/');
    if (parts.size() != 3 || parts[1].size() < 2 || (parts[1][0] != 'L' && parts[1][0] != 'S') ||
        parts[2].size() < 2 || parts[2][0] != 'U') {
        return std::nullopt;
    }
    const auto digits = [](std::string_view d) {
        return !d.empty() &&
               std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (!digits(parts[1].substr(1)) || !digits(parts[2].substr(1))) {
        return std::nullopt;
    }
    return ChassisCard{std::string(desc.substr(0, colon)), std::string(parts[1]),
                       std::string(parts[2]), parts[1][0] == 'S'};
}

namespace {

/// The name a switch description gives, or "" when it gives none.
std::string name_from_desc(std::string_view desc) {
    if (const auto card = chassis_card(desc)) {
        // One chassis is many ASICs sharing its name: each is named by its slot.
        return name_from_desc("MF0;" + card->chassis + ":x") + "-" + card->slot;
    }
    if (desc.starts_with("MF0;")) {
        desc.remove_prefix(4);
        desc = desc.substr(0, desc.find(':'));
    } else if (desc.find_first_of(" \t") != std::string_view::npos) {
        return {};  // "Quantum Mellanox Technologies" and other factory strings
    }
    std::string out(desc);
    std::replace_if(
        out.begin(), out.end(), [](char c) { return !is_name_char(c); }, '_');
    return out;
}

/// Splits "A09-P1-IBLEAF-01-04" into tokens and the separators before them.
std::vector<std::pair<char, std::string_view>> tokens(std::string_view name) {
    std::vector<std::pair<char, std::string_view>> out;
    char sep = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= name.size(); ++i) {
        if (i == name.size() || is_separator(name[i])) {
            out.emplace_back(sep, name.substr(start, i - start));
            sep = i < name.size() ? name[i] : 0;
            start = i + 1;
        }
    }
    return out;
}

/// The tokens all names share at the same positions: {"A09-P1-IBLEAF-01-04",
/// "A09-P1-IBLEAF-02-04"} → "A09-P1-IBLEAF-04", {"g1-spine1","g1-spine2"} → "g1". Names with
/// different token counts fall back to their common prefix cut at a separator.
std::string common_stem(const std::vector<std::string_view>& names) {
    if (names.empty()) {
        return {};
    }
    if (names.size() == 1) {
        return std::string(names.front());
    }
    auto first = tokens(names.front());
    bool same_shape = true;
    std::vector<bool> keep(first.size(), true);
    for (const auto n : names) {
        const auto t = tokens(n);
        if (t.size() != first.size()) {
            same_shape = false;
            break;
        }
        for (std::size_t i = 0; i < t.size(); ++i) {
            keep[i] = keep[i] && t[i] == first[i];
        }
    }
    std::string out;
    if (same_shape) {
        for (std::size_t i = 0; i < first.size(); ++i) {
            if (keep[i] && !first[i].second.empty()) {
                if (!out.empty()) {
                    out += first[i].first != 0 ? first[i].first : '-';
                }
                out += first[i].second;
            }
        }
        return out;
    }
    std::string_view p = names.front();
    for (const auto n : names) {
        std::size_t i = 0;
        while (i < p.size() && i < n.size() && p[i] == n[i]) {
            ++i;
        }
        p = p.substr(0, i);
    }
    auto cut = p.size();
    while (cut > 0 && !is_separator(p[cut - 1])) {
        --cut;
    }
    while (cut > 0 && is_separator(p[cut - 1])) {
        --cut;
    }
    return std::string(p.substr(0, cut));
}

/// Names that share no stem but number a run, {"leaf01".."leaf08"} → "leaf01-08" (the hostlist
/// "leaf[01-08]" without brackets, which Slurm's topology files read as a host list); "" when
/// the names do not compress to one prefix and one range.
std::string range_name(const std::vector<std::string_view>& names) {
    const auto list = compress_hostlist(std::vector<std::string>(names.begin(), names.end()));
    const auto open = list.find('[');
    const auto dash = list.find('-', open);
    if (open == 0 || open == std::string::npos || list.back() != ']' ||
        list.find_first_of(",[", open + 1) != std::string::npos || dash == std::string::npos) {
        return {};
    }
    return list.substr(0, open) + list.substr(open + 1, list.size() - open - 2);
}

bool is_guid_name(const MapSwitch& s) {
    return s.name == guid_name("sw-", s.guid);
}

/// Gives `wanted` to slot i unless taken; then the fallback.
void claim(std::set<std::string>& taken,
           std::string& slot,
           std::string wanted,
           std::string fallback) {
    if (wanted.empty() || taken.count(wanted) != 0) {
        wanted = std::move(fallback);
    }
    taken.insert(wanted);
    slot = std::move(wanted);
}

}  // namespace

bool is_valid_name(std::string_view name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), is_name_char);
}

std::string sanitize_name(std::string_view name) {
    std::string out(name);
    std::replace_if(
        out.begin(), out.end(), [](char c) { return !is_name_char(c); }, '_');
    return out;
}

std::string guid_name(std::string_view prefix, std::uint64_t guid) {
    return std::string(prefix) + format_guid(guid).substr(2);
}

std::vector<std::string> name_switches(const FabricGraph& g,
                                       const std::vector<NodeIndex>& nodes,
                                       std::vector<Anomaly>& anomalies) {
    std::vector<std::string> names;
    names.reserve(nodes.size());
    // Switches by name: views into `names`, so each table is made again after names change.
    auto count_uses = [&names]() {
        std::unordered_map<std::string_view, std::size_t> uses;
        uses.reserve(names.size());
        for (const auto& n : names) {
            ++uses[n];
        }
        return uses;
    };
    for (const auto n : nodes) {
        names.push_back(name_from_desc(g.nodes[n].desc));
    }
    // A chassis slot with several ASICs (U1, U2): each gets its unit.
    std::vector<std::pair<std::size_t, std::string>> units;
    {
        const auto uses = count_uses();
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            if (const auto card = chassis_card(g.nodes[nodes[i]].desc);
                card && uses.at(names[i]) > 1) {
                units.emplace_back(i, card->unit);
            }
        }
    }
    for (auto& [i, unit] : units) {
        names[i] += "-" + unit;
    }
    std::vector<std::pair<std::size_t, std::size_t>> duplicates;  // switch, its name's uses
    {
        const auto uses = count_uses();
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            if (!names[i].empty()) {
                if (const auto k = uses.at(names[i]); k > 1) {
                    duplicates.emplace_back(i, k);
                }
            }
        }
    }
    for (const auto& [i, k] : duplicates) {
        const auto guid = g.nodes[nodes[i]].guid;
        anomalies.push_back({"duplicate-switch-name",
                             "'" + names[i] + "' names " + std::to_string(k) + " switches; " +
                                 format_guid(guid) + " is called " + guid_name("sw-", guid)});
        names[i].clear();
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (names[i].empty()) {
            names[i] = guid_name("sw-", g.nodes[nodes[i]].guid);
        }
    }
    // A description may spell another switch's GUID name ("sw-" and 16 hex digits): the GUID
    // name wins.
    std::unordered_set<std::uint64_t> guids;
    guids.reserve(nodes.size());
    for (const auto n : nodes) {
        guids.insert(g.nodes[n].guid);
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const auto guid = g.nodes[nodes[i]].guid;
        if (names[i].size() != 19 || !names[i].starts_with("sw-")) {
            continue;
        }
        const auto spelt = parse_guid(std::string_view(names[i]).substr(3));
        if (spelt && *spelt != guid && guids.count(*spelt) != 0 &&
            names[i] == guid_name("sw-", *spelt)) {
            const auto own = guid_name("sw-", guid);
            anomalies.push_back(
                {"duplicate-switch-name", "'" + names[i] + "' is another switch's GUID name; " +
                                              format_guid(guid) + " is called " + own});
            names[i] = own;
        }
    }
    return names;
}

void name_sus(FabricMap& map) {
    std::set<std::string> taken;
    for (auto& su : map.sus) {
        std::vector<std::string_view> names;
        std::uint64_t lowest = std::numeric_limits<std::uint64_t>::max();
        bool meaningful = true;
        for (const auto leaf : su.leaves) {
            names.push_back(map.switches[leaf].name);
            lowest = std::min(lowest, map.switches[leaf].guid);
            meaningful = meaningful && !is_guid_name(map.switches[leaf]);
        }
        auto wanted = meaningful ? common_stem(names) : std::string();
        if (wanted.empty() && meaningful) {
            wanted = range_name(names);
        }
        claim(taken, su.name, wanted, guid_name("su-", lowest));
    }
}

void name_groups(FabricMap& map, const std::vector<std::uint32_t>& group_of_switch) {
    std::set<std::string> taken;
    for (const auto& su : map.sus) {
        taken.insert(su.name);
    }
    for (std::uint32_t gi = 0; gi < map.groups.size(); ++gi) {
        std::vector<std::string_view> names;
        std::uint64_t lowest = std::numeric_limits<std::uint64_t>::max();
        bool meaningful = true;
        for (std::uint32_t w = 0; w < map.switches.size(); ++w) {
            if (group_of_switch[w] == gi && map.switches[w].tier == 2) {
                names.push_back(map.switches[w].name);
                lowest = std::min(lowest, map.switches[w].guid);
                meaningful = meaningful && !is_guid_name(map.switches[w]);
            }
        }
        for (const auto s : map.groups[gi].sus) {
            for (const auto leaf : map.sus[s].leaves) {
                lowest = std::min(lowest, map.switches[leaf].guid);
            }
        }
        std::string wanted = meaningful && !names.empty() ? common_stem(names) : std::string();
        if (map.groups.size() == 1) {
            wanted = "fabric";  // one group is the whole fabric, whatever its spines are called
        }
        claim(taken, map.groups[gi].name, wanted, guid_name("group-", lowest));
    }
}

}  // namespace switchyard::discover
