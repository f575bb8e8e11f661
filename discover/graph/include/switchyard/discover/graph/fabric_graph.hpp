// SPDX-License-Identifier: Apache-2.0
// FabricGraph: the nodes and cables of a fabric as a reader found them (ibnetdiscover's records,
// or the LLDP views turned into the same form), before classification.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/diagnostic.hpp"

namespace switchyard::discover {

enum class NodeKind : std::uint8_t { Switch, Ca, Router };

[[nodiscard]] std::string_view to_string(NodeKind k);

/// Index of a node in FabricGraph::nodes; kNoNode for a remote end missing from the dump.
using NodeIndex = std::uint32_t;
inline constexpr NodeIndex kNoNode = std::numeric_limits<NodeIndex>::max();

// FabricPort and FabricNode order their members without padding: 24 and 112 bytes (a fabric
// of 800k HCAs holds a million nodes and three million ports).

/// One connected port: this end and the remote end.
struct FabricPort {
    std::uint32_t port = 0;
    NodeIndex remote = kNoNode;
    std::uint32_t remote_port = 0;
    std::uint32_t line = 0;       ///< where it was read
    std::uint64_t port_guid = 0;  ///< this end's port GUID when printed (CA ports), else 0
};

struct FabricNode {
    std::uint64_t guid = 0;  ///< node GUID
    std::string id;          ///< ibnetdiscover id, e.g. "S-2c5eab0300b87b40"
    std::string desc;        ///< NodeDescription
    std::vector<FabricPort> ports;
    std::uint32_t nports = 0;
    std::uint32_t devid = 0;  ///< 0 when not given
    std::uint32_t line = 0;   ///< line of the header
    NodeKind kind = NodeKind::Switch;
};

struct FabricGraph {
    std::vector<FabricNode> nodes;
    std::vector<Diagnostic> warnings;
};

}  // namespace switchyard::discover
