// SPDX-License-Identifier: Apache-2.0
// Benchmarks of reading one node: hwloc XML (real captures), the live machine, a sysfs tree of an
// 8-GPU / 10-NIC node built here.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "switchyard/node/node_readers.hpp"
#include "switchyard/policy/loaders.hpp"
#include "typical_node.hpp"

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void BM_ReadHwlocXml(benchmark::State& state, const char* file) {
    // The project's own real captures, else the QPL-licensed ones that stay in ../shared.
    std::string path = std::string(SWITCHYARD_SOURCE_DIR) + "/tests/data/real/hwloc-xml/" + file;
    auto xml = slurp(path);
    if (xml.empty()) {
        path = std::string(SWITCHYARD_SOURCE_DIR) + "/../shared/fixtures/real/hwloc-xml/" + file;
        xml = slurp(path);
    }
    if (xml.empty()) {
        state.SkipWithError(("not found: " + path).c_str());
        return;
    }
    for (auto _ : state) {
        auto n = switchyard::node::read_hwloc_xml(xml, path);
        benchmark::DoNotOptimize(n);
    }
    state.counters["xml_KB"] = static_cast<double>(xml.size()) / 1e3;
}
BENCHMARK_CAPTURE(BM_ReadHwlocXml, jwb0004, "psmgmt-topo.jwb0004.xml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReadHwlocXml, jrc0386_v1, "psmgmt-topo.jrc0386.xml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReadHwlocXml, g4dnmetal, "mpibind-g4dnmetal.xml")
    ->Unit(benchmark::kMillisecond);

void BM_ReadHwlocLive(benchmark::State& state) {
    for (auto _ : state) {
        auto n = switchyard::node::read_hwloc_live();
        switchyard::node::attach_rdma_sysfs(*n, "/sys");
        benchmark::DoNotOptimize(n);
    }
}
BENCHMARK(BM_ReadHwlocLive)->Unit(benchmark::kMillisecond);

/// 8 GPUs and 10 NICs behind two switch levels, 2 NUMA nodes, every port with counters.
void BM_ReadSysfsNode(benchmark::State& state) {
    switchyard::test::FakeSysfs fs;
    switchyard::test::build_typical_gpu_node(fs);
    for (auto _ : state) {
        auto n = switchyard::node::read_sysfs_node(fs.root());
        benchmark::DoNotOptimize(n);
    }
}
BENCHMARK(BM_ReadSysfsNode)->Unit(benchmark::kMillisecond);

/// What a step's user_init pays for the node's facts on the same node: the node read from sysfs
/// with a step's port detail (argument 0), or the prolog's cache plus live ports (argument 1).
void BM_StepNodeFacts(benchmark::State& state) {
    switchyard::test::FakeSysfs fs;
    switchyard::test::build_typical_gpu_node(fs);
    switchyard::policy::Policy pol;
    pol.sysfs_root = fs.root().string();
    pol.node_cache = state.range(0) != 0 ? (fs.root() / "cache" / "%n.node").string() : "";
    fs.shared_dir("cache");
    using switchyard::policy::NodeCache;
    std::vector<std::string> notes;
    (void)switchyard::policy::load_node(pol, {"n1", "", "", NodeCache::Write, &notes});
    for (auto _ : state) {
        auto n = switchyard::policy::load_node(pol, {"n1", "", "", NodeCache::Read, &notes});
        benchmark::DoNotOptimize(n);
    }
    if (!notes.empty()) {
        state.SkipWithError(notes.front().c_str());
    }
}
BENCHMARK(BM_StepNodeFacts)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
