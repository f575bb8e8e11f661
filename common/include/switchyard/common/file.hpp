// SPDX-License-Identifier: Apache-2.0
// Reading a whole file, for the CLI, the policy loader and the plugin alike.
#pragma once

#include <string>

#include "switchyard/common/result.hpp"

namespace switchyard {

/// The bytes of `path`; Error::io naming it. Files that report no size (/proc, pipes) are read
/// to their end.
[[nodiscard]] Result<std::string> read_text_file(const std::string& path);

}  // namespace switchyard
