// SPDX-License-Identifier: Apache-2.0
// Tests of fabric classification on small built graphs and on the real SuperPOD capture.
#include "switchyard/discover/classify.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "catch.hpp"
#include "paths.hpp"
#include "switchyard/discover/ibnetdiscover.hpp"
#include "switchyard/fabric/fabric_index.hpp"
#include "switchyard/fabric/guid.hpp"
#include "switchyard/slurmconf/slurm_writers.hpp"

using namespace switchyard::discover;
using namespace switchyard::fabric;
using namespace switchyard::slurmconf;

namespace {

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

std::map<std::string, std::size_t> anomaly_counts(const FabricMap& m) {
    std::map<std::string, std::size_t> out;
    for (const auto& a : m.anomalies) {
        ++out[a.kind];
    }
    return out;
}

std::string su_of(const FabricMap& m, const std::string& host) {
    const auto* h = m.find_host(host);
    REQUIRE(h != nullptr);
    return m.sus[h->su].name;
}

/// Two SUs of 2 rails × 3 hosts, every leaf to both spines.
Builder rail_fabric() {
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
Builder rail_fabric_with_spine_hosts(std::initializer_list<const char*> cas) {
    auto b = rail_fabric();
    const auto spine1 = b.switch_named("spine1");
    for (const auto* desc : cas) {
        b.link(b.ca(desc), spine1);
    }
    return b;
}

}  // namespace

TEST_CASE("classify: rail leaves that serve the same hosts form one SU", "[classify]") {
    auto b = rail_fabric();
    const auto c = classify(b.g, {});
    const auto& m = c.map;
    CHECK(m.kind == FabricKind::FatTree);
    CHECK(m.tiers == 2);
    REQUIRE(m.sus.size() == 2);
    CHECK(m.sus[0].name == "su1");
    CHECK(m.sus[0].leaves.size() == 2);
    CHECK(su_of(m, "n11") == "su1");
    CHECK(su_of(m, "n23") == "su2");
    REQUIRE(m.groups.size() == 1);
    CHECK(m.groups[0].name == "fabric");
    const auto rails = m.rails_of(*m.find_host("n12"));
    REQUIRE(rails.size() == 2);
    CHECK(m.hcas[rails[0].hca] == "mlx5_0");
    CHECK(m.switches[rails[0].leaf].name == "su1-rail0");
    CHECK(m.switches[rails[1].leaf].name == "su1-rail1");
    CHECK(m.anomalies.empty());
    CHECK(c.stats.compute_hcas == 12);
    CHECK(c.stats.uplink_cables == std::vector<std::pair<std::uint32_t, std::size_t>>{{1, 8}});
}

TEST_CASE("classify: a host missing a rail stays in its SU and is reported", "[classify]") {
    auto b = rail_fabric();
    // Cut n22's mlx5_1 cable: drop the CA's port and the leaf's port.
    for (auto& n : b.g.nodes) {
        if (n.desc == "n22 mlx5_1") {
            const auto leaf = n.ports[0].remote;
            auto& lp = b.g.nodes[leaf].ports;
            lp.erase(std::remove_if(lp.begin(), lp.end(),
                                    [&](const FabricPort& p) {
                                        return b.g.nodes[p.remote].desc == "n22 mlx5_1";
                                    }),
                     lp.end());
            n.ports.clear();
        }
    }
    const auto m = classify(b.g, {}).map;
    CHECK(su_of(m, "n22") == "su2");
    CHECK(m.rails_of(*m.find_host("n22")).size() == 1);
    const auto counts = anomaly_counts(m);
    CHECK(counts.at("missing-rail") == 1);
    CHECK(counts.at("isolated-hca") == 1);
    bool named = false;
    for (const auto& a : m.anomalies) {
        named = named || (a.kind == "missing-rail" &&
                          a.detail ==
                              "n22 in SU su2 reaches no HCA to leaf su2-rail1 (its SU has "
                              "2 rails)");
    }
    CHECK(named);
}

TEST_CASE("classify: rails come from cabling, not HCA names", "[classify]") {
    // One SU of 2 rail leaves: n1 names its HCAs mlx5_0/1, n2 HCA-1/HCA-2, n3 mlx5_0/1 again,
    // all on the same leaves; srv has one HCA (HCA-2) on rail 1. Name-based rails reported n1
    // and n3 as missing HCA-1/HCA-2, n2 as missing mlx5_0/1, and srv as missing three.
    Builder b;
    auto spine = b.sw("spine1");
    auto r0 = b.sw("su1-rail0");
    auto r1 = b.sw("su1-rail1");
    b.link(r0, spine);
    b.link(r1, spine);
    for (const auto* h : {"n1", "n3"}) {
        b.link(b.ca(std::string(h) + " mlx5_0"), r0);
        b.link(b.ca(std::string(h) + " mlx5_1"), r1);
    }
    b.link(b.ca("n2 HCA-1"), r0);
    b.link(b.ca("n2 HCA-2"), r1);
    b.link(b.ca("srv HCA-2"), r1);
    const auto m = classify(b.g, {}).map;
    const auto counts = anomaly_counts(m);
    CHECK(counts.count("missing-rail") == 0);
    REQUIRE(counts.count("single-hca-host") == 1);
    for (const auto& a : m.anomalies) {
        if (a.kind == "single-hca-host") {
            CHECK(a.detail ==
                  "srv in SU su1 has one HCA where its peers reach 2 rails (a storage "
                  "or management server?)");
        }
    }
}

TEST_CASE("classify: a spine that carries hosts stays a spine", "[classify]") {
    // A storage server and a UFM host cabled straight into spine1: spine1 became a leaf in an
    // SU of its own and the fabric "disconnected". Tiers come from the switch graph now.
    auto clean = classify(rail_fabric().g, {}).map;
    const auto b = rail_fabric_with_spine_hosts({"storage01 mlx5_0", "ufm01 mlx5_0"});
    const auto m = classify(b.g, {}).map;
    CHECK(m.kind == FabricKind::FatTree);
    CHECK(m.tiers == 2);
    REQUIRE(m.sus.size() == clean.sus.size());
    for (std::size_t i = 0; i < m.sus.size(); ++i) {
        CHECK(m.sus[i].name == clean.sus[i].name);
        CHECK(m.sus[i].leaves.size() == 2);
    }
    CHECK(m.find_host("storage01") == nullptr);
    const auto counts = anomaly_counts(m);
    CHECK(counts.at("host-on-spine") == 2);
    CHECK(counts.count("disconnected") == 0);
    CHECK(counts.count("unreachable-switch") == 0);
    for (const auto& a : m.anomalies) {
        if (a.kind == "host-on-spine" && a.detail.starts_with("storage01")) {
            CHECK(a.detail ==
                  "storage01 mlx5_0 is cabled to 'spine1', a spine (it joins other "
                  "leaves); not named like the compute hosts: left out of placement");
        }
    }
}

TEST_CASE("classify: compute hosts cabled into a spine are an SU of their own", "[classify]") {
    // n31 is named like the hosts on leaves (n11..n23): a compute host, placed in an SU of its
    // own under spine1; storage01 is not; n11's third HCA on spine1 is left out (n11 is on
    // leaves). The tiers, SUs and groups of the leaves stay as they were.
    auto clean = classify(rail_fabric().g, {}).map;
    const auto b = rail_fabric_with_spine_hosts({"n31 mlx5_0", "storage01 mlx5_0", "n11 mlx5_2"});
    const auto c = classify(b.g, {});
    const auto& m = c.map;
    CHECK(m.kind == FabricKind::FatTree);
    CHECK(m.tiers == 2);
    REQUIRE(m.sus.size() == clean.sus.size() + 1);
    const auto* n31 = m.find_host("n31");
    REQUIRE(n31 != nullptr);
    const auto& su = m.sus[n31->su];
    CHECK(m.su_on_spine(n31->su));
    REQUIRE(su.leaves.size() == 1);
    CHECK(m.switches[su.leaves[0]].name == "spine1");
    CHECK(m.switches[su.leaves[0]].tier == 2);
    CHECK(su.hosts.size() == 1);
    CHECK(su.group == m.sus[m.find_host("n11")->su].group);
    CHECK(m.groups.size() == 1);
    for (std::uint32_t s = 0; s < m.sus.size(); ++s) {
        CHECK(m.su_on_spine(s) == (s == n31->su));
    }
    CHECK(m.find_host("storage01") == nullptr);
    CHECK(m.rails_of(*m.find_host("n11")).size() == 2);
    const auto counts = anomaly_counts(m);
    CHECK(counts.at("host-on-spine") == 3);
    CHECK(counts.count("disconnected") == 0);
    CHECK(counts.count("leaf-to-leaf") == 0);
    CHECK(counts.count("missing-uplink") == 0);
    std::set<std::string> details;
    for (const auto& a : m.anomalies) {
        if (a.kind == "host-on-spine") {
            details.insert(a.detail);
        }
    }
    CHECK(details == std::set<std::string>{
                         "n11 mlx5_2 is cabled to 'spine1', a spine (it joins other leaves), and "
                         "its other HCAs reach leaves: this HCA is left out of placement",
                         "n31 mlx5_0 is cabled to 'spine1', a spine (it joins other leaves): a "
                         "compute host, in an SU of its own there",
                         "storage01 mlx5_0 is cabled to 'spine1', a spine (it joins other "
                         "leaves); not named like the compute hosts: left out of placement"});
    // Slurm sees it: one more switch line with n31, under the same root; its block comes last
    // and does not set the base block size.
    const auto conf = write_topology_conf(m, "");
    CHECK(conf.find("SwitchName=" + su.name + " Nodes=n31\n") != std::string::npos);
    const auto layout = block_layout(m);
    CHECK(layout.base == 3);
    REQUIRE(layout.sus.size() == m.sus.size());
    CHECK(layout.sus.back() == n31->su);
    // The map file keeps it: written and read back, the same SU on the same spine.
    const auto text = write_fabric_map(m, "");
    const auto back = read_fabric_map(text, "fabric.map");
    REQUIRE(back.has_value());
    CHECK(write_fabric_map(*back, "") == text);
    CHECK(back->su_on_spine(back->find_host("n31")->su));
}

TEST_CASE("classify: --expect-hosts decides which hosts on a spine are compute hosts",
          "[classify]") {
    const auto b = rail_fabric_with_spine_hosts({"n31 mlx5_0", "login01 mlx5_0"});
    // The site says login01 is a compute node and n31 is not (say, a spare).
    const std::vector<std::string> expected{"n11", "n12", "n13", "n21", "n22", "n23", "login01"};
    ClassifyOptions opt;
    opt.expected_hosts = &expected;
    const auto m = classify(b.g, opt).map;
    CHECK(m.find_host("n31") == nullptr);
    REQUIRE(m.find_host("login01") != nullptr);
    CHECK(m.su_on_spine(m.find_host("login01")->su));
    CHECK(m.tiers == 2);
    bool told = false;
    for (const auto& a : m.anomalies) {
        told = told || a.detail ==
                           "n31 mlx5_0 is cabled to 'spine1', a spine (it joins other leaves); "
                           "not an expected host (--expect-hosts): left out of placement";
    }
    CHECK(told);
}

TEST_CASE("classify: leaves cabled to each other are no tier and no false disconnection",
          "[classify]") {
    // Two stacked edge switches, no spine: 2 SUs joined by a leaf-to-leaf cable.
    Builder b;
    auto a = b.sw("edge1");
    auto c = b.sw("edge2");
    b.link(a, c);
    for (int h = 1; h <= 3; ++h) {
        b.link(b.ca("a" + std::to_string(h) + " mlx5_0"), a);
        b.link(b.ca("c" + std::to_string(h) + " mlx5_0"), c);
    }
    const auto m = classify(b.g, {}).map;
    CHECK(m.tiers == 1);
    CHECK(m.sus.size() == 2);
    CHECK(m.groups.size() == 1);
    CHECK(m.kind == FabricKind::FatTree);
    const auto counts = anomaly_counts(m);
    CHECK(counts.count("disconnected") == 0);
    CHECK(counts.at("leaf-to-leaf") == 1);
    for (const auto& an : m.anomalies) {
        if (an.kind == "leaf-to-leaf") {
            CHECK(an.detail == "'edge1' is cabled to 'edge2', another leaf (not a tier)");
        }
    }
    // In a fabric with spines, a stray leaf-to-leaf cable is reported but joins nothing.
    auto r = rail_fabric();
    NodeIndex l1 = kNoNode;
    NodeIndex l2 = kNoNode;
    for (NodeIndex i = 0; i < r.g.nodes.size(); ++i) {
        if (r.g.nodes[i].desc == "MF0;su1-rail0:MQM9700/U1") {
            l1 = i;
        } else if (r.g.nodes[i].desc == "MF0;su2-rail0:MQM9700/U1") {
            l2 = i;
        }
    }
    r.link(l1, l2);
    const auto rm = classify(r.g, {}).map;
    CHECK(rm.sus.size() == 2);
    CHECK(rm.tiers == 2);
    CHECK(anomaly_counts(rm).at("leaf-to-leaf") == 1);
}

TEST_CASE("classify: director chassis: ASICs named by slot, line cards leaves, spine cards above",
          "[classify]") {
    // Three IS5600-class directors, every ASIC described "MF0;<chassis>:IS5600/<slot>/U<n>"
    // with the chassis' one name: 27 line cards with hosts and 3 empty line cards each, 4
    // spine-card ASICs (2 slots of 2 units), the spine cards cabled to two core switches.
    Builder b;
    const auto core1 = b.sw("core1");
    const auto core2 = b.sw("core2");
    for (int d = 1; d <= 3; ++d) {
        const std::string chassis = "IS5600-" + std::to_string(d);
        std::vector<NodeIndex> spines;
        for (int slot = 1; slot <= 2; ++slot) {
            for (int unit = 1; unit <= 2; ++unit) {
                spines.push_back(b.add(NodeKind::Switch, "MF0;" + chassis + ":IS5600/S0" +
                                                             std::to_string(slot) + "/U" +
                                                             std::to_string(unit)));
                b.link(spines.back(), core1);
                b.link(spines.back(), core2);
            }
        }
        for (int l = 1; l <= 30; ++l) {
            const auto slot = std::string(l < 10 ? "L0" : "L") + std::to_string(l);
            const auto lc = b.add(NodeKind::Switch, "MF0;" + chassis + ":IS5600/" + slot + "/U1");
            for (const auto sp : spines) {
                b.link(lc, sp);
            }
            if (l <= 27) {
                for (int h = 1; h <= 2; ++h) {
                    b.link(b.ca("d" + std::to_string(d) + "l" + std::to_string(l) + "h" +
                                std::to_string(h) + " mlx5_0"),
                           lc);
                }
            }
        }
    }
    const auto m = classify(b.g, {}).map;
    CHECK(m.tiers == 3);
    CHECK(m.sus.size() == 81);
    CHECK(m.groups.size() == 3);
    CHECK(m.kind == FabricKind::FatTree3);
    CHECK(m.anomalies.empty());  // no duplicate-switch-name, no unreachable empty slots
    std::set<std::string> names;
    for (const auto& sw : m.switches) {
        names.insert(sw.name);
    }
    CHECK(names.count("IS5600-1-L15") == 1);
    CHECK(names.count("IS5600-2-S01-U2") == 1);
    CHECK(su_of(m, "d3l15h2") == "IS5600-3-L15");
    for (const auto& sw : m.switches) {
        if (sw.name == "IS5600-1-L30") {
            CHECK(sw.tier == 0);  // an empty slot: no tier of its own
        }
        if (sw.name == "IS5600-1-S02-U1") {
            CHECK(sw.tier == 2);
        }
    }
}

TEST_CASE("classify: factory switch names classify the same, with GUID names", "[classify]") {
    auto managed = classify(rail_fabric().g, {}).map;
    auto b = rail_fabric();
    for (auto& n : b.g.nodes) {
        if (n.kind == NodeKind::Switch) {
            n.desc = "Quantum Mellanox Technologies";
        }
    }
    const auto factory = classify(b.g, {}).map;
    REQUIRE(factory.sus.size() == managed.sus.size());
    for (std::size_t i = 0; i < factory.sus.size(); ++i) {
        CHECK(factory.sus[i].hosts == managed.sus[i].hosts);
        CHECK_THAT(factory.sus[i].name, Catch::StartsWith("su-"));
    }
    for (const auto& s : factory.switches) {
        CHECK(s.name == "sw-" + format_guid(s.guid).substr(2));
    }
}

TEST_CASE("classify: two switches of one name, and a name that is another's GUID name",
          "[classify]") {
    auto b = rail_fabric();
    const auto spine1 = b.switch_named("spine1");
    const auto spine2 = b.switch_named("spine2");
    const auto rail0 = b.switch_named("su1-rail0");
    const auto rail1 = b.switch_named("su2-rail1");
    b.g.nodes[spine2].desc = b.g.nodes[spine1].desc;  // both "spine1"
    const auto guid_of = [&](NodeIndex n) { return b.g.nodes[n].guid; };
    const auto guid_name_of = [&](NodeIndex n) {
        return "sw-" + format_guid(guid_of(n)).substr(2);
    };
    // su1-rail0 calls itself by su2-rail1's GUID name
    b.g.nodes[rail0].desc = "MF0;" + guid_name_of(rail1) + ":MQM9700/U1";
    const auto m = classify(b.g, {}).map;
    std::set<std::string> names;
    for (const auto& s : m.switches) {
        names.insert(s.name);
    }
    CHECK(names.count("spine1") == 0);
    CHECK(names.count(guid_name_of(spine1)) == 1);
    CHECK(names.count(guid_name_of(spine2)) == 1);
    CHECK(names.count(guid_name_of(rail0)) == 1);
    CHECK(names.count(guid_name_of(rail1)) == 0);  // no one is called by it: a GUID name
    CHECK(names.count("su2-rail1") == 1);          // is kept for its own switch
    CHECK(names.count("su2-rail0") == 1);
    std::vector<std::string> found;
    for (const auto& a : m.anomalies) {
        if (a.kind == "duplicate-switch-name") {
            found.push_back(a.detail);
        }
    }
    CHECK(found == std::vector<std::string>{
                       "'spine1' names 2 switches; " + format_guid(guid_of(spine1)) +
                           " is called " + guid_name_of(spine1),
                       "'spine1' names 2 switches; " + format_guid(guid_of(spine2)) +
                           " is called " + guid_name_of(spine2),
                       "'" + guid_name_of(rail1) + "' is another switch's GUID name; " +
                           format_guid(guid_of(rail0)) + " is called " + guid_name_of(rail0),
                   });
}

TEST_CASE("classify: dirty CAs are reported and left out, a GUID map places them", "[classify]") {
    Builder b;
    auto leaf = b.sw("leaf1");
    b.link(b.ca("good1 mlx5_0"), leaf);
    const auto unnamed = b.ca("MT4129 ConnectX7   Mellanox Technologies");
    b.link(unnamed, leaf);
    b.link(b.ca("localhost HCA-1"), leaf);
    b.link(b.add(NodeKind::Ca, "Mellanox Technologies Aggregation Node", 0xcf09), leaf);
    b.link(b.ca("good1 mlx5_8"), leaf);  // a storage HCA
    ClassifyOptions opt;
    opt.compute_hca = [](std::string_view hca) {
        return hca.size() == 6 && hca.starts_with("mlx5_") && hca[5] >= '0' && hca[5] <= '7';
    };
    auto c = classify(b.g, opt);
    auto counts = anomaly_counts(c.map);
    CHECK(counts == std::map<std::string, std::size_t>{{"non-compute-hca", 1},
                                                       {"placeholder-host", 1},
                                                       {"sharp-node", 1},
                                                       {"unnamed-hca", 1}});
    CHECK(c.map.hosts.size() == 1);
    CHECK(c.stats.excluded_hcas == 4);

    GuidMap gm{{b.g.nodes[unnamed].guid, {"good2", "mlx5_0"}}};
    opt.guid_map = &gm;
    c = classify(b.g, opt);
    REQUIRE(c.map.find_host("good2") != nullptr);
    CHECK(anomaly_counts(c.map).count("unnamed-hca") == 0);
    CHECK(anomaly_counts(c.map).at("resolved-by-guid-map") == 1);
    for (const auto& a : c.map.anomalies) {
        if (a.kind == "resolved-by-guid-map") {  // read "'MT4129 ...' is good2 mlx5_0 by ..."
            CHECK_THAT(a.detail, Catch::EndsWith(": description 'MT4129 ConnectX7   Mellanox "
                                                 "Technologies' names no host; the GUID map "
                                                 "names it good2, HCA mlx5_0"));
        }
    }
    GuidMap host_only{{b.g.nodes[unnamed].guid, {"good2", ""}}};
    opt.guid_map = &host_only;
    c = classify(b.g, opt);
    for (const auto& a : c.map.anomalies) {
        if (a.kind == "resolved-by-guid-map") {
            CHECK_THAT(a.detail, Catch::EndsWith("names it good2 (HCA unknown)"));
        }
    }
}

TEST_CASE("classify: an SU whose leaves share no name stem is named by their range", "[classify]") {
    // Leaves leaf01..leaf04 (two SUs of two rails): no common token, so the SU names came
    // from a GUID ("su-0c42..."); now from the leaves' range, without brackets (Slurm reads
    // brackets in topology.conf as a host list).
    Builder b;
    auto s1 = b.sw("core1");
    for (int su = 0; su < 2; ++su) {
        std::vector<NodeIndex> leaves;
        for (int r = 0; r < 2; ++r) {
            leaves.push_back(b.sw("leaf0" + std::to_string(su * 2 + r + 1)));
            b.link(leaves.back(), s1);
        }
        for (int h = 1; h <= 2; ++h) {
            const auto host = "n" + std::to_string(su) + std::to_string(h);
            for (int r = 0; r < 2; ++r) {
                b.link(b.ca(host + " mlx5_" + std::to_string(r)),
                       leaves[static_cast<std::size_t>(r)]);
            }
        }
    }
    const auto m = classify(b.g, {}).map;
    REQUIRE(m.sus.size() == 2);
    CHECK(su_of(m, "n01") == "leaf01-02");
    CHECK(su_of(m, "n12") == "leaf03-04");
}

TEST_CASE("classify: Dragonfly+ groups from spine-to-spine global links", "[classify]") {
    Builder b;
    std::vector<std::vector<NodeIndex>> spines(3);
    int host = 0;
    for (int g = 0; g < 3; ++g) {
        const auto gname = "grp" + std::to_string(g + 1);
        for (int s = 0; s < 2; ++s) {
            spines[static_cast<std::size_t>(g)].push_back(
                b.sw(gname + "-spine" + std::to_string(s + 1)));
        }
        for (int l = 0; l < 2; ++l) {
            auto leaf = b.sw(gname + "-leaf" + std::to_string(l + 1));
            for (auto s : spines[static_cast<std::size_t>(g)]) {
                b.link(leaf, s);
            }
            for (int h = 0; h < 2; ++h) {
                b.link(b.ca("h" + std::to_string(++host) + " mlx5_0"), leaf);
            }
        }
    }
    for (std::size_t x = 0; x < 3; ++x) {
        for (std::size_t y = x + 1; y < 3; ++y) {
            b.link(spines[x][0], spines[y][0]);
        }
    }
    const auto m = classify(b.g, {}).map;
    CHECK(m.kind == FabricKind::DragonflyPlus);
    REQUIRE(m.groups.size() == 3);
    CHECK(m.groups[0].name == "grp1");
    CHECK(m.groups[2].sus.size() == 2);
    CHECK(m.groups[m.sus[m.find_host("h12")->su].group].name == "grp3");

    // Without the global links the groups are islands.
    Builder cut = b;
    for (auto& n : cut.g.nodes) {
        n.ports.erase(std::remove_if(n.ports.begin(), n.ports.end(),
                                     [&](const FabricPort& p) {
                                         return n.desc.find("spine1") != std::string::npos &&
                                                cut.g.nodes[p.remote].desc.find("spine1") !=
                                                    std::string::npos;
                                     }),
                      n.ports.end());
    }
    const auto islands = classify(cut.g, {}).map;
    CHECK(islands.kind == FabricKind::Islands);
    CHECK(anomaly_counts(islands).at("disconnected") == 1);
}

namespace {

/// A Dragonfly+ fabric: `groups` groups of 2 leaves (2 hosts each) and `spines` spines; every
/// pair of groups cabled by cable(x, y) → the spine places to join (one cable per entry).
template <typename Cables>
Builder dragonfly(int groups, int spines, Cables cable) {
    Builder b;
    std::vector<std::vector<NodeIndex>> sp(static_cast<std::size_t>(groups));
    int host = 0;
    for (int g = 0; g < groups; ++g) {
        const auto gname = "g" + std::to_string(g + 1);
        for (int s = 0; s < spines; ++s) {
            sp[static_cast<std::size_t>(g)].push_back(
                b.sw(gname + "-spine" + std::to_string(s + 1)));
        }
        for (int l = 0; l < 2; ++l) {
            auto leaf = b.sw(gname + "-leaf" + std::to_string(l + 1));
            for (auto s : sp[static_cast<std::size_t>(g)]) {
                b.link(leaf, s);
            }
            for (int h = 0; h < 2; ++h) {
                b.link(b.ca("h" + std::to_string(++host) + " mlx5_0"), leaf);
            }
        }
    }
    for (int x = 0; x < groups; ++x) {
        for (int y = x + 1; y < groups; ++y) {
            for (const auto& [px, py] : cable(x, y)) {
                b.link(sp[static_cast<std::size_t>(x)][static_cast<std::size_t>(px)],
                       sp[static_cast<std::size_t>(y)][static_cast<std::size_t>(py)]);
            }
        }
    }
    return b;
}

std::vector<std::string> details(const FabricMap& m, const std::string& kind) {
    std::vector<std::string> out;
    for (const auto& a : m.anomalies) {
        if (a.kind == kind) {
            out.push_back(a.detail);
        }
    }
    return out;
}

}  // namespace

TEST_CASE("classify: global cables judged against the design, each absent one named",
          "[classify]") {
    // 6 groups, spine k cabled to spine k of every other group twice (4 cables per pair). In
    // the 9 pairs of g1 and g2 one spine-1 cable is gone, so "most pairs have 3" is the damage;
    // pair g5-g6 has lost all but one spine-1 cable. 5 of the 15 pairs are whole.
    using Cables = std::vector<std::pair<int, int>>;
    int pair = 0;
    auto b = dragonfly(6, 2, [&](int x, int y) {
        Cables c{{0, 0}, {1, 1}, {1, 1}};
        if (pair++ >= 9) {
            c.emplace_back(0, 0);
        }
        if (x == 4 && y == 5) {
            c = {{0, 0}};
        }
        return c;
    });
    const auto m = classify(b.g, {}).map;
    REQUIRE(m.kind == FabricKind::DragonflyPlus);
    const auto cables = details(m, "missing-global-cable");
    REQUIRE(cables.size() == 11);
    CHECK(cables.front() ==
          "'g1-spine1' has 1 cable to 'g2-spine1' (2 expected: 5 of 15 group pairs have 2 cables "
          "from spine 1 of one group to spine 1 of the other)");
    CHECK(std::count(cables.begin(), cables.end(),
                     "'g5-spine2' has no cable to 'g6-spine2' (2 expected: 14 of 15 group pairs "
                     "have 2 cables from spine 2 of one group to spine 2 of the other)") == 1);
    const auto thin = details(m, "thin-global-links");
    REQUIRE(thin.size() == 10);
    // Most cables lost first.
    CHECK(thin.front() ==
          "groups g5 and g6: 1 global cable(s), 3 short of the 4 that 5 of 15 "
          "group pairs have");
    CHECK(thin.back() ==
          "groups g2 and g6: 3 global cable(s), 1 short of the 4 that 5 of 15 "
          "group pairs have");
}

TEST_CASE("classify: global cables with no common pattern are judged per group pair only",
          "[classify]") {
    // Pair (x, y) cabled between spine (x + y) mod 4 of both: no spine place is cabled in every
    // pair, so none is missing; every pair has its one cable, so none is thin.
    auto b = dragonfly(4, 4, [](int x, int y) {
        return std::vector<std::pair<int, int>>{{(x + y) % 4, (x + y) % 4}};
    });
    auto m = classify(b.g, {}).map;
    REQUIRE(m.kind == FabricKind::DragonflyPlus);
    CHECK(details(m, "missing-global-cable").empty());
    CHECK(details(m, "thin-global-links").empty());
    // Two more cables for pair g1-g2 make 2 the count "many" pairs have? No: K is 2 of 6 pairs,
    // and only one pair has 3, so the design stays 1.
    auto more = dragonfly(4, 4, [](int x, int y) {
        std::vector<std::pair<int, int>> c{{(x + y) % 4, (x + y) % 4}};
        if (x == 0 && y == 1) {
            c.emplace_back(0, 0);
            c.emplace_back(2, 2);
        }
        return c;
    });
    m = classify(more.g, {}).map;
    CHECK(details(m, "thin-global-links").empty());
}

TEST_CASE("classify: parallel leaf-spine cables judged against the design of the group",
          "[classify]") {
    // One group: 6 leaves, 2 spines, 2 cables per pair; 7 of the 12 pairs lost one cable and
    // leaf6 lost both to spine2.
    Builder b;
    const auto s1 = b.sw("spine1");
    const auto s2 = b.sw("spine2");
    int host = 0;
    int bundle = 0;
    for (int l = 1; l <= 6; ++l) {
        const auto leaf = b.sw("leaf" + std::to_string(l));
        for (const auto s : {s1, s2}) {
            const int cables = l == 6 && s == s2 ? 0 : bundle++ < 7 ? 1 : 2;
            for (int c = 0; c < cables; ++c) {
                b.link(leaf, s);
            }
        }
        for (int h = 0; h < 2; ++h) {
            b.link(b.ca("h" + std::to_string(++host) + " mlx5_0"), leaf);
        }
    }
    const auto m = classify(b.g, {}).map;
    const auto uneven = details(m, "uneven-uplinks");
    REQUIRE(uneven.size() == 7);
    CHECK(uneven.front() ==
          "'leaf1' to 'spine1': 1 cable, 2 expected (4 of 11 leaf-spine pairs "
          "of group fabric have 2 cables)");
    const auto missing = details(m, "missing-uplink");
    REQUIRE(missing.size() == 1);
    CHECK(missing.front() ==
          "'leaf6' has no cable to 'spine2' (5 of 6 leaves of group fabric have, 2 cables each)");
}

TEST_CASE("classify: --expect-cabling judges where the fabric cannot", "[classify]") {
    // Two groups: one pair, nothing to compare it with. 3 global cables are the design as far
    // as the fabric shows; the admin's file says 4. Leaf-spine bundles of 1 where 2 are given.
    auto b = dragonfly(2, 2, [](int, int) {
        return std::vector<std::pair<int, int>>{{0, 0}, {0, 0}, {1, 1}};
    });
    CHECK(classify(b.g, {}).map.anomalies.empty());
    const auto want = parse_expected_cabling(
        "# the design\nglobal-cables 4\n"
        "leaf-spine-cables\t2  # per pair\n",
        "cabling.txt");
    REQUIRE(want);
    ClassifyOptions opt;
    opt.expected_cabling = &*want;
    const auto m = classify(b.g, opt).map;
    CHECK(details(m, "thin-global-links") ==
          std::vector<std::string>{"groups g1 and g2: 3 global cable(s), 1 short of the 4 "
                                   "--expect-cabling gives (0 of 1 group pairs have them)"});
    const auto uneven = details(m, "uneven-uplinks");
    REQUIRE(uneven.size() == 8);
    CHECK(uneven.front() ==
          "'g1-leaf1' to 'g1-spine1': 1 cable, 2 expected (--expect-cabling; "
          "0 of 4 leaf-spine pairs of group g1 have 2 cables)");
}

TEST_CASE("classify: --expect-cabling file errors name the line and what is expected",
          "[classify]") {
    const auto ok = parse_expected_cabling("\n  # nothing\nleaf-spine-cables 3\n", "f");
    REQUIRE(ok);
    CHECK(ok->leaf_spine == 3U);
    CHECK(!ok->global);
    auto error = [](std::string_view text) {
        const auto r = parse_expected_cabling(text, "cabling.txt");
        REQUIRE(!r);
        return r.error().to_string();
    };
    const std::string expected =
        "; expected 'leaf-spine-cables <count>' or 'global-cables "
        "<count>', a count from 1 to 65535";
    CHECK(error("global-cables 8\nspine-cables 2\n") ==
          "cabling.txt:2: unknown key 'spine-cables'" + expected);
    CHECK(error("global-cables 0") ==
          "cabling.txt:1: global-cables: '0' is not a count" + expected);
    CHECK(error("global-cables 65536") ==
          "cabling.txt:1: global-cables: '65536' is not a count" + expected);
    CHECK(error("global-cables eight") ==
          "cabling.txt:1: global-cables: 'eight' is not a count" + expected);
    CHECK(error("global-cables 8 4") ==
          "cabling.txt:1: global-cables takes one count, got 2 words" + expected);
    CHECK(error("global-cables") ==
          "cabling.txt:1: global-cables takes one count, got 0 words" + expected);
    CHECK(error("global-cables 8\nglobal-cables 8") ==
          "cabling.txt:2: global-cables is given twice" + expected);
}

TEST_CASE("classify: GUID map parsing", "[classify]") {
    auto gm = parse_guid_map(
        "# node guids\n0xe09d730300858468 a06-p1-dgx-02-c17 mlx5_5\n"
        "b8ce:f603:00aa:0000  gpu01\n\n",
        "guids.txt");
    REQUIRE(gm);
    CHECK(gm->at(0xe09d730300858468ULL).host == "a06-p1-dgx-02-c17");
    CHECK(gm->at(0xe09d730300858468ULL).hca == "mlx5_5");
    CHECK(gm->at(0xb8cef60300aa0000ULL).hca.empty());
    auto bad = parse_guid_map("0x1 a\nzz b\n", "g.txt");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().to_string() ==
          "g.txt:2: 'zz' is not a GUID or a MAC; expected '<guid> <host> [<hca>]' or, as "
          "infiniband-diags "
          "and OpenSM read it, '<guid> \"<host> [<hca>]\"', got 'zz b'");
    auto twice = parse_guid_map("0x1 a\n0x1 b\n", "g.txt");
    REQUIRE_FALSE(twice);
    CHECK_THAT(twice.error().to_string(),
               Catch::Contains("g.txt:2: GUID 0x0000000000000001 was already given to host 'a'"));
    CHECK_FALSE(parse_guid_map("0x1\n", "g.txt"));
    // A MAC (an LLDP chassis id, discover --lldp) stands for its 48-bit value.
    auto mac = parse_guid_map("aa:bb:cc:dd:ee:0f leaf1\n", "g.txt");
    REQUIRE(mac);
    CHECK(mac->at(0xaabbccddee0fULL).host == "leaf1");
}

TEST_CASE("classify: GUID maps in the --node-name-map format infiniband-diags and OpenSM read",
          "[classify]") {
    auto gm = parse_guid_map(
        "# generated by the site's inventory\n"
        "0xe09d730300858468 \"a06-p1-dgx-02-c17 mlx5_5\"   # rack A06\n"
        "\n"
        "0x0002c90300a1b2c3\t\"gpu01\"\n"
        "0x0002c90300a1b2c4 \"gpu#02 HCA-2\"\n"
        "0x0002c90300a1b2c5 gpu03 mlx5_0\n",
        "node-name-map");
    REQUIRE(gm);
    CHECK(gm->size() == 4);
    CHECK(gm->at(0xe09d730300858468ULL).host == "a06-p1-dgx-02-c17");  // no quotes kept
    CHECK(gm->at(0xe09d730300858468ULL).hca == "mlx5_5");
    CHECK(gm->at(0x0002c90300a1b2c3ULL).host == "gpu01");
    CHECK(gm->at(0x0002c90300a1b2c3ULL).hca.empty());
    CHECK(gm->at(0x0002c90300a1b2c4ULL).host == "gpu#02");  // '#' inside quotes is the name's
    CHECK(gm->at(0x0002c90300a1b2c5ULL).hca == "mlx5_0");
    const std::pair<const char*, const char*> bad[] = {
        {"0x1 \"node01 mlx5_0\n", "map:1: a quoted name without its closing quote"},
        {"0x1 \"\"\n", "map:1: an empty name"},
        {"0x1 \"node01 mlx5_0 extra\"\n", "map:1: more than a host and an HCA in the name"},
    };
    for (const auto& [text, want] : bad) {
        INFO(text);
        auto r = parse_guid_map(text, "map");
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().to_string(), Catch::StartsWith(want));
    }
}

TEST_CASE("classify: real SuperPOD: dirty CAs by kind, placed with a GUID map",
          "[classify][real]") {
    const auto path = switchyard::test::real_fixtures() / "ibnetdiscover" /
                      "topograph-dgxh100-superpod-example.out";
    REQUIRE(std::filesystem::exists(path));
    auto g = parse_ibnetdiscover(switchyard::test::slurp(path), "superpod");
    REQUIRE(g);
    const auto before = classify(*g, {});
    auto counts = anomaly_counts(before.map);
    // SOURCES.md: 69 default descriptions, 5 placeholder names, 40 SHARP nodes.
    CHECK(counts["unnamed-hca"] == 69);
    CHECK(counts["placeholder-host"] == 5);
    CHECK(counts["sharp-node"] == 40);
    CHECK(before.map.switches.size() == 40);
    CHECK(before.stats.switches_per_tier == std::vector<std::size_t>{0, 31, 9});
    CHECK(before.map.sus.size() == 8);
    CHECK(before.map.groups.size() == 1);

    // Build the GUID map an admin would gather with ibstat on each node. Here it is inferred
    // from the DGX cabling convention: host cNN of an SU sits on port NN of each rail leaf, so
    // the unnamed HCA on port NN is host "<SU's host prefix>-cNN".
    std::map<std::string, std::string> prefix_of_su;  // SU → "a06-p1-dgx-02-c"
    for (const auto& h : before.map.hosts) {
        if (h.name.find("-dgx-") != std::string::npos) {
            prefix_of_su[before.map.sus[h.su].name] = h.name.substr(0, h.name.size() - 2);
        }
    }
    std::map<std::string, std::string> su_of_leaf;
    for (const auto& su : before.map.sus) {
        for (const auto l : su.leaves) {
            su_of_leaf[before.map.switches[l].name] = su.name;
        }
    }
    GuidMap gm;
    std::map<std::uint64_t, std::string> expected_su;
    for (const auto& n : g->nodes) {
        if (n.kind != NodeKind::Ca || !n.desc.starts_with("MT4129")) {
            continue;
        }
        const auto& leaf_desc = g->nodes[n.ports[0].remote].desc;
        const auto leaf_name = leaf_desc.substr(4, leaf_desc.find(':') - 4);
        const auto prefix = prefix_of_su.find(su_of_leaf[leaf_name]);
        if (prefix != prefix_of_su.end()) {
            char port[8];
            std::snprintf(port, sizeof port, "%02u", n.ports[0].remote_port);
            gm[n.guid] = {prefix->second + port, "hca@" + leaf_name};
            expected_su[n.guid] = su_of_leaf[leaf_name];
        }
    }
    CHECK(gm.size() == 69);
    ClassifyOptions opt;
    opt.guid_map = &gm;
    const auto after = classify(*g, opt);
    auto counts_after = anomaly_counts(after.map);
    CHECK(counts_after["unnamed-hca"] == 69 - gm.size());
    CHECK(counts_after["resolved-by-guid-map"] == gm.size());
    CHECK(after.stats.compute_hcas == before.stats.compute_hcas + gm.size());
    // Every HCA the map placed landed in the SU of the leaf it is cabled to.
    for (const auto& [guid, entry] : gm) {
        CHECK(su_of(after.map, entry.host) == expected_su[guid]);
    }
}

TEST_CASE("classify: deterministic output", "[classify]") {
    auto b = rail_fabric();
    CHECK(write_fabric_map(classify(b.g, {}).map, "") ==
          write_fabric_map(classify(b.g, {}).map, ""));
}

namespace {

/// classify() with the hosts found in one pass and in two halves at once: the same map,
/// messages (in order) and counts.
void check_halves_as_one_pass(const FabricGraph& g, ClassifyOptions opt) {
    opt.two_threads_from = SIZE_MAX;
    const auto one = classify(g, opt);
    opt.two_threads_from = 0;
    const auto two = classify(g, opt);
    CHECK(write_fabric_map(two.map, "") == write_fabric_map(one.map, ""));
    REQUIRE(two.map.anomalies.size() == one.map.anomalies.size());
    for (std::size_t i = 0; i < one.map.anomalies.size(); ++i) {
        CHECK(two.map.anomalies[i].kind == one.map.anomalies[i].kind);
        CHECK(two.map.anomalies[i].detail == one.map.anomalies[i].detail);
    }
    CHECK(two.stats.compute_hcas == one.stats.compute_hcas);
    CHECK(two.stats.excluded_hcas == one.stats.excluded_hcas);
}

}  // namespace

TEST_CASE("classify: hosts found in two halves at once come out as from one pass", "[classify]") {
    SECTION("every kind of CA message, a host and a duplicate HCA in both halves") {
        auto b = rail_fabric();  // 18 nodes; the graph's first half is its nodes and the 5 next
        const auto leaf = b.switch_named("su1-rail0");
        b.link(b.ca("n12 mlx5_8"), leaf);  // a storage HCA
        b.link(b.ca("n11 mlx5_1"), leaf);  // a duplicate HCA
        b.link(b.ca("localhost HCA-1"), leaf);
        b.ca("n22 mlx5_7");             // no cable
        for (int i = 0; i < 16; ++i) {  // spare switches
            b.sw("spare" + std::to_string(i));
        }
        b.link(b.ca("n11 mlx5_0"), leaf);  // the second half: a duplicate of n11 mlx5_0
        b.link(b.ca("n11 mlx5_8"), leaf);  // storage HCAs
        b.link(b.ca("n21 mlx5_9"), leaf);
        b.ca("n22 mlx5_6");  // no cable
        b.link(b.ca("ubuntu HCA-1"), leaf);
        b.link(b.ca("MT4129 ConnectX7   Mellanox Technologies"), leaf);
        b.link(b.ca("n13 mlx5_2"), leaf);  // a third rail of n13
        b.link(b.ca("bad/name mlx5_0"), leaf);
        REQUIRE(b.g.nodes.size() == 46);
        ClassifyOptions opt;
        opt.compute_hca = [](std::string_view hca) { return hca < "mlx5_8"; };
        check_halves_as_one_pass(b.g, opt);
        opt.two_threads_from = 0;
        const auto two = classify(b.g, opt);
        CHECK(anomaly_counts(two.map) ==
              std::map<std::string, std::size_t>{{"duplicate-hca", 2},
                                                 {"invalid-host-name", 1},
                                                 {"isolated-hca", 2},
                                                 {"non-compute-hca", 2},
                                                 {"placeholder-host", 2},
                                                 {"unnamed-hca", 1},
                                                 {"unreachable-switch", 16}});
        for (const auto& a : two.map.anomalies) {
            if (a.kind == "non-compute-hca" && a.detail.find("mlx5_8") != std::string::npos) {
                CHECK(a.detail.starts_with("2 HCA(s) named 'mlx5_8'"));  // one in each half
            }
        }
        REQUIRE(two.map.find_host("n13") != nullptr);
        CHECK(two.map.find_host("n13")->rail_count == 3);
    }
    SECTION("the real SuperPOD capture") {
        const auto path = switchyard::test::real_fixtures() / "ibnetdiscover" /
                          "topograph-dgxh100-superpod-example.out";
        auto g = parse_ibnetdiscover(switchyard::test::slurp(path), "superpod");
        REQUIRE(g);
        check_halves_as_one_pass(*g, {});
    }
}

TEST_CASE("classify: discover's files of a large map, made on two threads, equal each writer's",
          "[classify]") {
    Builder b;  // 5120 hosts (two threads from 5000): 40 leaves of 128 hosts under 2 spines
    const auto s1 = b.sw("spine1");
    const auto s2 = b.sw("spine2");
    for (int l = 0; l < 40; ++l) {
        const auto leaf = b.sw("leaf" + std::to_string(l));
        b.link(leaf, s1);
        b.link(leaf, s2);
        for (int h = 0; h < 128; ++h) {
            b.link(b.ca("n" + std::to_string(l * 128 + h) + " mlx5_0"), leaf);
        }
    }
    const auto m = classify(b.g, {}).map;
    REQUIRE(m.hosts.size() == 5120);
    for (const auto* kind : {"tree", "block"}) {
        SlurmTopologies plugin;
        plugin.default_kind = kind;
        const auto files = write_discover_files(m, "a comment", "a header", plugin);
        REQUIRE(files);
        const auto map_text = write_fabric_map(m, "a comment");
        const std::vector<std::pair<std::string, std::string>> want = {
            {"fabric.map", map_text},
            {"fabric.map.index", *write_fabric_index(m, map_text)},
            {"topology.conf", write_topology_conf(m, "a header")},
            {"topology-block.conf", write_topology_block(m, "a header")},
            {"topology.yaml", write_topology_yaml(m, "a header")},
            {"node-features.conf", write_node_features(m, "a header")},
            {"node-features.sh", write_feature_commands(m, "a header")},
            {"job_submit_hints.lua", write_job_submit_hints(m, "a header", plugin)},
        };
        REQUIRE(files->size() == want.size());
        for (std::size_t i = 0; i < want.size(); ++i) {
            CHECK((*files)[i].name == want[i].first);
            CHECK((*files)[i].text == want[i].second);
        }
    }
}

TEST_CASE("classify: an HCA cabled to several leaves gives one rail per leaf, cables counted",
          "[classify]") {
    Builder b;
    const auto spine = b.sw("spine1");
    std::vector<NodeIndex> leaves;
    for (int l = 1; l <= 6; ++l) {
        leaves.push_back(b.sw("leaf" + std::to_string(l)));
        b.link(leaves.back(), spine);
        b.link(b.ca("h" + std::to_string(l) + " mlx5_0"), leaves.back());
    }
    const auto multi = b.ca("multi mlx5_0");
    for (const auto leaf : leaves) {  // six leaves: past what is kept on the stack
        b.link(multi, leaf);
    }
    b.link(multi, leaves.back());  // a second cable to leaf6
    const auto m = classify(b.g, {}).map;
    const auto* h = m.find_host("multi");
    REQUIRE(h != nullptr);
    const auto rails = m.rails_of(*h);
    REQUIRE(rails.size() == 6);
    std::map<std::string, std::uint32_t> cables;  // rail name -> cables
    for (const auto& r : rails) {
        cables[m.hcas[r.hca]] = r.cables;
        CHECK(m.hcas[r.hca] == "mlx5_0@S-" + format_guid(m.switches[r.leaf].guid).substr(2));
    }
    for (std::size_t l = 0; l < leaves.size(); ++l) {
        const auto name = "mlx5_0@" + b.g.nodes[leaves[l]].id;
        REQUIRE(cables.count(name) == 1);
        CHECK(cables[name] == (l + 1 == leaves.size() ? 2U : 1U));
    }
}
