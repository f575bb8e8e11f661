// SPDX-License-Identifier: Apache-2.0
// Benchmarks of fabric discovery: parse + classify + write at 1k/10k/100k hosts, map load.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "switchyard/discover/classify/classify.hpp"
#include "switchyard/discover/ib/ibnetdiscover.hpp"
#include "switchyard/discover/lldp/lldp.hpp"
#include "switchyard/fabric/fabric_index.hpp"
#include "switchyard/placement/planner.hpp"
#include "switchyard/slurm/files/slurm_writers.hpp"
#include "synthetic_fabric.hpp"

namespace {

double peak_rss_mib() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;
}

/// discover's files from a classified map, as `switchyard discover` makes them: their size.
std::size_t written_bytes(const switchyard::fabric::FabricMap& map) {
    const auto files =
        switchyard::slurm::write_discover_files(map, "", "", switchyard::slurm::SlurmTopologies{});
    std::size_t bytes = 0;
    for (const auto& f : *files) {
        bytes += f.text.size();
    }
    return bytes;
}

/// Everything `switchyard discover` does after reading the file.
void BM_DiscoverPipeline(benchmark::State& state) {
    const auto hosts = static_cast<std::size_t>(state.range(0));
    const auto rails = static_cast<std::size_t>(state.range(1));
    const std::string text = switchyard::bench::synthetic_dragonfly(hosts, rails);
    std::size_t out_bytes = 0;
    for (auto _ : state) {
        auto g = switchyard::discover::parse_ibnetdiscover(text, "synthetic");
        if (!g) {
            state.SkipWithError(g.error().to_string().c_str());
            return;
        }
        auto c = switchyard::discover::classify(*g, {});
        out_bytes = written_bytes(c.map);
        benchmark::DoNotOptimize(out_bytes);
    }
    state.counters["HCAs"] = static_cast<double>(hosts * rails);
    state.counters["input_MB"] = static_cast<double>(text.size()) / 1e6;
    state.counters["output_MB"] = static_cast<double>(out_bytes) / 1e6;
    state.counters["peak_RSS_MiB"] = peak_rss_mib();
}
BENCHMARK(BM_DiscoverPipeline)
    ->Args({1000, 1})
    ->Args({10000, 1})
    ->Args({100000, 1})
    ->Args({10000, 8})
    ->Args({100000, 8})
    ->Unit(benchmark::kMillisecond);

void BM_Parse(benchmark::State& state) {
    const std::string text = switchyard::bench::synthetic_dragonfly(
        static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
    for (auto _ : state) {
        auto g = switchyard::discover::parse_ibnetdiscover(text, "synthetic");
        benchmark::DoNotOptimize(g);
    }
}
BENCHMARK(BM_Parse)->Args({100000, 1})->Args({100000, 8})->Unit(benchmark::kMillisecond);

void BM_Classify(benchmark::State& state) {
    const std::string text = switchyard::bench::synthetic_dragonfly(
        static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
    auto g = switchyard::discover::parse_ibnetdiscover(text, "synthetic");
    for (auto _ : state) {
        auto c = switchyard::discover::classify(*g, {});
        benchmark::DoNotOptimize(c.map.hosts.data());
    }
}
BENCHMARK(BM_Classify)->Args({100000, 1})->Args({100000, 8})->Unit(benchmark::kMillisecond);

/// Writing discover's eight files from a classified map: the map, its index, the Slurm files.
void BM_Write(benchmark::State& state) {
    auto g = switchyard::discover::parse_ibnetdiscover(
        switchyard::bench::synthetic_dragonfly(static_cast<std::size_t>(state.range(0)),
                                               static_cast<std::size_t>(state.range(1))),
        "synthetic");
    const auto c = switchyard::discover::classify(*g, {});
    for (auto _ : state) {
        benchmark::DoNotOptimize(written_bytes(c.map));
    }
}
BENCHMARK(BM_Write)->Args({100000, 8})->Unit(benchmark::kMillisecond);

/// What the plugin pays at step launch: reading the fabric map.
void BM_MapLoad(benchmark::State& state) {
    const std::string text = switchyard::bench::synthetic_dragonfly(
        static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
    auto g = switchyard::discover::parse_ibnetdiscover(text, "synthetic");
    const auto map_text =
        switchyard::fabric::write_fabric_map(switchyard::discover::classify(*g, {}).map, "");
    for (auto _ : state) {
        auto m = switchyard::fabric::read_fabric_map(map_text, "fabric.map");
        if (!m) {
            state.SkipWithError(m.error().to_string().c_str());
            return;
        }
        benchmark::DoNotOptimize(m->hosts.data());
    }
    state.counters["map_MB"] = static_cast<double>(map_text.size()) / 1e6;
}
BENCHMARK(BM_MapLoad)
    ->Args({1000, 1})
    ->Args({100000, 1})
    ->Args({100000, 8})
    ->Unit(benchmark::kMillisecond);

}  // namespace

namespace {

/// The planner on 4096 nodes of a 100k-host map (what user_init pays for a large step); the
/// second argument 1: scope any with placement.stripe_stages: auto (the striped layout priced).
void BM_Plan4096(benchmark::State& state) {
    const auto rails = static_cast<std::size_t>(state.range(0));
    const bool stripe = state.range(1) != 0;
    switchyard::placement::CostParams params;
    params.stripe = stripe;
    auto g = switchyard::discover::parse_ibnetdiscover(
        switchyard::bench::synthetic_dragonfly(100000, rails), "synthetic");
    const auto map = switchyard::discover::classify(*g, {}).map;
    std::vector<std::string> nodes;
    for (std::size_t i = 0; i < map.hosts.size() && nodes.size() < 4096; i += 7) {  // scattered
        nodes.push_back(map.hosts[i].name);
    }
    for (auto _ : state) {
        auto p = switchyard::placement::plan_stages(
            nodes, &map, 8, stripe ? switchyard::StageScope::Any : switchyard::StageScope::Group,
            params);
        benchmark::DoNotOptimize(p);
        state.counters["striped"] = p && p->striped ? 1 : 0;
    }
    state.counters["nodes"] = static_cast<double>(nodes.size());
}
BENCHMARK(BM_Plan4096)
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({8, 0})
    ->Args({8, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace

/// `fabric_bench --write-dump HOSTS RAILS FILE` writes the synthetic dump the benchmarks parse
/// (bench/discover-800k.sh times `switchyard discover` on it); otherwise the benchmarks run.
/// One leaf's lldpctl output (32 hosts, 8 spines: 42 KB) read by discover --lldp's reader; at
/// 100k hosts x 8 rails discover reads 25,000 of them.
void BM_ParseLldpLeaf(benchmark::State& state) {
    const std::string text = switchyard::bench::synthetic_lldp_leaf(32, 8);
    for (auto _ : state) {
        auto f = switchyard::discover::parse_lldp(text, "leaf.json");
        if (!f || f->neighbors.size() != 40) {
            state.SkipWithError("the synthetic leaf did not parse");
            return;
        }
        benchmark::DoNotOptimize(f);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(text.size()));
    state.counters["input_KB"] = static_cast<double>(text.size()) / 1e3;
}
BENCHMARK(BM_ParseLldpLeaf)->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) {
    if (argc == 5 && std::string_view(argv[1]) == "--write-dump") {
        const auto text =
            switchyard::bench::synthetic_dragonfly(std::stoul(argv[2]), std::stoul(argv[3]));
        std::FILE* f = std::fopen(argv[4], "wb");
        const bool ok = f != nullptr && std::fwrite(text.data(), 1, text.size(), f) == text.size();
        if (f == nullptr || std::fclose(f) != 0 || !ok) {
            std::fprintf(stderr, "fabric_bench: cannot write %s\n", argv[4]);
            return 1;
        }
        return 0;
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
        return 1;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
