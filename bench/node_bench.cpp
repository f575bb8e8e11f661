// SPDX-License-Identifier: Apache-2.0
// Benchmarks of reading one node: hwloc XML (real captures), the live machine, a sysfs tree of an
// 8-GPU / 10-NIC node built here.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "fake_sysfs.hpp"
#include "switchyard/topology/node_readers.hpp"

namespace {

namespace topo = switchyard::topology;

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void BM_ReadHwlocXml(benchmark::State& state, const char* file) {
    const std::string path =
        std::string(SWITCHYARD_SOURCE_DIR) + "/../shared/fixtures/real/hwloc-xml/" + file;
    const auto xml = slurp(path);
    if (xml.empty()) {
        state.SkipWithError(("not found: " + path).c_str());
        return;
    }
    for (auto _ : state) {
        auto n = topo::read_hwloc_xml(xml, path);
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
        auto n = topo::read_hwloc_live();
        topo::attach_rdma_sysfs(*n, "/sys");
        benchmark::DoNotOptimize(n);
    }
}
BENCHMARK(BM_ReadHwlocLive)->Unit(benchmark::kMillisecond);

/// 8 GPUs and 10 NICs behind two switch levels, 2 NUMA nodes, every port with counters.
void BM_ReadSysfsNode(benchmark::State& state) {
    switchyard::test::FakeSysfs fs;
    fs.numa(0, "0-55");
    fs.numa(1, "56-111");
    for (int i = 0; i < 10; ++i) {
        char hb[16];
        char chain[128];
        std::snprintf(hb, sizeof hb, "pci0000:%02x", 0x10 * (i + 1));
        const int b = 0x10 * (i + 1);
        std::snprintf(chain, sizeof chain,
                      "%s/0000:%02x:01.0/0000:%02x:00.0/0000:%02x:00.0/0000:%02x:00.0", hb, b,
                      b + 1, b + 2, b + 3);
        const std::string base(chain);
        fs.bridge(base.substr(0, base.rfind('/')), "0x10b5", "0x8796", "0x10b5", "0x8796", i / 5);
        if (i < 8) {  // the GPU on a sibling downstream port of the same switch
            char gpu[128];
            std::snprintf(gpu, sizeof gpu,
                          "%s/0000:%02x:01.0/0000:%02x:00.0/0000:%02x:01.0/0000:%02x:00.0", hb, b,
                          b + 1, b + 2, b + 4);
            fs.pci(gpu, "0x10de", "0x2330", "0x030200", i / 5);
        }
        const auto nic = fs.pci(base, "0x15b3", "0x1021", "0x020700", i / 5);
        switchyard::test::FakeSysfs::Port p;
        p.counters = {{"link_downed", "0"},        {"symbol_error", "0"},
                      {"port_rcv_errors", "0"},    {"link_error_recovery", "0"},
                      {"port_xmit_discards", "0"}, {"local_link_integrity_errors", "0"}};
        fs.port(fs.rdma("mlx5_" + std::to_string(i), nic, "guid"), 1, p);
    }
    for (auto _ : state) {
        auto n = topo::read_sysfs_node(fs.root());
        benchmark::DoNotOptimize(n);
    }
}
BENCHMARK(BM_ReadSysfsNode)->Unit(benchmark::kMillisecond);

}  // namespace
