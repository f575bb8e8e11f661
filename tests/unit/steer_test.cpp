// SPDX-License-Identifier: Apache-2.0
// Tests of health steering placement: the fabric's degraded places and the ownership rules of
// the node weights switchyard sets.
#include "switchyard/placement/steer.hpp"

#include "catch.hpp"

using namespace switchyard::placement;
using switchyard::fabric::FabricKind;
using switchyard::fabric::FabricMap;

namespace {

/// `sus` SUs of 2 hosts with one leaf each (uplinks[s] cables), in groups of `per_group` SUs
/// (global[g] cables each).
FabricMap make_map(FabricKind kind,
                   const std::vector<std::uint32_t>& uplinks,
                   unsigned per_group,
                   const std::vector<std::uint32_t>& global) {
    FabricMap m;
    m.kind = kind;
    m.link_counts = true;
    m.hcas = {"mlx5_0"};
    for (std::size_t g = 0; g < global.size(); ++g) {
        m.groups.push_back({"g" + std::to_string(g + 1), {}, global[g]});
    }
    for (std::uint32_t s = 0; s < uplinks.size(); ++s) {
        m.switches.push_back({"leaf" + std::to_string(s + 1), s + 1, 1, uplinks[s]});
        switchyard::fabric::MapSu su;
        su.name = "su" + std::to_string(s + 1);
        su.group = s / per_group;
        su.leaves = {s};
        for (unsigned h = 0; h < 2; ++h) {
            su.hosts.push_back(static_cast<std::uint32_t>(m.hosts.size()));
            m.rails.push_back({0, s, 1});
            m.hosts.push_back({"n" + std::to_string(s) + std::to_string(h), s,
                               static_cast<std::uint32_t>(m.rails.size() - 1), 1});
        }
        m.groups[su.group].sus.push_back(s);
        m.sus.push_back(su);
    }
    return m;
}

}  // namespace

TEST_CASE("steer: an SU short of uplinks is degraded by its share of the usual", "[steer]") {
    const auto m = make_map(FabricKind::FatTree, {16, 16, 8, 16}, 4, {0});
    const auto d = fabric_degradation(m);
    REQUIRE(d.size() == 2);  // the two hosts of su3
    CHECK(d.at("n20").score == Approx(0.5));
    CHECK(d.at("n21").why == "SU su3 has 8 uplinks per rail, the usual SU 16");
    // Old maps carry no counts: nothing is said to be degraded.
    auto old = m;
    old.link_counts = false;
    CHECK(fabric_degradation(old).empty());
    // One SU has no peers to be compared with.
    CHECK(fabric_degradation(make_map(FabricKind::FatTree, {4}, 1, {0})).empty());
}

TEST_CASE("steer: hosts cabled into a spine are not an SU short of uplinks", "[steer]") {
    // su4's "leaf" is a spine (tier 2, no uplink above it): its hosts reach every leaf
    // directly, and the usual SU is the usual leaf SU.
    auto m = make_map(FabricKind::FatTree, {16, 16, 16, 0}, 4, {0});
    m.switches[3].tier = 2;
    REQUIRE(m.su_on_spine(3));
    CHECK(m.su_uplinks_per_rail(3) == 0);
    CHECK(fabric_degradation(m).empty());
    m.switches[1].uplinks = 8;  // a real short SU among them is still found
    const auto d = fabric_degradation(m);
    REQUIRE(d.size() == 2);
    CHECK(d.at("n10").why == "SU su2 has 8 uplinks per rail, the usual SU 16");
}

TEST_CASE("steer: a Dragonfly+ group short of global cables: the worse reason wins", "[steer]") {
    const auto m = make_map(FabricKind::DragonflyPlus, {8, 8, 8, 6, 8, 8}, 2, {4, 1, 4});
    const auto d = fabric_degradation(m);
    // g2 (su3, su4) has 1 global cable where the usual group has 4: 0.75 beats su4's 0.25.
    REQUIRE(d.size() == 4);
    CHECK(d.at("n20").score == Approx(0.75));
    CHECK(d.at("n30").score == Approx(0.75));
    CHECK(d.at("n30").why == "group g2 has 1 global cables to some group, the usual group 4");
}

TEST_CASE("steer: a health check near its limit adds a soft score, the worse reason wins",
          "[steer]") {
    const auto m = make_map(FabricKind::FatTree, {16, 16, 8, 16}, 4, {0});
    auto d = fabric_degradation(m);
    add_soft_signal(d, "n00", 0.8, 0.5, "link-errors: 1 growing (largest +8, max 10)");
    CHECK(d.at("n00").score == Approx(0.4));
    CHECK(d.at("n00").why == "health: link-errors: 1 growing (largest +8, max 10)");
    add_soft_signal(d, "n20", 0.8, 0.5, "link-errors: ...");  // su3's 0.5 is worse: it stays
    CHECK(d.at("n20").score == Approx(0.5));
    CHECK_THAT(d.at("n20").why, Catch::StartsWith("SU su3"));
    add_soft_signal(d, "n01", 0, 0.5, "steady");  // nothing near a limit: nothing added
    CHECK(d.count("n01") == 0);
    add_soft_signal(d, "n10", 9, 2, "out of range");  // both clamped to 1
    CHECK(d.at("n10").score == Approx(1.0));
}

TEST_CASE("steer: weights from scores", "[steer]") {
    const SteerPolicy p{1, 1000, 300};
    CHECK(wanted_weight(p, 0) == 1);
    CHECK(wanted_weight(p, 0.5) == 501);
    CHECK(wanted_weight(p, 7) == 1001);  // clamped
    CHECK(wanted_weight(p, -1) == 1);
}

TEST_CASE("steer: an admin's weight is never changed, switchyard's own is", "[steer]") {
    using A = WeightDecision::Action;
    const SteerPolicy p{1, 1000, 300};
    // A node nobody customised: switchyard may raise it.
    CHECK(decide_weight("n1", 1, std::nullopt, 501, p, 1000).action == A::Set);
    CHECK(decide_weight("n1", 1, std::nullopt, 1, p, 1000).action == A::Keep);
    // An admin's weight (not the base, not switchyard's): left alone, degraded or not.
    const auto admin = decide_weight("n1", 5, std::nullopt, 501, p, 1000);
    CHECK(admin.action == A::AdminOwned);
    CHECK(admin.message == "n1: weight 5 was not set by switchyard (base 1): left alone");
    CHECK(decide_weight("n1", 5, std::nullopt, 1, p, 1000).action == A::AdminOwned);
    // Switchyard's own weight: lowered back when the place heals, after the interval.
    const OwnedWeight ours{501, 1000};
    CHECK(decide_weight("n1", 501, ours, 1, p, 1200).action == A::TooSoon);
    const auto heal = decide_weight("n1", 501, ours, 1, p, 1300);
    CHECK(heal.action == A::Set);
    CHECK(heal.weight == 1);
    CHECK(decide_weight("n1", 501, ours, 501, p, 1200).action == A::Keep);
    // Someone changed switchyard's weight by hand: it is theirs now.
    CHECK(decide_weight("n1", 7, ours, 501, p, 5000).action == A::AdminOwned);
    // ... even when they set it back to the base, it is the base again: switchyard may act.
    CHECK(decide_weight("n1", 1, ours, 501, p, 5000).action == A::Set);
}

TEST_CASE("steer: the record of weights set reads back, bad lines dropped", "[steer]") {
    WeightRecord r;
    r.set("n2", 501, 1700000000);
    r.set("n1", 201, 1700000001.7);
    CHECK(r.text() == "n1 201 1700000001\nn2 501 1700000000\n");
    auto back = WeightRecord::parse(r.text() + "junk\nn3 x 5\nn4 7\n\nn5 1 99999999999999999999\n");
    CHECK(back.text() == r.text());
    REQUIRE(back.find("n2"));
    CHECK(back.find("n2")->weight == 501);
    back.erase("n2");
    CHECK_FALSE(back.find("n2"));
}

TEST_CASE("steer: a node switchyard drained counts for a window after it is back", "[steer]") {
    DrainHistory h;
    h.observe("n1", true, 100);                      // seen drained by switchyard
    h.observe("n2", false, 100);                     // never drained: nothing recorded
    CHECK_FALSE(h.resumed_within("n1", 150, 3600));  // still drained
    h.observe("n1", true, 200);                      // still drained: the first sighting stays
    h.observe("n1", false, 300);                     // back in service
    REQUIRE(h.resumed_within("n1", 400, 3600));
    CHECK(*h.resumed_within("n1", 400, 3600) == 300);
    CHECK_FALSE(h.resumed_within("n2", 400, 3600));
    CHECK(h.text() == "flap n1 100 300\n");
    // The record reads back from a state file that holds weights too.
    const auto back = DrainHistory::parse("n9 501 5\n" + h.text() + "flap x y z\nflap n3 1\n");
    CHECK(back.text() == h.text());
    CHECK(WeightRecord::parse(h.text()).text().empty());  // and the weights ignore it
    // After the window it no longer counts and is forgotten; a new drain starts over.
    CHECK_FALSE(h.resumed_within("n1", 300 + 3600, 3600));
    h.expire(300 + 3600, 3600);
    CHECK(h.text().empty());
    h.observe("n1", true, 5000);
    h.observe("n1", false, 5100);
    CHECK(h.text() == "flap n1 5000 5100\n");
}

TEST_CASE("steer: a degraded or short NVLink domain weighs on its hosts", "[steer][nvlink]") {
    FabricMap m;  // no cable counts: the NVLink part stands alone
    m.sus = {{"su1", 0, {}, {0, 1, 2, 3, 4, 5, 6}, 0}};
    for (const auto* n : {"a1", "a2", "b1", "b2", "c1", "d1", "d2"}) {
        m.hosts.push_back({n, 0, 0, 0});
    }
    m.domains = {
        {"nvl_a", "a.1", 0, switchyard::fabric::DomainState::Ok, {"a1", "a2"}},
        {"nvl_b", "b.1", 0, switchyard::fabric::DomainState::Degraded, {"b1", "b2"}},
        {"nvl_c", "c.1", 0, switchyard::fabric::DomainState::Ok, {"c1"}},
        {"nvl_d", "d.1", 0, switchyard::fabric::DomainState::Missing, {"d1", "d2", "gone"}}};
    const auto s = fabric_degradation(m);
    REQUIRE(s.size() == 3);
    CHECK(s.at("b1").score == 0.5);
    CHECK(s.at("b2").why ==
          "NVLink domain nvl_b is degraded (a tray's GPUs not registered or "
          "unhealthy)");
    CHECK(s.at("c1").score == 0.5);  // 1 host where the usual domain has 2
    CHECK(s.at("c1").why == "NVLink domain nvl_c has 1 hosts, the usual domain 2");
    CHECK(s.count("a1") == 0);
    CHECK(s.count("d1") == 0);  // a placeholder's hosts are down, not steered
}
