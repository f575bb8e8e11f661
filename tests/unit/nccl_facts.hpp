// SPDX-License-Identifier: Apache-2.0
// Facts for the NCCL rules' tests: nodes, ports, a two-SU map, a job, and readers of a decision.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "switchyard/nccl/rules.hpp"

namespace switchyard::nccl::test {

using node::NodeTopology;
using node::PathType;

inline node::RdmaPort port(int state, const std::string& layer = "InfiniBand") {
    node::RdmaPort p;
    p.port = 1;
    p.state_code = state;
    p.state = state == 4 ? "ACTIVE" : "DOWN";
    p.phys_state = state == 4 ? "LinkUp" : "Polling";
    p.link_layer = layer;
    return p;
}

/// A node of `gpus` GPUs and one NIC per entry of `paths` (each NIC's class to every GPU).
inline NodeTopology classed(int gpus,
                            const std::vector<std::vector<PathType>>& paths,
                            const std::vector<node::RdmaPort>& ports) {
    NodeTopology n;
    for (int i = 0; i < gpus; ++i) {
        node::Gpu g;
        g.index = i;
        n.gpus.push_back(g);
    }
    for (std::size_t k = 0; k < paths.size(); ++k) {
        node::Nic nic;
        nic.name = "mlx5_" + std::to_string(k);
        nic.ports = {ports[k]};
        n.nics.push_back(nic);
        for (int g = 0; g < gpus; ++g) {
            n.paths.push_back({g, nic.name, paths[k][static_cast<std::size_t>(g)]});
        }
    }
    return n;
}

/// GPUs 0..n-1 each PIX to mlx5_i; extra NICs have no GPU nearby.
inline NodeTopology make_node(int gpus, const std::vector<node::RdmaPort>& ports) {
    std::vector<std::vector<PathType>> paths(
        ports.size(), std::vector<PathType>(static_cast<std::size_t>(gpus), PathType::SYS));
    for (std::size_t i = 0; i < ports.size() && i < static_cast<std::size_t>(gpus); ++i) {
        paths[i][i] = PathType::PIX;
    }
    auto n = classed(gpus, paths, ports);
    n.numa = {{0, "0-3"}, {1, "4-7"}};
    for (auto& g : n.gpus) {
        g.place.numa = g.index < gpus / 2 ? 0 : 1;
    }
    return n;
}

inline std::optional<std::string> value(const NcclDecision& d, const std::string& name) {
    for (const auto& c : d.set) {
        if (c.name == name) {
            return c.value;
        }
    }
    return std::nullopt;
}

inline JobFacts job(unsigned nodes = 2) {
    JobFacts j;
    j.this_host = "n001";
    for (unsigned i = 1; i <= nodes; ++i) {
        char h[16];
        std::snprintf(h, sizeof h, "n%03u", i);
        j.hosts.emplace_back(h);
    }
    return j;
}

/// A map: hosts n001..n004; SU "su1" = n001,n002 with 2 rail leaves, "su2" = n003,n004 one leaf;
/// groups g1 (su1) and g2 (su2).
inline fabric::FabricMap map(fabric::FabricKind kind) {
    fabric::FabricMap m;
    m.kind = kind;
    m.hcas = {"mlx5_0", "mlx5_1"};
    m.switches = {{"l1a", 1, 1}, {"l1b", 2, 1}, {"l2", 3, 1}};
    m.groups = {{"g1", {0}}, {"g2", {1}}};
    m.sus = {{"su1", 0, {0, 1}, {0, 1}}, {"su2", 1, {2}, {2, 3}}};
    m.rails = {{0, 0, 1}, {1, 1, 1}, {0, 2, 1}, {1, 2, 1}};
    m.hosts = {{"n001", 0, 0, 2}, {"n002", 0, 0, 2}, {"n003", 1, 2, 2}, {"n004", 1, 2, 2}};
    return m;
}

/// map() with one NVLink domain holding n001..n003 (n004 in none), in `state`.
inline fabric::FabricMap nvl_map(fabric::DomainState state = fabric::DomainState::Ok) {
    auto m = map(fabric::FabricKind::DragonflyPlus);
    m.domains = {{"nvl_aaaa_1", "aaaa.1", 0, state, {"n001", "n002", "n003"}}};
    for (int h = 0; h < 3; ++h) {
        m.hosts[static_cast<std::size_t>(h)].domain = 0;
    }
    return m;
}

/// The "why" of a set variable, or "" when it is not set.
inline std::string why(const NcclDecision& d, const std::string& name) {
    for (const auto& c : d.set) {
        if (c.name == name) {
            return c.why;
        }
    }
    return "";
}

/// The "NAME: not set: ..." line of `name`, or "".
inline std::string unset_line(const NcclDecision& d, const std::string& name) {
    for (const auto& u : d.unset) {
        if (u.rfind(name + ":", 0) == 0) {
            return u;
        }
    }
    return "";
}

}  // namespace switchyard::nccl::test
