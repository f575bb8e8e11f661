// SPDX-License-Identifier: Apache-2.0
// Slurm files from a FabricMap: topology.conf (tree), the block form, topology.yaml, and node
// features (slurm.conf include and scontrol lines).
#pragma once

#include <string>
#include <string_view>

#include "switchyard/topology/fabric_map.hpp"

namespace switchyard::topology {

/// topology/tree: one switch per SU (its hosts), one per group when there are several, and one
/// root — the lowest level is the SU, so rail-optimized hosts sit under exactly one switch.
[[nodiscard]] std::string write_topology_conf(const FabricMap& map, std::string_view header);

/// topology/block (Slurm ≥ 23.11): one block per SU, in group order, and BlockSizes.
[[nodiscard]] std::string write_topology_block(const FabricMap& map, std::string_view header);

/// topology.yaml (Slurm ≥ 25.05): the tree as the cluster default and the blocks as "block".
[[nodiscard]] std::string write_topology_yaml(const FabricMap& map, std::string_view header);

/// Feature names: "su_<su>" and "grp_<group>".
[[nodiscard]] std::string su_feature(std::string_view su);
[[nodiscard]] std::string group_feature(std::string_view group);

/// `NodeName=<hosts> Features=su_..,grp_..` lines, one per SU, for a slurm.conf include.
[[nodiscard]] std::string write_node_features(const FabricMap& map, std::string_view header);

/// The small Lua table job_submit.lua loads once: largest SU and group sizes and the group
/// feature names (job_submit.lua must not parse the fabric map inside slurmctld).
[[nodiscard]] std::string write_job_submit_hints(const FabricMap& map, std::string_view header);

/// `scontrol update NodeName=<hosts> AvailableFeatures=... ActiveFeatures=...` lines.
[[nodiscard]] std::string write_feature_commands(const FabricMap& map, std::string_view header);

}  // namespace switchyard::topology
