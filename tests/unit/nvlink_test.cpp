// SPDX-License-Identifier: Apache-2.0
// Tests of a node's NVLink domain: the health mask read field by field, the judgement of a
// node's GPUs, and NVML's fabric queries read through the fake libnvidia-ml (both versions).
#include "switchyard/topology/nvlink.hpp"

#include <cstdlib>
#include <fstream>

#include "catch.hpp"
#include "fake_sysfs.hpp"

using namespace switchyard::topology;
using switchyard::test::FakeSysfs;

namespace {

constexpr const char* kUuid = "8c6f0a52-1f3e-4c1b-9d7a-0e2f4b6c8d10";

NvmlGpu gpu(unsigned index, std::string uuid, std::uint32_t clique, std::uint32_t mask = 0x1aa) {
    NvmlGpu g;
    g.index = index;
    g.fabric = GpuFabric{std::move(uuid), clique, GpuFabricState::Completed, 0, mask};
    return g;
}

NvmlFacts read_fake(const std::string& config_text, FakeSysfs& fs) {
    const auto config = fs.root() / "nvml.conf";
    std::ofstream(config) << config_text;
    setenv("SWITCHYARD_FAKE_NVML", config.c_str(), 1);
    return read_nvml(FAKE_NVML, false, 5.0);
}

}  // namespace

TEST_CASE("nvlink: health mask fields", "[nvlink]") {
    // Every field "false" (2) and the configuration "none" (1): clean.
    CHECK(fabric_health_problems(0x1aa).empty());
    // Every field "not supported" (0): clean too (an older GPU or driver).
    CHECK(fabric_health_problems(0).empty());
    CHECK(fabric_health_problems(0x1a9) == std::vector<std::string>{"bandwidth degraded"});
    CHECK(fabric_health_problems(0x1a6) == std::vector<std::string>{"route recovery in progress"});
    CHECK(fabric_health_problems(0x19a) == std::vector<std::string>{"route unhealthy"});
    CHECK(fabric_health_problems(0x16a) ==
          std::vector<std::string>{"access-timeout recovery in progress"});
    CHECK(fabric_health_problems(0x5aa) ==
          std::vector<std::string>{"incorrect configuration (code 5)"});
    CHECK(fabric_health_problems(0x155).size() == 4);
}

TEST_CASE("nvlink: a node's domain from its GPUs", "[nvlink]") {
    SECTION("four GPUs of one clique: the domain, healthy") {
        const auto n =
            node_nvlink({gpu(0, kUuid, 7), gpu(1, kUuid, 7), gpu(2, kUuid, 7), gpu(3, kUuid, 7)});
        CHECK(n.multi_node);
        CHECK(n.domain == std::string(kUuid) + ".7");
        CHECK(n.state == GpuFabricState::Completed);
        CHECK(n.healthy);
        CHECK(n.problems.empty());
    }
    SECTION("GPUs in different cliques: no domain, named") {
        const auto n = node_nvlink({gpu(0, kUuid, 7), gpu(1, kUuid, 8)});
        CHECK(n.domain.empty());
        CHECK_FALSE(n.healthy);
        REQUIRE(n.problems.size() == 1);
        CHECK(n.problems[0] == "GPUs in different NVLink domains: " + std::string(kUuid) +
                                   ".7 (GPU 0); " + kUuid + ".8 (GPU 1)");
    }
    SECTION("a GPU still registering: the least advanced state, no domain from it") {
        auto late = gpu(1, "", 0);
        late.fabric->state = GpuFabricState::InProgress;
        const auto n = node_nvlink({gpu(0, kUuid, 7), late});
        CHECK(n.state == GpuFabricState::InProgress);
        CHECK(n.domain == std::string(kUuid) + ".7");
        CHECK_FALSE(n.healthy);
        CHECK(n.problems ==
              std::vector<std::string>{"GPU 1: fabric state in-progress, expected completed"});
    }
    SECTION("a degraded GPU keeps the domain, is unhealthy") {
        const auto n = node_nvlink({gpu(0, kUuid, 7), gpu(1, kUuid, 7, 0x1a9)});
        CHECK(n.domain == std::string(kUuid) + ".7");
        CHECK_FALSE(n.healthy);
        CHECK(n.problems == std::vector<std::string>{"GPU 1: bandwidth degraded"});
    }
    SECTION("a failed registration status") {
        auto bad = gpu(0, kUuid, 7);
        bad.fabric->status = 12;
        const auto n = node_nvlink({bad});
        CHECK_FALSE(n.healthy);
        CHECK(n.problems[0] == "GPU 0: fabric registration failed (NVML status 12)");
    }
    SECTION("no multi-node fabric: nothing to judge") {
        NvmlGpu pcie;
        pcie.fabric = GpuFabric{};
        const auto n = node_nvlink({pcie, NvmlGpu{}});
        CHECK_FALSE(n.multi_node);
        CHECK(n.healthy);
        CHECK(n.domain.empty());
        CHECK(node_nvlink({}).problems.empty());
    }
    SECTION("a GPU NVML could not open, beside fabric GPUs") {
        NvmlGpu lost;
        lost.index = 1;
        lost.error = "Unknown Error";
        const auto n = node_nvlink({gpu(0, kUuid, 7), lost});
        CHECK_FALSE(n.healthy);
        CHECK(n.problems == std::vector<std::string>{"GPU 1: Unknown Error"});
    }
}

TEST_CASE("nvlink: NVML's fabric queries through the fake library", "[nvlink][nvml]") {
    FakeSysfs fs;
    SECTION("version 2: cluster UUID bytes, clique, state, status and health mask") {
        const auto f = read_fake(std::string("gpu uuid=GPU-a fabric=completed cluster=") + kUuid +
                                     " clique=32766 health=0x1a9\n"
                                     "gpu uuid=GPU-b fabric=in-progress\n"
                                     "gpu uuid=GPU-c\n",
                                 fs);
        REQUIRE(f.state == NvmlFacts::State::Read);
        REQUIRE(f.gpus.size() == 3);
        REQUIRE(f.gpus[0].fabric);
        CHECK(f.gpus[0].fabric->cluster_uuid == kUuid);
        CHECK(f.gpus[0].fabric->clique == 32766);
        CHECK(f.gpus[0].fabric->state == GpuFabricState::Completed);
        CHECK(f.gpus[0].fabric->health_mask == 0x1a9U);
        REQUIRE(f.gpus[1].fabric);
        CHECK(f.gpus[1].fabric->state == GpuFabricState::InProgress);
        CHECK(f.gpus[1].fabric->cluster_uuid.empty());  // all-zero bytes: not registered
        REQUIRE(f.gpus[2].fabric);                      // NOT_SUPPORTED is a state
        CHECK(f.gpus[2].fabric->state == GpuFabricState::NotSupported);
    }
    SECTION("a driver without the V2 structure: the older query, no health mask") {
        const auto f = read_fake(
            std::string("gpu fabric=completed fabric_api=v1 cluster=") + kUuid + " clique=3\n", fs);
        REQUIRE(f.gpus.size() == 1);
        REQUIRE(f.gpus[0].fabric);
        CHECK(f.gpus[0].fabric->clique == 3);
        CHECK_FALSE(f.gpus[0].fabric->health_mask);
    }
    SECTION("a failing query leaves the fabric unknown") {
        const auto f = read_fake("gpu fabric=completed fabric_rc=999\n", fs);
        REQUIRE(f.gpus.size() == 1);
        CHECK_FALSE(f.gpus[0].fabric);
        CHECK(node_nvlink(f.gpus).multi_node == false);
    }
    SECTION("a state NVML did not define") {
        const auto f = read_fake("gpu fabric=9\n", fs);
        CHECK(f.gpus[0].fabric->state == GpuFabricState::Unknown);
        CHECK(to_string(f.gpus[0].fabric->state) == "unknown");
    }
}
