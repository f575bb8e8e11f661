// SPDX-License-Identifier: Apache-2.0
// The stage plan in the plugin: computed once per node in user_init, turned into each task's
// stage and rank variables in task_init.
#pragma once

#include "plugin_args.hpp"
#include "spank_api.hpp"
#include "switchyard/common/log.hpp"
#include "switchyard/policy/nccl_rules.hpp"
#include "switchyard/topology/fabric_map.hpp"

namespace switchyard::spank {

/// Plans the step's stages (when --pipeline-stages is set) into plugin_state(); a plan that
/// cannot be made is kept as an error for task_init to fail every task with. Node 0 prints the
/// report when --topo-report is set.
void prepare_plan(SpankApi& api,
                  Logger& log,
                  const policy::Policy& pol,
                  const policy::JobOptions& opts,
                  const policy::JobFacts& job,
                  const topology::FabricMap* map);

/// Exports one task's SWITCHYARD_STAGE/STAGE_RANK/RANK/SU/GROUP and, with --rank-order=topology,
/// RANK/WORLD_SIZE/LOCAL_RANK/LOCAL_WORLD_SIZE/MASTER_ADDR/MASTER_PORT (never overwriting).
/// \return the error to fail the task with (no plan for the step, uneven tasks per node).
[[nodiscard]] Result<void> export_task_plan(SpankApi& api, Logger& log);

}  // namespace switchyard::spank
