// SPDX-License-Identifier: Apache-2.0
// The stage plan in the plugin: computed once per node in user_init, turned into each task's
// stage and rank variables in task_init.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "plugin_args.hpp"
#include "spank_api.hpp"
#include "switchyard/common/log.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/nccl/rules.hpp"
#include "switchyard/policy/policy.hpp"

namespace switchyard::spank {

/// Whether SLURM_STEP_TASKS_PER_NODE gives every node the same count: "4(x8)" and "4" do,
/// "4,3" does not. Read by hand, not by std::regex: the value comes from the client's
/// environment, and std::regex recurses per character (100k digits overflowed slurmstepd's
/// stack).
[[nodiscard]] bool uniform_tasks_per_node(std::string_view layout);

/// The leaf element of Slurm's own address of this node: the switch (topology/tree) or block
/// (topology/block) just above the node in SLURM_TOPOLOGY_ADDR, read with
/// SLURM_TOPOLOGY_ADDR_PATTERN ("switch.switch.node", "block.node"). Node names may hold dots:
/// the address is split only as far as the pattern has elements. nullopt when the two do not
/// fit, or the pattern does not end in "node" after at least one level.
[[nodiscard]] std::optional<std::string> slurm_leaf(std::string_view addr,
                                                    std::string_view pattern);

/// Plans the step's stages (when --pipeline-stages is set) into plugin_state(); a plan that
/// cannot be made is kept as an error for task_init to fail every task with. Node 0 prints the
/// report when --topo-report is set. The node's SU is the fabric map's; Slurm's own leaf
/// (slurm_leaf of the step's SLURM_TOPOLOGY_ADDR) names it when the map does not know the node,
/// and a disagreement between the two is logged (the map and the topology file come from
/// different discover runs). The plan itself always follows the map: every node must compute
/// the same plan, and each node sees only its own address.
void prepare_plan(SpankApi& api,
                  Logger& log,
                  const policy::Policy& pol,
                  const JobOptions& opts,
                  const nccl::JobFacts& job,
                  const fabric::FabricMap* map);

/// Exports one task's SWITCHYARD_STAGE/STAGE_RANK/RANK/SU/GROUP and, with --rank-order=topology,
/// RANK/WORLD_SIZE/LOCAL_RANK/LOCAL_WORLD_SIZE/MASTER_ADDR/MASTER_PORT (never overwriting).
/// \return the error to fail the task with (no plan for the step, uneven tasks per node).
[[nodiscard]] Result<void> export_task_plan(SpankApi& api, Logger& log);

}  // namespace switchyard::spank
