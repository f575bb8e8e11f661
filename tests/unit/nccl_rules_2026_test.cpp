// SPDX-License-Identifier: Apache-2.0
// The NCCL rules as of NCCL 2.32: a RAS port per job on shared nodes (R19), rail fields in
// NCCL_IB_HCA on rail-optimized fabrics but not for ConnectX-9 under 2.32 (R1), and nothing set
// that NCCL now gets right itself.
#include <algorithm>

#include "catch.hpp"
#include "nccl_facts.hpp"
#include "switchyard/nccl/rules.hpp"

using namespace switchyard;
using namespace switchyard::nccl;
using namespace switchyard::nccl::test;

TEST_CASE("nccl_rules_2026: R19 NCCL_RAS_ADDR per job on shared nodes", "[nccl_rules]") {
    NcclPolicy p;
    const auto n = make_node(8, {port(4)});
    auto j = job(2);
    j.job_id = "123456";

    SECTION("an exclusive node keeps NCCL's default port") {
        const auto d = decide_node_env(p, n, nullptr, j, {}, {});
        CHECK_FALSE(value(d, "NCCL_RAS_ADDR"));
        CHECK(unset_line(d, "NCCL_RAS_ADDR").empty());
        CHECK_FALSE(wants_job_id(p, n, j));
    }
    SECTION("a job holding 2 of 8 GPUs: its own port, from its id") {
        j.gpus_allocated = 2;
        CHECK(wants_job_id(p, n, j));
        const auto d = decide_node_env(p, n, nullptr, j, {}, {});
        // 28100 + 123456 % 900 = 28100 + 156
        CHECK(value(d, "NCCL_RAS_ADDR") == "localhost:28256");
        CHECK(why(d, "NCCL_RAS_ADDR").find("the node is shared: job 123456") == 0);
        j.job_id = "123457";  // the next job on the node: the next port
        CHECK(value(decide_node_env(p, n, nullptr, j, {}, {}), "NCCL_RAS_ADDR") ==
              "localhost:28257");
    }
    SECTION("a node not exclusive, with the admin's range") {
        j.exclusive = false;
        p.ras_port_first = 40000;
        p.ras_port_last = 40009;
        CHECK(value(decide_node_env(p, n, nullptr, j, {}, {}), "NCCL_RAS_ADDR") ==
              "localhost:40006");
    }
    SECTION("shared, but no id or no range: said, not set") {
        j.exclusive = false;
        j.job_id.clear();
        auto d = decide_node_env(p, n, nullptr, j, {}, {});
        CHECK_FALSE(value(d, "NCCL_RAS_ADDR"));
        CHECK(unset_line(d, "NCCL_RAS_ADDR") ==
              "NCCL_RAS_ADDR: not set: the node is shared, but the job's id is not known");
        j.job_id = "7";
        p.ras_port_first = p.ras_port_last = 0;
        CHECK_FALSE(wants_job_id(p, n, j));
        d = decide_node_env(p, n, nullptr, j, {}, {});
        CHECK_FALSE(value(d, "NCCL_RAS_ADDR"));
        CHECK(unset_line(d, "NCCL_RAS_ADDR") ==
              "NCCL_RAS_ADDR: not set: the node is shared, but nccl.ras_ports is ''");
    }
}

namespace {

/// make_node with two ports, each NIC of hca_type `type`.
NodeTopology typed(const std::string& type) {
    auto n = make_node(2, {port(4), port(4)});
    for (auto& nic : n.nics) {
        nic.hca_type = type;
    }
    return n;
}

}  // namespace

TEST_CASE("nccl_rules_2026: R1 rail fields on rail-optimized SUs", "[nccl_rules]") {
    const auto m = map(fabric::FabricKind::FatTree);  // su1: 2 rail leaves; su2: one leaf
    NcclPolicy p;
    p.min_version = {2, 30, 0};
    auto j = job(2);  // n001: su1, rails mlx5_0 and mlx5_1

    SECTION("ConnectX-7 under NCCL 2.30: dev:port:rail, rails numbered by name") {
        const auto d = decide_node_env(p, typed("MT4129"), &m, j, {}, {});
        CHECK(value(d, "NCCL_IB_HCA") == "=mlx5_0:1:0,mlx5_1:1:1");
        CHECK(why(d, "NCCL_IB_HCA").find("rails from the fabric map (rail-optimized SU su1") !=
              std::string::npos);
    }
    SECTION("ConnectX-9 under NCCL 2.32: NCCL finds its rails itself") {
        p.min_version = {2, 32, 3};
        const auto d = decide_node_env(p, typed("MT4133"), &m, j, {}, {});
        CHECK(value(d, "NCCL_IB_HCA") == "=mlx5_0:1,mlx5_1:1");
        CHECK(why(d, "NCCL_IB_HCA").find("NCCL 2.32 and later find ConnectX-9 rails") !=
              std::string::npos);
        // ConnectX-8 under 2.32 keeps them; ConnectX-9 under 2.31 too.
        CHECK(value(decide_node_env(p, typed("MT4131"), &m, j, {}, {}), "NCCL_IB_HCA") ==
              "=mlx5_0:1:0,mlx5_1:1:1");
        p.min_version = {2, 31, 0};
        CHECK(value(decide_node_env(p, typed("MT4133"), &m, j, {}, {}), "NCCL_IB_HCA") ==
              "=mlx5_0:1:0,mlx5_1:1:1");
    }
    SECTION("no rail fields: old NCCL, one leaf per SU, no map, a NIC the map lacks") {
        p.min_version = {2, 29, 0};
        CHECK(value(decide_node_env(p, typed("MT4129"), &m, j, {}, {}), "NCCL_IB_HCA") ==
              "=mlx5_0:1,mlx5_1:1");
        p.min_version = {2, 30, 0};
        j.this_host = "n003";  // su2: one leaf for both HCAs
        CHECK(value(decide_node_env(p, typed("MT4129"), &m, j, {}, {}), "NCCL_IB_HCA") ==
              "=mlx5_0:1,mlx5_1:1");
        j.this_host = "n001";
        CHECK(value(decide_node_env(p, typed("MT4129"), nullptr, j, {}, {}), "NCCL_IB_HCA") ==
              "=mlx5_0:1,mlx5_1:1");
        auto extra = typed("MT4129");
        extra.nics[1].name = "mlx5_7";
        extra.paths[2].nic = "mlx5_7";
        extra.paths[3].nic = "mlx5_7";
        const auto d = decide_node_env(p, extra, &m, j, {}, {});
        CHECK(value(d, "NCCL_IB_HCA") == "=mlx5_0:1,mlx5_7:1");
        CHECK(why(d, "NCCL_IB_HCA").find("the fabric map has no rail mlx5_7 for n001") !=
              std::string::npos);
        p.rail_optimized = false;  // the admin says the fabric is not rail-optimized
        CHECK(value(decide_node_env(p, typed("MT4129"), &m, j, {}, {}), "NCCL_IB_HCA") ==
              "=mlx5_0:1,mlx5_1:1");
    }
    SECTION("no rail fields where hosts name their HCAs differently (HCA-1 here, mlx5_0 there)") {
        auto mixed = m;
        mixed.hcas.insert(mixed.hcas.begin(), {"HCA-1", "HCA-2"});  // sorted before mlx5_*
        for (auto& r : mixed.rails) {
            r.hca += 2;
        }
        const auto d = decide_node_env(p, typed("MT4129"), &mixed, j, {}, {});
        CHECK(value(d, "NCCL_IB_HCA") == "=mlx5_0:1,mlx5_1:1");
        CHECK(
            why(d, "NCCL_IB_HCA").find("the fabric map names 4 HCAs for at most 2 rails per SU") !=
            std::string::npos);
    }
}

TEST_CASE("nccl_rules_2026: R17 MNNVL off on a node whose NVLink check did not pass",
          "[nccl_rules][nvlink]") {
    NcclPolicy p;
    p.min_version = {2, 27, 0};
    const auto n = make_node(4, {port(4)});
    const auto m = nvl_map();
    auto j = job(3);
    j.imex_channel = true;
    REQUIRE(value(decide_node_env(p, n, &m, j, {}, {}), "NCCL_MNNVL_ENABLE") == "1");
    // The prolog's check saw the mask (NVIDIA/nccl#2186's 0xaa: bandwidth degraded).
    j.nvlink_problem = "GPU 2: fabric health mask 0xaa: bandwidth degraded";
    auto d = decide_node_env(p, n, &m, j, {}, {});
    CHECK(value(d, "NCCL_MNNVL_ENABLE") == "0");
    CHECK(value(d, "NCCL_NVLS_ENABLE") == "0");
    CHECK(why(d, "NCCL_MNNVL_ENABLE") ==
          "this node's NVLink fabric did not pass the prolog's check (GPU 2: fabric health mask "
          "0xaa: bandwidth degraded): multi-node NVLink setup can crash on such a node "
          "(NVIDIA/nccl#2186)");
    // Across domains too: NCCL's own choice would still try MNNVL inside each.
    d = decide_node_env(p, n, &m, job(4), {}, {});
    CHECK_FALSE(value(d, "NCCL_MNNVL_ENABLE"));
    auto across = job(4);
    across.nvlink_problem = j.nvlink_problem;
    CHECK(value(decide_node_env(p, n, &m, across, {}, {}), "NCCL_MNNVL_ENABLE") == "0");
}
