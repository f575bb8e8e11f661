// SPDX-License-Identifier: Apache-2.0
// What the plugin keeps between hooks of one process: the policy path (for option callbacks,
// which get no spank_t), the policy read in init (for user_init) and the node facts read in
// user_init (for task_init in the forked task).
#pragma once

#include <optional>
#include <string>

#include "switchyard/node/node_topology.hpp"
#include "switchyard/placement/planner.hpp"
#include "switchyard/policy/policy.hpp"

namespace switchyard::spank {

struct PluginState {
    std::string config;                    ///< policy path from plugstack.conf
    std::optional<policy::Policy> policy;  ///< read in init (remote), used by user_init
    std::optional<node::NodeTopology> node;
    std::optional<placement::StagePlan> plan;  ///< the step's stage plan (user_init → task_init)
    std::string plan_error;                    ///< why there is no plan; fails every task visibly
    std::string su;                            ///< this node's SU and group in the fabric map
    std::string group;
    bool rank_topology = false;  ///< --rank-order=topology
    std::string cache_entry;     ///< user_init's decision for the step cache ("": none)
    bool read_gids = false;      ///< the NCCL rules read GID tables (no step cache entry)
};

/// The process's state, created on first use. Heap-allocated on purpose: no static destructor
/// runs in the .so when Slurm unloads it.
PluginState& plugin_state();

/// The state when it was made, else null (never makes it: cannot throw).
const PluginState* plugin_state_if_any() noexcept;

/// Frees the state (slurm_spank_exit); the next plugin_state() starts fresh.
void release_plugin_state() noexcept;

}  // namespace switchyard::spank
