// SPDX-License-Identifier: Apache-2.0
// The C interface between spank_switchyard.so (the front every srun and slurmstepd loads) and
// switchyard_step.so (the hooks' logic, with the C++ runtime, yaml-cpp and hwloc), which the
// front loads from its own directory when it first needs it. Plain C types only: the front
// has no C++ runtime, and no exception crosses this line.
#pragma once

#include "spank_compat.hpp"

/// Raised when a member of switchyard_step_hooks changes meaning; the front refuses another.
#define SWITCHYARD_STEP_ABI 2U

/// The file name of the step module, beside spank_switchyard.so.
#define SWITCHYARD_STEP_MODULE "switchyard_step.so"

/// The build both modules must share: the version and the Slurm release built for.
#define SWITCHYARD_STEP_BUILD SWITCHYARD_VERSION_STRING " for Slurm " SWITCHYARD_SLURM_RELEASE

/// The symbol the front looks up in the step module.
#define SWITCHYARD_STEP_SYMBOL "switchyard_step_v1"

extern "C" {

/// One SPANK hook: the arguments Slurm gave the front.
using switchyard_hook_fn = int (*)(spank_t sp, int ac, char** av);

struct switchyard_step_hooks {
    unsigned abi;       ///< SWITCHYARD_STEP_ABI of the step module's build
    const char* build;  ///< SWITCHYARD_STEP_BUILD of the step module
    switchyard_hook_fn init;
    switchyard_hook_fn user_init;
    switchyard_hook_fn task_init;
    switchyard_hook_fn exit;
    /// An option's value, checked (ac/av: the plugstack words, for config=).
    int (*option)(int val, const char* optarg, int remote, int ac, char** av);
    /// After user_init: the step cache entry of its decision (step_cache.hpp), or null when it
    /// cannot be repeated. Valid until exit.
    const char* (*cache_entry)();
};

/// The step module's entry: `options` are the entries the front registered with Slurm (Slurm
/// knows them by address: the step module reads the job's values through them).
using switchyard_step_entry_fn = const switchyard_step_hooks* (*)(struct spank_option* options,
                                                                  int count);

}  // extern "C"
