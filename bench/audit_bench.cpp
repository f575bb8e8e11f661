// SPDX-License-Identifier: Apache-2.0
// `switchyard audit --since` over a long window: every job of a day judged, each against the
// free nodes at its start (every other job and node event of the window), on a synthetic
// Dragonfly+ cluster; with the holdings indexed once (as the CLI does) and, beside it, indexed
// again for each job (what a caller without the index pays). What is timed is the audit's own work
// (placement::audit_job), after Slurm has answered: squeue, sacct and sinfo are not in it.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "switchyard/discover/classify/classify.hpp"
#include "switchyard/discover/ib/ibnetdiscover.hpp"
#include "switchyard/placement/audit.hpp"
#include "synthetic_fabric.hpp"

namespace {

namespace pl = switchyard::placement;

/// A day of `jobs` jobs on `map`'s hosts: sizes of 1 to 64 nodes (pipeline jobs of 4 nodes per
/// stage from 8 nodes up), durations of 1 to 60 minutes, each started at the first second
/// enough nodes are free, on the first free nodes in map order; one node in 200 drained for an
/// hour at a random time.
struct Day {
    std::vector<pl::AuditedJob> jobs;
    std::vector<pl::Holding> holdings;
};

Day make_day(const switchyard::fabric::FabricMap& map, std::size_t jobs) {
    std::mt19937_64 rng(42);
    const std::vector<std::size_t> sizes{1, 2, 4, 8, 8, 16, 16, 32, 64};
    std::vector<std::int64_t> free_at(map.hosts.size(), 0);  // when each host is free again
    Day day;
    std::int64_t now = 0;
    for (std::size_t j = 0; j < jobs; ++j) {
        const auto size = std::min(sizes[rng() % sizes.size()], map.hosts.size());
        const auto duration = static_cast<std::int64_t>(60 + rng() % 3540);
        now += static_cast<std::int64_t>(rng() % 10);
        // the earliest second `size` hosts are free at once, no sooner than now
        std::vector<std::int64_t> times(free_at);
        std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(size - 1),
                         times.end());
        const auto start = std::max(now, times[size - 1]);
        pl::AuditedJob a;
        a.id = std::to_string(j + 1);
        a.partition = "batch";
        a.topology = "tree";
        for (std::size_t h = 0; h < map.hosts.size() && a.nodes.size() < size; ++h) {
            if (free_at[h] <= start) {
                a.nodes.push_back(map.hosts[h].name);
                free_at[h] = start + duration;
            }
        }
        a.stages = size >= 8 ? static_cast<unsigned>(size / 4) : 0;
        a.start_time = start;
        a.finished = true;
        day.holdings.push_back({a.id, a.nodes, start, start + duration, {}});
        day.jobs.push_back(std::move(a));
    }
    for (std::size_t h = 0; h < map.hosts.size(); h += 200) {
        const auto at = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(now + 1));
        day.holdings.push_back({"node event DRAIN", {map.hosts[h].name}, at, at + 3600, {}});
    }
    return day;
}

void BM_AuditSince(benchmark::State& state) {
    auto g = switchyard::discover::parse_ibnetdiscover(
        switchyard::bench::synthetic_dragonfly(static_cast<std::size_t>(state.range(0))),
        "synthetic");
    const auto map = switchyard::discover::classify(*g, {}).map;
    const auto day = make_day(map, static_cast<std::size_t>(state.range(1)));
    pl::AuditContext ctx;
    ctx.map = &map;
    ctx.holdings = &day.holdings;
    for (const auto& h : map.hosts) {
        ctx.partition_nodes["batch"].insert(h.name);
    }
    // As the CLI does: the holdings indexed once per audit (inside the timing).
    unsigned one_su = 0;
    for (auto _ : state) {
        const auto index = pl::index_holdings(day.holdings, ctx.partition_nodes, map);
        ctx.holding_index = state.range(2) != 0 ? &index : nullptr;
        one_su = 0;
        for (const auto& j : day.jobs) {
            const auto a = pl::audit_job(j, ctx);
            one_su += a.at_start ? a.at_start->stages_in_one_su : 0;
            benchmark::DoNotOptimize(a);
        }
    }
    state.counters["hosts"] = static_cast<double>(map.hosts.size());
    state.counters["jobs"] = static_cast<double>(day.jobs.size());
    state.counters["holdings"] = static_cast<double>(day.holdings.size());
    state.counters["s_per_job"] = benchmark::Counter(
        static_cast<double>(day.jobs.size()),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
    benchmark::DoNotOptimize(one_su);
}
BENCHMARK(BM_AuditSince)
    ->ArgNames({"hosts", "jobs", "indexed"})
    ->Args({1024, 1000, 0})
    ->Args({1024, 1000, 1})
    ->Args({1024, 10000, 1})
    ->Args({4096, 10000, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
