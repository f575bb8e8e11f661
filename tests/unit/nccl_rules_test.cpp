// SPDX-License-Identifier: Apache-2.0
// Table-driven tests of the NCCL rules: facts → value, and facts → "not set".
#include <algorithm>
#include <fstream>
#include <sstream>

#include "catch.hpp"
#include "fake_sysfs.hpp"
#include "nccl_facts.hpp"
#include "switchyard/nccl/rules.hpp"
#include "switchyard/node/node_readers.hpp"

using namespace switchyard;
using namespace switchyard::nccl;
using node::NodeTopology;
using node::PathType;
using namespace switchyard::nccl::test;

TEST_CASE("nccl_rules: R1 NCCL_IB_HCA from ACTIVE compute ports", "[nccl_rules]") {
    struct Case {
        const char* what;
        int gpus;
        std::vector<node::RdmaPort> ports;
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
        NcclPolicy p;
        p.compute_hca = c.compute_hca;
        const auto d = decide_node_env(p, make_node(c.gpus, c.ports), nullptr, job(), {}, {});
        CHECK(value(d, "NCCL_IB_HCA") == c.expected);
    }
}

namespace {

node::RdmaPort rated(int state, double gbps, const std::string& layer = "InfiniBand") {
    auto p = port(state, layer);
    p.rate_gbps = gbps;
    return p;
}

}  // namespace

TEST_CASE("nccl_rules: R1 without a PCIe switch: each GPU's nearest NICs, as NCCL picks",
          "[nccl_rules]") {
    using P = PathType;
    const NcclPolicy p;
    SECTION("NICs on their own root ports (NODE, PHB): every nearest one is compute") {
        // GPUs 0,1 on host bridge A with mlx5_0,1 (PHB); GPUs 2,3 on B with mlx5_2,3.
        const auto n = classed(4,
                               {{P::PHB, P::PHB, P::NODE, P::NODE},
                                {P::PHB, P::PHB, P::NODE, P::NODE},
                                {P::NODE, P::NODE, P::PHB, P::PHB},
                                {P::NODE, P::NODE, P::PHB, P::PHB}},
                               {rated(4, 400), rated(4, 400), rated(4, 400), rated(4, 400)});
        const auto d = decide_node_env(p, n, nullptr, job(), {}, {});
        CHECK(value(d, "NCCL_IB_HCA") == "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1");
        CHECK_THAT(why(d, "NCCL_IB_HCA"),
                   Catch::Contains("the NICs nearest each GPU, at PHB (no NIC shares a PCIe "
                                   "switch with a GPU)"));
        CHECK(d.warnings.empty());
    }
    SECTION("POWER9-like: NICs a socket away from half the GPUs (NODE/SYS)") {
        const auto n =
            classed(4, {{P::NODE, P::NODE, P::SYS, P::SYS}, {P::SYS, P::SYS, P::NODE, P::NODE}},
                    {rated(4, 100), rated(4, 100)});
        const auto d = decide_node_env(p, n, nullptr, job(), {}, {});
        CHECK(value(d, "NCCL_IB_HCA") == "=mlx5_0:1,mlx5_1:1");
        CHECK(d.warnings.empty());
    }
    SECTION("a management NIC (Ethernet) and a slow NIC stay out, with the reason") {
        const auto n =
            classed(2, {{P::NODE, P::SYS}, {P::SYS, P::NODE}, {P::PHB, P::SYS}, {P::PHB, P::PHB}},
                    {rated(4, 400), rated(4, 400), rated(4, 25, "Ethernet"), rated(4, 56)});
        const auto d = decide_node_env(p, n, nullptr, job(), {}, {});
        CHECK(value(d, "NCCL_IB_HCA") == "=mlx5_0:1,mlx5_1:1");
        CHECK_THAT(why(d, "NCCL_IB_HCA"),
                   Catch::Contains("mlx5_2:1 (another network: Ethernet beside InfiniBand)") &&
                       Catch::Contains("mlx5_3:1 (56 Gb/s, under a quarter of the fastest "
                                       "NIC's 400 Gb/s)"));
    }
    SECTION("a storage NIC farther than the GPU's own stays out even when the own one is down") {
        const auto n = classed(2, {{P::PIX, P::SYS}, {P::SYS, P::PIX}, {P::PXB, P::SYS}},
                               {rated(4, 400), rated(1, 400), rated(4, 400)});
        const auto d = decide_node_env(p, n, nullptr, job(), {}, {});
        CHECK(value(d, "NCCL_IB_HCA") == "=mlx5_0:1");
        CHECK_THAT(why(d, "NCCL_IB_HCA"),
                   Catch::Contains("mlx5_1:1 (DOWN/Polling)") &&
                       Catch::Contains("mlx5_2:1 (not the nearest NIC of any GPU (PXB))"));
    }
    SECTION("warnings only when true") {
        // Every compute port down, the storage NIC's ACTIVE: NCCL may use it, not sockets.
        auto n = classed(1, {{P::PIX}, {P::SYS}}, {rated(1, 400), rated(4, 400)});
        auto d = decide_node_env(p, n, nullptr, job(), {}, {});
        CHECK_FALSE(value(d, "NCCL_IB_HCA"));
        REQUIRE(d.warnings.size() == 1);
        CHECK(d.warnings[0] ==
              "no ACTIVE compute RDMA port on n001; NCCL_IB_HCA is not set, so NCCL may use "
              "mlx5_1:1, left out as not compute");
        // Nothing ACTIVE at all: sockets.
        n = classed(1, {{P::PIX}, {P::SYS}}, {rated(1, 400), rated(2, 400)});
        d = decide_node_env(p, n, nullptr, job(), {}, {});
        REQUIRE(d.warnings.size() == 1);
        CHECK(d.warnings[0] == "no ACTIVE RDMA port on n001; NCCL falls back to sockets");
    }
}

TEST_CASE("nccl_rules: R1 on sysfs trees of nodes with no PCIe switch", "[nccl_rules]") {
    // Two host bridges of one NUMA node, each with four root ports: GPU, NIC, GPU, NIC; a
    // 25 GbE management NIC on the first. Then the same NICs moved to the other socket.
    for (const bool other_socket : {false, true}) {
        INFO((other_socket ? "NICs on the other socket" : "NICs on their own root ports"));
        switchyard::test::FakeSysfs fs;
        fs.numa(0, "0-31");
        fs.numa(1, "32-63");
        int nic = 0;
        for (int hb = 0; hb < 2; ++hb) {
            for (int rp = 0; rp < 4; ++rp) {
                const bool is_gpu = rp % 2 == 0;
                const int numa = is_gpu || !other_socket ? 0 : 1;
                const int bus = 0x10 * (hb + 1 + (numa == 1 && !is_gpu ? 4 : 0));
                char root[64];
                char dev[96];
                std::snprintf(root, sizeof root, "pci0000:%02x/0000:%02x:%02x.0", bus, bus, rp + 1);
                std::snprintf(dev, sizeof dev, "%s/0000:%02x:00.0", root, bus + rp + 1);
                fs.bridge(root, "0x8086", "0x352a", "0x8086", "0x0000", numa);
                if (is_gpu) {
                    fs.pci(dev, "0x10de", "0x2330", "0x030200", numa);
                } else {
                    const auto pci = fs.pci(dev, "0x15b3", "0x1021", "0x020700", numa);
                    const auto r = fs.rdma("mlx5_" + std::to_string(nic), pci,
                                           "b8ce:f603:00aa:000" + std::to_string(nic));
                    fs.port(r, 1, {});
                    ++nic;
                }
            }
        }
        const std::string mgmt_root = "pci0000:10/0000:10:09.0";
        fs.bridge(mgmt_root, "0x8086", "0x352a", "0x8086", "0x0000", 0);
        const auto mgmt = fs.pci(mgmt_root + "/0000:19:00.0", "0x15b3", "0x1017", "0x020000", 0);
        const auto r = fs.rdma("mlx5_4", mgmt, "b8ce:f603:00bb:0001");
        switchyard::test::FakeSysfs::Port eth;
        eth.link_layer = "Ethernet";
        eth.rate = "25 Gb/sec (1X EDR)";
        eth.lid = "0x0";
        fs.port(r, 1, eth);
        auto node = node::read_sysfs_node(fs.root());
        REQUIRE(node);
        REQUIRE(node->gpus.size() == 4);
        REQUIRE(node->nics.size() == 5);
        const auto d = decide_node_env(NcclPolicy{}, *node, nullptr, job(), {}, {});
        CHECK(value(d, "NCCL_IB_HCA") == "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1");
        CHECK_THAT(why(d, "NCCL_IB_HCA"),
                   Catch::Contains(other_socket ? "at SYS" : "at PHB") &&
                       Catch::Contains("mlx5_4:1 (another network: Ethernet beside InfiniBand)"));
        CHECK(d.warnings.empty());
    }
}

TEST_CASE("nccl_rules: R1 on real nodes without a GPU-NIC PCIe switch", "[nccl_rules][real]") {
    const auto read = [](const std::string& name) {
        std::ifstream f(std::string(SWITCHYARD_SOURCE_DIR) + "/tests/data/real/hwloc-xml/" + name);
        std::stringstream ss;
        ss << f.rdbuf();
        auto n = node::read_hwloc_xml(ss.str(), name);
        REQUIRE(n);
        return std::move(*n);
    };
    SECTION("LLNL Lassen: POWER9, 4 V100, 4 EDR ports at NODE/SYS") {
        const auto d =
            decide_node_env(NcclPolicy{}, read("mpibind-coral-lassen.xml"), nullptr, job(), {}, {});
        CHECK(value(d, "NCCL_IB_HCA") == "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1");
        CHECK_THAT(why(d, "NCCL_IB_HCA"), Catch::Contains("at NODE (no NIC shares a PCIe switch"));
        CHECK(d.warnings.empty());
    }
    SECTION("LLNL Corona: EPYC, 8 MI50, one mlx5 a socket away from half of them") {
        const auto d = decide_node_env(NcclPolicy{}, read("mpibind-epyc-corona-p2.xml"), nullptr,
                                       job(), {}, {});
        CHECK(value(d, "NCCL_IB_HCA") == "=mlx5_0:1");
        CHECK(d.warnings.empty());
    }
    SECTION("LLNL Pascal: the NIC behind the GPUs' own PLX switch, as before") {
        const auto d =
            decide_node_env(NcclPolicy{}, read("mpibind-cts1-pascal.xml"), nullptr, job(), {}, {});
        CHECK_THAT(why(d, "NCCL_IB_HCA"), Catch::Contains("the NICs nearest each GPU, at P"));
    }
}

TEST_CASE("nccl_rules: R2 socket interface only from policy", "[nccl_rules]") {
    NcclPolicy p;
    CHECK_FALSE(value(decide_node_env(p, make_node(1, {port(4)}), nullptr, job(), {}, {}),
                      "NCCL_SOCKET_IFNAME"));
    p.socket_ifname = "=eth0";
    CHECK(value(decide_node_env(p, make_node(1, {port(4)}), nullptr, job(), {}, {}),
                "NCCL_SOCKET_IFNAME") == "=eth0");
}

TEST_CASE("nccl_rules: R3 RoCE addressing by NCCL version", "[nccl_rules]") {
    auto roce = [](int idx) {
        auto p = port(4, "Ethernet");
        p.gids = {{0, "fe80:0000:0000:0000:0000:0000:0000:0001", "IB/RoCE v1", "eth0"},
                  {idx, "0000:0000:0000:0000:0000:ffff:0a00:0001", "RoCE v2", "eth0"}};
        return p;
    };
    NcclPolicy old;
    old.min_version = {2, 19, 0};
    CHECK(value(decide_node_env(old, make_node(2, {roce(3), roce(3)}), nullptr, job(), {}, {}),
                "NCCL_IB_GID_INDEX") == "3");
    const auto mixed =
        decide_node_env(old, make_node(2, {roce(3), roce(5)}), nullptr, job(), {}, {});
    CHECK_FALSE(value(mixed, "NCCL_IB_GID_INDEX"));
    CHECK_FALSE(mixed.warnings.empty());
    NcclPolicy modern;
    CHECK_FALSE(value(decide_node_env(modern, make_node(2, {roce(3)}), nullptr, job(), {}, {}),
                      "NCCL_IB_GID_INDEX"));
    modern.ib_addr_family = "AF_INET6";
    modern.ib_addr_range = "fd02::/16";
    const auto d = decide_node_env(modern, make_node(2, {roce(3)}), nullptr, job(), {}, {});
    CHECK(value(d, "NCCL_IB_ADDR_FAMILY") == "AF_INET6");
    CHECK(value(d, "NCCL_IB_ADDR_RANGE") == "fd02::/16");
    CHECK(value(d, "NCCL_IB_QPS_PER_CONNECTION") == "4");  // R5 on RoCE
    CHECK_FALSE(value(decide_node_env(modern, make_node(2, {port(4)}), nullptr, job(), {}, {}),
                      "NCCL_IB_QPS_PER_CONNECTION"));  // not on IB
}

TEST_CASE("nccl_rules: R4 CROSS_NIC from the fabric map", "[nccl_rules]") {
    NcclPolicy p;
    const auto m = map(fabric::FabricKind::FatTree);
    const auto n = make_node(2, {port(4), port(4)});
    auto j = job();
    CHECK(value(decide_node_env(p, n, &m, j, {}, {}), "NCCL_CROSS_NIC") ==
          "0");  // su1: 2 rail leaves
    j.this_host = "n003";
    CHECK(value(decide_node_env(p, n, &m, j, {}, {}), "NCCL_CROSS_NIC") == "1");  // one leaf
    j.this_host = "n999";
    CHECK_FALSE(value(decide_node_env(p, n, &m, j, {}, {}), "NCCL_CROSS_NIC"));
    CHECK_FALSE(value(decide_node_env(p, n, nullptr, job(), {}, {}), "NCCL_CROSS_NIC"));
    p.rail_optimized = false;
    CHECK(value(decide_node_env(p, n, nullptr, job(), {}, {}), "NCCL_CROSS_NIC") == "1");
}

TEST_CASE("nccl_rules: R6 IB timeout", "[nccl_rules]") {
    NcclPolicy p;
    p.min_version = {2, 22, 0};
    const auto n = make_node(1, {port(4)});
    const auto dfp = map(fabric::FabricKind::DragonflyPlus);
    auto j = job(2);  // n001, n002: both in g1; 2.22 defaults to 18
    CHECK(value(decide_node_env(p, n, &dfp, j, {}, {}), "NCCL_IB_TIMEOUT") == "20");
    j = job(4);  // spans g1 and g2
    CHECK(value(decide_node_env(p, n, &dfp, j, {}, {}), "NCCL_IB_TIMEOUT") == "22");
    const auto fat = map(fabric::FabricKind::FatTree);
    CHECK(value(decide_node_env(p, n, &fat, j, {}, {}), "NCCL_IB_TIMEOUT") ==
          "20");  // not Dragonfly+: the default raised only
    p.large_job_nodes = 3;
    CHECK(value(decide_node_env(p, n, &fat, j, {}, {}), "NCCL_IB_TIMEOUT") == "22");
    NcclPolicy old;
    old.min_version = {2, 18, 0};
    CHECK(value(decide_node_env(old, n, nullptr, job(2), {}, {}), "NCCL_IB_TIMEOUT") == "20");
    // NCCL 2.23 and later default to 20: nothing set, even across Dragonfly+ groups.
    NcclPolicy current;
    current.min_version = {2, 23, 0};
    const auto d = decide_node_env(current, n, &dfp, job(4), {}, {});
    CHECK_FALSE(value(d, "NCCL_IB_TIMEOUT"));
    CHECK(std::count(d.unset.begin(), d.unset.end(),
                     "NCCL_IB_TIMEOUT: not set: NCCL defaults to 20 since 2.23 "
                     "(nccl.min_version 2.23)") == 1);
}

TEST_CASE("nccl_rules: R10 NVLS off on shared or oversubscribed nodes", "[nccl_rules]") {
    NcclPolicy p;
    auto j = job();
    CHECK_FALSE(
        value(decide_node_env(p, make_node(4, {port(4)}), nullptr, j, {}, {}), "NCCL_NVLS_ENABLE"));
    j.exclusive = false;
    CHECK(value(decide_node_env(p, make_node(4, {port(4)}), nullptr, j, {}, {}),
                "NCCL_NVLS_ENABLE") == "0");
    j.exclusive = true;
    j.tasks_per_node = 8;
    CHECK(value(decide_node_env(p, make_node(4, {port(4)}), nullptr, j, {}, {}),
                "NCCL_NVLS_ENABLE") == "0");
}

TEST_CASE("nccl_rules: R11 CPU affinity per task", "[nccl_rules]") {
    const auto n =
        make_node(2, {port(4), port(4)});  // gpu0 on NUMA 0 (cpus 0-3), gpu1 on NUMA 1 (4-7)
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
        NcclPolicy{}, make_node(1, {port(4)}), nullptr, job(), {},
        {{"NCCL_IB_CUDA_SUPPORT", "1"}, {"NCCL_TIMEOUT", "1800"}, {"NCCL_IB_RETRY_CNT", "14"}});
    REQUIRE(d.warnings.size() == 3);
    CHECK_THAT(d.warnings[0],
               Catch::Contains("NCCL_IB_CUDA_SUPPORT=1 has no effect: removed in NCCL 2.4.0"));
    CHECK_THAT(d.warnings[1], Catch::Contains("NCCL_IB_RETRY_CNT=14 is outside 0-7"));
    CHECK_THAT(d.warnings[2], Catch::Contains("NCCL_TIMEOUT=1800 has no effect"));
}

TEST_CASE("nccl_rules: profiles, off, and the submit-time check", "[nccl_rules]") {
    NcclPolicy p;
    NcclProfile debug;
    debug.name = "debug";
    debug.user_selectable = true;
    debug.set = {{"NCCL_DEBUG", "INFO"}};
    NcclProfile big;
    big.name = "big";
    big.automatic = true;
    big.min_nodes = 3;
    big.set = {{"NCCL_IB_SL", "1"}};
    p.profiles = {debug, big};
    const auto n = make_node(1, {port(4)});
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
    p.enabled = false;
    CHECK(decide_node_env(p, n, nullptr, job(), {}, {}).set.empty());
}

TEST_CASE("nccl_rules: R17 multi-node NVLink", "[nccl_rules][nvlink]") {
    NcclPolicy p;
    p.min_version = {2, 26, 0};
    const auto n = make_node(4, {port(4)});
    auto j = job(3);
    j.imex_channel = true;
    const auto m = nvl_map();

    SECTION("the whole step in one healthy domain with IMEX: MNNVL on, cuMem NCCL's own") {
        const auto d = decide_node_env(p, n, &m, j, {}, {});
        CHECK(value(d, "NCCL_MNNVL_ENABLE") == "1");
        CHECK_FALSE(value(d, "NCCL_CUMEM_ENABLE"));  // NCCL 2.19 and later turn it on
        CHECK_FALSE(value(d, "NCCL_NVLS_ENABLE"));
        CHECK_FALSE(value(d, "NCCL_MNNVL_CLIQUE_ID"));
        CHECK(why(d, "NCCL_MNNVL_ENABLE")
                  .find("all 3 nodes of the step are in healthy NVLink "
                        "domain nvl_aaaa_1, IMEX channel present") != std::string::npos);
        CHECK(d.warnings.empty());
    }
    SECTION("--nvl-group splits the domain: a clique id per group, in name order") {
        j.nvl_group = 2;
        j.this_host = "n003";
        const auto d = decide_node_env(p, n, &m, j, {}, {});
        CHECK(value(d, "NCCL_MNNVL_CLIQUE_ID") == "2");
        j.this_host = "n002";
        CHECK(value(decide_node_env(p, n, &m, j, {}, {}), "NCCL_MNNVL_CLIQUE_ID") == "1");
        j.nvl_group = 3;  // the whole domain: nothing to split
        CHECK_FALSE(value(decide_node_env(p, n, &m, j, {}, {}), "NCCL_MNNVL_CLIQUE_ID"));
        j.nvl_group = 2;
        p.min_version = {2, 22, 0};
        const auto old = decide_node_env(p, n, &m, j, {}, {});
        CHECK_FALSE(value(old, "NCCL_MNNVL_CLIQUE_ID"));
        CHECK(unset_line(old, "NCCL_MNNVL_CLIQUE_ID").find("needs NCCL 2.23") != std::string::npos);
        CHECK(old.warnings.size() == 1);  // GB200 needs 2.25.2
    }
    SECTION("a degraded domain or a missing IMEX channel: MNNVL and NVLS off") {
        const auto degraded = nvl_map(fabric::DomainState::Degraded);
        const auto d = decide_node_env(p, n, &degraded, j, {}, {});
        CHECK(value(d, "NCCL_MNNVL_ENABLE") == "0");
        CHECK(value(d, "NCCL_NVLS_ENABLE") == "0");
        CHECK(why(d, "NCCL_MNNVL_ENABLE").find("is degraded") != std::string::npos);
        j.imex_channel = false;
        const auto no_imex = decide_node_env(p, n, &m, j, {}, {});
        CHECK(value(no_imex, "NCCL_MNNVL_ENABLE") == "0");
        CHECK(why(no_imex, "NCCL_MNNVL_ENABLE").find("no IMEX channel") != std::string::npos);
        CHECK_FALSE(value(no_imex, "NCCL_CUMEM_ENABLE"));
    }
    SECTION("a step beyond the domain: NCCL's own choice, said why") {
        const auto d = decide_node_env(p, n, &m, job(4), {}, {});
        CHECK_FALSE(value(d, "NCCL_MNNVL_ENABLE"));
        CHECK(unset_line(d, "NCCL_MNNVL_ENABLE").find("1 NVLink domain(s) and 1 node(s) in none") !=
              std::string::npos);
    }
    SECTION("no domain in the map, one node, or NCCL before 2.21: nothing set") {
        const auto plain = map(fabric::FabricKind::DragonflyPlus);
        auto d = decide_node_env(p, n, &plain, j, {}, {});
        CHECK_FALSE(value(d, "NCCL_MNNVL_ENABLE"));
        CHECK(unset_line(d, "NCCL_MNNVL_ENABLE").empty());
        CHECK_FALSE(value(decide_node_env(p, n, &m, job(1), {}, {}), "NCCL_MNNVL_ENABLE"));
        p.min_version = {2, 20, 0};
        d = decide_node_env(p, n, &m, j, {}, {});
        CHECK_FALSE(value(d, "NCCL_MNNVL_ENABLE"));
        CHECK(unset_line(d, "NCCL_MNNVL_ENABLE").find("before 2.21") != std::string::npos);
    }
    SECTION("R10's NVLS decision on a shared node stands") {
        j.exclusive = false;
        j.imex_channel = false;
        const auto d = decide_node_env(p, n, &m, j, {}, {});
        CHECK(std::count_if(d.set.begin(), d.set.end(),
                            [](const EnvChoice& c) { return c.name == "NCCL_NVLS_ENABLE"; }) == 1);
    }
}

TEST_CASE("nccl_rules: R18 NCCL Inspector only for the partitions that opted in", "[nccl_rules]") {
    NcclPolicy pol;
    const auto node = make_node(8, {port(4), port(4)});
    auto j = job();
    j.this_host = "node003";
    j.job_id = "4711";
    j.partition = "train";
    // Nothing configured: nothing said.
    auto d = decide_node_env(pol, node, nullptr, j, {}, {});
    CHECK_FALSE(value(d, "NCCL_PROFILER_PLUGIN"));
    pol.inspector.partitions = {"train", "eval"};
    pol.inspector.plugin = "/usr/lib/nccl/libnccl-profiler-inspector.so";
    pol.inspector.dump_dir = "/shared/inspector/%j/%n";
    d = decide_node_env(pol, node, nullptr, j, {}, {});
    CHECK(value(d, "NCCL_PROFILER_PLUGIN") == "/usr/lib/nccl/libnccl-profiler-inspector.so");
    CHECK(value(d, "NCCL_INSPECTOR_ENABLE") == "1");
    CHECK(value(d, "NCCL_INSPECTOR_DUMP_DIR") == "/shared/inspector/4711/node003");
    CHECK_THAT(why(d, "NCCL_INSPECTOR_ENABLE"), Catch::Contains("partition train opted in"));
    // A job of several partitions: any one that opted in.
    j.partition = "debug,eval";
    d = decide_node_env(pol, node, nullptr, j, {}, {});
    CHECK(value(d, "NCCL_INSPECTOR_ENABLE") == "1");
    // Another partition: not set, and said why.
    j.partition = "debug";
    d = decide_node_env(pol, node, nullptr, j, {}, {});
    CHECK_FALSE(value(d, "NCCL_PROFILER_PLUGIN"));
    CHECK_FALSE(value(d, "NCCL_INSPECTOR_ENABLE"));
    bool said = false;
    for (const auto& u : d.unset) {
        said = said || u == "NCCL_PROFILER_PLUGIN: not set: Inspector is on for train, eval only, "
                            "not partition 'debug'";
    }
    CHECK(said);
    // --nccl-env=off: nothing.
    j.partition = "train";
    d = decide_node_env(pol, node, nullptr, j, NcclEnvChoice{NcclEnvChoice::Kind::Off, ""}, {});
    CHECK_FALSE(value(d, "NCCL_INSPECTOR_ENABLE"));
}
