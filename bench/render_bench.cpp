// SPDX-License-Identifier: Apache-2.0
// Benchmark of `switchyard render`: the SVG of a synthetic Dragonfly+ fabric (1k, 10k, 100k
// hosts) with a quarter of the hosts in an 8-stage plan; reports the SVG size.
#include <benchmark/benchmark.h>

#include "switchyard/discover/classify/classify.hpp"
#include "switchyard/discover/ib/ibnetdiscover.hpp"
#include "switchyard/render/render_svg.hpp"
#include "synthetic_fabric.hpp"

namespace {

void BM_RenderSvg(benchmark::State& state) {
    const auto hosts = static_cast<std::size_t>(state.range(0));
    auto g = switchyard::discover::parse_ibnetdiscover(
        switchyard::bench::synthetic_dragonfly(hosts), "synthetic");
    if (!g) {
        state.SkipWithError(g.error().to_string().c_str());
        return;
    }
    const auto map = switchyard::discover::classify(*g, {}).map;
    switchyard::render::RenderOverlay ov;
    ov.stages = 8;
    const auto in_job = map.hosts.size() / 4;
    for (std::size_t i = 0; i < in_job; ++i) {
        ov.stage_of[map.hosts[i].name] = static_cast<unsigned>(i * 8 / in_job);
    }
    ov.drained[map.hosts.back().name] = "rdma-ports: 0 of 1 compute ports usable";
    std::size_t bytes = 0;
    for (auto _ : state) {
        const auto svg = switchyard::render::render_svg(map, ov);
        bytes = svg.size();
        benchmark::DoNotOptimize(bytes);
    }
    state.counters["hosts"] = static_cast<double>(map.hosts.size());
    state.counters["svg_KB"] = static_cast<double>(bytes) / 1024.0;
}
BENCHMARK(BM_RenderSvg)->Arg(1024)->Arg(10240)->Arg(102400)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
