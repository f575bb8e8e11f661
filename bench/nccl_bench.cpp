// SPDX-License-Identifier: Apache-2.0
// Benchmark of the plugin's per-step NCCL work on one node, the CPU a step's user_init spends
// before setenv: load the policy, the node's facts (from the prolog's cache, or, fourth
// argument 0, from its sysfs tree), the fabric map (through its index, or, third argument 0,
// the map alone), decide the variables.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>

#include "fake_sysfs.hpp"
#include "switchyard/discover/classify/classify.hpp"
#include "switchyard/discover/ib/ibnetdiscover.hpp"
#include "switchyard/fabric/fabric_index.hpp"
#include "switchyard/nccl/rules.hpp"
#include "switchyard/policy/loaders.hpp"
#include "synthetic_fabric.hpp"

namespace {
namespace pol = switchyard::policy;

/// 4 GPUs, 4 compute HCAs, 1 storage HCA, as tests/integration/make-node-trees builds them.
void node_tree(switchyard::test::FakeSysfs& fs) {
    fs.numa(0, "0-55");
    fs.numa(1, "56-111");
    for (int i = 0; i < 5; ++i) {
        const int b = 0x10 * (i + 1);
        char up[96];
        std::snprintf(up, sizeof up, "pci0000:%02x/0000:%02x:01.0/0000:%02x:00.0", b, b, b + 1);
        char gpu[160];
        char nic[160];
        std::snprintf(gpu, sizeof gpu, "%s/0000:%02x:00.0/0000:%02x:00.0", up, b + 2, b + 3);
        std::snprintf(nic, sizeof nic, "%s/0000:%02x:01.0/0000:%02x:00.0", up, b + 2, b + 4);
        if (i < 4) {
            fs.pci(gpu, "0x10de", "0x2330", "0x030200", i / 2);
        }
        const auto dir = fs.pci(nic, "0x15b3", "0x1021", "0x020700", i / 2);
        fs.port(fs.rdma("mlx5_" + std::to_string(i), dir, "guid"), 1, {});
    }
}

void BM_StepNcclWork(benchmark::State& state) {
    switchyard::test::FakeSysfs fs;
    node_tree(fs);
    const auto hosts = static_cast<std::size_t>(state.range(0));
    const auto rails = static_cast<std::size_t>(state.range(1));
    auto g = switchyard::discover::parse_ibnetdiscover(
        switchyard::bench::synthetic_dragonfly(hosts, rails), "synthetic");
    const auto map_path = (fs.root() / "fabric.map").string();
    const auto map = switchyard::discover::classify(*g, {}).map;
    const auto map_text = switchyard::fabric::write_fabric_map(map, "");
    std::ofstream(map_path) << map_text;
    if (state.range(2) != 0) {
        std::ofstream(map_path + ".index")
            << *switchyard::fabric::write_fabric_index(map, map_text);
    }
    const auto policy_path = (fs.root() / "switchyard.yaml").string();
    std::ofstream(policy_path)
        << "version: 1\nfabric:\n  map: " << map_path
        << "\nnode:\n  sysfs_root: " << fs.root().string() << "\n  cache: "
        << (state.range(3) != 0 ? (fs.root() / "cache" / "%n.node").string() : "off")
        << "\nnccl:\n  compute_hca: \"mlx5_[0-3]\"\n  profiles:\n    - name: debug\n"
           "      user_selectable: true\n      set: {NCCL_DEBUG: INFO}\n";
    switchyard::nccl::JobFacts job;
    job.this_host = "host000005";
    for (int i = 0; i < 64; ++i) {
        char h[16];
        std::snprintf(h, sizeof h, "host%06d", i);
        job.hosts.emplace_back(h);
    }
    fs.shared_dir("cache");
    (void)pol::load_node(*pol::load_policy_file(policy_path),
                         {job.this_host, "", "", pol::NodeCache::Write, nullptr});  // the prolog
    for (auto _ : state) {
        auto p = pol::load_policy_file(policy_path);
        auto node = pol::load_node(*p, {job.this_host, "", "", pol::NodeCache::Read, nullptr});
        auto m = pol::load_fabric_map_file(p->fabric_map, &job.hosts);
        auto d = switchyard::nccl::decide_node_env(p->nccl, *node, &*m, job, {}, {});
        benchmark::DoNotOptimize(d.set.data());
    }
}
BENCHMARK(BM_StepNcclWork)
    ->ArgNames({"hosts", "rails", "index", "cache"})
    ->Args({1000, 1, 1, 1})
    ->Args({10000, 1, 1, 1})
    ->Args({100000, 1, 1, 1})
    ->Args({100000, 8, 1, 1})
    ->Args({100000, 8, 1, 0})
    ->Args({100000, 8, 0, 0})
    ->Args({1000, 1, 0, 0})
    ->Unit(benchmark::kMillisecond);

}  // namespace
