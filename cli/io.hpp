// SPDX-License-Identifier: Apache-2.0
// File helpers for the CLI: read a file or stdin, write a file atomically, with messages that
// name the path.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "switchyard/common/file.hpp"
#include "switchyard/common/process.hpp"
#include "switchyard/common/result.hpp"
#include "switchyard/topology/fabric_map.hpp"

namespace switchyard::cli {

/// The bytes of `path`, or of standard input for "-", within `rules` (see file.hpp).
[[nodiscard]] Result<std::string> read_input(const std::string& path, const ReadRules& rules);

/// Writes `content` to `path` through a temporary file and rename, so readers (the plugin at
/// step launch) never see a half-written file.
[[nodiscard]] Result<void> write_file_atomic(const std::string& path, std::string_view content);

/// The *.json files of `dir` (a directory of `switchyard health --json` outputs): path and
/// bytes of each, read within kSmallInput. Errors name `option` and the directory or file.
[[nodiscard]] Result<std::vector<std::pair<std::string, std::string>>> read_json_dir(
    const std::string& dir, const std::string& option);

/// This machine's host name up to the first dot (Slurm node names are short).
[[nodiscard]] std::string short_hostname();

/// Whether a node State= value (IDLE+DRAIN, DOWN*, ...) holds the node out of service.
[[nodiscard]] bool slurm_state_held(std::string_view state);

/// Why an scontrol call failed, in words an operator can act on.
[[nodiscard]] std::string scontrol_problem(const ProcessRun& r);

/// Reads and validates a fabric map file (errors name the file and line).
[[nodiscard]] Result<topology::FabricMap> load_fabric_map(const std::string& path);

}  // namespace switchyard::cli
