// SPDX-License-Identifier: Apache-2.0
// Tests of the LLDP reader: real lldpd output in its three formats, the errors a file that is
// not lldpctl output gets, and the fabric built from the files with its dirty data reported.
#include "switchyard/discover/lldp/lldp.hpp"

#include <set>

#include "catch.hpp"
#include "lldp_fixtures.hpp"

using namespace switchyard;
using namespace switchyard::discover;
using namespace switchyard::node;
using namespace switchyard::discover::test;

namespace {

const LldpNeighbor* on_port(const LldpFile& f, std::string_view port) {
    for (const auto& n : f.neighbors) {
        if (n.local_port == port) {
            return &n;
        }
    }
    return nullptr;
}

}  // namespace

TEST_CASE("lldp: lldpd's json, json0 and keyvalue outputs read alike", "[lldp]") {
    for (const auto* name : {"gpu0002.json", "gpu0001.keyvalue"}) {
        INFO(name);
        auto f = parse_lldp(capture(name), name);
        REQUIRE(f);
        REQUIRE(f->local);
        CHECK(f->local->name == std::string(name).substr(0, 7));
        CHECK(f->local->station);
        CHECK_FALSE(f->local->bridge);
        REQUIRE(f->neighbors.size() == 3);  // eth0, eth1, mgmt0
        const auto* eth0 = on_port(*f, "eth0");
        REQUIRE(eth0);
        CHECK(eth0->chassis.name == "su01-rail0");
        CHECK(eth0->chassis.bridge);
        CHECK(eth0->chassis.id_type == "mac");
        CHECK(eth0->port_descr.starts_with("swp"));
        CHECK(on_port(*f, "mgmt0")->chassis.name == "mgmt-sw1");
    }
    auto spine = parse_lldp(capture("spine01.json0"), "spine01.json0");
    REQUIRE(spine);
    CHECK(spine->local->name == "spine01");
    CHECK(spine->local->bridge);
    CHECK(spine->neighbors.size() == 4);  // the pulled cable was su01-rail0's to spine02
    CHECK(on_port(*spine, "swp1")->chassis.name.starts_with("su0"));
    // A record of lldpctl json with one interface is an object, with several a list.
    auto one = parse_lldp(R"({"lldp": {"interface": {"eth0": {"chassis": {"leaf1": {"id":
        {"type": "mac", "value": "aa:bb:cc:dd:ee:ff"}, "capability": {"type": "Bridge",
        "enabled": true}}}, "port": {"id": {"type": "ifname", "value": "swp\/7"}}}}}})",
                          "one.json");
    REQUIRE(one);
    REQUIRE(one->neighbors.size() == 1);
    CHECK(one->neighbors[0].chassis.name == "leaf1");
    CHECK(one->neighbors[0].chassis.bridge);
    CHECK(one->neighbors[0].port_id == "swp/7");
    CHECK_FALSE(one->local);
    // An unnamed chassis (json: no key of its name).
    auto unnamed = parse_lldp(R"({"lldp": {"interface": {"eth0": {"chassis": {"id": {"type":
        "mac", "value": "aa:bb:cc:dd:ee:01"}}, "port": {"id": {"type": "mac", "value":
        "aa:bb:cc:dd:ee:02"}, "descr": "Ethernet8"}}}}})",
                              "unnamed.json");
    REQUIRE(unnamed);
    CHECK(unnamed->neighbors[0].chassis.name.empty());
    CHECK(unnamed->neighbors[0].chassis.id == "aa:bb:cc:dd:ee:01");
    CHECK(unnamed->neighbors[0].port_descr == "Ethernet8");
}

TEST_CASE("lldp: a file that is not lldpctl output is refused with file, line and column",
          "[lldp]") {
    CHECK(error_of("") ==
          "x.json:1:1: empty; expected lldpctl's output (-f json, json0 or "
          "keyvalue)");
    CHECK(error_of("hello world\n") ==
          "x.json:1:1: expected lldpctl keyvalue lines 'lldp.<port>.<key>=<value>' or "
          "'local-chassis.chassis.<key>=<value>' (lldpctl -f keyvalue), got 'hello world'");
    CHECK(error_of("lldp.eth0.via=LLDP\nport=1\n")
              .starts_with("x.json:2:1: expected lldpctl "
                           "keyvalue lines"));
    CHECK(error_of("{\"lldp\": {\n  \"interface\": [1,\n") ==
          "x.json:3:1: expected a JSON value, got the end of the file");
    CHECK(error_of("{\"lldp\" {}}") == "x.json:1:9: expected ':' after the member name, got '{'");
    CHECK(error_of("{\"a\": 1 \"b\": 2}") == "x.json:1:9: expected ',' or '}', got '\"'");
    CHECK(error_of("{\"health\": {}}") ==
          "x.json:1:1: expected an lldpctl document: an object holding \"lldp\" (lldpctl -f "
          "json) or \"local-chassis\" (lldpcli -f json show chassis)");
    CHECK(error_of("{\"lldp\": \"x\ny\"}") ==
          "x.json:1:12: expected the rest of a string, got a "
          "control character");
    std::string deep = "{\"lldp\": ";
    for (int i = 0; i < 40; ++i) {
        deep += "[";
    }
    CHECK(error_of(deep) ==
          "x.json:1:41: nested deeper than 32 levels; lldpctl's output nests "
          "about 8");
    CHECK(error_of(std::string(kMaxLldpFileBytes + 1, ' ')).find("larger than 16 MiB") !=
          std::string::npos);
}

TEST_CASE("lldp: the fabric of the files, with hosts, switches and cables from either end",
          "[lldp]") {
    const std::vector<LldpFile> files = {
        file("h1", {{"eth0", "leaf1", "swp1"}, {"eth1", "leaf2", "swp1"}}),
        file("h2", {{"eth0", "leaf1", "swp2"}}),  // its eth1 is seen from leaf2 only
        file("leaf1", {{"swp1", "h1", "eth0"}, {"swp2", "h2", "eth0"}, {"swp9", "spine1", "swp1"}}),
        file("leaf2", {{"swp1", "h1", "eth1"}, {"swp2", "h2", "eth1"}, {"swp9", "spine1", "swp2"}}),
        file("spine1", {{"swp1", "leaf1", "swp9"}, {"swp2", "leaf2", "swp9"}}),
    };
    const auto g = lldp_fabric(files);
    CHECK(kinds(g).empty());
    std::vector<std::string> cas;
    std::size_t switches = 0;
    for (const auto& n : g.nodes) {
        if (n.kind == NodeKind::Ca) {
            cas.push_back(n.desc);
            REQUIRE(n.ports.size() == 1);
            CHECK(g.nodes[n.ports[0].remote].desc.starts_with("leaf"));
        } else {
            ++switches;
        }
    }
    std::sort(cas.begin(), cas.end());
    CHECK(cas == std::vector<std::string>{"h1 eth0", "h1 eth1", "h2 eth0", "h2 eth1"});
    CHECK(switches == 3);
    for (const auto& n : g.nodes) {
        if (n.desc == "leaf1") {
            REQUIRE(n.ports.size() == 3);
            CHECK(n.ports[2].port == 9);  // "swp9" keeps its number
            CHECK(g.nodes[n.ports[2].remote].desc == "spine1");
            CHECK(n.ports[2].remote_port == 1);
        }
    }
}

TEST_CASE("lldp: the graph made in two halves at once is the graph made in one pass", "[lldp]") {
    // 4 leaves x 6 hosts x 2 rails under 2 spines, a MAC clash among the hosts (settled by
    // the first to come) and a host port without MAC: the halves split the leaves.
    std::vector<LldpFile> files;
    for (int leaf = 0; leaf < 4; ++leaf) {
        std::vector<std::tuple<std::string, std::string, std::string>> sees;
        for (int h = 0; h < 6; ++h) {
            sees.emplace_back("swp" + std::to_string(h + 1), "h" + std::to_string(leaf * 6 + h),
                              "eth" + std::to_string(leaf % 2));
        }
        sees.emplace_back("swp31", "spine1", "swp" + std::to_string(leaf + 1));
        sees.emplace_back("swp32", "spine2", "swp" + std::to_string(leaf + 1));
        files.push_back(file("leaf" + std::to_string(leaf), sees));
    }
    for (auto& f : files) {
        for (auto& nb : f.neighbors) {
            if (nb.chassis.name.starts_with("h")) {
                nb.port_id_type = "mac";
                nb.port_id =
                    nb.chassis.name == "h7" ? "" : "02:00:00:00:00:0" + nb.local_port.substr(3, 1);
            }
        }
    }
    LldpOptions one_pass;
    one_pass.two_threads_from = 1000;
    LldpOptions halves;
    halves.two_threads_from = 0;
    const auto a = lldp_fabric(files, one_pass);
    const auto b = lldp_fabric(files, halves);
    REQUIRE(a.nodes.size() == 6 + 24);
    REQUIRE(b.nodes.size() == a.nodes.size());
    std::set<std::uint64_t> guids;
    for (std::size_t i = 0; i < a.nodes.size(); ++i) {
        const auto& x = a.nodes[i];
        const auto& y = b.nodes[i];
        INFO(x.desc);
        CHECK(x.kind == y.kind);
        CHECK(x.guid == y.guid);
        CHECK(x.id == y.id);
        CHECK(x.desc == y.desc);
        CHECK(x.nports == y.nports);
        REQUIRE(x.ports.size() == y.ports.size());
        for (std::size_t p = 0; p < x.ports.size(); ++p) {
            CHECK(x.ports[p].port == y.ports[p].port);
            CHECK(x.ports[p].remote == y.ports[p].remote);
            CHECK(x.ports[p].remote_port == y.ports[p].remote_port);
            CHECK(x.ports[p].port_guid == y.ports[p].port_guid);
            // Every cable is there from both ends.
            const auto& far = a.nodes[x.ports[p].remote];
            CHECK(std::any_of(far.ports.begin(), far.ports.end(), [&](const FabricPort& q) {
                return q.remote == i && q.remote_port == x.ports[p].port;
            }));
        }
        CHECK(guids.insert(x.guid).second);  // the clashing MACs were made unique
    }
}

TEST_CASE("lldp: dirty data is reported, named and left out", "[lldp]") {
    SECTION("two ends that disagree: the switch's view is kept") {
        const auto g = lldp_fabric({
            file("h1", {{"eth0", "leaf1", "swp1"}}),
            file("leaf1", {{"swp1", "h2", "eth0"}}),
            file("h2", {{"eth0", "leaf1", "swp2"}}),
        });
        // h1 and h2 each disagree with leaf1, whose file comes between them.
        CHECK(kinds(g) == std::vector<std::string>(2, "lldp-port-mismatch"));
        CHECK(message(g, "lldp-port-mismatch") ==
              "h1.json:20: 'h1' port eth0 sees 'leaf1' port swp1, but 'leaf1' port swp1 was "
              "seen with 'h2' port eth0 (leaf1.json:20): the two ends disagree (a stale "
              "neighbour or a moved cable); the switch's view is kept");
        // Two hosts that disagree: the first is kept.
        const auto hosts = lldp_fabric(
            {file("h1", {{"eth0", "h2", "eth0"}}), file("h2", {{"eth0", "h1", "eth1"}})});
        CHECK_THAT(message(hosts, "lldp-port-mismatch"), Catch::EndsWith("the first is kept"));
    }
    SECTION("two chassis with one name") {
        auto other = file("leaf1", {{"swp1", "h1", "eth0"}});
        other.local->id = "02:00:00:00:ff:ff";
        other.source = "leaf1-again.json";
        const auto g = lldp_fabric({file("h1", {{"eth0", "leaf1", "swp1"}}),
                                    file("leaf1", {{"swp1", "h1", "eth0"}}), other});
        CHECK(kinds(g) == std::vector<std::string>{"lldp-duplicate-name"});
        // Both files' cable is confirmed by h1; the neighbours see leaf1.json's chassis id.
        CHECK(message(g, "lldp-duplicate-name") ==
              "leaf1-again.json: says it is 'leaf1', as leaf1.json does; that file is kept: the "
              "far ends' files confirm 1 of its cables and 1 of this one's, and see its chassis "
              "id (a copied file, or two systems with one name); this file is left out");
    }
    SECTION("a second file saying it is a host, first by name: the host's own file wins") {
        // 0000.json says it is h1 with h2's cable (same chassis id: a copied file, edited).
        auto impostor = file("h1", {{"eth0", "leaf1", "swp2"}});
        impostor.source = "0000.json";
        const auto g =
            lldp_fabric({impostor, file("h1", {{"eth0", "leaf1", "swp1"}}),
                         file("h2", {{"eth0", "leaf1", "swp2"}}),
                         file("leaf1", {{"swp1", "h1", "eth0"}, {"swp2", "h2", "eth0"}})});
        CHECK(kinds(g) == std::vector<std::string>{"lldp-duplicate-name"});
        CHECK(message(g, "lldp-duplicate-name") ==
              "0000.json: says it is 'h1', as h1.json does; that file is kept: the far ends' "
              "files confirm 1 of its cables and 0 of this one's, and see its chassis id (a "
              "copied file, or two systems with one name); this file is left out");
        for (const auto& n : g.nodes) {
            if (n.desc == "leaf1") {
                REQUIRE(n.ports.size() == 2);
                CHECK(g.nodes[n.ports[0].remote].desc == "h1 eth0");
                CHECK(g.nodes[n.ports[1].remote].desc == "h2 eth0");
            }
        }
        // A host file claiming a host with another chassis id, and no cable: the same.
        auto other = file("h1", {});
        other.source = "0000.json";
        other.local->id = "02:00:00:00:ff:ff";
        other.local->bridge = true;  // its capabilities are not taken either
        const auto g2 = lldp_fabric({other, file("h1", {{"eth0", "leaf1", "swp1"}}),
                                     file("leaf1", {{"swp1", "h1", "eth0"}})});
        CHECK(kinds(g2) == std::vector<std::string>{"lldp-duplicate-name"});
        std::size_t cas = 0;
        for (const auto& n : g2.nodes) {
            cas += n.kind == NodeKind::Ca && n.desc == "h1 eth0" ? 1U : 0U;
        }
        CHECK(cas == 1);  // h1 is still a host
    }
    SECTION("an unnamed chassis, then named by its MAC") {
        auto h = file("h1", {{"eth0", "leaf1", "swp1"}});
        h.neighbors[0].chassis.name.clear();
        h.neighbors[0].chassis.id = "02:00:00:00:AA:01";
        auto g = lldp_fabric({h});
        CHECK(kinds(g) == std::vector<std::string>{"lldp-unnamed-chassis"});
        CHECK(message(g, "lldp-unnamed-chassis") ==
              "h1.json:20: chassis mac 02:00:00:00:AA:01 sends no system name: left out (name it "
              "in a --guid-map line '02:00:00:00:AA:01 <name>')");
        const std::map<std::string, std::string, std::less<>> names = {
            {"02:00:00:00:aa:01", "leaf1"}};
        LldpOptions opt;
        opt.names = &names;
        g = lldp_fabric({h}, opt);
        CHECK(kinds(g).empty());
        CHECK(g.nodes.size() == 2);
    }
    SECTION("a file without its own chassis is named by the far ends' files") {
        const auto g = lldp_fabric({file("h1", {{"eth0", "leaf1", "swp1"}}, false),
                                    file("leaf1", {{"swp1", "h1", "eth0"}})});
        CHECK(kinds(g).empty());
        CHECK(g.nodes.size() == 2);
        const auto lone = lldp_fabric({file("h1", {{"eth0", "leaf1", "swp1"}}, false)});
        CHECK(kinds(lone) == std::vector<std::string>{"lldp-unknown-system"});
    }
    SECTION("an empty file (a dead lldpd) is reported and the rest read") {
        const auto g = lldp_fabric({file("h1", {{"eth0", "leaf1", "swp1"}}),
                                    LldpFile{"dead.json", std::nullopt, {}},
                                    file("leaf1", {{"swp1", "h1", "eth0"}})});
        CHECK(kinds(g) == std::vector<std::string>{"lldp-empty-file"});
        CHECK(message(g, "lldp-empty-file") ==
              "dead.json: describes no system and no neighbour (lldpd not running, or its "
              "output not gathered); left out");
        CHECK(g.nodes.size() == 2);
    }
    SECTION("a host nobody sees, a switch without its file, a separate network") {
        const auto g = lldp_fabric({
            file("h1", {{"eth0", "leaf1", "swp1"}, {"mgmt0", "mgmt1", "swp1"}}),
            file("h2", {}),
            file("leaf1", {{"swp1", "h1", "eth0"}, {"swp9", "spine1", "swp1"}}),
        });
        CHECK(kinds(g) == std::vector<std::string>{"lldp-separate-network", "lldp-unseen-host",
                                                   "lldp-no-file"});
        CHECK(message(g, "lldp-unseen-host") ==
              "h2.json: 'h2' sees no neighbour and no file sees it (lldpd not running on its "
              "links, or LLDP off on the switch ports): left out");
        CHECK(message(g, "lldp-no-file") ==
              ": 1 switch(es) named by neighbours have no file of their own (their side of each "
              "cable is not checked): 'spine1'");
        CHECK(message(g, "lldp-separate-network").find("'mgmt1'; left out") != std::string::npos);
        for (const auto& n : g.nodes) {
            CHECK(n.desc != "mgmt1");
            CHECK(n.desc != "h1 mgmt0");
        }
    }
    SECTION("a host that routes is a host when --expect-hosts names it") {
        auto h = file("h1", {{"eth0", "leaf1", "swp1"}});
        h.local->router = true;
        h.local->station = false;
        auto leaf = file("leaf1", {{"swp1", "h1", "eth0"}});
        leaf.neighbors[0].chassis.router = true;
        const std::vector<std::string> hosts = {"h1"};
        LldpOptions opt;
        opt.hosts = &hosts;
        const auto g = lldp_fabric({h, leaf}, opt);
        REQUIRE(g.nodes.size() == 2);
        CHECK(std::count_if(g.nodes.begin(), g.nodes.end(),
                            [](const auto& n) { return n.kind == NodeKind::Ca; }) == 1);
    }
}

TEST_CASE("lldp: MACs", "[lldp]") {
    CHECK(parse_mac("aa:bb:cc:dd:ee:ff") == 0xaabbccddeeffULL);
    CHECK(parse_mac("AA-BB-CC-DD-EE-01") == 0xaabbccddee01ULL);
    CHECK_FALSE(parse_mac("aa:bb:cc:dd:ee"));
    CHECK_FALSE(parse_mac("aa:bb:cc:dd:ee:fg"));
    CHECK_FALSE(parse_mac("aabbccddeeff00000"));
}

TEST_CASE("lldp: each RDMA port's neighbour, through its GIDs' net devices or its NIC's own",
          "[lldp]") {
    // gpu0001 of the namespace Clos: eth0 on su01-rail0, eth1 on su01-rail1, mgmt0 on mgmt-sw1.
    auto f = parse_lldp(capture("gpu0001.keyvalue"), "gpu0001.keyvalue");
    REQUIRE(f);
    NodeTopology node;
    auto nic = [&](std::string name, std::vector<std::string> netdevs, std::size_t ports) {
        Nic c;
        c.name = std::move(name);
        c.kind = "roce";
        c.netdevs = std::move(netdevs);
        for (std::uint32_t p = 1; p <= ports; ++p) {
            RdmaPort rp;
            rp.port = p;
            c.ports.push_back(rp);
        }
        node.nics.push_back(c);
        return &node.nics.back();
    };
    nic("mlx5_0", {"eth0"}, 1);                       // one port: the NIC's netdev
    nic("mlx5_1", {"ib1"}, 1);                        // InfiniBand: no LLDP there
    auto* two = nic("mlx5_2", {"eth1", "mgmt0"}, 2);  // two ports: only GIDs count
    two->ports[0].gids.push_back({1, "fe80::1", "RoCE v2", "eth1"});
    auto seen = rdma_port_neighbors(node, *f);
    REQUIRE(seen.size() == 2);
    CHECK(seen[0].nic == "mlx5_0");
    CHECK(seen[0].port == 1);
    CHECK(seen[0].netdev == "eth0");
    CHECK(seen[0].seen.chassis.name == "su01-rail0");
    CHECK(seen[0].seen.port_descr.starts_with("swp"));  // lldpd's port id is the MAC
    CHECK(seen[1].nic == "mlx5_2");
    CHECK(seen[1].port == 1);
    CHECK(seen[1].netdev == "eth1");
    CHECK(seen[1].seen.chassis.name == "su01-rail1");
    // mgmt0 is gpu0001's too, but no RDMA port's: not reported.
    for (const auto& s : seen) {
        CHECK(s.seen.chassis.name != "mgmt-sw1");
    }
}
