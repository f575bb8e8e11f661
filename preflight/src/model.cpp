// SPDX-License-Identifier: Apache-2.0
#include "switchyard/preflight/model.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace switchyard::preflight {

std::string_view to_string(PartKind k) {
    switch (k) {
        case PartKind::Port:
            return "port";
        case PartKind::NvlinkPort:
            return "nvlink-port";
        case PartKind::Leaf:
            return "leaf";
        case PartKind::Uplinks:
            return "leaf-uplinks";
        case PartKind::Uplink:
            return "uplink";
        case PartKind::Spines:
            return "spines";
        case PartKind::Spine:
            return "spine";
        case PartKind::Globals:
            return "global-cables";
        case PartKind::Global:
            return "global-cable";
        case PartKind::Rail:
            return "rail";
        case PartKind::Domain:
            return "nvlink-domain";
    }
    return "unknown";
}

std::uint32_t Model::add_part(PartKind kind, std::string name, std::uint32_t host) {
    parts.push_back(Part{kind, std::move(name), host});
    return static_cast<std::uint32_t>(parts.size() - 1);
}

namespace {

/// The key of the global cables between groups a and b on `plane` (kNone: every plane).
std::uint64_t group_pair(std::uint32_t a, std::uint32_t b, std::uint32_t plane) {
    if (a > b) {
        std::swap(a, b);
    }
    const std::uint64_t p = plane == kNone ? 0xffff : (plane & 0xffffU);
    return (std::uint64_t{a & 0xffffffU} << 40) | (std::uint64_t{b & 0xffffffU} << 16) | p;
}

}  // namespace

Result<Model> build_model(const fabric::FabricMap& map,
                          std::span<const std::string> hosts,
                          const ModelOptions& options) {
    Model m;
    // The map's hosts the job has, in the job's order; the others are noted.
    std::vector<const fabric::MapHost*> known;
    known.reserve(hosts.size());
    std::vector<std::string> missing;
    std::unordered_set<const fabric::MapHost*> seen;
    seen.reserve(hosts.size());
    for (const auto& name : hosts) {
        const auto* h = map.find_host(name);
        if (h == nullptr) {
            missing.push_back(name);
            continue;
        }
        if (!seen.insert(h).second) {
            return fail(Error::invalid_argument("host '" + name + "' is given twice"));
        }
        m.hosts.push_back(name);
        known.push_back(h);
    }
    if (!missing.empty()) {
        std::string list;
        for (std::size_t i = 0; i < missing.size() && i < 8; ++i) {
            list += (i != 0 ? ", " : "") + missing[i];
        }
        if (missing.size() > 8) {
            list += ", ...";
        }
        m.notes.push_back(std::to_string(missing.size()) +
                          " host(s) not in the fabric map, not measured: " + list);
    }

    // Planes: the rails asked for (all by default), in the map's HCA order.
    std::vector<std::uint32_t> plane_of_hca(map.hcas.size(), kNone);
    for (std::uint32_t i = 0; i < map.hcas.size(); ++i) {
        const auto& hca = map.hcas[i];
        if (!options.rails.empty() &&
            std::find(options.rails.begin(), options.rails.end(), hca) == options.rails.end()) {
            continue;
        }
        plane_of_hca[i] = static_cast<std::uint32_t>(m.planes.size());
        Plane p;
        p.name = hca;
        p.rail_part = m.add_part(PartKind::Rail, "rail " + hca);
        m.planes.push_back(std::move(p));
    }
    for (const auto& want : options.rails) {
        if (std::find(map.hcas.begin(), map.hcas.end(), want) == map.hcas.end()) {
            m.notes.push_back("rail '" + want + "' is not in the fabric map, not measured");
        }
    }

    // Leaves: one per (plane, switch); the Leaf and Uplinks parts are the switch's, shared by
    // the planes a switch serves when HCAs are not on rails of their own.
    std::vector<std::uint32_t> leaf_part(map.switches.size(), kNone);
    std::vector<std::uint32_t> uplinks_part(map.switches.size(), kNone);
    std::unordered_map<std::uint64_t, std::uint32_t> leaf_of;  // plane << 32 | switch
    // Rails on leaves of their own: then each rail has its own spines (as in a rail-optimized
    // SuperPOD), and a spine fault slows one rail only.
    bool rail_leaves = true;
    {
        std::unordered_map<std::uint32_t, std::uint32_t> hca_of;
        for (const auto* h : known) {
            for (const auto& r : map.rails_of(*h)) {
                const auto [it, fresh] = hca_of.emplace(r.leaf, r.hca);
                rail_leaves = rail_leaves && (fresh || it->second == r.hca);
            }
        }
    }
    std::unordered_map<std::uint64_t, std::uint32_t> spines_of;
    const auto others = static_cast<std::uint32_t>(std::max<std::size_t>(1, map.groups.size() - 1));
    std::uint32_t ib_planes = 0;
    for (const auto& p : m.planes) {
        ib_planes += p.nvlink ? 0 : 1;
    }
    const std::uint32_t per_plane = rail_leaves ? std::max<std::uint32_t>(1, ib_planes) : 1;
    for (const auto& g : map.groups) {
        m.group_names.push_back(g.name);
        const std::uint32_t cables = std::max(g.global, g.uplinks / others);
        m.group_cables.push_back(std::max<std::uint32_t>(1, cables / per_plane));
    }
    auto leaf_index = [&](std::uint32_t plane, std::uint32_t sw, std::uint32_t group) {
        const std::uint64_t key = (std::uint64_t{plane} << 32) | sw;
        if (auto it = leaf_of.find(key); it != leaf_of.end()) {
            return it->second;
        }
        if (leaf_part[sw] == kNone) {
            leaf_part[sw] = m.add_part(PartKind::Leaf, map.switches[sw].name);
            uplinks_part[sw] = m.add_part(PartKind::Uplinks, map.switches[sw].name + " uplinks");
            m.parts[uplinks_part[sw]].members =
                std::max<std::uint32_t>(1, map.switches[sw].uplinks);
        }
        const std::uint64_t skey = (std::uint64_t{group} << 32) | (rail_leaves ? plane : kNone);
        auto sit = spines_of.find(skey);
        if (sit == spines_of.end()) {
            std::string name = map.groups[group].name + " spines";
            if (rail_leaves) {
                name += " of rail " + m.planes[plane].name;
            }
            sit = spines_of.emplace(skey, m.add_part(PartKind::Spines, std::move(name))).first;
            m.group_spines.emplace_back(skey, sit->second);
        }
        // A group's spines: as many as its best-cabled leaf has uplinks.
        auto& spines = m.parts[sit->second].members;
        spines = std::max(spines, map.switches[sw].uplinks);
        Leaf l;
        l.part = leaf_part[sw];
        l.uplinks = uplinks_part[sw];
        l.spines = sit->second;
        l.group = group;
        l.uplink_count = map.switches[sw].uplinks;
        l.switch_index = sw;
        m.leaves.push_back(l);
        const auto idx = static_cast<std::uint32_t>(m.leaves.size() - 1);
        leaf_of.emplace(key, idx);
        return idx;
    };
    for (std::uint32_t hi = 0; hi < known.size(); ++hi) {
        const auto& h = *known[hi];
        const std::uint32_t group = map.sus[h.su].group;
        for (const auto& r : map.rails_of(h)) {
            const std::uint32_t plane = plane_of_hca[r.hca];
            if (plane == kNone) {
                continue;
            }
            Attachment a;
            a.host = hi;
            a.plane = plane;
            a.leaf = leaf_index(plane, r.leaf, group);
            a.port = m.add_part(PartKind::Port, m.hosts[hi] + " " + map.hcas[r.hca], hi);
            m.attachments.push_back(a);
        }
    }

    // NVLink: one plane, each domain a "leaf" of it, pairs only inside a domain.
    if (options.nvlink && !map.domains.empty()) {
        std::vector<std::uint32_t> domain_leaf(map.domains.size(), kNone);
        std::uint32_t plane = kNone;
        for (std::uint32_t hi = 0; hi < known.size(); ++hi) {
            const auto d = known[hi]->domain;
            if (d == fabric::kNoDomain || d >= map.domains.size()) {
                continue;
            }
            if (plane == kNone) {
                plane = static_cast<std::uint32_t>(m.planes.size());
                m.planes.push_back(Plane{"nvlink", true, kNone});
            }
            if (domain_leaf[d] == kNone) {
                Leaf l;
                l.part = m.add_part(PartKind::Domain, map.domains[d].name);
                l.group = map.sus[map.domains[d].su].group;
                m.leaves.push_back(l);
                domain_leaf[d] = static_cast<std::uint32_t>(m.leaves.size() - 1);
            }
            Attachment a;
            a.host = hi;
            a.plane = plane;
            a.leaf = domain_leaf[d];
            a.port = m.add_part(PartKind::NvlinkPort, m.hosts[hi] + " NVLink", hi);
            m.attachments.push_back(a);
        }
    }
    std::sort(m.group_spines.begin(), m.group_spines.end());
    std::sort(m.attachments.begin(), m.attachments.end(),
              [&](const Attachment& x, const Attachment& y) {
                  if (x.plane != y.plane) {
                      return x.plane < y.plane;
                  }
                  if (x.leaf != y.leaf) {
                      return x.leaf < y.leaf;
                  }
                  return m.hosts[x.host] < m.hosts[y.host];
              });

    // Global sets between the groups the job spans: per plane when rails have spines of their
    // own (and so their own global cables), else one for every plane.
    m.rail_leaves = rail_leaves;
    std::vector<std::uint64_t> wanted;  // plane << 32 | group
    for (const auto& a : m.attachments) {
        const auto& l = m.leaves[a.leaf];
        if (l.switch_index != kNone) {
            wanted.push_back((std::uint64_t{rail_leaves ? a.plane : 0} << 32) | l.group);
        }
    }
    std::sort(wanted.begin(), wanted.end());
    wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
    const bool pods = map.kind == fabric::FabricKind::FatTree3;
    for (std::size_t i = 0; i < wanted.size(); ++i) {
        for (std::size_t j = i + 1; j < wanted.size() && (wanted[j] >> 32) == (wanted[i] >> 32);
             ++j) {
            const auto gi = static_cast<std::uint32_t>(wanted[i]);
            const auto gj = static_cast<std::uint32_t>(wanted[j]);
            const auto plane = rail_leaves ? static_cast<std::uint32_t>(wanted[i] >> 32) : kNone;
            const auto& ga = map.groups[gi].name;
            const auto& gb = map.groups[gj].name;
            std::string name =
                pods ? "core cables of " + ga + " or " + gb : "global cables " + ga + "-" + gb;
            if (plane != kNone) {
                name += " of rail " + m.planes[plane].name;
            }
            const auto part = m.add_part(PartKind::Globals, std::move(name));
            m.parts[part].members = std::min(m.group_cables[gi], m.group_cables[gj]);
            m.group_globals.emplace_back(group_pair(gi, gj, plane), part);
        }
    }
    std::sort(m.group_globals.begin(), m.group_globals.end());
    return m;
}

void path_of(const Model& m, const Probe& p, std::vector<std::uint32_t>& out) {
    out.clear();
    if (m.exact_path) {
        // Both directions may cross the same cable or spine: each part once.
        m.exact_path(m, p, out);
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return;
    }
    const auto& a = m.attachments[p.a];
    const auto& b = m.attachments[p.b];
    const auto& la = m.leaves[a.leaf];
    const auto& lb = m.leaves[b.leaf];
    out.push_back(a.port);
    out.push_back(b.port);
    out.push_back(la.part);
    if (a.leaf != b.leaf) {
        out.push_back(lb.part);
        if (la.uplinks != kNone && lb.uplinks != kNone) {
            out.push_back(la.uplinks);
            out.push_back(lb.uplinks);
            out.push_back(la.spines);
            if (la.group != lb.group) {
                out.push_back(lb.spines);
                const auto key = group_pair(la.group, lb.group, m.rail_leaves ? a.plane : kNone);
                auto it =
                    std::lower_bound(m.group_globals.begin(), m.group_globals.end(), key,
                                     [](const auto& e, std::uint64_t k) { return e.first < k; });
                if (it != m.group_globals.end() && it->first == key) {
                    out.push_back(it->second);
                }
            }
        }
    }
    const auto rail = m.planes[a.plane].rail_part;
    if (rail != kNone) {
        out.push_back(rail);
    }
}

}  // namespace switchyard::preflight
