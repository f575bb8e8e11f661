// SPDX-License-Identifier: Apache-2.0
// The drain and resume decisions and the circuit breaker's arithmetic, from facts alone.
#include "switchyard/health/drain.hpp"

#include "catch.hpp"

using namespace switchyard::health;

namespace {

HealthReport failing() {
    HealthReport r;
    r.verdict = HealthStatus::Fail;
    r.checks = {{"gpus", HealthStatus::Pass, "8 GPUs", 0},
                {"rdma-ports", HealthStatus::Fail, "3 of 4 compute ports usable", 0}};
    return r;
}

}  // namespace

TEST_CASE("drain: only Switchyard's own reasons are its to change", "[drain]") {
    CHECK(owned_reason("switchyard: gpus: 7 of 8 GPUs on PCI"));
    CHECK_FALSE(owned_reason("Not responding"));
    CHECK_FALSE(owned_reason(" switchyard: leading blank"));
    CHECK_FALSE(owned_reason(""));
}

TEST_CASE("drain: the breaker's limit is the fewer of max_nodes and max_percent", "[drain]") {
    BreakerPolicy h;
    h.max_nodes = 5;
    h.max_percent = 10;
    CHECK(breaker_limit(h, 0).nodes == 5);  // partition size unknown
    CHECK(breaker_limit(h, 0).why == "max_nodes 5");
    CHECK(breaker_limit(h, 30).nodes == 3);
    CHECK(breaker_limit(h, 30).why == "10% of a 30-node partition");
    CHECK(breaker_limit(h, 4).nodes == 1);  // never below one node
    CHECK(breaker_limit(h, 1000).nodes == 5);
}

TEST_CASE("drain: the breaker's record keeps the window and exact epoch times", "[drain]") {
    const double now = 1796460000;
    const auto r = BreakerRecord::parse(
        "1796459000 node001\n1796459990 node002\n1796459995 node002\n1796450000 node009\n", now,
        600);
    CHECK(r.recent_nodes() == 1);  // node001 and node009 are older than the window
    CHECK(r.has("node002"));
    CHECK_FALSE(r.has("node001"));
    CHECK(r.allows("node003", 0, 2));
    CHECK_FALSE(r.allows("node003", 2, 2));  // slurmctld shows 2 owned drains from elsewhere
    CHECK(r.allows("node002", 5, 2));        // a node already drained costs nothing more
    auto grown = r;
    grown.add("node003", now);
    CHECK_FALSE(grown.allows("node004", 0, 2));
    CHECK(grown.text() == "1796459990 node002\n1796459995 node002\n1796460000 node003\n");
    CHECK(BreakerRecord::parse("garbage", now, 600).recent_nodes() == 0);
}

TEST_CASE("drain: pass, held for another reason, drain, breaker open", "[drain]") {
    HealthReport ok;
    CHECK(decide_drain("node005", ok, "").action == DrainDecision::Action::Pass);
    const auto held = decide_drain("node005", failing(), "Not responding");
    CHECK(held.action == DrainDecision::Action::HeldElsewhere);
    CHECK(held.message ==
          "node005 fails (switchyard: rdma-ports: 3 of 4 compute ports usable) but is held for "
          "another reason ('Not responding'); not touching it");
    const auto drain = decide_drain("node005", failing(), "switchyard: gpus: old reason");
    CHECK(drain.action == DrainDecision::Action::Drain);
    CHECK(drain.reason == "switchyard: rdma-ports: 3 of 4 compute ports usable");
    CHECK(drain.message == "drained node005: switchyard: rdma-ports: 3 of 4 compute ports usable");
    CHECK(apply_breaker(drain, true, {2, "max_nodes 2"}, 600).action ==
          DrainDecision::Action::Drain);
    const auto open = apply_breaker(drain, false, {2, "max_nodes 2"}, 600);
    CHECK(open.action == DrainDecision::Action::BreakerOpen);
    CHECK(open.message ==
          "CIRCUIT BREAKER OPEN: 2 nodes were drained in the last 600 s (limit: max_nodes 2); "
          "not draining node005 (switchyard: rdma-ports: 3 of 4 compute ports usable) — check "
          "the health policy");
    CHECK(apply_breaker(held, false, {2, ""}, 600).action == DrainDecision::Action::HeldElsewhere);
}

TEST_CASE("drain: --resume brings back only Switchyard's own drains", "[drain]") {
    CHECK_FALSE(decide_resume("node005", "").resume);
    CHECK(decide_resume("node005", "").message.empty());
    const auto other = decide_resume("node005", "bad DIMM");
    CHECK_FALSE(other.resume);
    CHECK(other.message == "not resuming node005: held for another reason ('bad DIMM')");
    const auto ours = decide_resume("node005", "switchyard: gpus: 7 of 8 GPUs on PCI");
    CHECK(ours.resume);
    CHECK(ours.message == "resumed node005 (was: switchyard: gpus: 7 of 8 GPUs on PCI)");
}
