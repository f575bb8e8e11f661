// SPDX-License-Identifier: Apache-2.0
// The extern "C" surface of spank_switchyard.so: plugin symbols and the step's SPANK hooks,
// each one line through guard() so no exception reaches Slurm. It has no job prolog hook on
// purpose: slurmd runs a `slurmstepd spank prolog` for every job as soon as any loaded plugin
// has one, so the health gate is its own module (gate_entry.cpp), listed only where it is on.
#include "entry.hpp"

namespace sy = switchyard::spank;
using sy::entry::run;

extern "C" {

SWITCHYARD_SPANK_PLUGIN("switchyard")

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
// 25.05+: how Slurm treats a failed slurm_spank_init. The default (ESPANK_NODE_FAILURE) drains the
// node; a switchyard init failure is a plugstack or policy mistake that every node shares, so it
// fails the job instead and never drains the cluster. The health gate drains on purpose, with
// its own reason, from the job prolog.
SWITCHYARD_EXPORT extern int slurm_spank_init_failure_mode;
int slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE;
#endif

SWITCHYARD_EXPORT int slurm_spank_init(spank_t sp, int ac, char** av) {
    // In slurmd an error return stops the daemon: a broken plugin must not take the node down.
    const int error_rc = spank_context() == S_CTX_SLURMD ? 0 : -1;
    return run("init", error_rc, sp, ac, av, sy::hooks::init);
}

SWITCHYARD_EXPORT int slurm_spank_user_init(spank_t sp, int ac, char** av) {
    return run("user_init", -1, sp, ac, av, sy::hooks::user_init);
}

SWITCHYARD_EXPORT int slurm_spank_task_init(spank_t sp, int ac, char** av) {
    return run("task_init", -1, sp, ac, av, sy::hooks::task_init);
}

SWITCHYARD_EXPORT int slurm_spank_exit(spank_t sp, int ac, char** av) {
    return run("exit", 0, sp, ac, av, sy::hooks::exit);
}

}  // extern "C"
