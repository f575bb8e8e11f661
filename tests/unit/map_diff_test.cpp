// SPDX-License-Identifier: Apache-2.0
// Two fabric maps compared: what `switchyard fabric diff` reports (its golden cases use maps
// discover wrote from ibsim fabrics with cables pulled and a host gone).
#include "switchyard/fabric/map_diff.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "switchyard/ops/install_guard.hpp"

using namespace switchyard::fabric;

using namespace switchyard::ops;

namespace {
/// A map of SUs (name, group) and hosts (name, SU index), with one anomaly.
FabricMap small_map(const std::vector<std::pair<std::string, std::uint32_t>>& sus,
                    const std::vector<std::pair<std::string, std::uint32_t>>& hosts,
                    const std::string& anomaly) {
    FabricMap m;
    m.kind = FabricKind::DragonflyPlus;
    m.groups = {{"g1", {}, 2, 0}, {"g2", {}, 2, 0}};
    for (const auto& [name, group] : sus) {
        MapSu su;
        su.name = name;
        su.group = group;
        m.sus.push_back(su);
    }
    for (const auto& [name, su] : hosts) {
        m.hosts.push_back({name, su, 0, 0});
    }
    m.anomalies.push_back({"missing-uplink", anomaly});
    return m;
}
}  // namespace

TEST_CASE("map diff: hosts added, removed and moved, SUs, anomalies", "[map-diff]") {
    const auto before =
        small_map({{"a", 0}, {"b", 1}}, {{"n1", 0}, {"n2", 0}, {"n3", 1}}, "leaf a");
    const auto after = small_map({{"a", 0}, {"c", 1}}, {{"n1", 1}, {"n2", 0}, {"n4", 0}}, "leaf c");
    const auto d = compare_maps(before, after);
    CHECK(d.changed());
    CHECK(d.hosts_added == std::vector<std::string>{"n4"});
    CHECK(d.hosts_removed == std::vector<std::string>{"n3"});
    REQUIRE(d.hosts_moved.size() == 1);
    CHECK(d.hosts_moved[0].host == "n1");
    CHECK(d.hosts_moved[0].to_su == "c");
    CHECK(d.hosts_moved[0].to_group == "g2");
    CHECK(d.sus_added == std::vector<std::string>{"c"});
    CHECK(d.sus_removed == std::vector<std::string>{"b"});
    CHECK(d.anomalies_new == std::vector<std::string>{"missing-uplink: leaf c"});
    CHECK(d.anomalies_resolved == std::vector<std::string>{"missing-uplink: leaf a"});
    CHECK(d.cables.empty());  // neither map carries cable counts
    CHECK_THAT(format_diff(d), Catch::Contains("  n1: SU a -> c, group g1 -> g2\n"));
    CHECK_FALSE(compare_maps(after, after).changed());
    CHECK(format_diff(compare_maps(after, after)) == "hosts: 3 -> 3\nno change\n");
}

TEST_CASE("map diff: many hosts are one hostlist line for people, every name in the diff",
          "[map-diff]") {
    // 800 hosts in SUs a and b; the capture loses cn001-cn746 and moves cn747-cn760 to c.
    std::vector<std::pair<std::string, std::uint32_t>> before_hosts, after_hosts;
    for (int i = 1; i <= 800; ++i) {
        char name[8];
        std::snprintf(name, sizeof name, "cn%03d", i);
        before_hosts.emplace_back(name, i <= 400 ? 0U : 1U);
        if (i > 746) {
            after_hosts.emplace_back(name, i <= 760 ? 2U : 1U);
        }
    }
    const auto sus =
        std::vector<std::pair<std::string, std::uint32_t>>{{"a", 0}, {"b", 0}, {"c", 1}};
    const auto d =
        compare_maps(small_map(sus, before_hosts, "x"), small_map(sus, after_hosts, "x"));
    CHECK(d.hosts_removed.size() == 746);  // the diff itself keeps every name (--json)
    CHECK(d.hosts_moved.size() == 14);
    const auto text = format_diff(d);
    CHECK_THAT(text, Catch::Contains("hosts removed: 746\n  cn[001-746]\n"));
    CHECK_THAT(text,
               Catch::Contains("hosts moved: 14\n  cn[747-760]: SU b -> c, group g1 -> g2\n"));
    CHECK(std::count(text.begin(), text.end(), '\n') < 10);
}

TEST_CASE("map diff: a capture that lost most of the fabric fits a screen", "[map-diff]") {
    // 1,024 hosts in 64 SUs; the capture keeps 278 hosts (18 SUs) and 860 dangling links.
    std::vector<std::pair<std::string, std::uint32_t>> sus, before_hosts, after_hosts, kept_sus;
    for (std::uint32_t s = 1; s <= 64; ++s) {
        char name[16];
        std::snprintf(name, sizeof name, "su%02u", s);
        sus.emplace_back(name, s <= 32 ? 0U : 1U);
        if (s > 46) {
            kept_sus.emplace_back(name, s <= 32 ? 0U : 1U);
        }
    }
    for (int i = 1; i <= 1024; ++i) {
        char name[8];
        std::snprintf(name, sizeof name, "cn%04d", i);
        const auto su = static_cast<std::uint32_t>((i - 1) / 16);
        before_hosts.emplace_back(name, su);
        if (i > 746) {
            after_hosts.emplace_back(name, su >= 46 ? su - 46 : 0);
        }
    }
    auto after = small_map(kept_sus, after_hosts, "x");
    for (int i = 0; i < 860; ++i) {
        after.anomalies.push_back({"dangling-link", "switch sw" + std::to_string(i) + " port 1"});
    }
    const auto d = compare_maps(small_map(sus, before_hosts, "x"), after);
    CHECK(d.sus_removed.size() == 46);
    CHECK(d.anomalies_new.size() == 860);  // every one in the diff (--json)
    const auto text = format_diff(d);
    INFO(text);
    CHECK(std::count(text.begin(), text.end(), '\n') <= 60);
    CHECK_THAT(text, Catch::Contains("SUs removed: 46\n  su[01-46]\n"));
    CHECK_THAT(text,
               Catch::Contains("anomalies new: 860\n  dangling-link: 860\n    switch sw0 port "
                               "1\n"));
    CHECK_THAT(text, Catch::Contains("    ... 857 more (--json lists every one)\n"));
}

TEST_CASE("install guard: a capture that lost hosts, an SU, a group or changed kind",
          "[install-guard]") {
    // Two groups of two SUs, 20 hosts: g1 = SUs a (n01-n05), b (n06-n10); g2 = c, d.
    std::vector<std::pair<std::string, std::uint32_t>> hosts;
    for (int i = 1; i <= 20; ++i) {
        hosts.emplace_back((i < 10 ? "n0" : "n") + std::to_string(i),
                           static_cast<std::uint32_t>((i - 1) / 5));
    }
    const auto sus =
        std::vector<std::pair<std::string, std::uint32_t>>{{"a", 0}, {"b", 0}, {"c", 1}, {"d", 1}};
    const auto installed = small_map(sus, hosts, "x");
    const InstallLimits limits;

    SECTION("one host gone (5 %): installed") {
        auto h = hosts;
        h.pop_back();
        const auto next = small_map(sus, h, "x");
        CHECK(install_refusals(installed, next, compare_maps(installed, next), limits).empty());
    }
    SECTION("two hosts gone (10 %): refused, the hosts named") {
        auto h = hosts;
        h.resize(18);
        const auto next = small_map(sus, h, "x");
        const auto r = install_refusals(installed, next, compare_maps(installed, next), limits);
        REQUIRE(r.size() == 1);
        CHECK(r[0] ==
              "2 of the 20 installed hosts (10.0 %, more than 5.0 %) are not in the new capture: "
              "n[19-20]");
        CHECK(install_refusals(installed, next, compare_maps(installed, next), {15.0}).empty());
    }
    SECTION("a whole SU gone: refused even under the host share") {
        auto h = hosts;
        h.erase(h.begin() + 5, h.begin() + 10);  // SU b's five hosts
        for (auto& host : h) {                   // SUs c and d are the new map's second and third
            host.second = host.second == 0 ? 0 : host.second - 1;
        }
        const auto next = small_map({{"a", 0}, {"c", 1}, {"d", 1}}, h, "x");
        const auto r = install_refusals(installed, next, compare_maps(installed, next), {30.0});
        REQUIRE(r.size() == 1);
        CHECK(r[0] == "a whole SU is gone, none of its hosts in the new capture: SU b (5 hosts)");
    }
    SECTION("an SU renamed with its hosts: a change, not a loss") {
        const auto next = small_map({{"a", 0}, {"b2", 0}, {"c", 1}, {"d", 1}}, hosts, "x");
        const auto d = compare_maps(installed, next);
        CHECK(d.sus_removed == std::vector<std::string>{"b"});
        CHECK(install_refusals(installed, next, d, limits).empty());
    }
    SECTION("a whole group gone, and the kind changed") {
        auto h = hosts;
        h.resize(10);
        auto next = small_map(sus, h, "x");
        next.kind = FabricKind::FatTree;
        const auto r = install_refusals(installed, next, compare_maps(installed, next), limits);
        REQUIRE(r.size() == 4);
        CHECK_THAT(r[0], Catch::StartsWith("10 of the 20 installed hosts (50.0 %"));
        CHECK(r[1] ==
              "whole SUs are gone, none of their hosts in the new capture: SU c (5 hosts), "
              "d (5 hosts)");
        CHECK(r[2] == "a whole group is gone: group g2 (10 hosts)");
        CHECK_THAT(r[3], Catch::StartsWith("the fabric kind would change from dragonfly+ to "));
    }
    SECTION("nothing installed: nothing to lose") {
        const FabricMap empty;
        const auto next = small_map(sus, hosts, "x");
        CHECK(install_refusals(empty, next, compare_maps(empty, next), limits).empty());
    }
}

TEST_CASE("install guard: the structure, SUs and groups renamed, merged, split, rails dropped",
          "[install-guard]") {
    // The same 20 hosts: g1 = SUs a (n01-n05), b (n06-n10); g2 = c, d; four rails each.
    std::vector<std::pair<std::string, std::uint32_t>> hosts;
    for (int i = 1; i <= 20; ++i) {
        hosts.emplace_back((i < 10 ? "n0" : "n") + std::to_string(i),
                           static_cast<std::uint32_t>((i - 1) / 5));
    }
    const std::vector<std::pair<std::string, std::uint32_t>> sus = {
        {"a", 0}, {"b", 0}, {"c", 1}, {"d", 1}};
    const auto with_rails = [](FabricMap m, std::uint32_t rails) {
        for (auto& h : m.hosts) {
            h.rail_count = rails;
        }
        return m;
    };
    const auto installed = with_rails(small_map(sus, hosts, "x"), 4);
    const InstallLimits limits;
    const auto refusals = [&](const FabricMap& next) {
        return install_refusals(installed, next, compare_maps(installed, next), limits);
    };

    SECTION("every SU and group renamed (a discover without its GUID map): refused") {
        auto next =
            with_rails(small_map({{"0x1", 0}, {"0x2", 0}, {"0x3", 1}, {"0x4", 1}}, hosts, "x"), 4);
        next.groups = {{"s1", {}, 2, 0}, {"s2", {}, 2, 0}};
        const auto r = refusals(next);
        REQUIRE(r.size() == 2);
        CHECK(r[0] ==
              "4 of the 4 SUs would be renamed, their hosts still together: a -> 0x1, b -> 0x2, "
              "c -> 0x3, d -> 0x4 (discover run without the --guid-map of the installed "
              "capture?)");
        CHECK_THAT(r[1], Catch::StartsWith("2 of the 2 groups would be renamed, their hosts still "
                                           "together: g1 -> s1, g2 -> s2"));
        // Half of them renamed is a change an admin makes: installed.
        auto half =
            with_rails(small_map({{"a", 0}, {"b", 0}, {"c2", 1}, {"d2", 1}}, hosts, "x"), 4);
        CHECK(refusals(half).empty());
    }
    SECTION("every host in one SU: refused, the merge named") {
        auto h = hosts;
        for (auto& host : h) {
            host.second = 0;
        }
        const auto r = refusals(with_rails(small_map(sus, h, "x"), 4));
        REQUIRE(r.size() == 2);
        CHECK(r[0] ==
              "15 of the 20 installed hosts (75.0 %, more than 10.0 %) would be in another SU "
              "than the rest of theirs: n[06-20]; SUs merged: a, b, c, d -> a");
        CHECK(r[1] ==
              "10 of the 20 installed hosts (50.0 %, more than 10.0 %) would be in another "
              "group than the rest of theirs: n[11-20]; groups merged: g1, g2 -> g1");
    }
    SECTION("hosts moved out of their SU: two (10 %) installed, three refused") {
        auto h = hosts;
        h[0].second = 1;
        h[1].second = 1;
        CHECK(refusals(with_rails(small_map(sus, h, "x"), 4)).empty());
        h[2].second = 2;
        auto r = refusals(with_rails(small_map(sus, h, "x"), 4));
        REQUIRE(r.size() == 1);  // n03 alone changed group: 5 %
        CHECK(r[0] ==
              "3 of the 20 installed hosts (15.0 %, more than 10.0 %) would be in another SU "
              "than the rest of theirs: n[01-03]");
    }
    SECTION("three rails of four left out on every host: refused; one host with three, installed") {
        auto r = refusals(with_rails(small_map(sus, hosts, "x"), 1));
        REQUIRE(r.size() == 1);
        CHECK(r[0] ==
              "20 of the 20 installed hosts (100.0 %, more than 5.0 %) would have fewer rails (4 "
              "-> 1; was discover run without some of its --compute-hca?): n[01-20]");
        auto next = with_rails(small_map(sus, hosts, "x"), 4);
        next.hosts[7].rail_count = 3;
        CHECK(refusals(next).empty());
    }
}

TEST_CASE("install record: read back what it wrote, junk ignored", "[install-guard]") {
    InstallRecord r;
    r.refused = 3;
    r.last_run = 1796296360;
    r.last_change = 1796290000;
    r.last_result = "refused";
    const auto back = InstallRecord::parse(r.text());
    CHECK(back.text() == r.text());
    const auto junk = InstallRecord::parse(
        "refused x\nlast_result a\"b\nlast_run 5 6\nlast_change 7\nlast_result rolled-back\n");
    CHECK(junk.refused == 0);
    CHECK(junk.last_run == 0);
    CHECK(junk.last_change == 7);
    CHECK(junk.last_result == "rolled-back");
}

namespace {

/// discover/nvl-dfp16's map: 16 hosts, 8 NVLink domains of 2.
FabricMap nvl_map() {
    auto m = read_fabric_map_file(std::string(SWITCHYARD_SOURCE_DIR) +
                                  "/tests/golden/discover/nvl-dfp16/fabric.map.expected");
    REQUIRE(m);
    return std::move(*m);
}

}  // namespace

TEST_CASE("install guard: a capture without the nodes' facts is refused over NVLink domains",
          "[install-guard][nvlink]") {
    const auto installed = nvl_map();
    REQUIRE(installed.domains.size() == 8);
    const InstallLimits limits;
    SECTION("no facts at all (the refresh script passes none): no domain") {
        auto next = installed;
        next.domains.clear();
        for (auto& h : next.hosts) {
            h.domain = kNoDomain;
        }
        const auto d = compare_maps(installed, next);
        CHECK(d.domains_removed.size() == 8);
        CHECK_THAT(format_diff(d), Catch::Contains("NVLink domains removed (their blocks): 8\n  "
                                                   "nvl_a1b2c3d1_32766,nvl_a1b2c3d2_32766,"));
        const auto r = install_refusals(installed, next, d, limits);
        REQUIRE(r.size() == 1);
        CHECK(r[0] ==
              "the installed map has 8 NVLink domains and the new capture none: discover run "
              "without --node-facts (or with an empty facts file)?");
        CHECK(install_refusals(installed, installed, compare_maps(installed, installed), limits)
                  .empty());
    }
    SECTION("facts of half the hosts: half would be in no domain") {
        auto next = installed;
        for (auto& h : next.hosts) {
            if (h.name > "node008") {
                h.domain = kNoDomain;
            }
        }
        next.domains.resize(4);
        const auto r = install_refusals(installed, next, compare_maps(installed, next), limits);
        REQUIRE(r.size() == 1);
        CHECK(r[0] ==
              "8 of the 16 hosts in NVLink domains (50.0 %, more than 5.0 %) would be in none: "
              "facts "
              "of only some hosts? node[009-016]");
    }
}
