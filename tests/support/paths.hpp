// SPDX-License-Identifier: Apache-2.0
// Where tests find the project's data, the real captures it carries among them.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace switchyard::test {

/// The real captures the project carries (tests/data/real, provenance in its SOURCES.md).
inline std::filesystem::path real_fixtures() {
    return std::filesystem::path(SWITCHYARD_SOURCE_DIR) / "tests" / "data" / "real";
}

/// The file's bytes; empty when it cannot be read.
inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

}  // namespace switchyard::test
