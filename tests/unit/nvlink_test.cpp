// SPDX-License-Identifier: Apache-2.0
// Tests of a node's NVLink domain: the health mask read field by field, the judgement of a
// node's GPUs, and NVML's fabric queries read through the fake libnvidia-ml (both versions).
#include "switchyard/node/nvlink.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>

#include "catch.hpp"
#include "fake_sysfs.hpp"
#include "switchyard/discover/nvlink/nvlink_domains.hpp"

using namespace switchyard::discover;
using namespace switchyard::fabric;
using namespace switchyard::node;
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

namespace {

/// Two SUs of four hosts (a01-a04, b01-b04), no domains yet.
FabricMap two_sus() {
    FabricMap m;
    m.groups.push_back({"g", {0, 1}, 0, 0});
    m.sus.push_back({"sa", 0, {}, {0, 1, 2, 3}, 0});
    m.sus.push_back({"sb", 0, {}, {4, 5, 6, 7}, 0});
    for (const auto* n : {"a01", "a02", "a03", "a04", "b01", "b02", "b03", "b04"}) {
        m.hosts.push_back({n, n[0] == 'a' ? 0U : 1U, 0, 0});
    }
    return m;
}

HostNvlinkFacts in(const std::string& key) {
    return {true, key, true, {}};
}

std::vector<std::string> names(const FabricMap& m) {
    std::vector<std::string> out;
    for (const auto& d : m.domains) {
        out.push_back(d.name + ":" + std::string(to_string(d.state)));
    }
    return out;
}

}  // namespace

TEST_CASE("nvlink: domains under their SUs, in an order that keeps blocks in place",
          "[nvlink][domains]") {
    const std::string k1 = "11111111-0000-0000-0000-000000000000.5";
    const std::string k2 = "22222222-0000-0000-0000-000000000000.5";
    const std::string k3 = "33333333-0000-0000-0000-000000000000.5";
    const std::string k4 = "00000004-0000-0000-0000-000000000000.5";
    HostNvlinkMap all{{"a01", in(k2)}, {"a02", in(k2)}, {"a03", in(k1)}, {"a04", in(k1)},
                      {"b01", in(k3)}, {"b02", in(k3)}, {"b03", in(k4)}, {"b04", in(k4)}};
    auto first = two_sus();
    assign_nvlink_domains(first, all, {2, nullptr});
    // By SU, then by name within one SU.
    CHECK(names(first) == std::vector<std::string>{"nvl_11111111_5:ok", "nvl_22222222_5:ok",
                                                   "nvl_00000004_5:ok", "nvl_33333333_5:ok"});
    CHECK(first.anomalies.empty());
    CHECK(first.hosts[0].domain == 1);

    SECTION("a rack gone keeps its place as a placeholder; back, it takes it again") {
        auto gone = all;
        gone.erase("b03");
        gone.erase("b04");
        auto second = two_sus();
        assign_nvlink_domains(second, gone, {2, &first});
        CHECK(names(second) == std::vector<std::string>{"nvl_11111111_5:ok", "nvl_22222222_5:ok",
                                                        "nvl_00000004_5:missing",
                                                        "nvl_33333333_5:ok"});
        CHECK(second.domains[2].members == std::vector<std::string>{"b03", "b04"});
        CHECK(second.hosts[6].domain == 2);  // no facts, but its rack's placeholder holds it
        REQUIRE(second.anomalies.size() == 1);
        CHECK(second.anomalies[0].kind == "nvl-domain-missing");
        auto third = two_sus();
        assign_nvlink_domains(third, all, {2, &second});
        CHECK(names(third) == names(first));
    }
    SECTION(
        "a new rack comes after the known ones of its SU, whatever its name; the old one "
        "whose hosts all moved leaves no placeholder") {
        auto grown = all;
        grown["b03"] = in("00000000-0000-0000-0000-000000000000.5");
        grown["b04"] = in("00000000-0000-0000-0000-000000000000.5");
        auto second = two_sus();
        assign_nvlink_domains(second, grown, {2, &first});
        CHECK(names(second) == std::vector<std::string>{"nvl_11111111_5:ok", "nvl_22222222_5:ok",
                                                        "nvl_33333333_5:ok", "nvl_00000000_5:ok"});
    }
    SECTION("an unhealthy host degrades its domain") {
        auto sick = all;
        sick["a01"].healthy = false;
        sick["a01"].problems = {"GPU 1: route unhealthy"};
        auto m = two_sus();
        assign_nvlink_domains(m, sick, {});
        CHECK(m.domains[1].state == DomainState::Degraded);
        REQUIRE(m.anomalies.size() == 1);
        CHECK(m.anomalies[0].detail == "a01: GPU 1: route unhealthy");
    }
    SECTION("two short names alike: both take the long form") {
        auto clash = all;
        clash["b03"] = in("11111111-0000-0000-0000-00000000ffff.5");
        clash["b04"] = in("11111111-0000-0000-0000-00000000ffff.5");
        auto m = two_sus();
        assign_nvlink_domains(m, clash, {});
        CHECK(m.domains[0].name == "nvl_11111111000000000000000000000000_5");
        CHECK(m.domains[2].name == "nvl_1111111100000000000000000000ffff_5");
    }
    SECTION("a tray whose NVML hangs keeps its rack's slot, degraded, and says why") {
        auto hung = all;
        hung["a01"] = HostNvlinkFacts{false, "", false, {"NVML: did not answer within 5 s"}};
        auto second = two_sus();
        assign_nvlink_domains(second, hung, {2, &first});
        CHECK(names(second) == std::vector<std::string>{"nvl_11111111_5:ok",
                                                        "nvl_22222222_5:degraded",
                                                        "nvl_00000004_5:ok", "nvl_33333333_5:ok"});
        CHECK(second.hosts[0].domain == 1);
        REQUIRE(second.anomalies.size() == 1);
        CHECK(second.anomalies[0].kind == "nvl-host-unknown");
        CHECK(second.anomalies[0].detail ==
              "a01: NVML: did not answer within 5 s; kept in domain nvl_22222222_5 (previous "
              "map), degraded");
        // Without a previous map: in no domain, and said.
        auto alone = two_sus();
        assign_nvlink_domains(alone, hung, {});
        CHECK(alone.hosts[0].domain == kNoDomain);
        REQUIRE(alone.anomalies.size() == 1);
        CHECK(alone.anomalies[0].detail ==
              "a01: NVML: did not answer within 5 s; the host is in no NVLink domain");
    }
    SECTION("no host in a multi-node fabric: the map is left as it was") {
        auto m = two_sus();
        assign_nvlink_domains(m, {{"a01", HostNvlinkFacts{}}}, {2, nullptr});
        CHECK(m.domains.empty());
        CHECK(m.anomalies.empty());
    }
}

namespace {

/// discover/nvl-dfp16's map (16 hosts, 2 per domain) with its domains taken away.
FabricMap without_domains() {
    std::ifstream in(std::string(SWITCHYARD_SOURCE_DIR) +
                     "/tests/golden/discover/nvl-dfp16/fabric.map.expected");
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    auto m = read_fabric_map(text, "nvl-dfp16");
    REQUIRE(m);
    m->domains.clear();
    for (auto& h : m->hosts) {
        h.domain = kNoDomain;
    }
    return std::move(*m);
}

}  // namespace

TEST_CASE("nvlink: a host's facts never make a map that cannot be read", "[nvlink][domains]") {
    auto m = without_domains();
    HostNvlinkMap facts;
    SECTION("keys that differ only in dashes: named apart") {
        // aaaa-bbbb.1 and aaaabbbb.1 both made nvl_aaaabbbb_1, in both forms: a map with two
        // domains of one name, which fabric show, install and the plugin then refused.
        facts["node001"] = facts["node002"] = in("11111111-0000-0000-0000-0000000000005.5");
        facts["node003"] = facts["node004"] = in("111111110000000000000000000000005.5");
        assign_nvlink_domains(m, facts, {});
        REQUIRE(m.domains.size() == 2);
        CHECK(m.domains[0].name != m.domains[1].name);
        CHECK(m.domains[1].name == m.domains[0].name + "_2");
    }
    SECTION("a key that is no <UUID>.<clique>: an anomaly, no domain") {
        facts["node001"] = in("x y\x1b.1");
        facts["node002"] = in("11111111-0000-0000-0000-000000000000.5 evil");
        facts["node003"] = facts["node004"] = in("11111111-0000-0000-0000-000000000000.5");
        assign_nvlink_domains(m, facts, {});
        REQUIRE(m.domains.size() == 1);
        CHECK(m.hosts[0].domain == kNoDomain);
        CHECK(m.hosts[1].domain == kNoDomain);
        REQUIRE(m.anomalies.size() >= 2);
        CHECK(std::count_if(m.anomalies.begin(), m.anomalies.end(),
                            [](const Anomaly& a) { return a.kind == "nvl-bad-domain-key"; }) == 2);
        const auto it = std::find_if(m.anomalies.begin(), m.anomalies.end(), [](const Anomaly& a) {
            return a.detail.starts_with("node001:");
        });
        REQUIRE(it != m.anomalies.end());
        CHECK(it->detail ==
              "node001: domain key 'x y\\x1b.1' is not <cluster UUID>.<clique id>; the host is "
              "in no NVLink domain");
    }
    const auto back = read_fabric_map(write_fabric_map(m, "test"), "back.map");
    INFO((back ? std::string() : back.error().to_string()));
    CHECK(back);
}

TEST_CASE("nvlink: with the previous map, no host in a fabric still keeps the placeholders",
          "[nvlink][domains]") {
    auto before = without_domains();
    HostNvlinkMap facts;
    facts["node001"] = facts["node002"] = in("11111111-0000-0000-0000-000000000000.5");
    facts["node003"] = facts["node004"] = in("22222222-0000-0000-0000-000000000000.5");
    assign_nvlink_domains(before, facts, {});
    REQUIRE(before.domains.size() == 2);
    // Every tray's NVML down at once: no host reports a fabric.
    HostNvlinkMap none;
    for (const auto* h : {"node001", "node002", "node003", "node004"}) {
        none[h] = HostNvlinkFacts{};
    }
    auto after = without_domains();
    assign_nvlink_domains(after, none, {0, &before});
    REQUIRE(after.domains.size() == 2);
    CHECK(after.domains[0].state == DomainState::Missing);
    CHECK(after.domains[1].state == DomainState::Missing);
}
