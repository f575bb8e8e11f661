// SPDX-License-Identifier: Apache-2.0
// block_layout: Slurm's topology/block rules (BlockSizes[0] plans every block; further sizes
// aggregate aligned runs of 2^k consecutive blocks) applied to SUs and groups; the runs of
// groups that jobs larger than one group prefer.
#include "switchyard/slurm/files/slurm_writers.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "catch.hpp"

using namespace switchyard::fabric;
using namespace switchyard::slurm;

namespace {

/// A map of groups whose SUs have the given host counts, SUs numbered in group order.
FabricMap shaped(const std::vector<std::vector<std::size_t>>& groups) {
    FabricMap m;
    std::uint32_t host = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        MapGroup group;
        group.name = "g" + std::to_string(g + 1);
        for (const auto hosts : groups[g]) {
            MapSu su;
            su.name = group.name + "-su" + std::to_string(group.sus.size() + 1);
            su.group = static_cast<std::uint32_t>(g);
            for (std::size_t h = 0; h < hosts; ++h) {
                char name[16];
                std::snprintf(name, sizeof name, "n%03u", static_cast<unsigned>(host + 1));
                m.hosts.push_back({name, static_cast<std::uint32_t>(m.sus.size()), 0, 0});
                su.hosts.push_back(host++);
            }
            group.sus.push_back(static_cast<std::uint32_t>(m.sus.size()));
            m.sus.push_back(su);
        }
        m.groups.push_back(group);
    }
    return m;
}

}  // namespace

TEST_CASE("slurm_writers: uniform groups of 2^k SUs make the group level", "[slurm_writers]") {
    const auto l = block_layout(shaped({{4, 4}, {4, 4}, {4, 4}, {4, 4}}));
    CHECK(l.base == 4);
    CHECK(l.group == 8);
    CHECK(l.notes.empty());
    CHECK(l.sus == std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7});
    const auto four = block_layout(shaped({{8, 8, 8, 8}, {8, 8, 8, 8}}));
    CHECK(four.group == 32);
}

TEST_CASE("slurm_writers: what blocks cannot express is said, not written", "[slurm_writers]") {
    struct Case {
        const char* name;
        std::vector<std::vector<std::size_t>> groups;
        std::size_t base;
        const char* note;
    };
    const Case cases[] = {
        // Aggregates of 2 or 4 blocks would straddle groups of 3.
        {"3 SUs per group",
         {{4, 4, 4}, {4, 4, 4}},
         4,
         "every group holds 3 SUs, not a power of two"},
        {"uneven groups", {{4, 4}, {4}}, 4, "groups hold 2, 1 SUs"},
        {"one SU per group",
         {{4}, {4}},
         4,
         "every group holds 1 SU, not a power of two of at least 2"},
        {"uneven SUs", {{4, 6}, {4, 4}}, 4, "scalable units have 4 to 6 hosts"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        const auto l = block_layout(shaped(c.groups));
        CHECK(l.base == c.base);
        CHECK(l.group == 0);
        REQUIRE_FALSE(l.notes.empty());
        std::string all;
        for (const auto& n : l.notes) {
            all += n + "\n";
        }
        CHECK_THAT(all, Catch::Contains(c.note));
    }
}

TEST_CASE("slurm_writers: one group has the SU level only, silently", "[slurm_writers]") {
    const auto l = block_layout(shaped({{4, 4, 4}}));
    CHECK(l.base == 4);
    CHECK(l.group == 0);
    CHECK(l.notes.empty());
    CHECK(block_layout(FabricMap{}).base == 0);
}

TEST_CASE("slurm_writers: runs of 2, 4, ... groups, aligned, below the group count",
          "[slurm_writers]") {
    const auto eight =
        group_spans(shaped({{4, 4}, {4, 4}, {4, 4}, {4, 4}, {4, 4}, {4, 4}, {4, 4}, {4, 4}}));
    REQUIRE(eight.size() == 2);
    CHECK(eight[0].span == 2);
    CHECK(eight[0].hosts == 16);
    CHECK(eight[0].features ==
          std::vector<std::string>{"grp2_g1", "grp2_g3", "grp2_g5", "grp2_g7"});
    CHECK(eight[1].span == 4);
    CHECK(eight[1].hosts == 32);
    CHECK(eight[1].features == std::vector<std::string>{"grp4_g1", "grp4_g5"});
    // Three uneven groups: one whole pair (the largest run's hosts), the third group in none.
    const auto three = group_spans(shaped({{4, 4}, {4}, {4, 4, 4}}));
    REQUIRE(three.size() == 1);
    CHECK(three[0].hosts == 12);
    CHECK(three[0].features == std::vector<std::string>{"grp2_g1"});
    // Two groups: a run of both is every node, which prefers nothing.
    CHECK(group_spans(shaped({{4}, {4}})).empty());
    CHECK(group_spans(shaped({{4, 4, 4}})).empty());
}

TEST_CASE("slurm_writers: every node carries the runs that hold its group", "[slurm_writers]") {
    const auto m = shaped({{2}, {2}, {2}, {2}, {2}});
    const auto conf = write_node_features(m, "h");
    CHECK_THAT(conf,
               Catch::Contains("NodeName=n[001-002] Features=su_g1-su1,grp_g1,grp2_g1,grp4_g1\n"));
    CHECK_THAT(conf,
               Catch::Contains("NodeName=n[007-008] Features=su_g4-su1,grp_g4,grp2_g3,grp4_g1\n"));
    // The fifth group is in no whole run.
    CHECK_THAT(conf, Catch::Contains("NodeName=n[009-010] Features=su_g5-su1,grp_g5\n"));
    const auto sh = write_feature_commands(m, "h");
    CHECK_THAT(sh, Catch::Contains("scontrol update NodeName=n[005-006] "
                                   "AvailableFeatures=su_g3-su1,grp_g3,grp2_g3,grp4_g1 "
                                   "ActiveFeatures=su_g3-su1,grp_g3,grp2_g3,grp4_g1\n"));
    SlurmTopologies block;
    block.default_kind = "block";
    const auto hints = write_job_submit_hints(m, "h", block);
    CHECK_THAT(hints,
               Catch::Contains("  group_size_2 = 4,\n  groups_2 = { \"grp2_g1\", \"grp2_g3\" },\n"
                               "  group_size_4 = 8,\n  groups_4 = { \"grp4_g1\" },\n"));
}

TEST_CASE("slurm_writers: one NVLink domain per SU keeps the levels above it",
          "[slurm_writers][nvlink]") {
    // One NVL72 rack (18 trays) under each leaf, two SUs per group: the same fabric gives
    // BlockSizes=18,36 without the facts, and gave only 18 with them.
    auto m = shaped({{18, 18}, {18, 18}});
    CHECK(layout_sizes(block_layout(m)) == std::vector<std::size_t>{18, 36});
    for (std::uint32_t s = 0; s < m.sus.size(); ++s) {
        MapDomain d;
        d.name = "nvl_" + std::to_string(s);
        d.key = std::to_string(s) + "0000000.1";
        d.su = s;
        for (const auto h : m.sus[s].hosts) {
            m.hosts[h].domain = s;
            d.members.push_back(m.hosts[h].name);
        }
        m.domains.push_back(d);
    }
    const auto l = block_layout(m);
    CHECK(l.notes.empty());
    CHECK(l.su == 0);  // the SU is the base block
    CHECK(layout_sizes(l) == std::vector<std::size_t>{18, 36});
}
