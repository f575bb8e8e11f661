// SPDX-License-Identifier: Apache-2.0
// What several use cases read: this host's name, a fabric map given by path or on standard
// input, and a directory of health outputs, with messages that name the path (reading inputs:
// common/input.hpp).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "switchyard/common/file.hpp"
#include "switchyard/common/input.hpp"
#include "switchyard/common/result.hpp"
#include "switchyard/fabric/fabric_map.hpp"

namespace switchyard::ops {

/// The *.json files of `dir` (a directory of `switchyard health --json` outputs), as
/// read_dir_files reads them.
[[nodiscard]] Result<std::vector<std::pair<std::string, std::string>>> read_json_dir(
    const std::string& dir, const std::string& option);

/// This machine's host name up to the first dot (Slurm node names are short).
[[nodiscard]] std::string short_hostname();

/// Reads and validates a fabric map file (errors name the file and line).
[[nodiscard]] Result<fabric::FabricMap> load_fabric_map(const std::string& path);

}  // namespace switchyard::ops
