// SPDX-License-Identifier: Apache-2.0
// What bench/replay_report reads of a run (its jobs, each job's stages as its ranks ran them)
// and the picture it draws of one (replay_svg.cpp).
#pragma once

#include <string>
#include <vector>

#include "switchyard/fabric/fabric_map.hpp"

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

}  // namespace replay
