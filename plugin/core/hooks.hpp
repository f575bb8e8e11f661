// SPDX-License-Identifier: Apache-2.0
// Hook logic of spank_switchyard.so, one function per SPANK callback, written against SpankApi.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "node_control.hpp"
#include "spank_api.hpp"
#include "step_cache.hpp"
#include "switchyard/common/log.hpp"

namespace switchyard::spank {

/// plugstack.conf words after the plugin path (ac/av), as views.
using PluginWords = std::vector<std::string_view>;

using step_cache::kFirstSpecialStepId;

/// Names of the variables exported in this version.
inline constexpr std::string_view kEnvVersion = "SWITCHYARD_VERSION";
inline constexpr std::string_view kEnvStages = "SWITCHYARD_STAGES";
inline constexpr std::string_view kEnvNcclSet = step_cache::kEnvNcclSet;

/// Logged by slurmd when it loads the plugin: the build and the Slurm release it is for.
inline constexpr std::string_view kLoadedLine =
    "switchyard " SWITCHYARD_VERSION_STRING " loaded (built for Slurm " SWITCHYARD_SLURM_RELEASE
    ")";

/// setenv without overwrite: a value the user set is kept and the kept value logged.
[[nodiscard]] Result<void> export_var(SpankApi& api,
                                      Logger& log,
                                      std::string_view name,
                                      const std::string& value);

namespace hooks {

/// slurm_spank_init, in slurmd and slurmstepd (the front, spank_switchyard.so, registered the
/// job options already and calls this nowhere else): checks plugstack arguments. A bad
/// argument fails the hook, except in slurmd, where it is logged and the daemon keeps running
/// (a typo in plugstack.conf must not take nodes down).
int init(SpankApi& api, Logger& log, const PluginWords& words);

/// slurm_spank_user_init, remote: exports SWITCHYARD_VERSION and, for --pipeline-stages,
/// SWITCHYARD_STAGES into the step's tasks without overwriting a value the user set.
/// Special steps (the batch script, extern) get nothing, so inner sruns see only their own values.
int user_init(SpankApi& api, Logger& log, const PluginWords& words);

/// slurm_spank_task_init, remote, per task: the per-task NCCL rule (CPU affinity vs the GPUs'
/// NUMA nodes), using the node facts user_init read (the task process is a fork of slurmstepd).
int task_init(SpankApi& api, Logger& log, const PluginWords& words);

/// slurm_spank_job_prolog (root, each node of a job): the health gate. Policy problems fail
/// open (logged): a broken policy must never drain the cluster.
int job_prolog(SpankApi& api, Logger& log, const PluginWords& words, NodeControl& control);

/// slurm_spank_exit: frees what the plugin kept between hooks.
int exit(SpankApi& api, Logger& log, const PluginWords& words);

/// The callback of every option (`val` = OptionId): validates the value in the client, where a
/// negative return makes srun/sbatch/salloc exit with an error, and again in slurmstepd.
/// `words` (the plugstack words) give config= where init did not run here (a client).
int option(int val, const char* optarg, int remote, Logger& log, const PluginWords& words = {});

}  // namespace hooks
}  // namespace switchyard::spank
