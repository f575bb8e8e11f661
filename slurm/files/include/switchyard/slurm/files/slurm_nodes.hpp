// SPDX-License-Identifier: Apache-2.0
// The SU and group features where slurmctld keeps them across restarts: in slurm.conf itself.
// Features set with `scontrol update` live only until slurmctld restarts without its state
// (or, on a release that does not save them, at any restart); features on the NodeName lines
// of slurm.conf are there whenever slurmctld reads its configuration. A node may be named on
// one NodeName line only, so discover merges its features into the site's own lines and the
// site includes the merged file in their place.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "switchyard/common/result.hpp"
#include "switchyard/fabric/fabric_map.hpp"

namespace switchyard::slurm {

/// The site's NodeName lines merged with the fabric's features.
struct NodesConf {
    std::string text;            ///< the file to include in place of the site's lines
    std::size_t site_lines = 0;  ///< NodeName lines read (DEFAULT lines included)
    std::size_t lines = 0;       ///< NodeName lines written
    std::size_t hosts = 0;       ///< hosts named
    std::size_t outside = 0;     ///< hosts the fabric map does not hold (written unchanged)
};

/// Whether `feature` is one switchyard writes (su_*, grp_*, grp<N>_*): replaced, never kept,
/// so a host that moved loses its old SU's features.
[[nodiscard]] bool switchyard_feature(std::string_view feature);

/// Every NodeName line of `site` (slurm.conf, or the file the site keeps its nodes in), in
/// order, with each host's SU and group features (those of node-features.conf) added to the
/// site's own: a line whose hosts sit in several SUs becomes one line per feature set, with
/// the rest of its words unchanged (NodeAddr and NodeHostname lists follow their hosts).
/// `NodeName=DEFAULT` lines are copied; other lines are left out. Errors name `source`, the
/// line, the word and what was expected.
[[nodiscard]] Result<NodesConf> merge_node_features(std::string_view site,
                                                    std::string_view source,
                                                    const fabric::FabricMap& map,
                                                    std::string_view header);

}  // namespace switchyard::slurm
