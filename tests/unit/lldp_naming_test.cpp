// SPDX-License-Identifier: Apache-2.0
// Tests of how the LLDP reader names files without their own chassis (plain lldpctl output), and
// of the trust between files: a host's file never moves another host.
#include "catch.hpp"
#include "lldp_fixtures.hpp"
#include "switchyard/discover/lldp/lldp.hpp"

using namespace switchyard;
using namespace switchyard::discover;
using namespace switchyard::discover::test;

namespace {

/// What switch `sw`'s ports are cabled to, in port order.
std::vector<std::string> remotes(const FabricGraph& g, const std::string& sw) {
    std::vector<std::string> out;
    for (const auto& n : g.nodes) {
        if (n.desc == sw) {
            for (const auto& p : n.ports) {
                out.push_back(g.nodes[p.remote].desc);
            }
        }
    }
    return out;
}

}  // namespace

TEST_CASE("lldp: plain lldpctl files, no show chassis, named from each other's cables", "[lldp]") {
    // lldpd's default port ids: the port's MAC, its name in the description; file names that
    // say nothing.
    using Sees = std::vector<std::tuple<std::string, std::string, std::string>>;
    const auto plain = [](const std::string& self, Sees sees) {
        auto f = file(self, std::move(sees), false);
        for (auto& n : f.neighbors) {
            n.port_descr = n.port_id;
            n.port_id = "02:00:00:00:00:" + std::to_string(10 + n.line / 10);
            n.port_id_type = "mac";
        }
        f.source = "capture-" + std::to_string(std::hash<std::string>{}(self) % 1000) + ".json";
        return f;
    };

    SECTION("two leaves of two hosts under a spine: every file named") {
        // The hosts' ports alone fit either leaf (both have hosts on swp1 and swp2): the
        // spine's cables tell the leaves apart, and then the leaves name their hosts.
        const auto g = lldp_fabric({
            plain("h1", {{"eth0", "leaf1", "swp1"}}),
            plain("h2", {{"eth0", "leaf1", "swp2"}}),
            plain("h3", {{"eth0", "leaf2", "swp1"}}),
            plain("h4", {{"eth0", "leaf2", "swp2"}}),
            plain("leaf1",
                  {{"swp1", "h1", "eth0"}, {"swp2", "h2", "eth0"}, {"swp9", "spine1", "swp1"}}),
            plain("leaf2",
                  {{"swp1", "h3", "eth0"}, {"swp2", "h4", "eth0"}, {"swp9", "spine1", "swp2"}}),
            plain("spine1", {{"swp1", "leaf1", "swp9"}, {"swp2", "leaf2", "swp9"}}),
        });
        CHECK(kinds(g).empty());
        CHECK(remotes(g, "leaf1") == std::vector<std::string>{"h1 eth0", "h2 eth0", "spine1"});
        CHECK(remotes(g, "leaf2") == std::vector<std::string>{"h3 eth0", "h4 eth0", "spine1"});
    }
    SECTION("without the spine the leaves cannot be told apart: said, and left out") {
        const auto g = lldp_fabric({
            plain("h1", {{"eth0", "leaf1", "swp1"}}),
            plain("h3", {{"eth0", "leaf2", "swp1"}}),
            plain("leaf1", {{"swp1", "h1", "eth0"}}),
            plain("leaf2", {{"swp1", "h3", "eth0"}}),
        });
        CHECK(kinds(g) == std::vector<std::string>(4, "lldp-unknown-system"));
        CHECK(message(g, "lldp-unknown-system")
                  .find("do not match one other file's records of "
                        "them unambiguously") != std::string::npos);
    }
    SECTION("a plain file whose far ends disagree: left out, and it is said") {
        const auto g = lldp_fabric({
            plain(
                "h1",
                {{"eth0", "leaf1", "swp1"}, {"eth1", "leaf1", "swp2"}, {"eth2", "leaf1", "swp3"}}),
            file("leaf1", {{"swp1", "h1", "eth0"}, {"swp2", "h1", "eth1"}, {"swp3", "h9", "eth2"}}),
        });
        // Precision first: two of its far ends see h1, one h9; it is neither.
        CHECK(kinds(g) == std::vector<std::string>{"lldp-name-disagrees"});
        CHECK_THAT(message(g, "lldp-name-disagrees"),
                   Catch::EndsWith(": the far ends' files see 'h1' on 2 of its ports and 'h9' on "
                                   "1 (a moved cable, a stale neighbour, or a copied file): which "
                                   "system it is from is not clear, left out"));
        CHECK(remotes(g, "leaf1") == std::vector<std::string>{"h1 eth0", "h1 eth1", "h9 eth2"});
    }
}

TEST_CASE("lldp: a host's file never moves another host", "[lldp]") {
    using Sees = std::vector<std::tuple<std::string, std::string, std::string>>;
    const auto plain = [](const std::string& self, Sees sees) {
        auto f = file(self, std::move(sees), false);
        f.source = "capture-" + self + ".json";
        return f;
    };
    // Two SUs of two rails (leaf<su><rail>), two hosts each, one spine; every switch's
    // records as the switch gives them.
    const auto leaf = [&](const std::string& name, const std::string& a, const std::string& b,
                          const std::string& nic, const std::string& spine_port, bool plain_file) {
        Sees sees;
        if (!a.empty()) {
            sees.emplace_back("swp1", a, nic);
        }
        if (!b.empty()) {
            sees.emplace_back("swp2", b, nic);
        }
        sees.emplace_back("swp9", "spine1", spine_port);
        return plain_file ? plain(name, sees) : file(name, sees);
    };
    const auto spine = [&](bool plain_file) {
        Sees sees = {{"swp1", "leaf1a", "swp9"},
                     {"swp2", "leaf1b", "swp9"},
                     {"swp3", "leaf2a", "swp9"},
                     {"swp4", "leaf2b", "swp9"}};
        return plain_file ? plain("spine1", sees) : file("spine1", sees);
    };

    SECTION("plain files: one a leaf has no record of is not named after another SU's host") {
        // h2's leaves have not heard from it yet; h4 has heard from one leaf only. h2's ports
        // and the names of its leaves' ports match h4's cables by port names alone.
        const auto g = lldp_fabric({
            plain("h1", {{"eth0", "leaf1a", "swp1"}, {"eth1", "leaf1b", "swp1"}}),
            plain("h2", {{"eth0", "leaf1a", "swp2"}, {"eth1", "leaf1b", "swp2"}}),
            plain("h3", {{"eth0", "leaf2a", "swp1"}, {"eth1", "leaf2b", "swp1"}}),
            plain("h4", {{"eth0", "leaf2a", "swp2"}}),
            leaf("leaf1a", "h1", "", "eth0", "swp1", true),
            leaf("leaf1b", "h1", "", "eth1", "swp2", true),
            leaf("leaf2a", "h3", "h4", "eth0", "swp3", true),
            leaf("leaf2b", "h3", "h4", "eth1", "swp4", true),
            spine(true),
        });
        CHECK(remotes(g, "leaf2a") == std::vector<std::string>{"h3 eth0", "h4 eth0", "spine1"});
        CHECK(remotes(g, "leaf2b") == std::vector<std::string>{"h3 eth1", "h4 eth1", "spine1"});
        CHECK(remotes(g, "leaf1a") == std::vector<std::string>{"h1 eth0", "spine1"});
        CHECK(kinds(g) == std::vector<std::string>{"lldp-unknown-system"});
        CHECK(message(g, "lldp-unknown-system") ==
              "capture-h2.json: the file does not say which system it is from (gather "
              "'lldpcli -f json show chassis' with 'lldpctl -f json'), and no record of its "
              "far ends names it: its cables fit 'h4' by port names alone, which the far "
              "ends' records do not confirm: left out");
    }
    SECTION("plain host files, named switches: the far ends must agree on the name") {
        const auto g = lldp_fabric({
            plain("h1", {{"eth0", "leaf1a", "swp1"},
                         {"eth1", "leaf2a", "swp2"},
                         {"eth2", "leaf2b", "swp2"}}),
            plain("h4", {{"eth0", "leaf2a", "swp2"}, {"eth1", "leaf2b", "swp2"}}),
            leaf("leaf1a", "h1", "", "eth0", "swp1", false),
            leaf("leaf1b", "h1", "", "eth1", "swp2", false),
            leaf("leaf2a", "", "h4", "eth0", "swp3", false),
            leaf("leaf2b", "", "h4", "eth1", "swp4", false),
            spine(false),
        });
        CHECK(remotes(g, "leaf2a") == std::vector<std::string>{"h4 eth0", "spine1"});
        CHECK(remotes(g, "leaf2b") == std::vector<std::string>{"h4 eth1", "spine1"});
        CHECK(remotes(g, "leaf1a") == std::vector<std::string>{"h1 eth0", "spine1"});
        CHECK(message(g, "lldp-name-disagrees") ==
              "capture-h1.json: the far ends' files see 'h4' on 2 of its ports and 'h1' on 1 "
              "(a moved cable, a stale neighbour, or a copied file): which system it is from "
              "is not clear, left out");
    }
    SECTION("a host's file that sorts first claims another SU's leaf port: the leaf wins") {
        auto claim = file("h1", {{"eth0", "leaf1a", "swp1"}, {"eth1", "leaf2b", "swp2"}});
        claim.source = "aaa-h1.json";
        const auto g = lldp_fabric({
            claim,
            file("h4", {{"eth0", "leaf2a", "swp2"}, {"eth1", "leaf2b", "swp2"}}),
            leaf("leaf1a", "h1", "", "eth0", "swp1", false),
            leaf("leaf1b", "h1", "", "eth1", "swp2", false),
            leaf("leaf2a", "", "h4", "eth0", "swp3", false),
            leaf("leaf2b", "", "h4", "eth1", "swp4", false),
            spine(false),
        });
        CHECK(remotes(g, "leaf2b") == std::vector<std::string>{"h4 eth1", "spine1"});
        CHECK(message(g, "lldp-port-mismatch") ==
              "aaa-h1.json:30: 'h1' port eth1 sees 'leaf2b' port swp2, but 'h1' port eth1 was "
              "seen with 'leaf1b' port swp1 (leaf1b.json:20): the two ends disagree (a stale "
              "neighbour or a moved cable); the switch's view is kept");
        CHECK(kinds(g) == std::vector<std::string>{"lldp-port-mismatch"});
    }
}
