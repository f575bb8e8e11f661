// SPDX-License-Identifier: Apache-2.0
// Tests of the fabric map file: round trip, lookups, validation messages with line numbers.
#include "switchyard/fabric/fabric_map.hpp"

#include <cstdio>

#include "catch.hpp"
#include "switchyard/common/file.hpp"

using namespace switchyard::fabric;

namespace {
constexpr const char* kMap = R"(switchyard-fabric-map 2
# comment
kind dragonfly+
tiers 2
hcas mlx5_0 mlx5_1
switch g1-leaf1 0x0000000000000101 1
switch g2-leaf1 0x0000000000000102 1
switch g1-spine1 0x0000000000000201 2
group g1
group g2
su g1-leaf1 g1 g1-leaf1 mlx5_0:g1-leaf1,mlx5_1:g1-leaf1*2
su g2-leaf1 g2 g2-leaf1 mlx5_0:g2-leaf1,mlx5_1:g2-leaf1
host n01 g1-leaf1
host n02 g1-leaf1
host n03 g2-leaf1 mlx5_0:g2-leaf1
host n04 g2-leaf1
anomaly missing-rail n03 in SU g2-leaf1 has no mlx5_1
end 3 switches 2 sus 4 hosts
)";

/// The same map as version 4: each switch line ends with its uplinks, each group line with its
/// global cables.
constexpr const char* kMap4 = R"(switchyard-fabric-map 2
# comment
kind dragonfly+
tiers 2
hcas mlx5_0 mlx5_1
switch g1-leaf1 0x0000000000000101 1 3
switch g2-leaf1 0x0000000000000102 1 2
switch g1-spine1 0x0000000000000201 2 0
group g1 4 0
group g2 5 0
su g1-leaf1 g1 g1-leaf1 mlx5_0:g1-leaf1,mlx5_1:g1-leaf1*2
su g2-leaf1 g2 g2-leaf1 mlx5_0:g2-leaf1,mlx5_1:g2-leaf1
host n01 g1-leaf1
host n02 g1-leaf1
host n03 g2-leaf1 mlx5_0:g2-leaf1
host n04 g2-leaf1
anomaly missing-rail n03 in SU g2-leaf1 has no mlx5_1
end 3 switches 2 sus 4 hosts
)";

/// `text` (a map whose first line is version 2) as `version`: the first line carries the
/// digest of the rest.
std::string with_digest(const std::string& text, int version) {
    const auto body = text.substr(text.find('\n') + 1);
    char line[64];
    std::snprintf(line, sizeof line, "switchyard-fabric-map %d %016llx\n", version,
                  static_cast<unsigned long long>(switchyard::content_digest(body)));
    return line + body;
}
std::string as_v3(const std::string& text) {
    return with_digest(text, 3);
}

std::string error_of(const std::string& text) {
    auto r = read_fabric_map(text, "m.map");
    REQUIRE_FALSE(r);
    return r.error().to_string();
}
}  // namespace

TEST_CASE("fabric_map: reads every line kind and derives SU hosts and group SUs", "[fabric_map]") {
    auto r = read_fabric_map(kMap, "m.map");
    REQUIRE(r);
    const auto& m = *r;
    CHECK(m.kind == FabricKind::DragonflyPlus);
    CHECK(m.tiers == 2);
    CHECK(m.switches.size() == 3);
    CHECK(m.sus[0].hosts == std::vector<std::uint32_t>{0, 1});
    CHECK(m.groups[1].sus == std::vector<std::uint32_t>{1});
    const auto* h = m.find_host("n02");
    REQUIRE(h != nullptr);
    const auto rails = m.rails_of(*h);
    REQUIRE(rails.size() == 2);
    CHECK(rails[1].cables == 2);
    CHECK(m.switches[rails[1].leaf].name == "g1-leaf1");
    CHECK(m.find_host("n05") == nullptr);
    CHECK(m.rails_of(*m.find_host("n03")).size() == 1);
    CHECK(m.rails_of(*m.find_host("n04")).size() == 2);  // its SU's rails
    REQUIRE(m.anomalies.size() == 1);
    CHECK(m.anomalies[0].detail == "n03 in SU g2-leaf1 has no mlx5_1");
}

TEST_CASE("fabric_map: write(read(x)) == x", "[fabric_map]") {
    const auto v4 = with_digest(kMap4, 4);
    auto r = read_fabric_map(v4, "m.map");
    REQUIRE(r);
    CHECK(r->link_counts);
    CHECK(r->switches[0].uplinks == 3);
    CHECK(r->switches[2].uplinks == 0);
    CHECK(r->groups[1].global == 5);
    const auto written = write_fabric_map(*r, "comment");
    CHECK(written == v4);
    auto again = read_fabric_map(written, "m.map");
    REQUIRE(again);
    CHECK(write_fabric_map(*again, "comment") == written);
}

TEST_CASE("fabric_map: an anomaly or comment holding any byte is one line, read back as written",
          "[fabric_map]") {
    auto m = read_fabric_map(with_digest(kMap4, 4), "m.map");
    REQUIRE(m);
    m->anomalies.push_back({"lldp-bad\nkind", "host 'n\x1b[2J\nanomaly injected x\xff' left out"});
    const auto written = write_fabric_map(*m, "from\nkind empty");
    CHECK(written.find("\nanomaly injected") == std::string::npos);
    CHECK(written.find("\nkind empty") == std::string::npos);
    CHECK(written.find("anomaly lldp-bad\\x0akind host 'n\\x1b[2J\\x0aanomaly injected "
                       "x\\xff' left out\n") != std::string::npos);
    CHECK(written.find("# from\\x0akind empty\n") != std::string::npos);
    const auto again = read_fabric_map(written, "m.map");
    REQUIRE(again);
    CHECK(again->anomalies.size() == m->anomalies.size());
    CHECK(again->anomalies.back().detail ==
          "host 'n\\x1b[2J\\x0aanomaly injected x\\xff' left out");
    CHECK(write_fabric_map(*again, "from\nkind empty") == written);
    // A map written by hand with raw bytes in an anomaly reads them as printable text.
    const std::string raw =
        std::string(kMap4).insert(std::string(kMap4).find("end "), "anomaly x a\x1b[31mred\n");
    const auto hand = read_fabric_map(with_digest(raw, 4), "m.map");
    REQUIRE(hand);
    CHECK(hand->anomalies.back().detail == "a\\x1b[31mred");
}

TEST_CASE("fabric_map: version 2 and 3 maps are read without cable counts", "[fabric_map]") {
    for (const auto& text : {std::string(kMap), as_v3(kMap)}) {
        auto r = read_fabric_map(text, "m.map");
        REQUIRE(r);
        CHECK_FALSE(r->link_counts);
        CHECK(r->switches[0].uplinks == 0);
        CHECK(r->groups[0].global == 0);
    }
    // Each version's line shapes are its own: counts in a version 3 map, none in a version 4.
    std::string v3 = kMap;
    v3.replace(v3.find("0x0000000000000101 1"), 20, "0x0000000000000101 1 3");
    CHECK_THAT(error_of(as_v3(v3)),
               Catch::StartsWith("m.map:6: expected 'switch <name> <guid> <tier>', got"));
    CHECK_THAT(error_of(with_digest(kMap, 4)),
               Catch::StartsWith("m.map:6: expected 'switch <name> <guid> <tier> <uplinks>'"));
    std::string v4 = kMap4;
    v4.replace(v4.find("group g2 5 0"), 12, "group g2 x 0");
    CHECK_THAT(error_of(with_digest(v4, 4)),
               Catch::StartsWith("m.map:10: expected 'group <name> <global cables> <core "
                                 "cables>', got 'group g2 x 0'"));
}

TEST_CASE("fabric_map: a version 3 map is refused when its content does not match its digest",
          "[fabric_map]") {
    const auto v3 = as_v3(kMap);
    CHECK(read_fabric_map(v3, "m.map"));
    CHECK(fabric_map_digest(v3.substr(0, v3.find('\n'))).has_value());
    CHECK_FALSE(fabric_map_digest("switchyard-fabric-map 2"));
    CHECK_FALSE(fabric_map_digest("switchyard-fabric-map 3 0123456789ABCDEF"));  // lower case
    std::string edited = v3;
    edited.replace(edited.find("host n04"), 8, "host n05");
    CHECK_THAT(error_of(edited),
               Catch::StartsWith("m.map:1: the map's content does not match the digest on its "
                                 "first line: it was changed after 'switchyard discover' wrote "
                                 "it."));
    CHECK_THAT(error_of("switchyard-fabric-map 3\n"),
               Catch::StartsWith("m.map:1: expected 'switchyard-fabric-map 3 <16 hex digits>'"));
    CHECK_THAT(error_of("switchyard-fabric-map 4 xyz\n"),
               Catch::StartsWith("m.map:1: expected 'switchyard-fabric-map 4 <16 hex digits>'"));
    // An edited map whose first line says version 2 is read without a digest.
    std::string v2 = edited;
    v2.replace(0, v2.find('\n'), "switchyard-fabric-map 2");
    CHECK(read_fabric_map(v2, "m.map"));
}

TEST_CASE("fabric_map: validation names the line and the expected form", "[fabric_map]") {
    CHECK_THAT(error_of("hello\n"),
               Catch::StartsWith("m.map:1: expected 'switchyard-fabric-map <version> <digest>'"));
    CHECK_THAT(error_of("switchyard-fabric-map 1\n"),
               Catch::StartsWith("m.map:1: fabric map version 1 is not supported"));
    CHECK(error_of("switchyard-fabric-map 2\nkind torus\n") ==
          "m.map:2: unknown fabric kind 'torus'; expected empty, fat-tree, fat-tree-3, dragonfly+ "
          "or islands");
    CHECK(error_of("switchyard-fabric-map 2\nswitch a 0x1\n") ==
          "m.map:2: expected 'switch <name> <guid> <tier>', got 'switch a 0x1'");
    CHECK(error_of("switchyard-fabric-map 2\nswitch a 0x1 1\nswitch a 0x2 1\n") ==
          "m.map:3: switch 'a' is defined twice");
    CHECK(error_of("switchyard-fabric-map 2\ngroup g\nsu s g nope x:y\n") ==
          "m.map:3: switch 'nope' is not defined above this line");
    std::string unsorted = kMap;
    unsorted.replace(unsorted.find("host n02"), 8, "host n00");
    CHECK(error_of(unsorted) ==
          "m.map:14: host 'n00' is out of order or repeated (hosts must be sorted by name)");
    std::string bad_hca = kMap;
    bad_hca.replace(bad_hca.find("mlx5_0:g2-leaf1\n"), 6, "mlx5_7");
    CHECK(error_of(bad_hca) == "m.map:15: HCA 'mlx5_7' is not in the 'hcas' line");
    std::string bad_cables = kMap;
    bad_cables.replace(bad_cables.find("*2"), 2, "*0");
    CHECK_THAT(error_of(bad_cables), Catch::StartsWith("m.map:11: bad cable count"));
    CHECK_THAT(error_of("switchyard-fabric-map 2\ngroup g\nsu s g\n"),
               Catch::StartsWith("m.map:3: expected 'su <name> <group> <leaf>"));
    std::string trailing = kMap;  // a space after the SU, then nothing: refused, not no rails
    trailing.replace(trailing.find("host n02 g1-leaf1"), 17, "host n02 g1-leaf1  ");
    CHECK(error_of(trailing) ==
          "m.map:14: empty rail list after a space; expected '<hca>:<leaf>[*<cables>],...' or no "
          "space at the end of the line");
    CHECK_THAT(error_of("switchyard-fabric-map 2\nfrobnicate\n"),
               Catch::StartsWith("m.map:2: unknown line 'frobnicate'"));
}

TEST_CASE("fabric_map: reading only a step's hosts keeps SUs and groups whole", "[fabric_map]") {
    auto r = read_fabric_map_for(kMap, "m.map", {"n03", "n99"});
    REQUIRE(r);
    REQUIRE(r->hosts.size() == 1);
    CHECK(r->hosts[0].name == "n03");
    CHECK(r->sus.size() == 2);
    CHECK(r->find_host("n01") == nullptr);
    CHECK(r->rails_of(*r->find_host("n03")).size() == 1);
    // The SUs keep the size they have in the whole fabric (the planner's uplink capacity).
    CHECK(r->sus[0].fabric_hosts() == 2);
    CHECK(r->sus[1].fabric_hosts() == 2);
    CHECK(r->sus[1].hosts.size() == 1);
}

TEST_CASE("fabric_map: a map cut short or padded is refused, its hcas line is strict",
          "[fabric_map]") {
    const std::string full = kMap;
    // Cut at a line boundary: before, the first 12 lines loaded as a map of 1 host.
    const auto cut = full.substr(0, full.find("host n02"));
    CHECK(error_of(cut) ==
          "m.map:14: the map ends without its 'end' line: it was cut short (1 hosts read); copy "
          "it again or re-run 'switchyard discover'");
    std::string missing_host = full;
    missing_host.erase(missing_host.find("host n02"), std::string("host n02 g1-leaf1\n").size());
    CHECK_THAT(error_of(missing_host),
               Catch::StartsWith("m.map:17: the 'end' line counts 3 switches 2 sus 4 hosts but "
                                 "the map holds 3 switches 2 sus 3 hosts"));
    CHECK(error_of(full + "host n05 g1-leaf1\n") ==
          "m.map:19: a line after the 'end' line; expected nothing more");
    CHECK(error_of("switchyard-fabric-map 2\nend 1 switches\n") ==
          "m.map:2: expected 'end <n> switches <n> sus <n> hosts', got 'end 1 switches'");
    // A blank name in the hcas line was accepted and did not survive write + read.
    std::string blanks = full;
    blanks.replace(blanks.find("hcas mlx5_0 mlx5_1"), 18, "hcas mlx5_0  mlx5_1");
    CHECK(error_of(blanks) ==
          "m.map:5: an empty HCA name in the 'hcas' line (two spaces in a row?)");
    std::string twice = full;
    twice.replace(twice.find("hcas mlx5_0 mlx5_1"), 18, "hcas mlx5_0 mlx5_0");
    CHECK(error_of(twice) == "m.map:5: the 'hcas' line must list HCA names sorted, each once");
    std::string second = full;
    second.insert(second.find("switch g1-leaf1"), "hcas mlx5_0\n");
    CHECK(error_of(second) == "m.map:6: a second 'hcas' line; expected one");
    // read_fabric_map_for counts every host line, kept or not.
    CHECK(read_fabric_map_for(full, "m.map", {"n01"}));
    CHECK_FALSE(read_fabric_map_for(missing_host, "m.map", {"n01"}));
}

namespace {

/// kMap4 as version 5 with two NVLink domains: n01-n02 in g1-leaf1, n03 alone in g2-leaf1.
std::string map5(const std::string& nvl_lines) {
    std::string text = kMap4;
    text.insert(text.find("anomaly "), nvl_lines);
    return with_digest(text, 5);
}

}  // namespace

TEST_CASE("fabric_map: version 5 carries NVLink domains", "[fabric_map][nvlink]") {
    const auto text = map5(
        "nvl nvl_aaaa0001_7 g1-leaf1 ok aaaa0001-0000-0000-0000-000000000000.7 n[01-02]\n"
        "nvl nvl_aaaa0002_7 g2-leaf1 degraded aaaa0002-0000-0000-0000-000000000000.7 n03\n");
    auto m = read_fabric_map(text, "m.map");
    REQUIRE(m);
    REQUIRE(m->domains.size() == 2);
    CHECK(m->domains[0].members == std::vector<std::string>{"n01", "n02"});
    CHECK(m->domains[1].state == DomainState::Degraded);
    CHECK(m->domains[1].su == 1);
    CHECK(m->find_host("n01")->domain == 0);
    CHECK(m->find_host("n03")->domain == 1);
    CHECK(m->find_host("n04")->domain == kNoDomain);
    // Written back: version 5, the same lines.
    const auto again = write_fabric_map(*m, "comment");
    CHECK(again.rfind("switchyard-fabric-map 5 ", 0) == 0);
    auto m2 = read_fabric_map(again, "again.map");
    REQUIRE(m2);
    CHECK(write_fabric_map(*m2, "comment") == again);
    // A step's hosts only: the domains stay whole, their hosts found where kept.
    auto some = read_fabric_map_for(text, "m.map", {"n02"});
    REQUIRE(some);
    CHECK(some->domains.size() == 2);
    CHECK(some->find_host("n02")->domain == 0);
    // Without domains, still version 4.
    m->domains.clear();
    CHECK(write_fabric_map(*m, "").rfind("switchyard-fabric-map 4 ", 0) == 0);
}

TEST_CASE("fabric_map: bad nvl lines are named", "[fabric_map][nvlink]") {
    CHECK_THAT(error_of(map5("nvl a g1-leaf1 ok k\n")),
               Catch::StartsWith("m.map:17: expected 'nvl <name> <su> <ok|degraded|missing> "));
    CHECK_THAT(error_of(map5("nvl a su9 ok k n01\n")),
               Catch::StartsWith("m.map:17: SU 'su9' is not defined above this line"));
    CHECK_THAT(error_of(map5("nvl a g1-leaf1 fine k n01\n")),
               Catch::StartsWith("m.map:17: expected 'nvl <name>"));
    CHECK_THAT(error_of(map5("nvl a g1-leaf1 ok k n01\nnvl b g1-leaf1 ok k2 n[01-02]\n")),
               Catch::StartsWith("m.map:18: nvl b: host 'n01' is in another NVLink domain too"));
    CHECK_THAT(error_of(map5("nvl a g1-leaf1 ok k n01\nnvl a g1-leaf1 ok k2 n02\n")),
               Catch::StartsWith("m.map:18: NVLink domain 'a' is defined twice"));
    CHECK_THAT(error_of(map5("nvl a g1-leaf1 ok k n[01-\n")),
               Catch::StartsWith("m.map:17: nvl a: "));
    // A version 4 map has no nvl lines.
    std::string v4 = kMap4;
    v4.insert(v4.find("anomaly "), "nvl a g1-leaf1 ok k n01\n");
    CHECK_THAT(error_of(with_digest(v4, 4)), Catch::StartsWith("m.map:17: unknown line 'nvl a"));
}
