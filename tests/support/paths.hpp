// SPDX-License-Identifier: Apache-2.0
// Where tests find the project's data and the shared real fixtures (skipped cleanly when absent).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace switchyard::test {

/// The shared real captures: ../shared/fixtures/real beside the project checkout.
inline std::filesystem::path real_fixtures() {
    return std::filesystem::path(SWITCHYARD_SOURCE_DIR) / ".." / "shared" / "fixtures" / "real";
}

/// The file's bytes; empty when it cannot be read.
inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

}  // namespace switchyard::test
