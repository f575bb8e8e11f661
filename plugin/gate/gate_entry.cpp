// SPDX-License-Identifier: Apache-2.0
// The extern "C" surface of spank_switchyard_gate.so: the health gate, in the job prolog. A
// module of its own because slurmd runs a `slurmstepd spank prolog` for every job whenever any
// loaded plugin has a prolog hook: clusters without the gate pay nothing for it. It takes the
// same plugstack arguments as spank_switchyard.so (config= above all).
#include "entry.hpp"
#include "node_control.hpp"

namespace sy = switchyard::spank;

extern "C" {

SWITCHYARD_SPANK_PLUGIN("switchyard_gate")

// Fail-open on an internal error: a plugin bug must not drain nodes (the gate drains on purpose).
SWITCHYARD_EXPORT int slurm_spank_job_prolog(spank_t sp, int ac, char** av) {
    return sy::entry::run("job_prolog", 0, sp, ac, av,
                          [](sy::SpankApi& api, switchyard::Logger& log, const sy::PluginWords& w) {
                              return sy::hooks::job_prolog(api, log, w, sy::slurm_node_control());
                          });
}

}  // extern "C"
