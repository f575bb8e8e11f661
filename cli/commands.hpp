// SPDX-License-Identifier: Apache-2.0
// The subcommand table of the switchyard command.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace switchyard::cli {

/// Exit codes: 0 success, 1 the check or command found a problem, 2 usage or unimplemented.
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblem = 1;
inline constexpr int kExitUsage = 2;

/// One subcommand: its name, one-line summary and, until it lands, the issue that builds it.
struct Subcommand {
    std::string_view name;
    std::string_view summary;
    std::string_view pending_issue;  ///< non-empty while not implemented
};

/// Every subcommand, in --help order.
[[nodiscard]] const std::vector<Subcommand>& subcommands();

/// True when `name` is a subcommand of the table.
[[nodiscard]] bool is_subcommand(std::string_view name);

/// "discover, fabric, ..." for messages.
[[nodiscard]] std::string subcommand_names();

/// Adds every subcommand to `app`; each records into `chosen` when it is selected.
void register_subcommands(CLI::App& app, std::string& chosen);

/// Runs the chosen subcommand after parsing; returns the process exit code.
[[nodiscard]] int run_subcommand(const std::string& chosen);

}  // namespace switchyard::cli
