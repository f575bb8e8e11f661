// SPDX-License-Identifier: Apache-2.0
#include "switchyard/slurmconf/install_guard.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <unordered_set>
#include <vector>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"

namespace switchyard::slurmconf {

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
    if (diff.kind_before != diff.kind_after) {
        out.push_back("the fabric kind would change from " + diff.kind_before + " to " +
                      diff.kind_after);
    }
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

}  // namespace switchyard::slurmconf
