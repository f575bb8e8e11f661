// SPDX-License-Identifier: Apache-2.0
// What a step works from, loaded one way for the plugin's step, `switchyard nccl-env` and
// `switchyard plan`: the fabric map (for a step: only its hosts, from the index), this node's
// facts (for a step: the prolog's cache, ports read live) and the IMEX channel as the NCCL
// rules look at it. Each caller decides what a missing part means (the plugin goes on without a
// map; the commands stop).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "switchyard/common/error.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/node/node_topology.hpp"
#include "switchyard/policy/policy.hpp"

namespace switchyard::policy {

struct StepInputRequest {
    std::string this_host;           ///< this node's Slurm name (%n)
    std::vector<std::string> hosts;  ///< the step's nodes
    std::string map_path;            ///< "" for no map
    bool step = false;       ///< a real step: the map's index for `hosts`, the node cache read
    bool node = true;        ///< read this node's facts
    std::string hwloc_xml;   ///< overrides node.hwloc_xml (the commands' --hwloc-xml)
    std::string sysfs_root;  ///< overrides node.sysfs_root (the commands' --sysfs-root)
};

/// The IMEX channel device as R17 looks at it: only for a node of a map with NVLink domains.
struct ImexProbe {
    std::optional<bool> present;  ///< unset: not looked at
    std::string path;             ///< nccl.imex_channel with %n expanded
};

struct StepInput {
    std::optional<fabric::FabricMap> map;
    std::optional<Error> map_error;  ///< the map named could not be read
    std::optional<node::NodeTopology> node;
    std::optional<Error> node_error;  ///< the node was asked for and could not be read
    ImexProbe imex;
    /// What the prolog's `nvlink` check last said of this node ("" a pass), for a node of a map
    /// with NVLink domains; nullopt when not known (read_nvlink_state).
    std::optional<std::string> nvlink_problem;
    std::vector<std::string> map_notes;   ///< why the map's index was not used
    std::vector<std::string> node_notes;  ///< why the node cache was not used
};

/// Loads what `request` asks under `policy`.
[[nodiscard]] StepInput load_step_input(const Policy& policy, const StepInputRequest& request);

/// The IMEX probe alone (load_step_input does it once the map is read).
[[nodiscard]] ImexProbe probe_imex(const Policy& policy,
                                   const fabric::FabricMap* map,
                                   const std::string& this_host);

}  // namespace switchyard::policy
