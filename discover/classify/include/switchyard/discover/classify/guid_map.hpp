// SPDX-License-Identifier: Apache-2.0
// GUID maps (discover --guid-map): the host and HCA behind a node or port GUID, or the name of
// an LLDP chassis behind its MAC, for fabrics whose descriptions name no host.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "switchyard/common/result.hpp"

namespace switchyard::discover {

/// What a GUID→host map says about one node or port GUID.
struct GuidEntry {
    std::string host;
    std::string hca;  ///< empty when the map line had no device
};

using GuidMap = std::unordered_map<std::uint64_t, GuidEntry>;

/// Parses "<guid> <host> [<hca>]" lines (node or port GUIDs; '#' comments and blank lines
/// allowed), as gathered per node from /sys/class/infiniband/*/node_guid or `ibstat -p`.
/// \return the map, or Error::parse with source:line for a bad GUID, a missing host, extra
///         fields, or one GUID given two different hosts.
[[nodiscard]] Result<GuidMap> parse_guid_map(std::string_view text, std::string_view source);

}  // namespace switchyard::discover
