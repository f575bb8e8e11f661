// SPDX-License-Identifier: Apache-2.0
// Two fabric maps compared by name: hosts, SUs, groups, cable counts, anomalies.
#include "switchyard/fabric/map_diff.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "switchyard/common/hostlist.hpp"

namespace switchyard::fabric {
namespace {

/// Names in `a` that are not in `b`, sorted.
std::vector<std::string> missing_from(const std::set<std::string>& a,
                                      const std::set<std::string>& b) {
    std::vector<std::string> out;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}

template <typename T>
std::set<std::string> names_of(const std::vector<T>& items) {
    std::set<std::string> out;
    for (const auto& i : items) {
        out.insert(i.name);
    }
    return out;
}

std::set<std::string> anomalies_of(const FabricMap& m) {
    std::set<std::string> out;
    for (const auto& a : m.anomalies) {
        out.insert(a.kind + ": " + a.detail);
    }
    return out;
}

/// At most this many examples of one anomaly kind, and this many cable lines, for people.
constexpr std::size_t kExamples = 3;
constexpr std::size_t kCableLines = 20;

/// Switch, SU or group names for people: a count and the names compressed as a hostlist
/// ("g1-leaf[1-4],g2-leaf[1-4]"); the full list is the --json output's.
void list(std::string& out, const char* what, const std::vector<std::string>& items) {
    if (items.empty()) {
        return;
    }
    out += std::string(what) + ": " + std::to_string(items.size()) + "\n  " +
           compress_hostlist(items) + "\n";
}

/// Anomalies ("<kind>: <detail>") for people: per kind its count and the first few.
void list_anomalies(std::string& out, const char* what, const std::vector<std::string>& items) {
    if (items.empty()) {
        return;
    }
    out += std::string(what) + ": " + std::to_string(items.size()) + "\n";
    std::map<std::string, std::vector<std::string>> by_kind;
    for (const auto& a : items) {
        const auto colon = a.find(": ");
        by_kind[a.substr(0, colon)].push_back(colon == std::string::npos ? a : a.substr(colon + 2));
    }
    for (const auto& [kind, details] : by_kind) {
        out += "  " + kind + ": " + std::to_string(details.size()) + "\n";
        for (std::size_t i = 0; i < details.size() && i < kExamples; ++i) {
            out += "    " + details[i] + "\n";
        }
        if (details.size() > kExamples) {
            out += "    ... " + std::to_string(details.size() - kExamples) +
                   " more (--json lists every one)\n";
        }
    }
}

/// Host names for people: "hosts removed: 746" and one hostlist ("cn[001-746]"); the full list
/// is the --json output's.
void list_hosts(std::string& out, const char* what, const std::vector<std::string>& hosts) {
    if (hosts.empty()) {
        return;
    }
    out += std::string(what) + ": " + std::to_string(hosts.size()) + "\n  " +
           compress_hostlist(hosts) + "\n";
}

}  // namespace

bool MapDiff::changed() const {
    return kind_before != kind_after || !hosts_added.empty() || !hosts_removed.empty() ||
           !hosts_moved.empty() || !sus_added.empty() || !sus_removed.empty() ||
           !groups_added.empty() || !groups_removed.empty() || !domains_added.empty() ||
           !domains_removed.empty() || !cables.empty() || !anomalies_new.empty() ||
           !anomalies_resolved.empty();
}

MapDiff compare_maps(const FabricMap& before, const FabricMap& after) {
    MapDiff d;
    d.kind_before = to_string(before.kind);
    d.kind_after = to_string(after.kind);
    d.hosts_before = before.hosts.size();
    d.hosts_after = after.hosts.size();
    const auto hosts_b = names_of(before.hosts);
    const auto hosts_a = names_of(after.hosts);
    d.hosts_added = missing_from(hosts_a, hosts_b);
    d.hosts_removed = missing_from(hosts_b, hosts_a);
    for (const auto& h : after.hosts) {  // sorted by name
        const auto* old = before.find_host(h.name);
        if (old == nullptr) {
            continue;
        }
        const auto& su_b = before.sus[old->su];
        const auto& su_a = after.sus[h.su];
        if (su_b.name != su_a.name) {
            d.hosts_moved.push_back({h.name, su_b.name, su_a.name, before.groups[su_b.group].name,
                                     after.groups[su_a.group].name});
        }
    }
    d.sus_added = missing_from(names_of(after.sus), names_of(before.sus));
    d.sus_removed = missing_from(names_of(before.sus), names_of(after.sus));
    d.groups_added = missing_from(names_of(after.groups), names_of(before.groups));
    d.groups_removed = missing_from(names_of(before.groups), names_of(after.groups));
    d.domains_added = missing_from(names_of(after.domains), names_of(before.domains));
    d.domains_removed = missing_from(names_of(before.domains), names_of(after.domains));
    if (before.link_counts && after.link_counts) {
        std::map<std::string, std::uint32_t> uplinks;
        for (const auto& s : before.switches) {
            uplinks[s.name] = s.uplinks;
        }
        for (const auto& s : after.switches) {
            const auto it = uplinks.find(s.name);
            if (it != uplinks.end() && it->second != s.uplinks) {
                d.cables.push_back({"switch " + s.name + " uplinks", it->second, s.uplinks});
            }
        }
        std::map<std::string, const MapGroup*> groups;
        for (const auto& g : before.groups) {
            groups[g.name] = &g;
        }
        for (const auto& g : after.groups) {
            const auto it = groups.find(g.name);
            if (it == groups.end()) {
                continue;
            }
            if (it->second->global != g.global) {
                d.cables.push_back({"group " + g.name + " global (fewest to another group)",
                                    it->second->global, g.global});
            }
            if (it->second->uplinks != g.uplinks) {
                d.cables.push_back({"group " + g.name + " core", it->second->uplinks, g.uplinks});
            }
        }
        std::sort(d.cables.begin(), d.cables.end(),
                  [](const auto& x, const auto& y) { return x.where < y.where; });
    }
    const auto anomalies_b = anomalies_of(before);
    const auto anomalies_a = anomalies_of(after);
    d.anomalies_new = missing_from(anomalies_a, anomalies_b);
    d.anomalies_resolved = missing_from(anomalies_b, anomalies_a);
    return d;
}

std::string format_diff(const MapDiff& d) {
    std::string out =
        "hosts: " + std::to_string(d.hosts_before) + " -> " + std::to_string(d.hosts_after) + "\n";
    if (!d.changed()) {
        return out + "no change\n";
    }
    if (d.kind_before != d.kind_after) {
        out += "fabric kind: " + d.kind_before + " -> " + d.kind_after + "\n";
    }
    list_hosts(out, "hosts added", d.hosts_added);
    list_hosts(out, "hosts removed", d.hosts_removed);
    if (!d.hosts_moved.empty()) {
        // One line per move (from SU and group, to SU and group), naming its hosts as a
        // hostlist: a recabled leaf moves its hosts together. In the order of their first host.
        out += "hosts moved: " + std::to_string(d.hosts_moved.size()) + "\n";
        std::map<std::string, std::vector<std::string>> by_move;
        std::vector<std::string> order;
        for (const auto& m : d.hosts_moved) {
            std::string move = "SU " + m.from_su + " -> " + m.to_su;
            if (m.from_group != m.to_group) {
                move += ", group " + m.from_group + " -> " + m.to_group;
            }
            auto& hosts = by_move[move];
            if (hosts.empty()) {
                order.push_back(move);
            }
            hosts.push_back(m.host);
        }
        for (const auto& move : order) {
            out += "  " + compress_hostlist(by_move[move]) + ": " + move + "\n";
        }
    }
    list(out, "SUs added", d.sus_added);
    list(out, "SUs removed", d.sus_removed);
    list(out, "groups added", d.groups_added);
    list(out, "groups removed", d.groups_removed);
    list(out, "NVLink domains added", d.domains_added);
    list(out, "NVLink domains removed (their blocks)", d.domains_removed);
    if (!d.cables.empty()) {
        out += "cables: " + std::to_string(d.cables.size()) + " counts changed\n";
        for (std::size_t i = 0; i < d.cables.size() && i < kCableLines; ++i) {
            const auto& c = d.cables[i];
            out += "  " + c.where + ": " + std::to_string(c.before) + " -> " +
                   std::to_string(c.after) + (c.after < c.before ? " (lost " : " (gained ") +
                   std::to_string(c.after < c.before ? c.before - c.after : c.after - c.before) +
                   ")\n";
        }
        if (d.cables.size() > kCableLines) {
            out += "  ... " + std::to_string(d.cables.size() - kCableLines) +
                   " more (--json lists every one)\n";
        }
    }
    list_anomalies(out, "anomalies new", d.anomalies_new);
    list_anomalies(out, "anomalies resolved", d.anomalies_resolved);
    return out;
}

}  // namespace switchyard::fabric
