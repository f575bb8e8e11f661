// SPDX-License-Identifier: Apache-2.0
// `switchyard install` end to end: a discover output put in place for slurmctld as a new set
// (install_sets.hpp), guarded against a capture that is probably wrong (install_guard.hpp),
// taken by slurmctld (scontrol.hpp) or put back; or the previous set restored. The run's record
// and its node_exporter metrics are written here too.
#pragma once

#include <iosfwd>
#include <string>

#include "switchyard/ops/deps.hpp"

namespace switchyard::ops {

struct InstallRequest {
    std::string from;               ///< a discover output directory; empty for a rollback
    std::string slurm_dir;          ///< the directory of slurm.conf (must exist)
    std::string topology = "auto";  ///< auto (what slurm_dir holds), tree, block or yaml
    std::string state = "/var/lib/switchyard/install.state";  ///< the run's record
    std::string metrics;            ///< node_exporter textfile; "" for none
    double max_hosts_lost = 5.0;    ///< percent
    double max_hosts_moved = 10.0;  ///< percent
    bool force = false;             ///< install a capture the guard refuses
    bool rollback = false;          ///< go back to the previous set instead
    bool no_reconfigure = false;    ///< only put the files in place
    unsigned keep = 4;              ///< sets kept
    unsigned lock_wait = 300;       ///< seconds to wait for another install's lock
};

/// The lock every install and rollback of a directory holds from its first read to its last
/// write (refresh runs install, so its rounds take it too): DIR/switchyard.lock, flock'ed. Two
/// at once would leave topology.conf from one capture and the switchyard link on the other's.
inline constexpr const char* kInstallLockName = "switchyard.lock";

enum class InstallResult {
    Done,     ///< installed, unchanged or rolled back
    Problem,  ///< something failed; the message says what is left
    Refused,  ///< the guard refused the capture; the installed files stay
};

/// The command's exit code for `result`: 0, 4 (refused) or 1.
[[nodiscard]] int exit_code(InstallResult result);

/// Runs an install (or a rollback) as `request` says. What people should read goes to
/// `deps.out`, problems to `deps.err`, each line as it happens (a reconfigure can take a
/// minute); slurmctld is asked to reconfigure through `deps.slurm`.
[[nodiscard]] InstallResult run_install(const InstallRequest& request, Deps& deps);

}  // namespace switchyard::ops
