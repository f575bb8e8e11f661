// SPDX-License-Identifier: Apache-2.0
// Tests of fabric classification on small built graphs: SUs, rails, spines, names, groups.
#include "switchyard/discover/classify/classify.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "catch.hpp"
#include "classify_fixtures.hpp"
#include "paths.hpp"
#include "switchyard/discover/ib/ibnetdiscover.hpp"
#include "switchyard/fabric/fabric_index.hpp"
#include "switchyard/fabric/guid.hpp"
#include "switchyard/slurm/files/slurm_writers.hpp"

using namespace switchyard::discover;
using namespace switchyard::fabric;
using namespace switchyard::slurm;
using namespace classify_fixtures;

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
    // srv, not named like its peers, is an other CA; named like them, a compute host short of
    // rails.
    CHECK(m.find_host("srv") == nullptr);
    CHECK(counts.at("other-ca-host") == 1);
    b.link(b.ca("n4 HCA-2"), r1);
    const auto one = classify(b.g, {}).map;
    REQUIRE(anomaly_counts(one).count("single-hca-host") == 1);
    for (const auto& a : one.anomalies) {
        if (a.kind == "single-hca-host") {
            CHECK(a.detail ==
                  "n4 in SU su1 has one HCA where its peers reach 2 rails (a storage "
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
