// SPDX-License-Identifier: Apache-2.0
// The classifier on hosts that are not what they seem: a management host among compute hosts,
// an empty rack's leaf, and the hosts gone since the previous map.
#include "catch.hpp"
#include "classify_fixtures.hpp"
#include "switchyard/discover/classify/classify.hpp"

using namespace switchyard::discover;
using namespace switchyard::fabric;
using namespace classify_fixtures;

namespace {

/// SU su1: `rails` leaves (su1-rail0...) under spine1 and spine2, each of `hosts` with an HCA
/// (mlx5_0...) on every rail. Returns the leaves.
std::vector<NodeIndex> su1(Builder& b,
                           std::size_t rails,
                           std::initializer_list<const char*> hosts) {
    const auto s1 = b.sw("spine1");
    const auto s2 = b.sw("spine2");
    std::vector<NodeIndex> leaves;
    for (std::size_t r = 0; r < rails; ++r) {
        leaves.push_back(b.sw("su1-rail" + std::to_string(r)));
        b.link(leaves.back(), s1);
        b.link(leaves.back(), s2);
    }
    for (const auto* h : hosts) {
        for (std::size_t r = 0; r < rails; ++r) {
            b.link(b.ca(std::string(h) + " mlx5_" + std::to_string(r)), leaves[r]);
        }
    }
    return leaves;
}

}  // namespace

TEST_CASE("classify: a UFM host among compute hosts is an other CA, an empty leaf stays a leaf",
          "[classify]") {
    // Four rail leaves under two spines: three compute hosts on every rail, a UFM server on two
    // of them, and a fifth leaf with no host (an empty rack) cabled to both spines.
    Builder b;
    const auto rails = su1(b, 4, {"dgx01", "dgx02", "dgx03"});
    auto empty = b.sw("su2-rail0");
    b.link(empty, b.switch_named("spine1"));
    b.link(empty, b.switch_named("spine2"));
    b.link(b.ca("ufm-02 mlx5_0"), rails[2]);
    b.link(b.ca("ufm-02 mlx5_1"), rails[3]);
    const auto c = classify(b.g, {});
    const auto& m = c.map;
    CHECK(m.find_host("ufm-02") == nullptr);
    CHECK(m.hosts.size() == 3);
    CHECK(c.stats.excluded_hcas == 2);
    CHECK(c.stats.rails == 4);
    const auto counts = anomaly_counts(m);
    CHECK(counts.count("missing-rail") == 0);
    CHECK(counts.at("other-ca-host") == 1);
    CHECK(counts.at("empty-leaf") == 1);
    for (const auto& a : m.anomalies) {
        if (a.kind == "other-ca-host") {
            CHECK(a.detail ==
                  "ufm-02 reaches 2 leaf switch(es) where the hosts beside it reach 4, and is not "
                  "named like them ('dgx...'): a UFM, subnet manager or storage host, left out "
                  "as an other CA");
        }
        if (a.kind == "empty-leaf") {
            CHECK_THAT(a.detail, Catch::StartsWith("'su2-rail0' serves no host"));
        }
    }
    // The empty leaf keeps tier 1, in no SU; the fabric is still two tiers.
    CHECK(m.tiers == 2);
    for (const auto& sw : m.switches) {
        if (sw.name == "su2-rail0") {
            CHECK(sw.tier == 1);
        }
    }
    REQUIRE(m.sus.size() == 1);
    CHECK(m.sus[0].leaves.size() == 4);
    // The map reads back.
    CHECK(read_fabric_map(write_fabric_map(m, "test"), "test"));
    // Named by --expect-hosts, the UFM host stays (short of rails: missing-rail).
    const std::vector<std::string> expected = {"dgx01", "dgx02", "dgx03", "ufm-02"};
    ClassifyOptions opt;
    opt.expected_hosts = &expected;
    const auto kept = classify(b.g, opt);
    CHECK(kept.map.find_host("ufm-02") != nullptr);
    CHECK(anomaly_counts(kept.map).at("missing-rail") == 1);
    // A compute host short of rails keeps its place: named like its peers.
    Builder b2 = b;
    b2.link(b2.ca("dgx04 mlx5_0"), rails[0]);
    const auto short_of = classify(b2.g, {}).map;
    CHECK(short_of.find_host("dgx04") != nullptr);
}

TEST_CASE("classify: hosts gone since the previous map are named with or without facts",
          "[classify]") {
    const auto previous = classify(rail_fabric().g, {}).map;
    // su2's rack powered down with its leaves; n12 unplugged.
    Builder b;
    (void)su1(b, 2, {"n11", "n13"});
    auto m = classify(b.g, {}).map;
    CHECK(check_previous_hosts(m, previous) == 4);
    std::vector<std::string> said;
    for (const auto& a : m.anomalies) {
        if (a.kind == "hosts-vanished") {
            said.push_back(a.detail);
        }
    }
    CHECK(said == std::vector<std::string>{
                      "1 of the 3 host(s) of SU " + previous.sus[0].name +
                          " in the previous map are not in this capture (n12): down, uncabled, "
                          "or renamed?",
                      "3 of the 3 host(s) of SU " + previous.sus[1].name +
                          " in the previous map are not in this capture (n[21-23]), nor are its "
                          "leaf switches: powered down or unplugged?"});
    // The same capture again: nothing vanished.
    auto same = classify(rail_fabric().g, {}).map;
    CHECK(check_previous_hosts(same, previous) == 0);
}
