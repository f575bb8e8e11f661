// SPDX-License-Identifier: Apache-2.0
// The extern "C" surface of switchyard_step.so: the step hooks' logic, which spank_switchyard.so
// (front_entry.cpp) loads from its own directory and calls through one table. Each entry runs
// through guard() so no exception reaches the front or Slurm. No job prolog here: the health
// gate is its own module (gate_entry.cpp), listed only where it is on.
#include "entry.hpp"
#include "plugin_state.hpp"
#include "step_abi.hpp"

namespace sy = switchyard::spank;
using sy::entry::run;

namespace {

int init(spank_t sp, int ac, char** av) {
    // In slurmd an error return stops the daemon: a broken plugin must not take the node down.
    const int error_rc = spank_context() == S_CTX_SLURMD ? 0 : -1;
    return run("init", error_rc, sp, ac, av, sy::hooks::init);
}

int user_init(spank_t sp, int ac, char** av) {
    return run("user_init", -1, sp, ac, av, sy::hooks::user_init);
}

int task_init(spank_t sp, int ac, char** av) {
    return run("task_init", -1, sp, ac, av, sy::hooks::task_init);
}

int exit_hook(spank_t sp, int ac, char** av) {
    return run("exit", 0, sp, ac, av, sy::hooks::exit);
}

int option(int val, const char* optarg, int remote, int ac, char** av) {
    return sy::guard("option", sy::slurm_error_sink, -1, [&] {
        sy::SlurmLogger log;
        return sy::hooks::option(val, optarg, remote, log, sy::entry::words(ac, av));
    });
}

const char* cache_entry() {
    // Cannot throw: reads a string the state already holds (none: no state made).
    const auto* entry = sy::plugin_state_if_any();
    return entry != nullptr && !entry->cache_entry.empty() ? entry->cache_entry.c_str() : nullptr;
}

constexpr switchyard_step_hooks kStep{
    SWITCHYARD_STEP_ABI, SWITCHYARD_STEP_BUILD, init, user_init, task_init, exit_hook, option,
    cache_entry};

}  // namespace

extern "C" {

// Cannot throw: it only keeps the front's option entries.
SWITCHYARD_EXPORT const switchyard_step_hooks* switchyard_step_v1(struct spank_option* options,
                                                                  int count) {
    sy::bind_registered_options(options, count);
    return &kStep;
}

}  // extern "C"
