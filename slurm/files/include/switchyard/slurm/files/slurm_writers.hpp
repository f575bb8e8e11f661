// SPDX-License-Identifier: Apache-2.0
// Slurm files from a FabricMap: topology.conf (tree), the block form, topology.yaml, and node
// features (slurm.conf include and scontrol lines).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/slurm/files/slurm_partitions.hpp"

namespace switchyard::slurm {

/// topology/tree: one switch per SU (its hosts), one per group when there are several, and one
/// root — the lowest level is the SU, so rail-optimized hosts sit under exactly one switch.
[[nodiscard]] std::string write_topology_conf(const fabric::FabricMap& map,
                                              std::string_view header);

/// The fabric as Slurm's topology/block sees it (24.05+ rules, src/plugins/topology/block):
/// BlockSizes[0] is the planning size of every base block, and each further size aggregates
/// 2^k consecutive base blocks, aligned on multiples of 2^k in file order. So one base block per
/// SU, SUs listed group by group, and a second size of one group exactly when every SU has the
/// same host count and every group the same power-of-two count of SUs; otherwise Slurm's
/// aggregates would straddle groups and the layout has the SU level only, saying why.
///
/// With NVLink domains (FabricMap::domains) the base block is one domain instead: domains SU by
/// SU in that order, each SU's hosts in no domain in a block "<su>-other" after all others (it
/// sets no size), then a size of one SU when every SU holds the same power-of-two count (at
/// least 2) of equal domains, and one of a group when every group then holds the same
/// power-of-two count of SUs.
struct BlockLayout {
    std::vector<std::uint32_t> sus;  ///< SU indices in block order (group by group)
    std::size_t base = 0;            ///< nodes per base block: the smallest SU or domain (0: none)
    std::size_t group = 0;           ///< nodes per aggregated block = one group; 0 when none
    std::vector<std::uint32_t> domains;  ///< NVLink domain indices in block order
    std::vector<std::uint32_t> rest;     ///< SUs with hosts in no domain, one block each, last
    std::size_t su = 0;  ///< with domains: nodes per aggregated block = one SU; 0 when none
    std::vector<std::string> notes;  ///< what the blocks cannot express, one sentence each
};
[[nodiscard]] BlockLayout block_layout(const fabric::FabricMap& map);

/// BlockSizes: base, then the SU and group sizes that are set.
[[nodiscard]] std::vector<std::size_t> layout_sizes(const BlockLayout& layout);

/// Every block of the layout in order: its name and its nodes as a hostlist.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> layout_blocks(
    const fabric::FabricMap& map, const BlockLayout& layout);

/// topology/block (Slurm ≥ 23.11): one block per SU, in group order, BlockSizes from
/// block_layout(), and its notes as comments.
[[nodiscard]] std::string write_topology_block(const fabric::FabricMap& map,
                                               std::string_view header);

/// topology.yaml (Slurm ≥ 25.05): the tree as the cluster default and the blocks as "block".
[[nodiscard]] std::string write_topology_yaml(const fabric::FabricMap& map,
                                              std::string_view header);

/// Feature names: "su_<su>", "grp_<group>" and, for runs of groups, "grp<span>_<first group>".
[[nodiscard]] std::string su_feature(std::string_view su);
[[nodiscard]] std::string group_feature(std::string_view group);
[[nodiscard]] std::string group_span_feature(std::string_view first_group, std::size_t span);

/// Runs of groups above the group level, for jobs larger than one group: spans of 2, 4, 8, ...
/// consecutive groups in map order, aligned on multiples of the span (so a run of 4 is two runs
/// of 2), while the span is below the group count. Each whole run is one node feature
/// "grp<span>_<its first group>" (grp2_g1: groups g1 and g2); a trailing run short of the span
/// gets none. In a Dragonfly+ fabric every group pair has its own global links, so any run is
/// as good as another; the runs only have to be few, named, and nested.
struct GroupSpan {
    std::size_t span = 0;               ///< groups per run
    std::size_t hosts = 0;              ///< hosts of the largest run
    std::vector<std::string> features;  ///< one per whole run, in map order
};
[[nodiscard]] std::vector<GroupSpan> group_spans(const fabric::FabricMap& map);

/// One SU's hosts' features: "su_<su>,grp_<group>[,grp<span>_<first>...]".
[[nodiscard]] std::string node_features(const fabric::FabricMap& map, const fabric::MapSu& su);

/// One host's: its SU's, and its NVLink domain's name ("nvl_8c6f0a52_32766") when it has one.
[[nodiscard]] std::string host_features(const fabric::FabricMap& map, const fabric::MapHost& host);

/// `NodeName=<hosts> Features=su_..,grp_..,grp2_..[,nvl_..]` lines, one per SU (one per NVLink
/// domain of the SU and one for its hosts in none, when the map has domains), for a slurm.conf
/// include.
[[nodiscard]] std::string write_node_features(const fabric::FabricMap& map,
                                              std::string_view header);

/// The small Lua table the Lua filters load: the cluster default topology's kind (`topology`),
/// the default partition and each partition that runs another kind (`partitions`), largest SU
/// and group sizes, the group feature names, the runs of groups (`groups_<span>` and
/// `group_size_<span>`) and the block sizes (job_submit.lua must not parse the fabric map inside
/// slurmctld). The filters ask Slurm for stages in each partition's terms (--switches and
/// features on a tree, --segment on blocks).
[[nodiscard]] std::string write_job_submit_hints(const fabric::FabricMap& map,
                                                 std::string_view header,
                                                 const SlurmTopologies& topologies);

/// `scontrol update NodeName=<hosts> AvailableFeatures=... ActiveFeatures=...` lines.
[[nodiscard]] std::string write_feature_commands(const fabric::FabricMap& map,
                                                 std::string_view header);

/// One file `switchyard discover` writes: its name in the output folder and its text.
struct DiscoverFile {
    std::string name;
    std::string text;
};

/// Every file `switchyard discover` writes, in its order: fabric.map (with `map_comment`),
/// fabric.map.index, then the Slurm files (topology.conf, topology-block.conf, topology.yaml,
/// node-features.conf, node-features.sh, job_submit_hints.lua for `topologies`) under `header`.
/// A large map's files are made on two threads at once (the map and its index on one, the
/// Slurm files on the other). \return the index's error when the map cannot be indexed.
[[nodiscard]] Result<std::vector<DiscoverFile>> write_discover_files(
    const fabric::FabricMap& map,
    std::string_view map_comment,
    std::string_view header,
    const SlurmTopologies& topologies);

}  // namespace switchyard::slurm
