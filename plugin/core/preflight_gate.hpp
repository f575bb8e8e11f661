// SPDX-License-Identifier: Apache-2.0
// The --preflight job option in the job prolog, once the health gate passed: the prolog runs
// `preflight.command preflight --prolog` (an absolute path from root's policy, a clean
// environment, a hard deadline) on every node of the job; the job's first node gathers the
// others' measurements, locates and drains (ops/preflight.hpp). The plugin only starts it and
// reads its exit: 5 means this node is at fault and drained already, so the prolog fails and
// Slurm requeues the job; anything else (a pass, a preflight that could not run, a hang) lets
// the job go on: it is no node's fault.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "spank_api.hpp"
#include "switchyard/common/log.hpp"
#include "switchyard/policy/policy.hpp"

namespace switchyard::spank {

/// The front module's --preflight option as slurmd hands it to the prolog.
inline constexpr std::string_view kPreflightOptionEnv =
    "SPANK__SLURM_SPANK_OPTION_switchyard_preflight";

/// The exit of `switchyard preflight --prolog` that fails the prolog (ops' kExitNodeAtFault).
inline constexpr int kPreflightNodeAtFault = 5;

/// What the prolog runs for this job, or why nothing (`skip`; "" when it runs).
struct PreflightLaunch {
    std::vector<std::string> argv;
    std::vector<std::string> env;
    double timeout_s = 0;
    std::string mode;    ///< quick or full
    std::string skip;    ///< why the job is not measured ("" when argv is set)
    bool quiet = false;  ///< skipped because nobody asked: nothing to log
};

/// The launch for the job the prolog runs for: the user's --preflight, else the policy's
/// partition default, else preflight.mode; the job's nodes and id from the prolog's environment.
/// `config` is the policy file the plugin read ("" when it ran on the defaults).
[[nodiscard]] PreflightLaunch preflight_launch(const policy::Policy& pol,
                                               const std::string& config,
                                               const std::string& node,
                                               SpankApi& api);

/// Runs the launch and logs what it said; the prolog's return code: -1 when this node was
/// found at fault, else 0.
int run_preflight_gate(const PreflightLaunch& launch, const std::string& node, Logger& log);

}  // namespace switchyard::spank
