// SPDX-License-Identifier: Apache-2.0
// Running a program without a shell, with a timeout: health checks' external commands and the
// CLI's calls to scontrol.
#pragma once

#include <string>
#include <vector>

namespace switchyard {

/// Output (stdout and stderr together, first MiB) and exit status of a child, or why it did not
/// finish.
struct ProcessRun {
    std::string output;
    int exit_code = -1;  ///< 128 + signal when killed by one; -1 when it did not finish
    bool timed_out = false;
    std::string error;  ///< pipe/fork failures; "" otherwise
};

/// Runs argv (PATH lookup, no shell) in its own process group; at the timeout the whole group
/// is killed. Exit 127 means the program could not be run.
[[nodiscard]] ProcessRun run_process(const std::vector<std::string>& argv, double timeout_s);

}  // namespace switchyard
