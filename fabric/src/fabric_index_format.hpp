// SPDX-License-Identifier: Apache-2.0
// The fabric index's layout, shared by its writer and reader (internal to the fabric library).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace switchyard::fabric::index_format {

inline constexpr std::string_view kMagic = "switchyard-fabric-index";
/// Table order in the file, and their names on the header's `table` lines. Version 2 has the
/// first five; version 3 (a map with NVLink domains) the domains too, and a fourth field on
/// each host record (its domain record, or '-').
inline constexpr std::string_view kTables[] = {"hosts",    "sus",      "groups",
                                               "railsets", "switches", "domains"};
inline constexpr std::size_t kHosts = 0;
inline constexpr std::size_t kSus = 1;
inline constexpr std::size_t kGroups = 2;
inline constexpr std::size_t kRailsets = 3;
inline constexpr std::size_t kSwitches = 4;
inline constexpr std::size_t kDomains = 5;
inline constexpr std::size_t kTableCount = 6;
/// Tables of a version-2 index.
inline constexpr std::size_t kTableCountV2 = 5;

}  // namespace switchyard::fabric::index_format
