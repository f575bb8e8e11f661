// SPDX-License-Identifier: Apache-2.0
// Benchmark of the prolog health gate's built-in checks on a typical 8-GPU / 10-NIC node (a fake
// sysfs tree): reading the node, then RDMA ports, link-error counters, GPUs and PCIe links, memory,
// one filesystem. Target (issue #7): <= 100 ms for the built-in checks.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "switchyard/health/health.hpp"
#include "switchyard/node/node_readers.hpp"
#include "typical_node.hpp"

namespace {

switchyard::health::HealthChecks typical_policy(const std::filesystem::path& scratch) {
    switchyard::health::HealthChecks p;
    p.rdma_ports = switchyard::health::RdmaPortsCheck{8, 200, "InfiniBand", "^mlx5_[0-7]$"};
    p.link_errors =
        switchyard::health::LinkErrorsCheck{2, "^mlx5_[0-7]$", (scratch / "link-errors").string()};
    p.gpus = 8;
    p.min_memory_gb = 1;
    p.filesystems.push_back({"/tmp", 0.01, true});
    return p;
}

/// What the prolog does: read the node from sysfs, run every built-in check.
void BM_BuiltinChecks(benchmark::State& state) {
    switchyard::test::FakeSysfs fs;
    switchyard::test::build_typical_gpu_node(fs);
    const auto policy = typical_policy(fs.root());
    for (auto _ : state) {
        auto node = switchyard::node::read_sysfs_node(fs.root());
        if (!node) {
            state.SkipWithError(node.error().message().c_str());
            return;
        }
        switchyard::health::SystemProbe probe(*node, fs.root());
        auto report = switchyard::health::run_health_checks(policy, probe, 30);
        if (report.verdict != switchyard::health::HealthStatus::Pass) {
            state.SkipWithError(("not healthy: " + report.reason()).c_str());
            return;
        }
        benchmark::DoNotOptimize(report);
    }
}
BENCHMARK(BM_BuiltinChecks)->Unit(benchmark::kMillisecond);

/// The checks alone, on a node already read.
void BM_ChecksOnly(benchmark::State& state) {
    switchyard::test::FakeSysfs fs;
    switchyard::test::build_typical_gpu_node(fs);
    const auto policy = typical_policy(fs.root());
    const auto node = switchyard::node::read_sysfs_node(fs.root());
    if (!node) {
        state.SkipWithError(node.error().message().c_str());
        return;
    }
    switchyard::health::SystemProbe probe(*node, fs.root());
    for (auto _ : state) {
        auto report = switchyard::health::run_health_checks(policy, probe, 30);
        benchmark::DoNotOptimize(report);
    }
}
BENCHMARK(BM_ChecksOnly)->Unit(benchmark::kMillisecond);

/// The NVML check through the fake libnvidia-ml (8 GPUs): the thread, dlopen (cached after the
/// first run), and the per-GPU queries. A real driver's nvmlInit costs more (tens of ms when
/// persistence mode is off); this measures switchyard's own share.
void BM_NvmlFake(benchmark::State& state) {
    switchyard::test::FakeSysfs fs;
    const auto config = fs.root() / "nvml.conf";
    {
        std::ofstream out(config);
        for (int i = 0; i < 8; ++i) {
            out << "gpu uuid=GPU-" << i << " nvlinks=18\n";
        }
    }
    setenv("SWITCHYARD_FAKE_NVML", config.c_str(), 1);
    switchyard::health::NvmlCheck c;
    c.library = FAKE_NVML;
    c.gpus = 8;
    c.nvlinks = 18;
    const switchyard::node::NodeTopology none;
    switchyard::health::SystemProbe probe(none, "/");
    for (auto _ : state) {
        auto r = switchyard::health::check_nvml(probe, c);
        if (r.status != switchyard::health::HealthStatus::Pass) {
            state.SkipWithError(r.detail.c_str());
            return;
        }
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_NvmlFake)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
