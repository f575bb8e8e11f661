// SPDX-License-Identifier: Apache-2.0
// Table-driven tests of the NCCL rules: facts → value, and facts → "not set".
#include "switchyard/policy/nccl_rules.hpp"

#include "catch.hpp"

using namespace switchyard;
using namespace switchyard::policy;
using topology::NodeTopology;
using topology::PathType;

namespace {

topology::RdmaPort port(int state, const std::string& layer = "InfiniBand") {
    topology::RdmaPort p;
    p.port = 1;
    p.state_code = state;
    p.state = state == 4 ? "ACTIVE" : "DOWN";
    p.phys_state = state == 4 ? "LinkUp" : "Polling";
    p.link_layer = layer;
    return p;
}

/// GPUs 0..n-1 each PIX to mlx5_i; extra NICs have no GPU nearby.
NodeTopology node(int gpus, const std::vector<topology::RdmaPort>& ports) {
    NodeTopology n;
    n.numa = {{0, "0-3"}, {1, "4-7"}};
    for (int i = 0; i < gpus; ++i) {
        topology::Gpu g;
        g.index = i;
        g.place.numa = i < gpus / 2 ? 0 : 1;
        n.gpus.push_back(g);
    }
    for (std::size_t i = 0; i < ports.size(); ++i) {
        topology::Nic nic;
        nic.name = "mlx5_" + std::to_string(i);
        nic.ports = {ports[i]};
        n.nics.push_back(nic);
        for (int g = 0; g < gpus; ++g) {
            n.paths.push_back(
                {g, nic.name, static_cast<int>(i) == g ? PathType::PIX : PathType::SYS});
        }
    }
    return n;
}

std::optional<std::string> value(const NcclDecision& d, const std::string& name) {
    for (const auto& c : d.set) {
        if (c.name == name) {
            return c.value;
        }
    }
    return std::nullopt;
}

JobFacts job(unsigned nodes = 2) {
    JobFacts j;
    j.this_host = "n001";
    for (unsigned i = 1; i <= nodes; ++i) {
        char h[16];
        std::snprintf(h, sizeof h, "n%03u", i);
        j.hosts.emplace_back(h);
    }
    return j;
}

/// A map: hosts n001..n004; SU "su1" = n001,n002 with 2 rail leaves, "su2" = n003,n004 one leaf;
/// groups g1 (su1) and g2 (su2).
topology::FabricMap map(topology::FabricKind kind) {
    topology::FabricMap m;
    m.kind = kind;
    m.hcas = {"mlx5_0", "mlx5_1"};
    m.switches = {{"l1a", 1, 1}, {"l1b", 2, 1}, {"l2", 3, 1}};
    m.groups = {{"g1", {0}}, {"g2", {1}}};
    m.sus = {{"su1", 0, {0, 1}, {0, 1}}, {"su2", 1, {2}, {2, 3}}};
    m.rails = {{0, 0, 1}, {1, 1, 1}, {0, 2, 1}, {1, 2, 1}};
    m.hosts = {{"n001", 0, 0, 2}, {"n002", 0, 0, 2}, {"n003", 1, 2, 2}, {"n004", 1, 2, 2}};
    return m;
}

}  // namespace

TEST_CASE("nccl_rules: R1 NCCL_IB_HCA from ACTIVE compute ports", "[nccl_rules]") {
    struct Case {
        const char* what;
        int gpus;
        std::vector<topology::RdmaPort> ports;
        std::string compute_hca;
        std::optional<std::string> expected;
    };
    const Case cases[] = {
        {"all active, GPU-near", 2, {port(4), port(4)}, "", "=mlx5_0:1,mlx5_1:1"},
        {"one down", 2, {port(4), port(1)}, "", "=mlx5_0:1"},
        {"storage NIC without a GPU nearby", 1, {port(4), port(4)}, "", "=mlx5_0:1"},
        {"policy regex selects", 1, {port(4), port(4)}, "mlx5_[01]", "=mlx5_0:1,mlx5_1:1"},
        {"policy regex excludes", 2, {port(4), port(4)}, "mlx5_1", "=mlx5_1:1"},
        {"no GPU: every active port", 0, {port(4), port(4)}, "", "=mlx5_0:1,mlx5_1:1"},
        {"nothing active", 2, {port(1), port(2)}, "", std::nullopt},
        {"no NIC", 2, {}, "", std::nullopt},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        Policy p;
        p.nccl.compute_hca = c.compute_hca;
        const auto d = decide_node_env(p, node(c.gpus, c.ports), nullptr, job(), {}, {});
        CHECK(value(d, "NCCL_IB_HCA") == c.expected);
    }
}

TEST_CASE("nccl_rules: R2 socket interface only from policy", "[nccl_rules]") {
    Policy p;
    CHECK_FALSE(value(decide_node_env(p, node(1, {port(4)}), nullptr, job(), {}, {}),
                      "NCCL_SOCKET_IFNAME"));
    p.nccl.socket_ifname = "=eth0";
    CHECK(value(decide_node_env(p, node(1, {port(4)}), nullptr, job(), {}, {}),
                "NCCL_SOCKET_IFNAME") == "=eth0");
}

TEST_CASE("nccl_rules: R3 RoCE addressing by NCCL version", "[nccl_rules]") {
    auto roce = [](int idx) {
        auto p = port(4, "Ethernet");
        p.gids = {{0, "fe80:0000:0000:0000:0000:0000:0000:0001", "IB/RoCE v1", "eth0"},
                  {idx, "0000:0000:0000:0000:0000:ffff:0a00:0001", "RoCE v2", "eth0"}};
        return p;
    };
    Policy old;
    old.nccl.min_version = {2, 19, 0};
    CHECK(value(decide_node_env(old, node(2, {roce(3), roce(3)}), nullptr, job(), {}, {}),
                "NCCL_IB_GID_INDEX") == "3");
    const auto mixed = decide_node_env(old, node(2, {roce(3), roce(5)}), nullptr, job(), {}, {});
    CHECK_FALSE(value(mixed, "NCCL_IB_GID_INDEX"));
    CHECK_FALSE(mixed.warnings.empty());
    Policy modern;
    CHECK_FALSE(value(decide_node_env(modern, node(2, {roce(3)}), nullptr, job(), {}, {}),
                      "NCCL_IB_GID_INDEX"));
    modern.nccl.ib_addr_family = "AF_INET6";
    modern.nccl.ib_addr_range = "fd02::/16";
    const auto d = decide_node_env(modern, node(2, {roce(3)}), nullptr, job(), {}, {});
    CHECK(value(d, "NCCL_IB_ADDR_FAMILY") == "AF_INET6");
    CHECK(value(d, "NCCL_IB_ADDR_RANGE") == "fd02::/16");
    CHECK(value(d, "NCCL_IB_QPS_PER_CONNECTION") == "4");  // R5 on RoCE
    CHECK_FALSE(value(decide_node_env(modern, node(2, {port(4)}), nullptr, job(), {}, {}),
                      "NCCL_IB_QPS_PER_CONNECTION"));  // not on IB
}

TEST_CASE("nccl_rules: R4 CROSS_NIC from the fabric map", "[nccl_rules]") {
    Policy p;
    const auto m = map(topology::FabricKind::FatTree);
    const auto n = node(2, {port(4), port(4)});
    auto j = job();
    CHECK(value(decide_node_env(p, n, &m, j, {}, {}), "NCCL_CROSS_NIC") ==
          "0");  // su1: 2 rail leaves
    j.this_host = "n003";
    CHECK(value(decide_node_env(p, n, &m, j, {}, {}), "NCCL_CROSS_NIC") == "1");  // one leaf
    j.this_host = "n999";
    CHECK_FALSE(value(decide_node_env(p, n, &m, j, {}, {}), "NCCL_CROSS_NIC"));
    CHECK_FALSE(value(decide_node_env(p, n, nullptr, job(), {}, {}), "NCCL_CROSS_NIC"));
    p.nccl.rail_optimized = false;
    CHECK(value(decide_node_env(p, n, nullptr, job(), {}, {}), "NCCL_CROSS_NIC") == "1");
}

TEST_CASE("nccl_rules: R6 IB timeout", "[nccl_rules]") {
    Policy p;
    p.nccl.min_version = {2, 23, 0};
    const auto n = node(1, {port(4)});
    const auto dfp = map(topology::FabricKind::DragonflyPlus);
    auto j = job(2);  // n001, n002: both in g1
    CHECK_FALSE(value(decide_node_env(p, n, &dfp, j, {}, {}), "NCCL_IB_TIMEOUT"));
    j = job(4);  // spans g1 and g2
    CHECK(value(decide_node_env(p, n, &dfp, j, {}, {}), "NCCL_IB_TIMEOUT") == "22");
    const auto fat = map(topology::FabricKind::FatTree);
    CHECK_FALSE(
        value(decide_node_env(p, n, &fat, j, {}, {}), "NCCL_IB_TIMEOUT"));  // not Dragonfly+
    p.nccl.large_job_nodes = 3;
    CHECK(value(decide_node_env(p, n, &fat, j, {}, {}), "NCCL_IB_TIMEOUT") == "22");
    Policy old;
    old.nccl.min_version = {2, 18, 0};
    CHECK(value(decide_node_env(old, n, nullptr, job(2), {}, {}), "NCCL_IB_TIMEOUT") == "20");
}

TEST_CASE("nccl_rules: R10 NVLS off on shared or oversubscribed nodes", "[nccl_rules]") {
    Policy p;
    auto j = job();
    CHECK_FALSE(
        value(decide_node_env(p, node(4, {port(4)}), nullptr, j, {}, {}), "NCCL_NVLS_ENABLE"));
    j.exclusive = false;
    CHECK(value(decide_node_env(p, node(4, {port(4)}), nullptr, j, {}, {}), "NCCL_NVLS_ENABLE") ==
          "0");
    j.exclusive = true;
    j.tasks_per_node = 8;
    CHECK(value(decide_node_env(p, node(4, {port(4)}), nullptr, j, {}, {}), "NCCL_NVLS_ENABLE") ==
          "0");
}

TEST_CASE("nccl_rules: R11 CPU affinity per task", "[nccl_rules]") {
    const auto n = node(2, {port(4), port(4)});  // gpu0 on NUMA 0 (cpus 0-3), gpu1 on NUMA 1 (4-7)
    CHECK_FALSE(decide_cpu_affinity(n, {0, 1}, {0}));
    CHECK(decide_cpu_affinity(n, {0, 1}, {1})->value == "1");
    CHECK_FALSE(decide_cpu_affinity(n, {5}, {}));  // all GPUs: NUMA 0 and 1
    CHECK_FALSE(decide_cpu_affinity(n, {}, {1}));  // unknown cpuset: no claim
    CHECK(parse_cpu_list("0-2,8,x,10-9") == std::vector<int>{0, 1, 2, 8});
    // Hostile lists end quickly: no wrap past UINT64_MAX, ids and count bounded.
    CHECK(parse_cpu_list("18446744073709551614-18446744073709551615").empty());
    CHECK(parse_cpu_list("0-1048576").size() == 65536);
    std::string many;
    for (int i = 0; i < 100; ++i) {
        many += "0-65535,";
    }
    CHECK(parse_cpu_list(many).size() == 65536);
}

TEST_CASE("nccl_rules: R16 obsolete names in the user's environment", "[nccl_rules]") {
    const auto d = decide_node_env(
        Policy{}, node(1, {port(4)}), nullptr, job(), {},
        {{"NCCL_IB_CUDA_SUPPORT", "1"}, {"NCCL_TIMEOUT", "1800"}, {"NCCL_IB_RETRY_CNT", "14"}});
    REQUIRE(d.warnings.size() == 3);
    CHECK_THAT(d.warnings[0],
               Catch::Contains("NCCL_IB_CUDA_SUPPORT=1 has no effect: removed in NCCL 2.4.0"));
    CHECK_THAT(d.warnings[1], Catch::Contains("NCCL_IB_RETRY_CNT=14 is outside 0-7"));
    CHECK_THAT(d.warnings[2], Catch::Contains("NCCL_TIMEOUT=1800 has no effect"));
}

TEST_CASE("nccl_rules: profiles, off, and the submit-time check", "[nccl_rules]") {
    Policy p;
    NcclProfile debug;
    debug.name = "debug";
    debug.user_selectable = true;
    debug.set = {{"NCCL_DEBUG", "INFO"}};
    NcclProfile big;
    big.name = "big";
    big.automatic = true;
    big.min_nodes = 3;
    big.set = {{"NCCL_IB_SL", "1"}};
    p.nccl.profiles = {debug, big};
    const auto n = node(1, {port(4)});
    const auto dbg =
        decide_node_env(p, n, nullptr, job(2), {NcclEnvChoice::Kind::Profile, "debug"}, {});
    CHECK(value(dbg, "NCCL_DEBUG") == "INFO");
    CHECK_FALSE(value(dbg, "NCCL_IB_SL"));  // automatic profile does not match 2 nodes
    CHECK(value(decide_node_env(p, n, nullptr, job(4), {}, {}), "NCCL_IB_SL") == "1");
    const auto off = decide_node_env(p, n, nullptr, job(4), {NcclEnvChoice::Kind::Off, ""}, {});
    CHECK(off.set.empty());
    CHECK_FALSE(check_user_profile(p, "debug"));
    CHECK(*check_user_profile(p, "big") ==
          "--nccl-env: profile 'big' is not user-selectable; allowed: auto, off, debug");
    CHECK(*check_user_profile(p, "x") ==
          "--nccl-env: unknown profile 'x'; allowed: auto, off, debug");
    p.nccl.enabled = false;
    CHECK(decide_node_env(p, n, nullptr, job(), {}, {}).set.empty());
}
