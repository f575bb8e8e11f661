// SPDX-License-Identifier: Apache-2.0
// One unattended refresh round over a capture already taken (etc/switchyard-refresh takes it,
// under a deadline and one round at a time, then runs `switchyard refresh`): discover with the
// site's NodeName lines into WORK/discover, install it under the guard (slurmctld reconfigured
// and checked), re-apply steer's node weights, and audit slurmctld's topology and the jobs.
// A failed discover or a refused or failed install leaves the running topology untouched;
// steer and the audit failing are said and do not change the round's status.
#pragma once

#include <optional>
#include <string>

#include "switchyard/ops/audit.hpp"
#include "switchyard/ops/deps.hpp"
#include "switchyard/ops/discover.hpp"
#include "switchyard/ops/install.hpp"
#include "switchyard/ops/steer.hpp"

namespace switchyard::ops {

struct RefreshRequest {
    std::string work;  ///< the round's directory: discover's output and the records
    /// Each step's request, the admin's options in it. run_refresh sets the round's own:
    /// discover's output (WORK/discover.new, renamed WORK/discover when complete), install's
    /// --from, and the map of steer and the audit (SLURM_DIR/switchyard/fabric.map).
    DiscoverRequest discover;
    InstallRequest install;
    std::optional<SteerRequest> steer;  ///< unset: no steer
    std::optional<AuditRequest> audit;  ///< unset: no audit
};

/// Runs the round, each step's own lines and the round's ("switchyard-refresh: ...") to
/// `deps.out` and `deps.err` as they happen. \return 0; 1 when discover failed; else install's
/// exit code (4: the guard refused the capture).
[[nodiscard]] int run_refresh(const RefreshRequest& request, Deps& deps);

}  // namespace switchyard::ops
