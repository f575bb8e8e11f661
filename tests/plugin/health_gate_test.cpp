// SPDX-License-Identifier: Apache-2.0
// The prolog health gate against a fake sysfs node and a recording NodeControl.
#include "health_gate.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "catch.hpp"
#include "fake_sysfs.hpp"

using namespace switchyard;
using namespace switchyard::spank;
using switchyard::test::FakeSysfs;

namespace {

class FakeControl final : public NodeControl {
public:
    std::map<std::string, std::string> reasons;
    std::vector<std::string> drained;
    unsigned partition = 0;       ///< 0 = unknown
    unsigned cluster_drains = 0;  ///< what slurmctld shows as recently drained by us
    Result<unsigned> partition_size(const std::string&) override { return partition; }
    Result<unsigned> recent_owned_drains(double, double) override { return cluster_drains; }
    Result<std::string> reason(const std::string& node) override {
        const auto it = reasons.find(node);
        return it == reasons.end() ? std::string() : it->second;
    }
    Result<void> drain(const std::string& node, const std::string& reason) override {
        drained.push_back(node);
        reasons[node] = reason;
        return {};
    }
};

/// One node with two compute ports; `down` takes mlx5_1 down.
struct Gate {
    FakeSysfs fs;
    policy::Policy pol;
    explicit Gate(bool down) {
        for (int i = 0; i < 2; ++i) {
            const auto nic = fs.pci("pci0000:00/0000:00:0" + std::to_string(i + 1) + ".0/0000:0" +
                                        std::to_string(i + 1) + ":00.0",
                                    "0x15b3", "0x1021", "0x020700", 0);
            FakeSysfs::Port p;
            if (down && i == 1) {
                p.state = "1: DOWN";
                p.phys_state = "2: Polling";
            }
            fs.port(fs.rdma("mlx5_" + std::to_string(i), nic, "guid"), 1, p);
        }
        pol.sysfs_root = fs.root().string();
        pol.health.enabled = true;
        pol.health.checks.rdma_ports = health::RdmaPortsCheck{2, 0, "", ""};
        pol.health.breaker.state = (fs.root() / "breaker").string();
        pol.health.breaker.max_nodes = 2;
        pol.health.breaker.window_s = 600;
    }
};

}  // namespace

TEST_CASE("health gate: a healthy node passes untouched", "[health-gate]") {
    Gate g(false);
    FakeControl c;
    CapturingLogger log;
    CHECK(run_health_gate(g.pol, "n1", "", c, log, 1000) == 0);
    CHECK(c.drained.empty());
}

TEST_CASE("health gate: a failing node is drained with the owned reason and the prolog fails",
          "[health-gate]") {
    Gate g(true);
    FakeControl c;
    CapturingLogger log;
    CHECK(run_health_gate(g.pol, "n1", "", c, log, 1000) == -1);
    REQUIRE(c.drained == std::vector<std::string>{"n1"});
    CHECK(c.reasons["n1"] ==
          "switchyard: rdma-ports: 1 of 2 compute ports usable; mlx5_1:1 DOWN/Polling");
}

TEST_CASE("health gate: a node held for another reason is not touched", "[health-gate]") {
    Gate g(true);
    FakeControl c;
    c.reasons["n1"] = "admin: memory test";
    CapturingLogger log;
    CHECK(run_health_gate(g.pol, "n1", "", c, log, 1000) == -1);
    CHECK(c.drained.empty());
    CHECK(c.reasons["n1"] == "admin: memory test");
    CHECK(log.contains(Level::Error,
                       "held for another reason ('admin: memory test'); not touching it"));
}

TEST_CASE("health gate: the circuit breaker stops draining after the threshold", "[health-gate]") {
    Gate g(true);
    FakeControl c;
    CapturingLogger log;
    CHECK(run_health_gate(g.pol, "n1", "", c, log, 1000) == -1);
    CHECK(run_health_gate(g.pol, "n2", "", c, log, 1001) == -1);
    CHECK(run_health_gate(g.pol, "n3", "", c, log, 1002) == 0);  // open: report, do not drain
    CHECK(c.drained == std::vector<std::string>{"n1", "n2"});
    CHECK(log.contains(
        Level::Error,
        "CIRCUIT BREAKER OPEN: 2 nodes were drained in the last 600 s (limit: max_nodes 2); "
        "not draining n3"));
    CHECK(run_health_gate(g.pol, "n4", "", c, log, 1000 + 601 + 2) == -1);  // the window has passed
    CHECK(c.drained.back() == "n4");
}

TEST_CASE("health gate: the breaker's limit is the fewer of max_nodes and max_percent",
          "[health-gate]") {
    Gate g(true);
    g.pol.health.breaker.max_nodes = 10;
    g.pol.health.breaker.max_percent = 10;
    FakeControl c;
    c.partition = 16;  // 10 % of 16 = 1.6: one node
    CapturingLogger log;
    CHECK(run_health_gate(g.pol, "n1", "", c, log, 1000) == -1);
    CHECK(run_health_gate(g.pol, "n2", "", c, log, 1001) == 0);
    CHECK(c.drained == std::vector<std::string>{"n1"});
    CHECK(log.contains(Level::Error, "(limit: 10% of a 16-node partition); not draining n2"));
    // A tiny partition still allows one drain; a big one leaves max_nodes in charge.
    g.pol.health.breaker.state += ".2";
    c.partition = 4;
    CHECK(run_health_gate(g.pol, "n3", "", c, log, 1000) == -1);
    g.pol.health.breaker.state += ".3";
    c.partition = 1000;
    for (int i = 0; i < 10; ++i) {
        CHECK(run_health_gate(g.pol, "m" + std::to_string(i), "", c, log, 1000) == -1);
    }
    CHECK(run_health_gate(g.pol, "m10", "", c, log, 1000) == 0);
    CHECK(log.contains(Level::Error, "(limit: max_nodes 10); not draining m10"));
}

TEST_CASE("health gate: drains made from other hosts (seen in slurmctld) count for the breaker",
          "[health-gate]") {
    Gate g(true);
    FakeControl c;
    c.cluster_drains = 2;  // a node-local state file would not know these
    CapturingLogger log;
    CHECK(run_health_gate(g.pol, "n9", "", c, log, 1000) == 0);
    CHECK(c.drained.empty());
    CHECK(log.contains(Level::Error, "CIRCUIT BREAKER OPEN"));
    c.cluster_drains = 1;
    CHECK(run_health_gate(g.pol, "n9", "", c, log, 1001) == -1);
}

TEST_CASE("health gate: internal errors follow fail-open or fail-closed", "[health-gate]") {
    Gate g(false);
    g.pol.sysfs_root = "/nonexistent/sys";
    FakeControl c;
    CapturingLogger log;
    CHECK(run_health_gate(g.pol, "n1", "", c, log, 1000) == 0);
    CHECK(log.contains(Level::Error, "(fail-open)"));
    g.pol.health.on_error = OnError::Fail;
    CHECK(run_health_gate(g.pol, "n1", "", c, log, 1000) == -1);
    CHECK(c.drained.empty());
}

TEST_CASE("health gate: the breaker's record keeps real epoch times exact", "[health-gate]") {
    // 2026-11-30: written with the stream's default 6 digits these times became 1.79646e+09,
    // an hour off, and a drain a minute old looked expired (a third node got drained).
    const auto dir =
        std::filesystem::temp_directory_path() / ("switchyard-breaker-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    DrainBreaker b((dir / "state").string(), 2, 600);
    const double t = 1796463999;  // rounds to 1.79646e+09, 3999 s earlier
    CHECK(*b.try_record("n1", t) == true);
    CHECK(*b.try_record("n2", t + 30) == true);
    CHECK(*b.try_record("n3", t + 60) == false);
    CHECK(*b.try_record("n3", t + 601 + 30) == true);  // n1 and n2 have left the window
    std::filesystem::remove_all(dir);
}

TEST_CASE("health gate: a planted breaker record is ignored, named and replaced", "[health-gate]") {
    // Any local user could pre-create the record with fresh fake drains and keep the breaker
    // open, so a broken node was never drained; or put a FIFO there and hang the prolog.
    const auto dir =
        std::filesystem::temp_directory_path() / ("switchyard-planted-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto state = (dir / "breaker").string();
    for (const bool fifo : {false, true}) {
        INFO((fifo ? "FIFO" : "writable file"));
        std::filesystem::remove(state);
        if (fifo) {
            REQUIRE(mkfifo(state.c_str(), 0600) == 0);
        } else {
            std::ofstream(state) << "1000 x1\n1000 x2\n1000 x3\n";
            chmod(state.c_str(), 0666);
        }
        DrainBreaker b(state, 2, 600);
        const auto first = b.try_record("n1", 1000);
        REQUIRE(first);
        CHECK(*first);
        CHECK_THAT(b.ignored(), Catch::Contains(state));
        CHECK_THAT(b.ignored(), Catch::Contains("ignored and replaced"));
        CHECK(std::filesystem::is_regular_file(state));
        const auto second = b.try_record("n2", 1001);  // its own record is trusted again
        REQUIRE(second);
        CHECK(*second);
        CHECK(b.ignored().empty());
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("health gate: the job's partition picks the policy's check set", "[health-gate]") {
    Gate g(true);  // mlx5_1 down: fails the general "2 ports" check
    health::HealthSet small{"one-port-nodes", "", "debug|test", g.pol.health.checks};
    small.checks.rdma_ports = health::RdmaPortsCheck{1, 0, "", ""};
    g.pol.health.sets = {small};
    FakeControl c;
    CapturingLogger log;
    CHECK(run_health_gate(g.pol, "n1", "test", c, log, 1000) == 0);  // the set asks for one port
    CHECK(log.contains(Level::Info, "n1: check set 'one-port-nodes'"));
    CHECK(c.drained.empty());
    CHECK(run_health_gate(g.pol, "n1", "batch", c, log, 1001) == -1);  // general checks
    CHECK(c.drained == std::vector<std::string>{"n1"});
}

TEST_CASE("health gate: the memory check reads this host's /proc/meminfo", "[health-gate]") {
    Gate g(false);
    g.pol.health.checks.min_memory_gb = 0.001;
    FakeControl c;
    CapturingLogger log;
    CHECK(run_health_gate(g.pol, "n1", "", c, log, 1000) == 0);
    CHECK(c.drained.empty());
}
