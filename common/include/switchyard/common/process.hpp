// SPDX-License-Identifier: Apache-2.0
// Running a program without a shell, with a timeout: health checks' external commands and the
// CLI's calls to scontrol.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace switchyard {

/// Output (stdout and stderr together, up to the caller's cap) and exit status of a child, or
/// why it did not finish.
struct ProcessRun {
    std::string output;
    int exit_code = -1;  ///< 128 + signal when killed by one; -1 when it did not finish
    bool timed_out = false;
    std::string error;       ///< pipe/fork failures; "" otherwise
    bool truncated = false;  ///< the command wrote more than the cap; the rest was read and dropped
};

/// The environment root-run commands get: a fixed PATH and the C locale, nothing of the job's.
[[nodiscard]] const std::vector<std::string>& clean_environment();

/// Runs argv (no shell) in its own process group, stdin from /dev/null. The timeout bounds the
/// whole run, waiting for the exit included: at the deadline the group is killed, whatever the
/// command did with its output, and any of the group left after the command exits is killed
/// too. With `env`, argv[0] must be an absolute path and the child gets exactly `env`; without,
/// argv[0] is looked up in PATH and the environment inherited (the CLI's own calls, e.g.
/// scontrol with the user's SLURM_CONF). Exit 127 means the program could not be run. Output
/// beyond `max_output` bytes is drained (the command is not blocked) but not kept.
inline constexpr std::size_t kProcessOutputCap = std::size_t{1} << 20;
[[nodiscard]] ProcessRun run_process(const std::vector<std::string>& argv,
                                     double timeout_s,
                                     const std::vector<std::string>* env = nullptr,
                                     std::size_t max_output = kProcessOutputCap);

}  // namespace switchyard
