// SPDX-License-Identifier: Apache-2.0
// Small fabrics for the classifier's tests: a graph built cable by cable, and what the tests
// ask of a map. Shared by classify_test, classify_cabling_test and classify_inputs_test.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <map>
#include <string>

#include "catch.hpp"
#include "switchyard/discover/classify/classify.hpp"
#include "switchyard/fabric/guid.hpp"

namespace classify_fixtures {

using namespace switchyard::discover;
using namespace switchyard::fabric;

/// Builds a FabricGraph cable by cable; ports are numbered in the order cables are added.
struct Builder {
    FabricGraph g;
    std::uint64_t next_guid = 0x1000;
    NodeIndex add(NodeKind kind, std::string desc, std::uint32_t devid = 0) {
        FabricNode n;
        n.kind = kind;
        n.guid = next_guid += 0x10;
        n.id = (kind == NodeKind::Switch ? "S-" : "H-") + format_guid(n.guid).substr(2);
        n.desc = std::move(desc);
        n.nports = 64;
        n.devid = devid;
        g.nodes.push_back(std::move(n));
        return static_cast<NodeIndex>(g.nodes.size() - 1);
    }
    NodeIndex sw(const std::string& name) {
        return add(NodeKind::Switch, "MF0;" + name + ":MQM9700/U1");
    }
    NodeIndex ca(const std::string& desc) { return add(NodeKind::Ca, desc); }
    /// The switch made by sw(name).
    NodeIndex switch_named(const std::string& name) const {
        for (NodeIndex i = 0; i < g.nodes.size(); ++i) {
            if (g.nodes[i].desc == "MF0;" + name + ":MQM9700/U1") {
                return i;
            }
        }
        FAIL("no switch " << name);
        return kNoNode;
    }
    void link(NodeIndex a, NodeIndex b) {
        auto pa = static_cast<std::uint32_t>(g.nodes[a].ports.size() + 1);
        auto pb = static_cast<std::uint32_t>(g.nodes[b].ports.size() + 1);
        g.nodes[a].ports.push_back({pa, b, pb, 0, 0});
        g.nodes[b].ports.push_back({pb, a, pa, 0, 0});
    }
};

inline std::map<std::string, std::size_t> anomaly_counts(const FabricMap& m) {
    std::map<std::string, std::size_t> out;
    for (const auto& a : m.anomalies) {
        ++out[a.kind];
    }
    return out;
}

inline std::string su_of(const FabricMap& m, const std::string& host) {
    const auto* h = m.find_host(host);
    REQUIRE(h != nullptr);
    return m.sus[h->su].name;
}

/// Two SUs of 2 rails × 3 hosts, every leaf to both spines.
inline Builder rail_fabric() {
    Builder b;
    auto s1 = b.sw("spine1");
    auto s2 = b.sw("spine2");
    for (int su = 1; su <= 2; ++su) {
        std::vector<NodeIndex> leaves;
        for (int r = 0; r < 2; ++r) {
            leaves.push_back(b.sw("su" + std::to_string(su) + "-rail" + std::to_string(r)));
            b.link(leaves.back(), s1);
            b.link(leaves.back(), s2);
        }
        for (int h = 1; h <= 3; ++h) {
            const auto host = "n" + std::to_string(su) + std::to_string(h);
            for (int r = 0; r < 2; ++r) {
                b.link(b.ca(host + " mlx5_" + std::to_string(r)),
                       leaves[static_cast<std::size_t>(r)]);
            }
        }
    }
    return b;
}

/// rail_fabric() with these CAs ("<host> <hca>") cabled straight into spine1, in order.
inline Builder rail_fabric_with_spine_hosts(std::initializer_list<const char*> cas) {
    auto b = rail_fabric();
    const auto spine1 = b.switch_named("spine1");
    for (const auto* desc : cas) {
        b.link(b.ca(desc), spine1);
    }
    return b;
}

}  // namespace classify_fixtures
