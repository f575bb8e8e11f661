// SPDX-License-Identifier: Apache-2.0
// FabricGraph: the nodes and cables of an InfiniBand fabric as ibnetdiscover reported them.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/error.hpp"
#include "switchyard/common/result.hpp"

namespace switchyard::topology {

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

/// A problem found in the input that did not stop parsing or classification.
struct Diagnostic {
    std::string kind;  ///< stable word: dangling-link, asymmetric-link, ...
    SourceLoc where;
    std::string message;
};

struct FabricGraph {
    std::vector<FabricNode> nodes;
    std::vector<Diagnostic> warnings;
};

/// Parses ibnetdiscover output as infiniband-diags 44 prints it, in its default format or as
/// `ibnetdiscover -p` (detected from the first record line). Never opens files.
/// \param text   the whole output
/// \param source the file name used in messages
/// \return the graph with warnings (links to nodes missing from the dump, links whose two ends
///         disagree), or Error::parse with source:line for: an empty input or one without any
///         Switch/Ca record, an unrecognised line, a header without port count or id, a port
///         line without "[port]", remote id or remote port, a port outside the record's port
///         count, a port listed twice, or two records with the same id or GUID.
[[nodiscard]] Result<FabricGraph> parse_ibnetdiscover(std::string_view text,
                                                      std::string_view source);

/// Parses a GUID as ibnetdiscover, sysfs and ibstat print them: "0x2c5eab0300b87b40",
/// "2c5eab0300b87b40" or "2c5e:ab03:00b8:7b40".
[[nodiscard]] std::optional<std::uint64_t> parse_guid(std::string_view s);

/// "0x%016x".
[[nodiscard]] std::string format_guid(std::uint64_t guid);

}  // namespace switchyard::topology
