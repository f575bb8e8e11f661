// SPDX-License-Identifier: Apache-2.0
// The fabric index: what one step needs from the map, found without reading the map.
//
// `switchyard discover` writes `fabric.map.index` beside `fabric.map`: the same facts in
// tables of fixed-width records (hosts sorted by name, SUs, groups, rail sets, switches), so a
// step looks up its hosts by binary search with a few reads, whatever the fabric's size. The
// map stays the one source of truth: the index names the digest and size of the map it was
// made from, and a reader refuses it when the map beside it is not that one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/file.hpp"
#include "switchyard/common/result.hpp"
#include "switchyard/fabric/fabric_map.hpp"

namespace switchyard::fabric {

/// 3 adds the NVLink domains; an index of a map without them is still written as version 2.
inline constexpr int kFabricIndexVersion = 3;
/// The index of `<map>` is `<map>.index`.
inline constexpr std::string_view kFabricIndexSuffix = ".index";
/// Bounds a reader enforces before any work: header bytes, record width, records per table.
inline constexpr std::size_t kMaxIndexHeader = 4096;
inline constexpr std::size_t kMaxIndexRecord = 4096;
inline constexpr std::uint64_t kMaxIndexRecords = std::uint64_t{1} << 24;

/// Which map an index belongs to: the digest on the map's first line and its size in bytes.
struct MapStamp {
    std::uint64_t digest = 0;
    std::uint64_t bytes = 0;
};

/// The index of `map`, read from (or written as) `map_text`, a version-4 map.
/// \return the index, or Error::invalid_argument when `map_text` has no digest or `map` no
///         cable counts (an older map).
[[nodiscard]] Result<std::string> write_fabric_index(const FabricMap& map,
                                                     std::string_view map_text);

/// The hosts of `hosts` that the index holds, with their SUs, groups, rails and leaves (the
/// same map read_fabric_map_for gives from the map file, switches limited to the leaves those
/// hosts and SUs use). Reads the header, then only the records the lookups touch.
/// \return the map; Error::parse naming the index and what is wrong; Error::invalid_argument
///         when the index was made from another map than `stamp` (stale).
[[nodiscard]] Result<FabricMap> read_fabric_index_for(const ByteSource& index,
                                                      const MapStamp& stamp,
                                                      const std::vector<std::string>& hosts);

}  // namespace switchyard::fabric
