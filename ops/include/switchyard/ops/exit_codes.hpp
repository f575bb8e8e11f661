// SPDX-License-Identifier: Apache-2.0
// The exit codes of the switchyard command, which the use cases' reports carry.
#pragma once

namespace switchyard::ops {

/// 0 success, 1 the check or command found a problem, 2 usage or unimplemented.
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblem = 1;
inline constexpr int kExitUsage = 2;
/// `fabric diff`: the two maps differ (0: they do not).
inline constexpr int kExitChanged = 3;
/// `audit`: a job placed worse than its request promised, or slurmctld's topology disagrees
/// with the installed map.
inline constexpr int kExitMisplaced = 3;
/// `install`: the guard refused the capture; the installed files stay.
inline constexpr int kExitRefused = 4;
/// `preflight --prolog`: this node is at fault and drained; its prolog fails (the job is
/// requeued). Any other code lets the prolog pass: a preflight that could not run is no node's
/// fault.
inline constexpr int kExitNodeAtFault = 5;

}  // namespace switchyard::ops
