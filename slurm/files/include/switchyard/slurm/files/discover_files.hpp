// SPDX-License-Identifier: Apache-2.0
// The names of the files `switchyard discover` writes: the one list the writers name their
// files from and install copies.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace switchyard::slurm {

/// Every file `switchyard discover` may write, in its order (fabric.map first; nodes.conf only
/// with --slurm-nodes). The one list: discover names its files from it, install copies exactly
/// these, so a new output cannot be written and silently not installed.
inline constexpr std::array<std::string_view, 9> kDiscoverFiles = {
    "fabric.map",          "fabric.map.index",     "topology.conf",
    "topology-block.conf", "topology.yaml",        "node-features.conf",
    "node-features.sh",    "job_submit_hints.lua", "nodes.conf"};

/// Each of kDiscoverFiles by what it is, in the list's order: code names a file by this, never
/// by its position.
enum class OutputFile : std::size_t {
    FabricMap,
    FabricIndex,
    TopologyConf,
    TopologyBlock,
    TopologyYaml,
    NodeFeatures,
    FeatureCommands,
    Hints,
    NodesConf,
};

/// The file name of `f`.
[[nodiscard]] constexpr std::string_view discover_file(OutputFile f) {
    return kDiscoverFiles[static_cast<std::size_t>(f)];
}
static_assert(discover_file(OutputFile::NodesConf) == "nodes.conf" &&
              discover_file(OutputFile::FabricMap) == "fabric.map");

}  // namespace switchyard::slurm
