// SPDX-License-Identifier: Apache-2.0
// Advice before waiting: whether a pipeline job's placement request can start on the nodes
// that are usable now, and if not, what would (more, smaller stages; fewer nodes; a wider
// stage scope). The request is what the filters ask Slurm for (switchyard_stages.lua): a
// segment per stage on a block partition, a switch count or one group on a tree partition.
// Plain data in and out: which nodes are usable is read by the caller (one sinfo).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "switchyard/common/job_options.hpp"

namespace switchyard::placement {

/// What the job asks Slurm for, as the filters wrote it.
struct AdviceRequest {
    unsigned nodes = 0;   ///< -N
    unsigned stages = 1;  ///< --pipeline-stages
    StageScope scope = StageScope::Any;
    bool block = false;     ///< its partition runs topology/block (else tree)
    unsigned segment = 0;   ///< block: nodes per segment (0: none)
    bool spread = false;    ///< block: --spread-segments (25.11+), each segment its own block
    unsigned switches = 0;  ///< tree: most leaf switches (0: none)
    double switch_wait_s = 0;
    bool one_group = false;  ///< tree: a constraint keeping the whole job in one group
};

/// Where the partition's nodes are: each node's leaf unit (its base block on a block
/// partition, its SU on a tree) and its group, and the group block size the filters decide
/// with.
struct AdviceUnits {
    std::map<std::string, std::string> unit_of;
    std::map<std::string, std::string> group_of;
    unsigned group_block = 0;  ///< nodes per group block (0: none)
};

struct Advice {
    enum class Kind {
        NothingAsked,    ///< no unit request: the job starts on any usable nodes
        StartsNow,       ///< its request fits the usable nodes
        WaitsForNodes,   ///< fewer usable nodes than it asks, whatever the layout
        WaitsForLayout,  ///< enough nodes, but not in units its request needs
    };
    Kind kind = Kind::NothingAsked;
    unsigned usable = 0;               ///< usable nodes of the partition
    unsigned units_that_fit = 0;       ///< segments (block) or stages (tree) that fit now
    std::vector<std::string> instead;  ///< options that would start now ("--pipeline-stages=8")
    std::string sentence;              ///< one line, at most a few hundred characters
};

/// The advice for `req` when `usable` nodes (of its partition) are free to take now.
[[nodiscard]] Advice advise(const AdviceRequest& req,
                            const AdviceUnits& units,
                            const std::vector<std::string>& usable);

}  // namespace switchyard::placement
