// SPDX-License-Identifier: Apache-2.0
// `switchyard steer`: the fabric's degraded places (an SU short of uplinks, a Dragonfly+ group
// short of global cables) and nodes whose passing health checks came near their limits (link
// errors growing) become higher node Weights in Slurm, so the scheduler fills healthy nodes
// first; weights an admin set are never changed (placement/steer.hpp). Slurm is read and
// updated through the client.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "switchyard/ops/deps.hpp"
#include "switchyard/placement/steer.hpp"

namespace switchyard::ops {

struct SteerRequest {
    std::string map;
    std::string state = "/var/lib/switchyard/steer.state";
    std::string health;  ///< a directory of `switchyard health --json` outputs
    /// A directory of `switchyard preflight --json` outputs: the hosts behind a cable or switch
    /// at fault count as degraded by `preflight_weight`.
    std::string preflight;
    double preflight_weight = 0.5;
    double soft_weight = 0.5;      ///< a check at its limit counts as half an SU's uplinks gone
    double flap_window_s = 86400;  ///< a node drained and put back counts this long
    placement::SteerPolicy policy;
    bool apply = false;
};

struct SteerReport {
    int rc = 0;
    std::vector<std::string> lines;   ///< for standard output, in order
    std::vector<std::string> errors;  ///< for standard error, each a whole message
};

[[nodiscard]] SteerReport run_steer(const SteerRequest& request, Deps& deps);

/// The lines to `out`, the errors (after "switchyard steer: ") to `err`.
void print_steer(const SteerReport& report, std::ostream& out, std::ostream& err);

}  // namespace switchyard::ops
