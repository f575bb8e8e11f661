// SPDX-License-Identifier: Apache-2.0
#include "switchyard/ops/install_guard.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"

namespace switchyard::ops {

using fabric::FabricMap;
using fabric::MapDiff;
using fabric::MapHost;

namespace {

std::string percent(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", v);
    return buf;
}

/// The names of `units` (SUs or groups, by index) none of whose hosts `next` still holds.
template <class UnitOf>
std::vector<std::string> units_gone(const FabricMap& installed,
                                    const std::unordered_set<std::string>& kept,
                                    std::size_t count,
                                    UnitOf unit_of,
                                    const auto& name_of) {
    std::vector<std::size_t> hosts(count, 0), left(count, 0);
    for (const auto& h : installed.hosts) {
        const auto u = unit_of(h);
        if (u >= count) {
            continue;
        }
        ++hosts[u];
        if (kept.contains(h.name)) {
            ++left[u];
        }
    }
    std::vector<std::string> out;
    for (std::size_t u = 0; u < count; ++u) {
        if (hosts[u] > 0 && left[u] == 0) {
            out.push_back(name_of(u) + " (" + std::to_string(hosts[u]) + " hosts)");
        }
    }
    return out;
}

std::string first_names(const std::vector<std::string>& names, std::size_t max) {
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < max; ++i) {
        out += (i > 0 ? ", " : "") + names[i];
    }
    if (names.size() > max) {
        out += " and " + std::to_string(names.size() - max) + " more";
    }
    return out;
}

/// How the hosts both maps hold were grouped into units (SUs or groups) before and after, by
/// unit name. Each old unit went where most of its hosts went (its target); two old units with
/// one target merged (the one of its name keeps it, else the one with more hosts there); a host not
/// with its old unit's target, or of a unit merged into another, moved.
struct UnitChanges {
    std::vector<std::string> renamed;  ///< "old -> new", units whose hosts stayed together
    std::vector<std::string> merged;   ///< "a, b -> c"
    std::vector<std::string> moved;    ///< host names
    std::size_t units = 0;             ///< old units with hosts in both maps
};

UnitChanges unit_changes(const std::vector<std::string>& before,
                         const std::vector<std::string>& after,
                         const std::vector<std::string>& host_names) {
    // before[i] / after[i]: host i's unit in each map.
    std::map<std::string, std::map<std::string, std::size_t>> count;  // old → new → hosts
    for (std::size_t i = 0; i < host_names.size(); ++i) {
        ++count[before[i]][after[i]];
    }
    std::map<std::string, std::string> target;
    std::map<std::string, std::vector<std::pair<std::size_t, std::string>>> sources;
    for (const auto& [old, to] : count) {
        const std::pair<const std::string, std::size_t>* best = nullptr;
        for (const auto& entry : to) {  // most hosts; a tie goes to the unit's own name
            if (best == nullptr || entry.second > best->second ||
                (entry.second == best->second && entry.first == old)) {
                best = &entry;
            }
        }
        target[old] = best->first;
        sources[best->first].emplace_back(best->second, old);
    }
    UnitChanges out;
    out.units = count.size();
    std::set<std::string> merged_away;
    for (auto& entry : sources) {
        const auto& to = entry.first;  // named: a lambda cannot capture a structured binding
        auto& from = entry.second;
        // The unit of the target's own name keeps it; else the one with most hosts there.
        std::sort(from.begin(), from.end(), [&](const auto& x, const auto& y) {
            const bool xs = x.second == to, ys = y.second == to;
            if (xs != ys) {
                return xs;
            }
            return x.first != y.first ? x.first > y.first : x.second < y.second;
        });
        if (from.front().second != to) {
            out.renamed.push_back(from.front().second + " -> " + to);
        }
        if (from.size() > 1) {
            std::string names = from.front().second;
            for (std::size_t k = 1; k < from.size(); ++k) {
                names += ", " + from[k].second;
                merged_away.insert(from[k].second);
            }
            out.merged.push_back(names + " -> " + to);
        }
    }
    for (std::size_t i = 0; i < host_names.size(); ++i) {
        const auto& old = before[i];
        if (after[i] != target[old] || merged_away.contains(old)) {
            out.moved.push_back(host_names[i]);
        }
    }
    return out;
}

/// The refusals for one kind of unit ("SU" or "group").
void unit_refusals(const UnitChanges& c,
                   const char* unit,
                   std::size_t installed_hosts,
                   const InstallLimits& limits,
                   std::vector<std::string>& out) {
    const double share =
        100.0 * static_cast<double>(c.moved.size()) / static_cast<double>(installed_hosts);
    if (!c.moved.empty() && share > limits.max_hosts_moved_percent) {
        out.push_back(std::to_string(c.moved.size()) + " of the " +
                      std::to_string(installed_hosts) + " installed hosts (" + percent(share) +
                      ", more than " + percent(limits.max_hosts_moved_percent) +
                      ") would be in another " + unit +
                      " than the rest of theirs: " + compress_hostlist(c.moved) +
                      (c.merged.empty()
                           ? std::string()
                           : std::string("; ") + unit + "s merged: " + first_names(c.merged, 4)));
    }
    if (c.units > 1 && 2 * c.renamed.size() > c.units) {
        out.push_back(
            std::to_string(c.renamed.size()) + " of the " + std::to_string(c.units) + " " + unit +
            "s would be renamed, their hosts still together: " + first_names(c.renamed, 4) +
            " (discover run without the --guid-map of the installed capture?)");
    }
}

/// The NVLink level: a capture made without the nodes' facts (no --node-facts, the refresh
/// script's default, an empty or half-gathered file) puts hosts the installed map has in
/// domains in none, and their blocks would go.
void nvlink_refusals(const FabricMap& installed,
                     const FabricMap& next,
                     const std::unordered_map<std::string, std::uint32_t>& next_index,
                     const InstallLimits& limits,
                     std::vector<std::string>& out) {
    if (installed.domains.empty()) {
        return;
    }
    std::size_t in_domains = 0;
    std::vector<std::string> out_of_domain;
    for (const auto& h : installed.hosts) {
        if (h.domain == fabric::kNoDomain) {
            continue;
        }
        ++in_domains;
        const auto at = next_index.find(h.name);
        if (at != next_index.end() && next.hosts[at->second].domain == fabric::kNoDomain) {
            out_of_domain.push_back(h.name);
        }
    }
    if (next.domains.empty()) {
        out.push_back("the installed map has " + std::to_string(installed.domains.size()) +
                      " NVLink domains and the new capture none: discover run without "
                      "--node-facts (or with an empty facts file)?");
        return;
    }
    const double share = in_domains == 0 ? 0
                                         : 100.0 * static_cast<double>(out_of_domain.size()) /
                                               static_cast<double>(in_domains);
    if (!out_of_domain.empty() && share > limits.max_hosts_lost_percent) {
        out.push_back(std::to_string(out_of_domain.size()) + " of the " +
                      std::to_string(in_domains) + " hosts in NVLink domains (" + percent(share) +
                      ", more than " + percent(limits.max_hosts_lost_percent) +
                      ") would be in none: facts of only some hosts? " +
                      compress_hostlist(out_of_domain));
    }
}

}  // namespace

std::vector<std::string> install_refusals(const FabricMap& installed,
                                          const FabricMap& next,
                                          const MapDiff& diff,
                                          const InstallLimits& limits) {
    std::vector<std::string> out;
    if (installed.hosts.empty()) {
        return out;  // nothing to lose
    }
    const auto lost = diff.hosts_removed.size();
    const double share =
        100.0 * static_cast<double>(lost) / static_cast<double>(installed.hosts.size());
    if (lost > 0 && share > limits.max_hosts_lost_percent) {
        out.push_back(std::to_string(lost) + " of the " + std::to_string(installed.hosts.size()) +
                      " installed hosts (" + percent(share) + ", more than " +
                      percent(limits.max_hosts_lost_percent) +
                      ") are not in the new capture: " + compress_hostlist(diff.hosts_removed));
    }
    std::unordered_set<std::string> kept;
    kept.reserve(next.hosts.size());
    for (const auto& h : next.hosts) {
        kept.insert(h.name);
    }
    const auto sus = units_gone(
        installed, kept, installed.sus.size(), [](const MapHost& h) { return h.su; },
        [&](std::size_t u) { return installed.sus[u].name; });
    if (!sus.empty()) {
        out.push_back(std::string(sus.size() == 1 ? "a whole SU is gone, none of its hosts"
                                                  : "whole SUs are gone, none of their hosts") +
                      " in the new capture: SU " + first_names(sus, 8));
    }
    const auto groups = units_gone(
        installed, kept, installed.groups.size(),
        [&](const MapHost& h) {
            return h.su < installed.sus.size() ? std::size_t{installed.sus[h.su].group}
                                               : installed.groups.size();
        },
        [&](std::size_t g) { return installed.groups[g].name; });
    if (!groups.empty() && installed.groups.size() > 1) {
        out.push_back(std::string(groups.size() == 1 ? "a whole group is" : "whole groups are") +
                      " gone: group " + first_names(groups, 8));
    }
    // The structure of the hosts both maps hold: their SUs and groups, their rails.
    std::unordered_map<std::string, std::uint32_t> next_index;
    next_index.reserve(next.hosts.size());
    for (std::uint32_t i = 0; i < next.hosts.size(); ++i) {
        next_index.emplace(next.hosts[i].name, i);
    }
    std::vector<std::string> common;
    std::vector<std::string> su_before, su_after, group_before, group_after;
    std::vector<std::string> fewer_rails;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> rail_change;
    const auto su_name = [](const FabricMap& m, const MapHost& h) {
        return h.su < m.sus.size() ? m.sus[h.su].name : std::string();
    };
    const auto group_name = [](const FabricMap& m, const MapHost& h) {
        return h.su < m.sus.size() && m.sus[h.su].group < m.groups.size()
                   ? m.groups[m.sus[h.su].group].name
                   : std::string();
    };
    for (const auto& h : installed.hosts) {
        const auto at = next_index.find(h.name);
        if (at == next_index.end()) {
            continue;
        }
        const auto& n = next.hosts[at->second];
        common.push_back(h.name);
        su_before.push_back(su_name(installed, h));
        su_after.push_back(su_name(next, n));
        group_before.push_back(group_name(installed, h));
        group_after.push_back(group_name(next, n));
        if (n.rail_count < h.rail_count) {
            fewer_rails.push_back(h.name);
            ++rail_change[{h.rail_count, n.rail_count}];
        }
    }
    unit_refusals(unit_changes(su_before, su_after, common), "SU", installed.hosts.size(), limits,
                  out);
    if (installed.groups.size() > 1) {
        unit_refusals(unit_changes(group_before, group_after, common), "group",
                      installed.hosts.size(), limits, out);
    }
    const double fewer = 100.0 * static_cast<double>(fewer_rails.size()) /
                         static_cast<double>(installed.hosts.size());
    if (!fewer_rails.empty() && fewer > limits.max_hosts_lost_percent) {
        const auto most =
            std::max_element(rail_change.begin(), rail_change.end(),
                             [](const auto& x, const auto& y) { return x.second < y.second; });
        out.push_back(std::to_string(fewer_rails.size()) + " of the " +
                      std::to_string(installed.hosts.size()) + " installed hosts (" +
                      percent(fewer) + ", more than " + percent(limits.max_hosts_lost_percent) +
                      ") would have fewer rails (" + std::to_string(most->first.first) + " -> " +
                      std::to_string(most->first.second) +
                      (rail_change.size() > 1 ? " on most" : "") +
                      "; was discover run without some of its --compute-hca?): " +
                      compress_hostlist(fewer_rails));
    }
    if (diff.kind_before != diff.kind_after) {
        out.push_back("the fabric kind would change from " + diff.kind_before + " to " +
                      diff.kind_after);
    }
    nvlink_refusals(installed, next, next_index, limits, out);
    return out;
}

InstallRecord InstallRecord::parse(std::string_view text) {
    InstallRecord r;
    for (const auto line : split(text, '\n')) {
        const auto f = split(trim(line), ' ');
        if (f.size() != 2) {
            continue;
        }
        const auto n = parse_number<std::uint64_t>(f[1]);
        if (f[0] == "refused" && n) {
            r.refused = *n;
        } else if (f[0] == "last_run" && n) {
            r.last_run = *n;
        } else if (f[0] == "last_change" && n) {
            r.last_change = *n;
        } else if (f[0] == "last_result" && !f[1].empty() && f[1].size() <= 16) {
            const bool word = std::all_of(f[1].begin(), f[1].end(), [](char c) {
                return (c >= 'a' && c <= 'z') || c == '-';
            });
            if (word) {
                r.last_result = std::string(f[1]);
            }
        }
    }
    return r;
}

std::string InstallRecord::text() const {
    return "refused " + std::to_string(refused) + "\nlast_run " + std::to_string(last_run) +
           "\nlast_change " + std::to_string(last_change) + "\nlast_result " + last_result + "\n";
}

}  // namespace switchyard::ops
