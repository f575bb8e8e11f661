// SPDX-License-Identifier: Apache-2.0
// The command's own helpers: its host name, what Slurm says of nodes, maps and health outputs
// read with messages that name the path (reading inputs: common/input.hpp).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "switchyard/common/file.hpp"
#include "switchyard/common/input.hpp"
#include "switchyard/common/process.hpp"
#include "switchyard/common/result.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/health/drain.hpp"

namespace switchyard::cli {

/// The *.json files of `dir` (a directory of `switchyard health --json` outputs), as
/// read_dir_files reads them.
[[nodiscard]] Result<std::vector<std::pair<std::string, std::string>>> read_json_dir(
    const std::string& dir, const std::string& option);

/// This machine's host name up to the first dot (Slurm node names are short).
[[nodiscard]] std::string short_hostname();

/// What Slurm says of `nodes` (a host list; "" for every node), through sinfo. Its output is
/// read up to 64 MiB (about a million nodes); more is refused, never half read.
[[nodiscard]] Result<std::map<std::string, health::SlurmNodeState>> slurm_nodes(
    const std::string& nodes);

/// Reads and validates a fabric map file (errors name the file and line).
[[nodiscard]] Result<fabric::FabricMap> load_fabric_map(const std::string& path);

}  // namespace switchyard::cli
