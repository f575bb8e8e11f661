// SPDX-License-Identifier: Apache-2.0
// The fabric map file: its writer, the digest on its first line, kind names, host lookup.
#include <algorithm>
#include <charconv>
#include <cstdio>

#include "switchyard/common/file.hpp"
#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/fabric/guid.hpp"

namespace switchyard::fabric {

std::string_view to_string(FabricKind k) {
    switch (k) {
        case FabricKind::Empty:
            return "empty";
        case FabricKind::FatTree:
            return "fat-tree";
        case FabricKind::FatTree3:
            return "fat-tree-3";
        case FabricKind::DragonflyPlus:
            return "dragonfly+";
        case FabricKind::Islands:
            return "islands";
    }
    return "?";
}

std::optional<FabricKind> fabric_kind_from_string(std::string_view s) {
    for (const auto k : {FabricKind::Empty, FabricKind::FatTree, FabricKind::FatTree3,
                         FabricKind::DragonflyPlus, FabricKind::Islands}) {
        if (to_string(k) == s) {
            return k;
        }
    }
    return std::nullopt;
}

std::string_view to_string(DomainState s) {
    switch (s) {
        case DomainState::Ok:
            return "ok";
        case DomainState::Degraded:
            return "degraded";
        case DomainState::Missing:
            return "missing";
    }
    return "?";
}

bool same_rails(std::span<const MapRail> a, std::span<const MapRail> b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const MapRail& x, const MapRail& y) {
                          return x.hca == y.hca && x.leaf == y.leaf && x.cables == y.cables;
                      });
}

double FabricMap::su_uplinks_per_rail(std::uint32_t su) const {
    if (!link_counts || su >= sus.size() || su_on_spine(su)) {
        return 0;
    }
    double cables = 0;
    for (const auto leaf : sus[su].leaves) {
        cables += leaf < switches.size() ? switches[leaf].uplinks : 0;
    }
    std::uint32_t most = 1;
    for (const auto h : sus[su].hosts) {
        most = std::max(most, hosts[h].rail_count);
    }
    return cables / most;
}

bool FabricMap::su_on_spine(std::uint32_t su) const {
    return su < sus.size() && !sus[su].leaves.empty() && sus[su].leaves.front() < switches.size() &&
           switches[sus[su].leaves.front()].tier > 1;
}

const MapHost* FabricMap::find_host(std::string_view name) const {
    const auto it =
        std::lower_bound(hosts.begin(), hosts.end(), name,
                         [](const MapHost& h, std::string_view n) { return h.name < n; });
    return it != hosts.end() && it->name == name ? &*it : nullptr;
}

std::optional<std::uint64_t> fabric_map_digest(std::string_view first_line) {
    const auto prefix = std::string(kFabricMapMagic) + " ";
    if (first_line.size() != prefix.size() + 2 + 16 ||
        first_line.substr(0, prefix.size()) != prefix ||
        (first_line[prefix.size()] < '3' || first_line[prefix.size()] > '5') ||
        first_line[prefix.size() + 1] != ' ') {
        return std::nullopt;
    }
    const auto hex = first_line.substr(prefix.size() + 2);
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), v, 16);
    if (ec != std::errc{} || p != hex.data() + hex.size() ||
        hex.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
        return std::nullopt;
    }
    return v;
}

std::string write_fabric_map(const FabricMap& map, std::string_view comment) {
    std::string out;
    out.reserve(64 * (map.hosts.size() + map.switches.size()) + 24 * map.rails.size());
    // The first line, with the digest of what follows, is put in front at the end.
    if (!comment.empty()) {
        out += "# " + printable(comment) + "\n";
    }
    out += "kind " + std::string(to_string(map.kind)) + "\ntiers " + std::to_string(map.tiers) +
           "\nhcas";
    for (const auto& h : map.hcas) {
        out += ' ' + h;
    }
    out += '\n';
    for (const auto& s : map.switches) {
        out += "switch " + s.name + ' ' + format_guid(s.guid) + ' ' + std::to_string(s.tier) + ' ' +
               std::to_string(s.uplinks) + '\n';
    }
    for (const auto& g : map.groups) {
        out += "group " + g.name + ' ' + std::to_string(g.global) + ' ' +
               std::to_string(g.uplinks) + '\n';
    }
    // Each SU's usual rails: those of its first host with the most rails.
    std::vector<std::span<const MapRail>> usual(map.sus.size());
    for (std::size_t s = 0; s < map.sus.size(); ++s) {
        for (const auto hi : map.sus[s].hosts) {
            const auto r = map.rails_of(map.hosts[hi]);
            if (r.size() > usual[s].size()) {
                usual[s] = r;
            }
        }
    }
    auto append_rails = [&](std::span<const MapRail> rails) {
        bool first = true;
        for (const auto& r : rails) {
            out += (first ? "" : ",") + map.hcas[r.hca] + ':' + map.switches[r.leaf].name;
            if (r.cables != 1) {
                out += '*' + std::to_string(r.cables);
            }
            first = false;
        }
    };
    for (std::size_t s = 0; s < map.sus.size(); ++s) {
        const auto& su = map.sus[s];
        out += "su " + su.name + ' ' + map.groups[su.group].name + ' ';
        for (std::size_t i = 0; i < su.leaves.size(); ++i) {
            out += (i > 0 ? "," : "") + map.switches[su.leaves[i]].name;
        }
        if (!usual[s].empty()) {
            out += ' ';
            append_rails(usual[s]);
        }
        out += '\n';
    }
    for (const auto& h : map.hosts) {
        out += "host " + h.name + ' ' + map.sus[h.su].name;
        if (!same_rails(map.rails_of(h), usual[h.su])) {
            out += ' ';
            append_rails(map.rails_of(h));
        }
        out += '\n';
    }
    for (const auto& d : map.domains) {
        out += "nvl " + d.name + ' ' + map.sus[d.su].name + ' ' + std::string(to_string(d.state)) +
               ' ' + d.key + ' ' + compress_hostlist(d.members) + '\n';
    }
    for (const auto& a : map.anomalies) {
        // Details quote names, descriptions and file names from the inputs: one line each,
        // whatever they hold (ops::run_discover has made them printable already; other writers
        // of maps may not have).
        out += "anomaly " + printable(a.kind) + ' ' + printable(a.detail) + '\n';
    }
    out += "end " + std::to_string(map.switches.size()) + " switches " +
           std::to_string(map.sus.size()) + " sus " + std::to_string(map.hosts.size()) + " hosts\n";
    const int version = map.domains.empty() ? 4 : kFabricMapVersion;
    return std::string(kFabricMapMagic) + " " + std::to_string(version) + " " +
           hex_digits(content_digest(out), 16) + "\n" + out;
}

}  // namespace switchyard::fabric
