// SPDX-License-Identifier: Apache-2.0
// Tests of the health checks on fake sysfs trees, captured command output and real commands.
#include "switchyard/policy/health.hpp"

#include <fstream>

#include "catch.hpp"
#include "fake_sysfs.hpp"
#include "switchyard/topology/node_readers.hpp"
#include "typical_node.hpp"

using namespace switchyard;
using namespace switchyard::policy;
using switchyard::test::FakeSysfs;

namespace {

/// Two GPUs (gpu1's link trained at x8 Gen4 when `degraded`) and four HCAs, mlx5_2 DOWN.
topology::NodeTopology node_with(FakeSysfs& fs, bool degraded) {
    for (int i = 0; i < 2; ++i) {
        const auto dir = fs.pci("pci0000:00/0000:00:0" + std::to_string(i + 1) + ".0/0000:0" +
                                    std::to_string(i + 1) + ":00.0",
                                "0x10de", "0x2330", "0x030200", 0);
        fs.file(dir + "/max_link_width", "16");
        fs.file(dir + "/max_link_speed", "32.0 GT/s PCIe");
        fs.file(dir + "/current_link_width", degraded && i == 1 ? "8" : "16");
        fs.file(dir + "/current_link_speed",
                degraded && i == 1 ? "16.0 GT/s PCIe" : "32.0 GT/s PCIe");
    }
    for (int i = 0; i < 4; ++i) {
        const auto nic = fs.pci("pci0000:10/0000:10:0" + std::to_string(i + 1) + ".0/0000:1" +
                                    std::to_string(i + 1) + ":00.0",
                                "0x15b3", "0x1021", "0x020700", 0);
        FakeSysfs::Port p;
        if (i == 2) {
            p.state = "1: DOWN";
            p.phys_state = "2: Polling";
        }
        if (i == 3) {
            p.rate = "200 Gb/sec (4X HDR)";
        }
        fs.port(fs.rdma("mlx5_" + std::to_string(i), nic, "guid"), 1, p);
    }
    return *topology::read_sysfs_node(fs.root());
}

}  // namespace

TEST_CASE("health: RDMA ports count, state, rate and link layer", "[health]") {
    FakeSysfs fs;
    const auto node = node_with(fs, false);
    auto r = check_rdma_ports(node, {4, 400, "InfiniBand", "mlx5_[0-3]"});
    CHECK(r.status == HealthStatus::Fail);
    CHECK(r.detail ==
          "2 of 4 compute ports usable; mlx5_2:1 DOWN/Polling, mlx5_3:1 at 200 Gb/s < 400");
    r = check_rdma_ports(node, {2, 400, "InfiniBand", "mlx5_[0-3]"});
    CHECK(r.status == HealthStatus::Warn);
    r = check_rdma_ports(node, {2, 0, "InfiniBand", "mlx5_[01]"});
    CHECK(r.status == HealthStatus::Pass);
    CHECK(check_rdma_ports(node, {2, 0, "Ethernet", "mlx5_[01]"}).status == HealthStatus::Fail);
}

TEST_CASE("health: link errors growing between runs (flaps)", "[health]") {
    FakeSysfs dir;  // only for a scratch directory
    topology::NodeTopology node;
    for (int i = 0; i < 2; ++i) {
        topology::Nic nic;
        nic.name = "mlx5_" + std::to_string(i);
        topology::RdmaPort p;
        p.port = 1;
        p.counters = {{"link_downed", 5}, {"symbol_error", 100}, {"port_xmit_data", 1}};
        nic.ports.push_back(p);
        node.nics.push_back(nic);
    }
    LinkErrorsCheck c{2, "mlx5_[0-1]", (dir.root() / "snapshot").string()};
    const auto first = check_link_errors(node, c);
    CHECK(first.status == HealthStatus::Pass);
    CHECK_THAT(first.detail, Catch::StartsWith("baseline recorded"));
    CHECK(check_link_errors(node, c).detail == "4 counters steady");
    node.nics[1].ports[0].counters["link_downed"] += 2;  // at the threshold: still fine
    CHECK(check_link_errors(node, c).status == HealthStatus::Pass);
    node.nics[1].ports[0].counters["link_downed"] += 3;
    node.nics[0].ports[0].counters["symbol_error"] += 40;
    node.nics[0].ports[0].counters["port_xmit_data"] += 1000000;  // traffic, not an error
    const auto flapped = check_link_errors(node, c);
    CHECK(flapped.status == HealthStatus::Fail);
    CHECK(flapped.detail ==
          "mlx5_0:1/symbol_error +40, mlx5_1:1/link_downed +3 since the last run (max 2)");
    // A reset (reboot, counters cleared) is a new baseline, not a failure.
    node.nics[1].ports[0].counters["link_downed"] = 0;
    node.nics[0].ports[0].counters["symbol_error"] = 0;
    CHECK(check_link_errors(node, c).status == HealthStatus::Pass);
    // A snapshot that cannot be written warns and names the path.
    c.state = "/nonexistent/dir/snapshot";
    const auto unwritable = check_link_errors(node, c);
    CHECK(unwritable.status == HealthStatus::Warn);
    CHECK_THAT(unwritable.detail, Catch::Contains("/nonexistent/dir/snapshot.tmp."));
}

TEST_CASE("health: GPUs present and links not degraded", "[health]") {
    FakeSysfs good;
    const auto healthy = node_with(good, false);
    CHECK(check_gpus(healthy, 2, good.root()).status == HealthStatus::Pass);
    CHECK(check_gpus(healthy, 4, good.root()).detail == "2 of 4 GPUs on PCI");
    FakeSysfs bad;
    const auto r = check_gpus(node_with(bad, true), 2, bad.root());
    CHECK(r.status == HealthStatus::Fail);
    CHECK(r.detail ==
          "PCIe link degraded: gpu1 0000:02:00.0 x8 16.0 GT/s PCIe (max x16 32.0 GT/s PCIe)");
}

TEST_CASE("health: topology shape equals the policy's", "[health]") {
    FakeSysfs full;
    switchyard::test::build_typical_gpu_node(full);
    const auto typical = *topology::read_sysfs_node(full.root());
    const std::string expected = "gpu:8x10de:2330 nic:10xinfiniband numa:2 best:8xPIX";
    CHECK(check_shape(typical, expected).status == HealthStatus::Pass);
    // The same machine with one NIC gone: one GPU loses its PIX partner.
    FakeSysfs broken;
    switchyard::test::build_typical_gpu_node(broken);
    std::filesystem::remove_all(broken.root() / "class" / "infiniband" / "mlx5_3");
    const auto r = check_shape(*topology::read_sysfs_node(broken.root()), expected);
    CHECK(r.status == HealthStatus::Fail);
    CHECK_THAT(r.detail, Catch::StartsWith("shape 'gpu:8x10de:2330 nic:9xinfiniband"));
    CHECK_THAT(r.detail, Catch::EndsWith("expected '" + expected + "'"));
}

TEST_CASE("health: memory from /proc/meminfo text", "[health]") {
    CHECK(check_memory("MemTotal:       2097152 kB\nMemFree: 1 kB\n", 1.5).status ==
          HealthStatus::Pass);
    CHECK(check_memory("MemTotal:       1048576 kB\n", 1.5).detail == "1.0 GiB (minimum 1.5)");
    CHECK(check_memory("nothing\n", 1).status == HealthStatus::Fail);
}

TEST_CASE("health: filesystems", "[health]") {
    FakeSysfs fs;
    CHECK(check_filesystem({fs.root().string(), 0.001, true}).status == HealthStatus::Pass);
    CHECK(check_filesystem({fs.root().string(), 1e12, false}).status == HealthStatus::Fail);
    const auto missing = check_filesystem({"/nonexistent/scratch", 0, false});
    CHECK(missing.status == HealthStatus::Fail);
    CHECK_THAT(missing.detail, Catch::StartsWith("not available"));
}

TEST_CASE("health: external commands without a shell, with a timeout", "[health]") {
    CHECK(check_command({"ok", {"/bin/true"}, 5, 0, "", ""}).status == HealthStatus::Pass);
    const auto exit1 = check_command(
        {"sh", {"/bin/sh", "-c", "echo first; echo 'GPU 3 missing'; exit 1"}, 5, 0, "", ""});
    CHECK(exit1.status == HealthStatus::Fail);
    CHECK(exit1.detail == "exit 1: GPU 3 missing");
    const auto pattern = check_command({"p", {"/bin/echo", "XID 79 seen"}, 5, 0, "XID [0-9]+", ""});
    CHECK(pattern.detail == "output matches 'XID [0-9]+': XID 79");
    const auto hang = check_command({"hang", {"/bin/sleep", "30"}, 0.3, 0, "", ""});
    CHECK(hang.status == HealthStatus::Fail);
    CHECK(hang.detail == "killed after the 0.3 s timeout");
    CHECK(check_command({"nope", {"/nonexistent/nhc"}, 5, 0, "", ""}).detail ==
          "cannot run '/nonexistent/nhc'");
}

TEST_CASE("health: nccl-tests output parser and bandwidth floor", "[health]") {
    const std::string out =
        "#                                                              out-of-place               "
        "        in-place\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
        "time   algbw   busbw #wrong\n"
        "  8589934592    2147483648     float     sum      -1    40531  211.94  370.89      0    "
        "40521  211.99  370.98      0\n"
        "# Out of bounds values : 0 OK\n"
        "# Avg bus bandwidth    : 370.935 \n";
    CHECK(parse_nccl_tests_busbw(out) == Approx(370.935));
    CHECK_FALSE(parse_nccl_tests_busbw("no summary"));
    FakeSysfs fs;
    const auto file = fs.root() / "allreduce.out";
    std::ofstream(file) << out;
    CHECK(check_command({"ar", {"/bin/cat", file.string()}, 5, 0, "", "360"}).status ==
          HealthStatus::Pass);
    const auto slow = check_command({"ar", {"/bin/cat", file.string()}, 5, 0, "", "460"});
    CHECK(slow.detail == "bus bandwidth 370.9 GB/s (minimum 460.0)");
}

TEST_CASE("health: report, reason and time budget", "[health]") {
    FakeSysfs fs;
    const auto node = node_with(fs, false);
    HealthPolicy p;
    p.enabled = true;
    p.rdma_ports = RdmaPortsCheck{4, 0, "", "mlx5_[0-3]"};
    p.budget_s = 0.2;
    p.commands = {{"slow", {"/bin/sleep", "5"}, 10, 0, "", ""},
                  {"after", {"/bin/true"}, 10, 0, "", ""}};
    const auto r = run_health_checks(p, node, fs.root(), "MemTotal: 1 kB\n");
    CHECK(r.verdict == HealthStatus::Fail);
    CHECK(r.reason() ==
          "switchyard: rdma-ports: 3 of 4 compute ports usable; mlx5_2:1 DOWN/Polling");
    REQUIRE(r.checks.size() == 3);
    CHECK(r.checks[1].status == HealthStatus::Fail);  // bounded by the budget, not its own 10 s
    CHECK(r.checks[1].duration_ms < 2000);
    CHECK(r.checks[2].detail == "not run: the gate's time budget is spent");
}
