// SPDX-License-Identifier: Apache-2.0
// Which Slurm topology each partition runs, for the Lua filters' hints. Since Slurm 25.05 a
// cluster may hold several topologies (topology.yaml) and each partition names its own
// (`Topology=` in slurm.conf); a request in one topology's terms means nothing in another's
// (tree ignores --segment, block ignores --switches). Pure text in, data out: the scontrol calls
// are the CLI's.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "switchyard/common/result.hpp"

namespace switchyard::slurm {

/// The topology kinds the filters know: tree and block get requests in their terms; flat and
/// "other" (ring, torus3d: their units are not the fabric's SUs) only the checks.
/// \return the kind of a Slurm plugin or topology.yaml key ("topology/tree", "tree", "torus3d"
///         → "other"), or "" when it is none of Slurm's.
[[nodiscard]] std::string topology_kind(std::string_view slurm_name);

/// What the Lua filters must know of the cluster's topologies.
struct SlurmTopologies {
    std::string default_kind =
        "tree";                     ///< the cluster default's kind: partitions without their own
    std::string default_partition;  ///< the partition a job without one goes to ("" unknown)
    std::vector<std::pair<std::string, std::string>> partitions;  ///< partition → kind, in order
};

/// `scontrol show topoconf` (25.05+): the YAML list of topologies, as (name, kind) in file order,
/// and the name of the cluster default (the entry with `cluster_default: true`, else the first).
/// An entry's kind is its one tree/block/ring/torus3d key with content (`{}` is empty); an entry
/// with none is flat. Errors name `source`, the line and what was expected.
struct TopologyConfig {
    std::vector<std::pair<std::string, std::string>> topologies;
    std::string cluster_default;
    /// The kind of topology `name`; "" when the configuration has none of that name.
    [[nodiscard]] std::string kind_of(std::string_view name) const;
};
[[nodiscard]] Result<TopologyConfig> parse_topoconf(std::string_view text, std::string_view source);

/// One line of `scontrol show partition --oneliner`.
struct PartitionLine {
    std::string name;
    std::string topology;  ///< its Topology= (25.05+), "" for the cluster default
    bool is_default = false;
};
[[nodiscard]] Result<std::vector<PartitionLine>> parse_partitions(std::string_view text,
                                                                  std::string_view source);

/// The partitions' kinds from scontrol's answers: `config` (from topoconf, or one default-only
/// entry made from TopologyPlugin on releases before 25.05). A partition naming a topology the
/// configuration lacks is an error (slurmctld itself refuses to start so).
[[nodiscard]] Result<SlurmTopologies> slurm_topologies(const std::vector<PartitionLine>& partitions,
                                                       const TopologyConfig& config);

/// `--partition-topology` items, "PART=TOPO[,PART=TOPO...]": TOPO is a kind (tree, block, flat,
/// other) or the name of a topology in `config` (discover's own topology.yaml: "fabric" is the
/// tree, "blocks" the blocks). Added to `out` in order; a partition given twice keeps the last.
[[nodiscard]] Result<void> add_partition_topologies(std::string_view text,
                                                    const TopologyConfig& config,
                                                    SlurmTopologies& out);

/// The names discover's topology.yaml gives its topologies, as a TopologyConfig.
[[nodiscard]] TopologyConfig discover_topology_names();

}  // namespace switchyard::slurm
