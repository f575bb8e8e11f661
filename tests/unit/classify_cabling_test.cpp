// SPDX-License-Identifier: Apache-2.0
// Tests of the classifier's judgement of the cabling: global and leaf-spine cables against
// the design, --expect-cabling.
#include <algorithm>
#include <map>
#include <set>

#include "catch.hpp"
#include "classify_fixtures.hpp"
#include "paths.hpp"
#include "switchyard/discover/classify/classify.hpp"
#include "switchyard/discover/ib/ibnetdiscover.hpp"
#include "switchyard/fabric/fabric_index.hpp"
#include "switchyard/fabric/guid.hpp"
#include "switchyard/slurm/files/slurm_writers.hpp"

using namespace switchyard::discover;
using namespace switchyard::fabric;
using namespace switchyard::slurm;
using namespace classify_fixtures;

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
