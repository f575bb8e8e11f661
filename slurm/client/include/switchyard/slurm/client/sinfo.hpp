// SPDX-License-Identifier: Apache-2.0
// sinfo, through a Client: what Slurm says of each node (weight, held or not, the reason), the
// nodes' features and the partitions' nodes; each command line, its bound and its parser.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/result.hpp"
#include "switchyard/slurm/client/client.hpp"

namespace switchyard::slurm {

/// What Slurm says of a node: its scheduling weight, whether it is held out of service (its
/// state has DRAIN, DOWN or FAIL) and, when held, why ("" when it is not held: Slurm 24.11
/// keeps the last reason after a resume, and that one is no reason).
struct NodeState {
    unsigned weight = 0;
    bool held = false;
    std::string reason;
};

/// The query whose output `parse_slurm_nodes` reads: one line per node (and partition) from
/// sinfo, reason last so a '|' inside it is kept. `nodes` ("" for all) is a Slurm host list.
[[nodiscard]] std::vector<std::string> slurm_nodes_query(const std::string& nodes);

/// The nodes of that output by name (a node listed once per partition is one node; sinfo's own
/// "sinfo: ..." lines are skipped); an error names the line that cannot be read.
[[nodiscard]] Result<std::map<std::string, NodeState>> parse_slurm_nodes(std::string_view text);

/// What Slurm says of `nodes` (a host list; "" for every node): the query above, up to 64 MiB
/// (about a million nodes); more is refused, never half read. Errors name the command line.
[[nodiscard]] Result<std::map<std::string, NodeState>> node_states(Client& client,
                                                                   const std::string& nodes);

/// Each node's features as sinfo lists them (kSinfoFeaturesFormat).
[[nodiscard]] Result<std::map<std::string, std::set<std::string>>> node_features(Client& client);

/// Each partition's nodes (kSinfoPartitionsFormat).
[[nodiscard]] Result<std::map<std::string, std::set<std::string>>> partition_nodes(Client& client);

/// The nodes usable now (kSinfoStatesFormat) of `partition` ("" every node), within
/// `timeout_s`.
[[nodiscard]] Result<std::vector<std::string>> usable_nodes(Client& client,
                                                            const std::string& partition,
                                                            double timeout_s);

}  // namespace switchyard::slurm
