// SPDX-License-Identifier: Apache-2.0
// `switchyard discover` end to end, for the command to call once: what it was asked, and the
// whole run (inputs read, fabric classified, NVLink domains, summary, files written).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "switchyard/ops/deps.hpp"

namespace switchyard::ops {

/// The command's options, as given.
struct DiscoverRequest {
    std::string input;
    std::string lldp;
    std::string guid_map;
    std::string compute_hca;
    std::string expect_hosts;
    std::string node_facts;
    std::uint32_t expect_nvl_size = 0;
    std::string previous_map;
    std::string expect_cabling;
    std::string out_dir;
    std::string topology_plugin = "tree";
    bool topology_plugin_given = false;
    std::vector<std::string> partition_topology;
    std::string default_partition;
    std::string slurm_nodes;
};

enum class DiscoverResult {
    Done,     ///< every file written
    Usage,    ///< an option's value is not acceptable
    Problem,  ///< an input could not be read or holds no fabric; nothing (more) written
};

/// Runs discover as `request` says: the summary to `deps.out` as it is known, problems and
/// warnings to `deps.err`, the files written atomically into `request.out_dir` (named from
/// slurm::kDiscoverFiles); slurmctld asked through `deps.slurm` for `--partition-topology slurm`.
[[nodiscard]] DiscoverResult run_discover(const DiscoverRequest& request, Deps& deps);

}  // namespace switchyard::ops
