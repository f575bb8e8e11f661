// SPDX-License-Identifier: Apache-2.0
// Advice before waiting: whether a job's unit request fits the usable nodes, and what would
// start instead. Two groups of two units of 4 nodes (b1, b2 in g1; b3, b4 in g2), as the
// 16-node test cluster's blocks.
#include "switchyard/placement/advice.hpp"

#include <string>
#include <vector>

#include "catch.hpp"

using namespace switchyard;
using namespace switchyard::placement;
using Kind = Advice::Kind;

namespace {

AdviceUnits cluster() {
    AdviceUnits u;
    for (int i = 0; i < 16; ++i) {
        const auto node = "n" + std::to_string(i + 1);
        u.unit_of[node] = "b" + std::to_string(i / 4 + 1);
        u.group_of[node] = "g" + std::to_string(i / 8 + 1);
    }
    u.group_block = 8;
    return u;
}

/// The nodes n<first>..n<last>, and more ranges.
std::vector<std::string> nodes(std::initializer_list<std::pair<int, int>> ranges) {
    std::vector<std::string> out;
    for (const auto& [first, last] : ranges) {
        for (int i = first; i <= last; ++i) {
            out.push_back("n" + std::to_string(i));
        }
    }
    return out;
}

AdviceRequest block_job(unsigned n, unsigned stages) {
    AdviceRequest r;
    r.nodes = n;
    r.stages = stages;
    r.scope = StageScope::Leaf;
    r.block = true;
    r.segment = n / stages;
    return r;
}

}  // namespace

TEST_CASE("advice: segments that fit the usable blocks start now", "[advice]") {
    // b1 4, b2 4, b3 2, b4 2 usable: two segments of 4.
    const auto a = advise(block_job(8, 2), cluster(), nodes({{1, 8}, {9, 10}, {13, 14}}));
    CHECK(a.kind == Kind::StartsNow);
    CHECK(a.units_that_fit == 2);
    CHECK(a.usable == 12);
    CHECK(a.instead.empty());
}

TEST_CASE("advice: segments that do not fit say why and what starts now", "[advice]") {
    // 12 usable nodes, 3 in each block: no segment of 4 fits anywhere.
    const auto usable = nodes({{1, 3}, {5, 7}, {9, 11}, {13, 15}});
    const auto a = advise(block_job(8, 2), cluster(), usable);
    CHECK(a.kind == Kind::WaitsForLayout);
    CHECK(a.units_that_fit == 0);
    // Four stages of 2: four segments of 2, one per block. Fewer nodes: -N6 would need
    // segments of 3, which fit. --stage-scope=any would keep the 8 nodes in one group block,
    // but no group has 8 usable: not offered.
    REQUIRE(a.instead.size() == 2);
    CHECK(a.instead[0] == "--pipeline-stages=4 (stages of 2 nodes)");
    CHECK(a.instead[1] == "-N6");
    // 6 nodes in stages of 3, b1 2 and b2 4 usable: one segment of 3 fits, but the whole job
    // fits group g1 without segments.
    const auto grouped = advise(block_job(6, 2), cluster(), nodes({{1, 2}, {5, 8}}));
    CHECK(grouped.kind == Kind::WaitsForLayout);
    CHECK(grouped.instead.back() == "--stage-scope=any");
    CHECK(a.sentence.find("2 segments of 4 nodes, each inside one block (--segment=4) cannot "
                          "start now: the usable nodes make 0 such segments") == 0);
    CHECK(a.sentence.find("b1 3, b2 3, b3 3, b4 3") != std::string::npos);
}

TEST_CASE("advice: a wider scope is offered only when it would start", "[advice]") {
    // 16 nodes in 4 stages, usable 3 per block: 12 < 16, the job waits for nodes.
    const auto usable = nodes({{1, 3}, {5, 7}, {9, 11}, {13, 15}});
    const auto waits = advise(block_job(16, 4), cluster(), usable);
    CHECK(waits.kind == Kind::WaitsForNodes);
    CHECK(waits.sentence.find("16 nodes asked, 12 usable") == 0);
    // 12 nodes in 3 stages of 4: no segment of 4; 12 is over the group block, so
    // --stage-scope=any still asks segments and is not offered.
    const auto a = advise(block_job(12, 3), cluster(), usable);
    CHECK(a.kind == Kind::WaitsForLayout);
    for (const auto& s : a.instead) {
        CHECK(s != "--stage-scope=any");
    }
    CHECK(a.instead.front() == "--pipeline-stages=4 (stages of 3 nodes)");
}

TEST_CASE("advice: a user's own segment stays when it still makes whole stages", "[advice]") {
    auto r = block_job(8, 2);
    r.segment = 2;  // the user's: stages of 4 as two segments of 2
    // b1 2, b2 1, b3 1, b4 1 usable, and three nodes outside the map: 8 in all.
    auto usable = nodes({{1, 2}, {5, 5}, {9, 9}, {13, 13}});
    usable.insert(usable.end(), {"x1", "x2", "x3"});
    const auto a = advise(r, cluster(), usable);
    CHECK(a.kind == Kind::WaitsForLayout);
    CHECK(a.units_that_fit == 1);
    // More stages keep --segment=2 (stages of 2: one segment each), still one fits; fewer
    // nodes: -N2 as two stages of 1 cannot hold a segment of 2. Nothing starts now.
    for (const auto& s : a.instead) {
        CHECK(s.rfind("--pipeline-stages", 0) != 0);
    }
}

TEST_CASE("advice: a tree's switch count fits the SUs with the most usable nodes", "[advice]") {
    AdviceRequest r;
    r.nodes = 8;
    r.stages = 2;
    r.scope = StageScope::Leaf;
    r.switches = 2;
    r.switch_wait_s = 60;
    // SU b1 2, b2 2, b3 3, b4 3 usable: the best two hold 6 < 8.
    const auto usable = nodes({{1, 2}, {5, 6}, {9, 11}, {13, 15}});
    const auto a = advise(r, cluster(), usable);
    CHECK(a.kind == Kind::WaitsForLayout);
    CHECK(a.units_that_fit == 6);
    CHECK(a.sentence.find("the 2 SUs with the most usable nodes hold 6 (b3 3, b4 3, b1 2, b2 2)") !=
          std::string::npos);
    CHECK(a.sentence.find("Slurm waits up to 60 s for them") != std::string::npos);
    // Four stages (--switches=4) hold all 10; -N6 in the best two; --stage-scope=any anywhere.
    REQUIRE(a.instead.size() == 3);
    CHECK(a.instead[0] == "--pipeline-stages=4 (stages of 2 nodes)");
    CHECK(a.instead[1] == "-N6");
    CHECK(a.instead[2] == "--stage-scope=any");
    r.switches = 3;
    CHECK(advise(r, cluster(), usable).kind == Kind::StartsNow);
}

TEST_CASE("advice: one group on a tree, and jobs that ask no unit", "[advice]") {
    AdviceRequest r;
    r.nodes = 6;
    r.stages = 2;
    r.scope = StageScope::Group;
    r.one_group = true;
    const auto usable = nodes({{1, 5}, {9, 13}});  // g1 5, g2 5
    const auto a = advise(r, cluster(), usable);
    CHECK(a.kind == Kind::WaitsForLayout);
    CHECK(a.units_that_fit == 5);
    REQUIRE_FALSE(a.instead.empty());
    CHECK(a.instead.back() == "--stage-scope=any");
    for (const auto& s : a.instead) {
        CHECK(s.rfind("--pipeline-stages", 0) != 0);  // more stages change nothing here
    }
    r.one_group = false;
    r.scope = StageScope::Any;
    const auto plain = advise(r, cluster(), usable);
    CHECK(plain.kind == Kind::NothingAsked);
    CHECK(plain.instead.empty());
}

TEST_CASE("advice: nodes outside the map count as usable but in no unit", "[advice]") {
    auto usable = nodes({{1, 4}});
    usable.emplace_back("other1");
    const auto a = advise(block_job(4, 1), cluster(), usable);
    CHECK(a.kind == Kind::StartsNow);
    CHECK(a.usable == 5);
    const auto none = advise(block_job(4, 1), cluster(), {});
    CHECK(none.kind == Kind::WaitsForNodes);
    AdviceRequest zero;
    zero.nodes = 0;
    CHECK(advise(zero, cluster(), usable).kind == Kind::NothingAsked);
}

TEST_CASE("advice: spread segments need a block each", "[advice]") {
    // b1 4, b2 4 usable, b3 and b4 none: two segments of 2 fit b1 alone, but spread over
    // blocks of their own, four segments need four blocks.
    auto r = block_job(8, 4);
    const auto usable = nodes({{1, 8}});
    CHECK(advise(r, cluster(), usable).kind == Kind::StartsNow);
    r.spread = true;
    const auto a = advise(r, cluster(), usable);
    CHECK(a.kind == Kind::WaitsForLayout);
    CHECK(a.units_that_fit == 2);
    CHECK(a.sentence.find("each inside a block of its own (--segment=2 --spread-segments)") !=
          std::string::npos);
    // Smaller stages or fewer nodes need as many blocks or more; without --stage-scope=leaf
    // the 8 nodes fit group g1 with no segments.
    CHECK(a.instead == std::vector<std::string>{"--stage-scope=any"});
}
