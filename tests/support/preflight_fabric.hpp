// SPDX-License-Identifier: Apache-2.0
// Fabric maps built in memory for the preflight's tests and its fault simulator: groups of
// scalable units, each SU one leaf per rail under the rail's spines, spines of different groups
// joined by global cables (Dragonfly+) or pods under a core (three-tier fat tree), optionally
// each SU one NVLink domain (an NVL72 rack).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "switchyard/fabric/fabric_map.hpp"

namespace switchyard::testing {

struct SimSpec {
    std::uint32_t groups = 1;
    std::uint32_t sus_per_group = 4;
    std::uint32_t hosts_per_su = 8;
    std::uint32_t rails = 1;
    std::uint32_t spines = 4;  ///< per group and rail; each leaf has one uplink to each
    std::uint32_t globals_per_pair = 1;
    bool pods = false;     ///< groups are pods of a three-tier fat tree
    bool domains = false;  ///< each SU is one NVLink domain
};

inline std::uint32_t sim_hosts(const SimSpec& s) {
    return s.groups * s.sus_per_group * s.hosts_per_su;
}
inline std::uint32_t sim_leaf(const SimSpec& s, std::uint32_t host, std::uint32_t rail) {
    return (host / s.hosts_per_su) * s.rails + rail;
}
inline std::uint32_t sim_group(const SimSpec& s, std::uint32_t host) {
    return host / (s.sus_per_group * s.hosts_per_su);
}
inline std::string sim_host_name(std::uint32_t h) {
    char b[16];
    std::snprintf(b, sizeof b, "n%05u", h);
    return b;
}

inline fabric::FabricMap build_sim_map(const SimSpec& s) {
    fabric::FabricMap m;
    m.kind = s.groups == 1
                 ? fabric::FabricKind::FatTree
                 : (s.pods ? fabric::FabricKind::FatTree3 : fabric::FabricKind::DragonflyPlus);
    m.tiers = s.pods ? 3 : 2;
    m.link_counts = true;
    for (std::uint32_t r = 0; r < s.rails; ++r) {
        m.hcas.push_back("mlx5_" + std::to_string(r));
    }
    const std::uint32_t sus = s.groups * s.sus_per_group;
    char b[64];
    for (std::uint32_t su = 0; su < sus; ++su) {
        for (std::uint32_t r = 0; r < s.rails; ++r) {
            std::snprintf(b, sizeof b, "g%u-su%u-r%u", su / s.sus_per_group, su % s.sus_per_group,
                          r);
            m.switches.push_back(fabric::MapSwitch{b, 0x1000 + m.switches.size(), 1, s.spines});
        }
    }
    for (std::uint32_t g = 0; g < s.groups; ++g) {
        for (std::uint32_t r = 0; r < s.rails; ++r) {
            for (std::uint32_t k = 0; k < s.spines; ++k) {
                std::snprintf(b, sizeof b, "g%u-spine%u-r%u", g, k, r);
                m.switches.push_back(fabric::MapSwitch{b, 0x1000 + m.switches.size(), 2, 0});
            }
        }
        fabric::MapGroup grp;
        grp.name = "g" + std::to_string(g);
        // The map counts a group's cables over all rails: to each other group (Dragonfly+), to
        // the core (pods).
        grp.global = s.groups > 1 && !s.pods ? s.globals_per_pair * s.rails : 0;
        grp.uplinks = s.pods ? s.globals_per_pair * (s.groups - 1) * s.rails : 0;
        m.groups.push_back(grp);
    }
    for (std::uint32_t su = 0; su < sus; ++su) {
        fabric::MapSu u;
        u.name = "su" + std::to_string(su);
        u.group = su / s.sus_per_group;
        for (std::uint32_t r = 0; r < s.rails; ++r) {
            u.leaves.push_back(su * s.rails + r);
        }
        m.sus.push_back(std::move(u));
        m.groups[su / s.sus_per_group].sus.push_back(su);
        if (s.domains) {
            fabric::MapDomain d;
            d.name = "nvl_rack" + std::to_string(su);
            d.key = "00000000-0000-0000-0000-" + std::to_string(100000 + su) + ".0";
            d.su = su;
            m.domains.push_back(std::move(d));
        }
    }
    const std::uint32_t n = sim_hosts(s);
    for (std::uint32_t h = 0; h < n; ++h) {
        fabric::MapHost host;
        host.name = sim_host_name(h);
        host.su = h / s.hosts_per_su;
        host.rail_begin = static_cast<std::uint32_t>(m.rails.size());
        host.rail_count = s.rails;
        if (s.domains) {
            host.domain = host.su;
            m.domains[host.su].members.push_back(host.name);
        }
        for (std::uint32_t r = 0; r < s.rails; ++r) {
            m.rails.push_back(fabric::MapRail{r, sim_leaf(s, h, r), 1});
        }
        m.sus[host.su].hosts.push_back(h);
        m.hosts.push_back(std::move(host));
    }
    return m;
}

}  // namespace switchyard::testing
