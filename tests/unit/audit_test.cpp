// SPDX-License-Identifier: Apache-2.0
// Tests of the placement audit: a job's stages against the map, and each request's verdict.
#include "switchyard/placement/audit.hpp"

#include "catch.hpp"
#include "switchyard/common/hostlist.hpp"

using namespace switchyard;
using namespace switchyard::placement;
using Verdict = RequestCheck::Verdict;

namespace {

/// Two groups of two SUs of four hosts: su1 = n[1-4], su2 = n[5-8] (g1), su3, su4 (g2).
fabric::FabricMap four_sus() {
    fabric::FabricMap m;
    m.kind = fabric::FabricKind::DragonflyPlus;
    m.hcas = {"mlx5_0"};
    m.groups = {{"g1", {0, 1}}, {"g2", {2, 3}}};
    for (std::uint32_t s = 0; s < 4; ++s) {
        m.switches.push_back({"leaf" + std::to_string(s + 1), s + 1, 1});
        fabric::MapSu su;
        su.name = "su" + std::to_string(s + 1);
        su.group = s / 2;
        su.leaves = {s};
        m.sus.push_back(su);
    }
    for (std::uint32_t i = 0; i < 16; ++i) {
        m.rails.push_back({0, i / 4, 1});
        m.hosts.push_back({"n" + std::to_string(i + 10), i / 4, i, 1});  // n10..n25: sorted
        m.sus[i / 4].hosts.push_back(i);
    }
    return m;
}

AuditedJob job(const std::string& nodes, unsigned stages, std::optional<StageScope> scope) {
    AuditedJob j;
    j.id = "42";
    j.partition = "gpu";
    j.topology = "tree";
    j.nodes = *expand_hostlist(nodes);
    j.stages = stages;
    j.scope = scope;
    return j;
}

const RequestCheck& check(const JobAudit& a, std::string_view prefix) {
    for (const auto& c : a.checks) {
        if (c.request.starts_with(prefix)) {
            return c;
        }
    }
    FAIL("no check " << prefix);
    return a.checks.front();
}

}  // namespace

TEST_CASE("audit: stages inside SUs honour a leaf scope", "[audit]") {
    const auto map = four_sus();
    const AuditContext ctx{&map, {}, {}, {}, nullptr, {}};
    const auto a = audit_job(job("n[10-17]", 2, StageScope::Leaf), ctx);
    REQUIRE(a.stages.size() == 2);
    CHECK(a.stages[0].sus == std::vector<std::string>{"su1"});
    CHECK(a.stages[1].sus == std::vector<std::string>{"su2"});
    CHECK(a.stages[0].domains == std::vector<std::string>{"-"});
    CHECK(a.stages_in_one_su == 2);
    CHECK(a.sus == 2);
    CHECK(a.fewest_sus == 2);
    CHECK(check(a, "--stage-scope").verdict == Verdict::Honoured);
    CHECK_FALSE(a.broken());
}

TEST_CASE("audit: a stage across SUs breaks a leaf scope, and says which", "[audit]") {
    const auto map = four_sus();
    const AuditContext ctx{&map, {}, {}, {}, nullptr, {}};
    // Three nodes of su1, one of su2, two of su3 and two of su4: 4-node stages cannot all fit.
    auto a = audit_job(job("n[10-12,14,18-19,22-23]", 2, StageScope::Leaf), ctx);
    const auto& c = check(a, "--stage-scope=leaf");
    CHECK(c.verdict == Verdict::Broken);
    CHECK(c.detail.find("spans su1, su2") != std::string::npos);
    CHECK(a.broken());
    CHECK(a.sus == 4);
    // A group scope holds: each stage stays inside one group.
    a = audit_job(job("n[10-12,14,18-19,22-23]", 2, StageScope::Group), ctx);
    CHECK(check(a, "--stage-scope=group").verdict == Verdict::Honoured);
    // No scope asked: reported, never broken.
    a = audit_job(job("n[10-12,14,18-19,22-23]", 2, std::nullopt), ctx);
    CHECK(a.checks.empty());
    CHECK(a.stages_in_one_su == 0);  // 3+1 and 2+2: no stage fits one SU
    CHECK(a.best_stages_in_one_su == 0);
}

TEST_CASE("audit: --segment wants whole segments in every block", "[audit]") {
    const auto map = four_sus();
    AuditContext ctx{&map, {}, {}, {}, nullptr, {}};
    auto j = job("n[10-11],n[14-15]", 2, StageScope::Leaf);
    j.topology = "block";
    j.segment = 2;
    CHECK(check(audit_job(j, ctx), "--segment=2").verdict == Verdict::Honoured);
    j.nodes = *expand_hostlist("n[10-12],n14");
    const auto bad = check(audit_job(j, ctx), "--segment=2");
    CHECK(bad.verdict == Verdict::Broken);
    CHECK(bad.detail.find("3 node(s) in block su1") != std::string::npos);
    // The blocks of the installed block topology, when given, decide.
    ctx.block_of = {{"n10", "b1"}, {"n11", "b1"}, {"n12", "b2"}, {"n14", "b2"}};
    CHECK(check(audit_job(j, ctx), "--segment=2").verdict == Verdict::Honoured);
    // A tree ignores --segment: nothing to check there.
    j.topology = "tree";
    for (const auto& c : audit_job(j, ctx).checks) {
        CHECK(c.request.find("--segment") == std::string::npos);
    }
}

TEST_CASE("audit: --switches broken before its wait, relaxed after it", "[audit]") {
    const auto map = four_sus();
    const AuditContext ctx{&map, {}, {}, {}, nullptr, {}};
    auto j = job("n[10-11],n[14-15]", 0, std::nullopt);
    j.switches = 1;
    j.switch_wait_s = 60;
    j.waited_s = 5;
    CHECK(check(audit_job(j, ctx), "--switches=1").verdict == Verdict::Broken);
    j.waited_s = 61;
    CHECK(check(audit_job(j, ctx), "--switches=1").verdict == Verdict::Relaxed);
    j.switches = 2;
    CHECK(check(audit_job(j, ctx), "--switches=2").verdict == Verdict::Honoured);
    j.waited_s.reset();
    j.switches = 1;
    CHECK(check(audit_job(j, ctx), "--switches=1").detail.find("start time is unknown") !=
          std::string::npos);
}

TEST_CASE("audit: a leaf scope Slurm relaxed after the switch wait is relaxed, not broken",
          "[audit]") {
    // The advice line tells a stage-scoped job on a tree to ask --switches with a wait; after
    // the wait Slurm may spread it, as documented: counted apart, never as placed worse.
    const auto map = four_sus();
    const AuditContext ctx{&map, {}, {}, {}, nullptr, {}};
    auto j = job("n[10-12,14,18-19,22-23]", 2, StageScope::Leaf);
    j.topology = "tree";
    j.switches = 1;
    j.switch_wait_s = 60;
    j.waited_s = 61;
    auto a = audit_job(j, ctx);
    CHECK(check(a, "--stage-scope=leaf").verdict == Verdict::Relaxed);
    CHECK(check(a, "--stage-scope=leaf").detail.find("after its --switches wait ran out") !=
          std::string::npos);
    CHECK(check(a, "--switches=1").verdict == Verdict::Relaxed);
    CHECK_FALSE(a.broken());
    CHECK(a.relaxed());
    // Before the wait ran out the same placement is broken.
    j.waited_s = 5;
    a = audit_job(j, ctx);
    CHECK(check(a, "--stage-scope=leaf").verdict == Verdict::Broken);
    CHECK(a.broken());
    CHECK_FALSE(a.relaxed());
}

TEST_CASE("audit: constraints must hold, preferences may not", "[audit]") {
    const auto map = four_sus();
    AuditContext ctx{&map, {}, {}, {}, nullptr, {}};
    for (int i = 10; i < 26; ++i) {
        ctx.features["n" + std::to_string(i)] = {i < 18 ? "grp_g1" : "grp_g2"};
    }
    auto j = job("n[16-19]", 0, std::nullopt);
    j.features = "[grp_g1|grp_g2]";
    j.prefer = "[grp_g1|grp_g2]";
    const auto a = audit_job(j, ctx);
    CHECK(check(a, "--constraint").verdict == Verdict::Broken);
    CHECK(check(a, "--prefer").verdict == Verdict::Relaxed);
    j.nodes = *expand_hostlist("n[18-21]");
    CHECK_FALSE(audit_job(j, ctx).broken());
    j.features = "(grp_g1|grp_g2)*2";
    CHECK(check(audit_job(j, ctx), "--constraint").verdict == Verdict::Unchecked);
}

TEST_CASE("audit: Slurm's feature expressions the audit reads", "[audit]") {
    const std::map<std::string, std::set<std::string>> f = {
        {"a", {"x", "y"}}, {"b", {"x"}}, {"c", {"z"}}};
    CHECK(features_hold("x", {"a", "b"}, f) == true);
    CHECK(features_hold("x&y", {"a", "b"}, f) == false);
    CHECK(features_hold("x|z", {"a", "c"}, f) == true);
    CHECK(features_hold("[x|z]", {"a", "c"}, f) == false);
    CHECK(features_hold("[x|z]", {"a", "b"}, f) == true);
    CHECK(features_hold("x", {"a", "unknown"}, f) == false);
    CHECK_FALSE(features_hold("x*2", {"a"}, f));
    CHECK_FALSE(features_hold("!x", {"a"}, f));
    CHECK_FALSE(features_hold("x&y|z", {"a"}, f));
}

TEST_CASE("audit: nodes outside the map, and stages that cannot be cut", "[audit]") {
    const auto map = four_sus();
    const AuditContext ctx{&map, {}, {}, {}, nullptr, {}};
    auto a = audit_job(job("n[10-12],other1", 2, StageScope::Leaf), ctx);
    CHECK(a.unmapped == std::vector<std::string>{"other1"});
    CHECK(check(a, "--stage-scope=leaf").verdict == Verdict::Broken);
    a = audit_job(job("n[10-12]", 2, StageScope::Leaf), ctx);  // 3 nodes, 2 stages
    CHECK(check(a, "--pipeline-stages=2").verdict == Verdict::Unchecked);
    CHECK_FALSE(a.broken());
}

TEST_CASE("audit: the best the free nodes at a job's start allowed", "[audit]") {
    const auto map = four_sus();
    // Job 42: 8 nodes in 2 stages over three SUs, started at t=100.
    auto j = job("n[12-17,18-19]", 2, StageScope::Leaf);
    j.start_time = 100;
    std::set<std::string> all;
    for (const auto& h : map.hosts) {
        all.insert(h.name);
    }
    const std::vector<Holding> holdings = {
        {"42", j.nodes, 100, 200, {}},                              // itself: free to it
        {"7", *expand_hostlist("n[20-25]"), 50, std::nullopt, {}},  // still running
        {"8", *expand_hostlist("n[10-11]"), 10, 100, {}},           // ended at its start
        {"9", *expand_hostlist("n[10-11]"), 101, 300, {}},          // started after it
    };
    auto best = best_at_start(j, 100, all, holdings, map);
    CHECK(best.free_nodes == 10);  // all 16 less job 7's six
    CHECK(best.fewest_sus == 2);   // su1 and su2 were free whole
    CHECK(best.stages_in_one_su == 2);
    // With su1 held too, 8 nodes need three SUs and one stage of four fits in one.
    const std::vector<Holding> busier = {{"7", *expand_hostlist("n[20-25]"), 50, std::nullopt, {}},
                                         {"6", *expand_hostlist("n[10-11]"), 90, 150, {}}};
    best = best_at_start(j, 100, all, busier, map);
    CHECK(best.free_nodes == 8);
    CHECK(best.fewest_sus == 3);
    CHECK(best.stages_in_one_su == 1);
    // A node event (drained, down) holds its nodes too, but never the job's own.
    const std::vector<Holding> drained = {
        {"node event DRAIN", *expand_hostlist("n[10-11]"), 90, 150, {}},
        {"node event UNK", *expand_hostlist("n[12-13]"), 90, 150, {}},
        {"7", *expand_hostlist("n[20-25]"), 50, std::nullopt, {}}};
    best = best_at_start(j, 100, all, drained, map);
    CHECK(best.free_nodes == 8);  // n10 and n11 drained; n12 and n13 its own
    CHECK(best.fewest_sus == 3);
    // A reservation holds its nodes from the jobs that did not run in it, not from its own.
    const std::vector<Holding> reserved = {
        {"reservation maint", *expand_hostlist("n[10-11,20-21,24-25]"), 90, 150, "maint"},
        {"reservation later", *expand_hostlist("n[22-23]"), 101, 150, "later"}};
    best = best_at_start(j, 100, all, reserved, map);
    CHECK(best.free_nodes == 10);  // two in su1, su3 and su4 reserved; "later" had not begun
    CHECK(best.fewest_sus == 3);
    auto in_it = j;
    in_it.reservation = "maint";
    best = best_at_start(in_it, 100, all, reserved, map);
    CHECK(best.free_nodes == 16);
    CHECK(best.fewest_sus == 2);
    // Through audit_job: the partition's nodes are the candidates, the job's own added.
    AuditContext ctx{&map, {}, {}, {}, &busier, {{"gpu", {"n14", "n15", "n16", "n17"}}}};
    const auto a = audit_job(j, ctx);
    REQUIRE(a.at_start);
    CHECK(a.at_start->free_nodes == 8);  // su2's four and its own (n12, n13, n18, n19)
    CHECK(a.at_start->stages_in_one_su == 1);
    // With the index made once (as the CLI does), the same figures; nodes outside the map
    // count as free or held like the others, in no SU.
    const std::vector<Holding> with_other = {
        {"7", *expand_hostlist("n[20-25]"), 50, std::nullopt, {}},
        {"6", {"n10", "x1"}, 90, 150, {}}};
    AuditContext indexed{&map, {}, {}, {}, &with_other, {{"gpu", {"n14", "n15", "x1", "x2"}}}};
    const auto plain = audit_job(j, indexed);
    const auto index = index_holdings(with_other, indexed.partition_nodes, map);
    indexed.holding_index = &index;
    const auto fast = audit_job(j, indexed);
    REQUIRE(plain.at_start);
    REQUIRE(fast.at_start);
    CHECK(plain.at_start->free_nodes == 9);  // x2 and its own eight (n14, n15 among them)
    CHECK(fast.at_start->free_nodes == plain.at_start->free_nodes);
    CHECK(fast.at_start->fewest_sus == plain.at_start->fewest_sus);
    CHECK(fast.at_start->stages_in_one_su == plain.at_start->stages_in_one_su);
    auto outside = j;
    outside.nodes.push_back("x3");  // a node of its own nobody else names
    CHECK(audit_job(outside, indexed).at_start->free_nodes == 10);
    // Without holdings (no accounting asked) there is no such figure.
    const AuditContext none{&map, {}, {}, {}, nullptr, {}};
    CHECK_FALSE(audit_job(j, none).at_start);
}

TEST_CASE("audit: a plan striped over thin global links is reported as the plan's choice",
          "[audit]") {
    auto map = four_sus();  // one global cable between g1 and g2, non-blocking leaves
    map.link_counts = true;
    for (auto& s : map.switches) {
        s.uplinks = 4;
    }
    for (auto& g : map.groups) {
        g.global = 1;
    }
    AuditContext ctx{&map, {}, {}, {}, nullptr, {}};
    ctx.params.stripe = true;  // placement.stripe_stages: auto
    auto a = audit_job(job("n[10-25]", 2, std::nullopt), ctx);
    CHECK(a.striped);
    REQUIRE(a.stages.size() == 2);
    CHECK(a.stages[0].groups == std::vector<std::string>{"g1", "g2"});
    CHECK(a.stages_in_one_su == 0);
    CHECK(a.best_stages_in_one_su == 0);  // 8-node stages never fit a 4-node SU
    CHECK(a.checks.empty());
    CHECK_FALSE(a.broken());
    // A group scope forbids it: packed, and honoured.
    a = audit_job(job("n[10-25]", 2, StageScope::Group), ctx);
    CHECK_FALSE(a.striped);
    CHECK(a.stages[0].groups == std::vector<std::string>{"g1"});
    CHECK(check(a, "--stage-scope=group").verdict == Verdict::Honoured);
    // So does the policy (placement.stripe_stages: never, the default).
    AuditContext never = ctx;
    never.params.stripe = false;
    a = audit_job(job("n[10-25]", 2, std::nullopt), never);
    CHECK_FALSE(a.striped);
    CHECK(a.stages[1].groups == std::vector<std::string>{"g2"});
}
