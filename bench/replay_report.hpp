// SPDX-License-Identifier: Apache-2.0
// What bench/replay_report reads of a run (its jobs, each job's stages as its ranks ran them),
// the picture it draws of one (replay_svg.cpp) and the layouts it prices besides the ones the
// jobs ran (replay_layouts.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/placement/planner.hpp"

namespace replay {

struct Job {
    unsigned id = 0;
    unsigned stages = 1;
    long submit = 0;
    long start = 0;
    long end = 0;
    std::vector<std::vector<std::string>> stage_nodes;
};

struct Run {
    std::string label;
    std::vector<Job> jobs;
};

/// `v` with `digits` decimals.
[[nodiscard]] std::string fixed(double v, int digits);

/// DIR/<run label>.svg: nodes grouped by SU (rows) over time, each job a colour, its stages in
/// alternating shades.
void write_svg(const std::string& dir, const Run& run, const switchyard::fabric::FabricMap& map);

/// Every host of `map` in map order: group by group, SU by SU.
[[nodiscard]] std::vector<std::uint32_t> hosts_in_map_order(
    const switchyard::fabric::FabricMap& map);

/// A job's step alone on an empty cluster (ms), in two layouts of the same hosts.
struct AloneCosts {
    double planned_ms = 0;  ///< the planner's stages
    double striped_ms = 0;  ///< the same hosts in map order, striped (placement::stripe)
};

/// A job of `nodes` nodes in `stages` stages alone on an empty cluster, at its best: the first
/// `nodes` hosts of `map_order` (whole SUs, then whole groups), planned and striped. Nothing
/// when the cluster is smaller or the plan fails.
[[nodiscard]] std::optional<AloneCosts> best_alone(const switchyard::fabric::FabricMap& map,
                                                   const std::vector<std::uint32_t>& map_order,
                                                   std::size_t nodes,
                                                   std::size_t stages,
                                                   const switchyard::placement::CostParams& params);

}  // namespace replay
