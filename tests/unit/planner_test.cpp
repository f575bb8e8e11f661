// SPDX-License-Identifier: Apache-2.0
// Tests of the stage planner (bounds reached, determinism, scope) and the α–β cost model.
#include "switchyard/placement/planner.hpp"

#include <algorithm>
#include <random>

#include "catch.hpp"
#include "switchyard/common/hostlist.hpp"

using namespace switchyard;
using namespace switchyard;
using namespace switchyard::placement;
using fabric::FabricKind;
using fabric::FabricMap;

namespace {

/// A map of `groups` groups × `sus` SUs × `hosts` hosts, hosts n0001... numbered in SU order, or
/// interleaved across SUs when `interleave` (host i in SU i mod total).
FabricMap make_map(
    FabricKind kind, unsigned groups, unsigned sus, unsigned hosts, bool interleave = false) {
    FabricMap m;
    m.kind = kind;
    m.hcas = {"mlx5_0"};
    const unsigned total_sus = groups * sus;
    for (unsigned g = 0; g < groups; ++g) {
        m.groups.push_back({"g" + std::to_string(g + 1), {}});
    }
    for (unsigned s = 0; s < total_sus; ++s) {
        m.switches.push_back({"leaf" + std::to_string(s + 1), s + 1, 1});
        fabric::MapSu su;
        su.name = "su" + std::to_string(s + 1);
        su.group = s / sus;
        su.leaves = {s};
        m.sus.push_back(su);
        m.groups[su.group].sus.push_back(s);
    }
    const unsigned n = total_sus * hosts;
    for (unsigned i = 0; i < n; ++i) {
        const unsigned su = interleave ? i % total_sus : i / hosts;
        char name[16];
        std::snprintf(name, sizeof name, "n%04u", i + 1);
        m.rails.push_back({0, su, 1});
        m.hosts.push_back({name, su, static_cast<std::uint32_t>(m.rails.size() - 1), 1});
        m.sus[su].hosts.push_back(i);
    }
    return m;
}

std::vector<std::string> nodes(const std::string& expr) {
    return *expand_hostlist(expr);
}

/// a[0], a[h], a[1], a[h+1], ...: the two halves of `a` alternating.
std::vector<std::string> interleave_halves(const std::vector<std::string>& a) {
    std::vector<std::string> out;
    const auto h = a.size() / 2;
    for (std::size_t i = 0; i < h; ++i) {
        out.push_back(a[i]);
        out.push_back(a[i + h]);
    }
    return out;
}

}  // namespace

TEST_CASE("planner: contiguous allocation, every stage in one SU", "[planner]") {
    const auto m = make_map(FabricKind::FatTree, 1, 4, 4);
    auto p = plan_stages(nodes("n[0001-0016]"), &m, 4, StageScope::Leaf);
    REQUIRE(p);
    CHECK(p->facts.stages_in_one_su == 4);
    CHECK(p->bound.stages_in_one_su == 4);
    CHECK(p->facts.outside_scope == 0);
    CHECK(p->stage_list[0].sus == std::vector<std::string>{"su1"});
    CHECK(p->order.size() == 16);
}

TEST_CASE("planner: interleaved numbering (hosts round-robin over SUs) is regrouped", "[planner]") {
    const auto m = make_map(FabricKind::FatTree, 1, 4, 4, true);
    auto p = plan_stages(nodes("n[0001-0016]"), &m, 4, StageScope::Leaf);
    REQUIRE(p);
    CHECK(p->slurm_facts.stages_in_one_su ==
          0);  // Slurm's order puts one node of each SU per stage
    CHECK(p->facts.stages_in_one_su == 4);
    CHECK(p->stage_list[1].nodes == std::vector<std::string>{"n0002", "n0006", "n0010", "n0014"});
}

TEST_CASE("planner: fragmented and uneven allocations reach both bounds", "[planner]") {
    const auto m = make_map(FabricKind::DragonflyPlus, 3, 2, 4);  // 6 SUs of 4, groups of 8
    struct Case {
        const char* what;
        const char* alloc;
        unsigned stages;
        unsigned su_bound;
        unsigned group_bound;
    };
    const Case cases[] = {
        // SU1 4, SU2 4, SU3 2, SU4 2; k=4: SUs 1+1; groups g1 8→2, g2 4→1.
        {"two SUs full, two half", "n[0001-0008,0009-0010,0013-0014]", 3, 2, 3},
        // one node per SU; k=3: no SU, groups of 2 → none.
        {"one node from each SU", "n[0001,0005,0009,0013,0017,0021]", 2, 0, 0},
        // SU counts 3,4,1,4,2,4; k=3: ⌊c/3⌋ = 1,1,0,1,0,1; groups 7,5,6 → 2,1,2.
        {"uneven SU counts", "n[0001-0003,0005-0008,0009,0013-0016,0017-0018,0021-0024]", 6, 4, 5},
        // SU counts 3,1,2,1,3,2; k=4: no SU; groups 4,3,5 → 1,0,1.
        {"scattered", "n[0002-0004,0006,0011-0012,0015,0018-0020,0023-0024]", 3, 0, 2},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        auto p = plan_stages(nodes(c.alloc), &m, c.stages, StageScope::Any);
        REQUIRE(p);
        CHECK(p->bound.stages_in_one_su == c.su_bound);
        CHECK(p->bound.stages_in_one_group == c.group_bound);
        CHECK(p->facts.stages_in_one_su == p->bound.stages_in_one_su);
        CHECK(p->facts.stages_in_one_group == p->bound.stages_in_one_group);
        CHECK(p->facts.stages_in_one_su >= p->slurm_facts.stages_in_one_su);
        CHECK(p->facts.stages_in_one_group >= p->slurm_facts.stages_in_one_group);
    }
}

TEST_CASE("planner: the plan depends on the node set, not on the order given", "[planner]") {
    const auto m = make_map(FabricKind::DragonflyPlus, 2, 2, 4, true);
    auto list = nodes("n[0001-0012]");
    const auto first = plan_stages(list, &m, 3, StageScope::Group);
    REQUIRE(first);
    std::mt19937 rng(42);
    for (int i = 0; i < 5; ++i) {
        std::shuffle(list.begin(), list.end(), rng);
        const auto again = plan_stages(list, &m, 3, StageScope::Group);
        REQUIRE(again);
        CHECK(again->order == first->order);
    }
}

TEST_CASE("planner: adjacent stages stay in one group", "[planner]") {
    const auto m = make_map(FabricKind::DragonflyPlus, 2, 2, 4);
    auto p = plan_stages(nodes("n[0001-0016]"), &m, 4, StageScope::Leaf);
    REQUIRE(p);
    CHECK(p->stage_list[0].groups == p->stage_list[1].groups);
    CHECK(p->stage_list[2].groups == p->stage_list[3].groups);
    CHECK(p->facts.adjacent_in_one_group == 2);  // 0|1 and 2|3; 1|2 crosses groups
}

TEST_CASE("planner: errors and warnings", "[planner]") {
    const auto m = make_map(FabricKind::FatTree, 1, 2, 4);
    auto uneven = plan_stages(nodes("n[0001-0007]"), &m, 2, StageScope::Any);
    REQUIRE_FALSE(uneven);
    CHECK(uneven.error().message() ==
          "--pipeline-stages=2: 7 nodes do not split into 2 equal stages; use a node count that 2 "
          "divides");
    CHECK_FALSE(plan_stages(nodes("n[0001-0002]"), &m, 0, StageScope::Any));
    CHECK_FALSE(plan_stages({"n0001", "n0001"}, &m, 1, StageScope::Any));
    auto unknown = plan_stages(nodes("n[0001-0003],x9"), &m, 2, StageScope::Leaf);
    REQUIRE(unknown);
    CHECK_THAT(unknown->warnings[0], Catch::Contains("1 node(s) not in the fabric map, e.g. x9"));
    auto nomap = plan_stages(nodes("b2,a1"), nullptr, 1, StageScope::Any);
    REQUIRE(nomap);
    CHECK(nomap->order == std::vector<std::string>{"a1", "b2"});
    CHECK_THAT(format_plan(*unknown), Catch::Contains("stage 0:"));
}

TEST_CASE("planner: cost model cases of reference/nccl.md 8.5", "[planner][cost]") {
    CostParams p;
    p.rails = 8;
    SECTION("non-blocking fat tree: interleaving changes latency only") {
        const auto m = make_map(FabricKind::FatTree, 1, 2, 8);
        const auto contiguous = nodes("n[0001-0016]");
        const auto interleaved = interleave_halves(contiguous);
        const auto a = order_cost(contiguous, &m, 1, p);
        const auto b = order_cost(interleaved, &m, 1, p);
        CHECK(b.dp > a.dp);
        CHECK(b.dp - a.dp < 50e-6);  // a few µs of extra hops, no bandwidth loss
    }
    SECTION("oversubscribed leaf: interleaved order is much slower") {
        p.leaf_oversubscription = 8;  // 8 node ports, 1 uplink per rail
        const auto m = make_map(FabricKind::FatTree, 1, 2, 8);
        const auto contiguous = nodes("n[0001-0016]");
        const auto interleaved = interleave_halves(contiguous);
        CHECK(order_cost(interleaved, &m, 1, p).dp > 4 * order_cost(contiguous, &m, 1, p).dp);
    }
    SECTION("Dragonfly+ split: a stage across groups is many times slower") {
        p.global_links = 1;
        const auto m = make_map(FabricKind::DragonflyPlus, 2, 1, 16);
        const auto all = nodes("n[0001-0032]");
        const auto split = interleave_halves(all);
        const auto good = order_cost(all, &m, 2, p);  // each stage in its group
        const auto bad = order_cost(split, &m, 2, p);
        CHECK(bad.dp > 8 * good.dp);
        auto plan = plan_stages(split, &m, 2, StageScope::Group, p);
        REQUIRE(plan);
        CHECK(plan->cost.dp == Approx(good.dp));
        CHECK(plan->slurm_cost.dp == Approx(bad.dp));
        CHECK(plan->lower_bound_cost.total <= plan->cost.total);
    }
}

TEST_CASE("planner: the rail count comes from the map, not a constant", "[planner][cost]") {
    // The same 16 hosts with one rail each, then with two: the policy says 8 rails either way,
    // but a one-rail node's all-reduce runs on one port.
    auto one = make_map(FabricKind::FatTree, 1, 2, 8);
    auto two = one;
    two.hcas = {"mlx5_0", "mlx5_1"};
    two.rails.clear();
    for (auto& h : two.hosts) {
        h.rail_begin = static_cast<std::uint32_t>(two.rails.size());
        h.rail_count = 2;
        two.rails.push_back({0, h.su, 1});
        two.rails.push_back({1, h.su, 1});
    }
    CostParams p;
    p.rails = 8;
    const auto order = interleave_halves(nodes("n[0001-0016]"));
    const auto c1 = order_cost(order, &one, 1, p);
    const auto c2 = order_cost(order, &two, 1, p);
    CHECK(c1.dp > 1.8 * c2.dp);  // bandwidth-bound: half the ports, about twice the time
    const auto none = order_cost(order, nullptr, 1, p);  // no map: the policy's 8 rails
    CHECK(none.dp < c2.dp);
}

namespace {

/// `m` with cable counts, as discover writes them: each leaf's uplinks per rail, each group's
/// global cables to every other group and its cables to the core.
FabricMap with_cables(FabricMap m,
                      std::uint32_t uplinks,
                      std::uint32_t global,
                      std::uint32_t core = 0) {
    m.link_counts = true;
    for (auto& s : m.switches) {
        s.uplinks = uplinks;
    }
    for (auto& g : m.groups) {
        g.global = global;
        g.uplinks = core;
    }
    return m;
}

/// The bandwidth term of a ring all-reduce of `bytes` over `n` nodes and `rails` rails.
double ring_bytes_time(double n, double bytes, double rails, double bytes_per_s) {
    return 2 * (n - 1) / n * bytes / (rails * bytes_per_s);
}

}  // namespace

TEST_CASE("cost calibration: an NDR all-reduce between two nodes at NCCL's measured speed",
          "[planner][cost]") {
    // 8 NDR rails reach 8 x 47.5 = 380 GB/s of bus bandwidth (the GDR floor of
    // azurehpc-health-checks, 380 Gb/s per 400 Gb/s port); each ring step costs NCCL's own
    // network latency, 14 µs (src/graph/tuning.cc, NET/Ring/Simple).
    const CostParams p;  // the calibrated defaults
    const auto m = with_cables(make_map(FabricKind::FatTree, 1, 2, 8), 8, 0);
    const auto c = order_cost(nodes("n[0001-0002]"), &m, 1, p);
    CHECK(p.link_bytes_per_s == 47.5e9);
    CHECK(p.alpha_net == 14e-6);
    const double expected = 2 * 14e-6 + ring_bytes_time(2, 2e9, 1, 47.5e9);  // one rail in m
    CHECK(c.dp == Approx(expected).epsilon(1e-9));
    CHECK(2e9 / c.dp / 1e9 == Approx(47.47).epsilon(0.001));  // nccl-tests busbw, one rail
    CHECK(c.dp_limit.kind == Limit::Kind::Port);
    CHECK(c.why == "dp at 47.5 GB/s per rail: node ports");
}

TEST_CASE("cost calibration: a 2:1 leaf is full speed alone and half speed when shared",
          "[planner][cost]") {
    // Two SUs of 32 hosts, one rail, 16 uplinks per leaf (2:1, the fabric's own count). A
    // 32-node stage alternating SUs sends 16 flows out of each SU: its 16 uplinks carry them at
    // full speed. A second such job doubles the flows: each gets half.
    const CostParams p;
    const auto m = with_cables(make_map(FabricKind::FatTree, 1, 2, 32), 16, 0);
    const auto a = interleave_halves(nodes("n[0001-0016],n[0033-0048]"));
    const auto b = interleave_halves(nodes("n[0017-0032],n[0049-0064]"));
    const auto inside = nodes("n[0001-0032]");
    const auto alone = shared_cost({a}, {}, &m, p);
    const auto shared = shared_cost({a}, {{b}}, &m, p);
    const double full = ring_bytes_time(32, 2e9, 1, 47.5e9);
    CHECK(alone.dp_bytes_per_s == Approx(47.5e9));
    CHECK(shared.dp_bytes_per_s == Approx(23.75e9));
    CHECK(shared.dp - alone.dp == Approx(full).epsilon(1e-6));  // the bandwidth term doubles
    CHECK(shared.dp_limit.kind == Limit::Kind::Uplinks);
    CHECK(shared.dp_limit.cables == 16);
    CHECK(shared.dp_limit.flows == 32);
    CHECK_THAT(shared.why, Catch::StartsWith("dp at 23.8 GB/s per rail: su1 uplinks, 16 cable(s) "
                                             "per rail for 32 flow(s)"));
    // A stage inside one SU does not care what crosses the uplinks.
    CHECK(shared_cost({inside}, {{b}}, &m, p).dp == Approx(shared_cost({inside}, {}, &m, p).dp));
    CHECK(shared_cost({inside}, {{b}}, &m, p).dp < alone.dp);  // fewer hops too
    // The same fabric read from an older map (no counts): the policy's taper (1 = none) applies.
    auto old = m;
    old.link_counts = false;
    CHECK(shared_cost({a}, {{b}}, &old, p).dp_bytes_per_s == Approx(47.5e9));
}

TEST_CASE("cost calibration: Dragonfly+ global cables from the map pace a split stage",
          "[planner][cost]") {
    // Two groups of 16 hosts, one rail, 2 global cables between them. A 16-node stage split
    // 8 + 8 in order crosses once each way: full speed. Interleaved, 8 flows each way share 2
    // cables: a quarter of the speed, 4 x the bandwidth term.
    const CostParams p;
    const auto m = with_cables(make_map(FabricKind::DragonflyPlus, 2, 1, 16), 16, 2);
    const auto halves = nodes("n[0001-0008],n[0017-0024]");
    const auto mixed = interleave_halves(halves);
    const auto in_order = shared_cost({halves}, {}, &m, p);
    const auto interleaved = shared_cost({mixed}, {}, &m, p);
    CHECK(in_order.dp_bytes_per_s == Approx(47.5e9));
    CHECK(interleaved.dp_bytes_per_s == Approx(47.5e9 / 4));
    // 3 x the bandwidth term more, and 14 more ring edges between groups at 3 extra hops.
    CHECK(interleaved.dp - in_order.dp ==
          Approx(3 * ring_bytes_time(16, 2e9, 1, 47.5e9) + 2 * 15 * (14 * 3 * 0.25e-6) / 16)
              .epsilon(1e-9));
    CHECK_THAT(interleaved.why, Catch::StartsWith("dp at 11.9 GB/s per rail: global links g1-g2, "
                                                  "2 cable(s) per rail for 8 flow(s)"));
    // A pipeline boundary between groups: 16 sends share the 2 cables.
    const auto pp = shared_cost({nodes("n[0001-0016]"), nodes("n[0017-0032]")}, {}, &m, p);
    CHECK(pp.pp_bytes_per_s == Approx(47.5e9 * 2 / 16));
    CHECK(pp.pp_limit.kind == Limit::Kind::Global);
    // The plan report says the same.
    auto plan = plan_stages(mixed, &m, 1, StageScope::Any, p);
    REQUIRE(plan);
    CHECK_THAT(format_plan(*plan), Catch::Contains("    Slurm order: dp at 11.9 GB/s per rail: "
                                                   "global links g1-g2"));
}

TEST_CASE("cost calibration: a 3-level fat tree's pod links to the core pace a split stage",
          "[planner][cost]") {
    // Two pods of 2 SUs x 8 hosts, one rail, leaves non-blocking (8 uplinks), 4 cables from each
    // pod to the core (4:1). A 16-node stage split 8 + 8 between the pods in order crosses once
    // each way; interleaved, 8 flows leave each pod over its 4 core cables: half speed.
    const CostParams p;
    const auto m = with_cables(make_map(FabricKind::FatTree3, 2, 2, 8), 8, 0, 4);
    const auto halves = nodes("n[0001-0008],n[0017-0024]");
    const auto mixed = interleave_halves(halves);
    const auto in_order = shared_cost({halves}, {}, &m, p);
    const auto interleaved = shared_cost({mixed}, {}, &m, p);
    CHECK(in_order.dp_bytes_per_s == Approx(47.5e9));
    CHECK(interleaved.dp_bytes_per_s == Approx(47.5e9 / 2));
    CHECK(interleaved.dp_limit.kind == Limit::Kind::PodUp);
    CHECK_THAT(interleaved.why, Catch::StartsWith("dp at 23.8 GB/s per rail: pod g1 links to the "
                                                  "core, 4 cable(s) per rail for 8 flow(s)"));
    CHECK(interleaved.dp - in_order.dp ==
          Approx(ring_bytes_time(16, 2e9, 1, 47.5e9) + 2 * 15 * (14 * 4 * 0.25e-6) / 16)
              .epsilon(1e-9));
    // The same map as a 2-level fat tree has no core: no pod limit.
    auto flat = m;
    flat.kind = FabricKind::FatTree;
    CHECK(shared_cost({mixed}, {}, &flat, p).dp_bytes_per_s == Approx(47.5e9));
}

namespace {

/// One SU of 8 hosts (n0001..n0008) in NVLink domains of 4, members interleaved by name:
/// d0 = n0001,n0003,n0005,n0007 and d1 = the even ones; `state` for d1.
FabricMap nvl_map(fabric::DomainState d1 = fabric::DomainState::Ok) {
    auto m = make_map(FabricKind::FatTree, 1, 1, 8);
    m.domains = {{"nvl_d0", "d0.1", 0, fabric::DomainState::Ok, {}}, {"nvl_d1", "d1.1", 0, d1, {}}};
    for (std::uint32_t i = 0; i < m.hosts.size(); ++i) {
        m.hosts[i].domain = i % 2;
        m.domains[i % 2].members.push_back(m.hosts[i].name);
    }
    return m;
}

}  // namespace

TEST_CASE("planner: NVLink groups keep their ranks in one domain", "[planner][nvlink]") {
    const auto m = nvl_map();
    const auto all = nodes("n[0001-0008]");
    auto p = plan_stages(all, &m, 2, StageScope::Any, {}, 2);
    REQUIRE(p);
    // Each stage is one domain, its nodes in name order; Slurm's order alternates domains.
    CHECK(p->order == std::vector<std::string>{"n0001", "n0003", "n0005", "n0007", "n0002", "n0004",
                                               "n0006", "n0008"});
    CHECK(p->facts.nvl_groups == 4);
    CHECK(p->facts.nvl_groups_in_one_domain == 4);
    CHECK(p->slurm_facts.nvl_groups_in_one_domain == 0);
    // The DP rings stay on NVLink: the plan's DP runs at NVLink speed, Slurm's at the network's.
    INFO(p->cost.why);
    CHECK(p->cost.dp_limit.kind == Limit::Kind::NvLink);
    CHECK(p->cost.why.rfind("dp at 900.0 GB/s per rail: NVLink domain nvl_d0", 0) == 0);
    CHECK(p->slurm_cost.dp > 10 * p->cost.dp);
    // The bound knows a domain holds a stage (4 of the nodes), not two (8): DP on NVLink only.
    CHECK(p->lower_bound_cost.dp <= p->cost.dp);
    CHECK(p->lower_bound_cost.total <= p->cost.total);
    // Groups of 3 do not divide stages of 4: said; groups of 4 fit each domain whole.
    auto odd = plan_stages(all, &m, 2, StageScope::Any, {}, 3);
    REQUIRE(odd);
    CHECK(odd->warnings.back() == "NVLink groups of 3 do not divide stages of 4 nodes");
    auto one = plan_stages(all, &m, 1, StageScope::Any, {}, 4);
    REQUIRE(one);
    CHECK(one->facts.nvl_groups_in_one_domain == 2);
}

TEST_CASE("planner: a degraded domain is not NVLink to the cost model", "[planner][nvlink]") {
    const auto m = nvl_map(fabric::DomainState::Degraded);
    auto p = plan_stages(nodes("n[0001-0008]"), &m, 2, StageScope::Any, {}, 2);
    REQUIRE(p);
    // The order still keeps each domain together (the planner places, the prolog gates), but
    // the degraded domain's stage runs at the network's speed and paces the step.
    CHECK(p->facts.nvl_groups_in_one_domain == 4);
    CHECK(p->cost.dp_limit.kind == Limit::Kind::Port);
    CHECK(p->cost.dp_bytes_per_s == 47.5e9);
}

TEST_CASE("planner: stages striped when packed pipeline sends cross thin global links",
          "[planner][stripe]") {
    // Two groups of 16 hosts, 2 global cables between them. Packed, the boundary's 16 sends
    // share the 2 cables; striped (node p to stage p mod 2), each stage's ring crosses them
    // once each way and the sends stay inside an SU.
    CostParams p;
    CHECK_FALSE(p.stripe);  // an opt-in of the policy
    p.stripe = true;
    const auto m = with_cables(make_map(FabricKind::DragonflyPlus, 2, 1, 16), 16, 2);
    const auto all = nodes("n[0001-0032]");
    auto plan = plan_stages(all, &m, 2, StageScope::Any, p);
    REQUIRE(plan);
    CHECK(plan->striped);
    REQUIRE(plan->stage_list.size() == 2);
    CHECK(plan->stage_list[0].nodes == nodes("n0001,n0003,n0005,n0007,n0009,n0011,n0013,n0015,"
                                             "n0017,n0019,n0021,n0023,n0025,n0027,n0029,n0031"));
    CHECK(plan->stage_list[0].groups == std::vector<std::string>{"g1", "g2"});
    CHECK(plan->facts.stages_in_one_group == 0);
    CHECK(plan->bound.stages_in_one_group == 2);  // what packing would have reached
    // The order is the stages one after the other, and the costs are the model's own.
    std::vector<std::string> concat = plan->stage_list[0].nodes;
    concat.insert(concat.end(), plan->stage_list[1].nodes.begin(), plan->stage_list[1].nodes.end());
    CHECK(plan->order == concat);
    const auto packed = shared_cost({nodes("n[0001-0016]"), nodes("n[0017-0032]")}, {}, &m, p);
    CHECK(plan->packed_cost.total == Approx(packed.total));
    CHECK(plan->packed_cost.pp_limit.kind == Limit::Kind::Global);
    CHECK(
        plan->cost.total ==
        Approx(
            shared_cost({plan->stage_list[0].nodes, plan->stage_list[1].nodes}, {}, &m, p).total));
    CHECK(plan->cost.total <= kStripeGain * packed.total);
    CHECK(plan->cost.pp_limit.kind == Limit::Kind::Port);
    CHECK_THAT(format_plan(*plan), Catch::Contains("  note: stages striped over the nodes") &&
                                       Catch::Contains("  note: packed: ") &&
                                       Catch::Contains("global links g1-g2"));

    // The same plan from any order of the same nodes.
    auto shuffled = all;
    std::mt19937 rng(7);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    auto again = plan_stages(shuffled, &m, 2, StageScope::Any, p);
    REQUIRE(again);
    CHECK(again->order == plan->order);

    SECTION("a scope asked for keeps every stage packed") {
        auto group = plan_stages(all, &m, 2, StageScope::Group, p);
        REQUIRE(group);
        CHECK_FALSE(group->striped);
        CHECK(group->facts.stages_in_one_group == 2);
        CHECK(group->cost.total == Approx(packed.total));
        CHECK(group->notes.empty());
    }
    SECTION("placement.stripe_stages: never (the default) keeps it packed") {
        p.stripe = false;
        auto never = plan_stages(all, &m, 2, StageScope::Any, p);
        REQUIRE(never);
        CHECK_FALSE(never->striped);
        CHECK(never->facts.stages_in_one_group == 2);
    }
    SECTION("NVLink groups keep it packed") {
        auto nvl = plan_stages(all, &m, 2, StageScope::Any, p, 4);
        REQUIRE(nvl);
        CHECK_FALSE(nvl->striped);
    }
    SECTION("enough global cables: packing is as fast, so it stays") {
        const auto wide = with_cables(make_map(FabricKind::DragonflyPlus, 2, 1, 16), 16, 16);
        auto w = plan_stages(all, &wide, 2, StageScope::Any, p);
        REQUIRE(w);
        CHECK_FALSE(w->striped);
        CHECK(w->stage_list[0].nodes == nodes("n[0001-0016]"));
    }
    SECTION("striped exactly when it models at most kStripeGain of the packed step") {
        unsigned striped = 0;
        for (const std::uint32_t cables : {1U, 2U, 4U, 8U, 12U, 16U}) {
            const auto f = with_cables(make_map(FabricKind::DragonflyPlus, 2, 1, 16), 16, cables);
            auto c = plan_stages(all, &f, 2, StageScope::Any, p);
            REQUIRE(c);
            const auto packed_c =
                shared_cost({nodes("n[0001-0016]"), nodes("n[0017-0032]")}, {}, &f, p);
            const auto striped_c =
                shared_cost({plan->stage_list[0].nodes, plan->stage_list[1].nodes}, {}, &f, p);
            INFO(cables << " cables: packed " << packed_c.total << " s, striped " << striped_c.total
                        << " s");
            CHECK(c->striped == (striped_c.total <= kStripeGain * packed_c.total));
            striped += c->striped ? 1U : 0U;
        }
        CHECK(striped > 0);
        CHECK(striped < 6);  // both answers occur
    }
}

TEST_CASE("planner: stripe deals an order into stages, or nothing when they do not divide it",
          "[planner][stripe]") {
    const auto order = nodes("n[0001-0006]");
    CHECK(stripe(order, 2) == std::vector<std::vector<std::string>>{nodes("n0001,n0003,n0005"),
                                                                    nodes("n0002,n0004,n0006")});
    CHECK(stripe(order, 1) == std::vector<std::vector<std::string>>{order});
    CHECK(stripe(order, 4).empty());
    CHECK(stripe(order, 0).empty());
}
