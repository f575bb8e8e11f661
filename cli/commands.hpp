// SPDX-License-Identifier: Apache-2.0
// The subcommand table of the switchyard command.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/ops/audit.hpp"
#include "switchyard/ops/deps.hpp"
#include "switchyard/ops/discover.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/ops/install.hpp"
#include "switchyard/ops/steer.hpp"

namespace switchyard::cli {

using ops::kExitChanged;
using ops::kExitMisplaced;
using ops::kExitOk;
using ops::kExitProblem;
using ops::kExitRefused;
using ops::kExitUsage;

/// What the command hands every use case: the real Slurm client, the system clock, the real
/// root, standard output and error.
[[nodiscard]] ops::Deps& deps();

/// What runs after parsing: set by the chosen subcommand's callback.
using Runner = std::function<int()>;

/// One subcommand: its name, summary and how it adds its options.
struct Subcommand {
    std::string_view name;
    std::string_view summary;
    void (*setup)(CLI::App& cmd, Runner& run);
};

/// Every subcommand, in --help order.
[[nodiscard]] const std::vector<Subcommand>& subcommands();

/// True when `name` is a subcommand of the table.
[[nodiscard]] bool is_subcommand(std::string_view name);

/// "discover, fabric, ..." for messages.
[[nodiscard]] std::string subcommand_names();

/// Adds every subcommand to `app`; the chosen one sets `run`.
void register_subcommands(CLI::App& app, Runner& run);

void setup_discover(CLI::App& cmd, Runner& run);
void setup_fabric(CLI::App& cmd, Runner& run);
void setup_node(CLI::App& cmd, Runner& run);
void setup_check_config(CLI::App& cmd, Runner& run);
void setup_nccl_env(CLI::App& cmd, Runner& run);
void setup_plan(CLI::App& cmd, Runner& run);
void setup_health(CLI::App& cmd, Runner& run);
void setup_steer(CLI::App& cmd, Runner& run);
void setup_install(CLI::App& cmd, Runner& run);
void setup_render(CLI::App& cmd, Runner& run);
void setup_audit(CLI::App& cmd, Runner& run);
void setup_why(CLI::App& cmd, Runner& run);
void setup_refresh(CLI::App& cmd, Runner& run);
void setup_preflight(CLI::App& cmd, Runner& run);
void setup_locate(CLI::App& cmd, Runner& run);

/// The options of the four commands a refresh round runs, bound to a request: each command's
/// setup adds them, and `refresh` parses the admin's words for each step with them.
void discover_options(CLI::App& cmd, ops::DiscoverRequest& args);
void install_options(CLI::App& cmd, ops::InstallRequest& a);
void steer_options(CLI::App& cmd, ops::SteerRequest& a);
void audit_options(CLI::App& cmd, ops::AuditRequest& a);

/// install's checks of a request, with the default --slurm-dir filled in: kExitOk, or the exit
/// code and `why`.
[[nodiscard]] int check_install(ops::InstallRequest& a, std::string& why);

}  // namespace switchyard::cli
