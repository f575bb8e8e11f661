// SPDX-License-Identifier: Apache-2.0
// First pass over ibnetdiscover text (default format): node records, port lines, links.
#pragma once

#include <cstddef>
#include <string_view>

#include "switchyard/common/result.hpp"

namespace switchyard::topology {

/// Counts found by scan_ibnetdiscover. A link is one cable: it is seen from both of its ends
/// when both nodes are in the dump, and counted once; parallel cables count separately.
struct IbnetCounts {
    std::size_t switches = 0;
    std::size_t cas = 0;
    std::size_t routers = 0;
    std::size_t port_lines = 0;  ///< connected-port lines, both ends of every link
    std::size_t links = 0;       ///< distinct cables
    std::size_t one_sided = 0;   ///< cables seen from only one end (dangling or truncated dump)
};

/// Scans the default `ibnetdiscover` output (records "Switch N ...", "Ca N ...", "Rt N ..."
/// followed by "[port]" lines).
/// \param text   the whole output
/// \param source file name used in error locations
/// \return the counts, or Error::parse naming source:line when a header lacks its port count
///         or quoted id, a port line stands outside any record, or a port line has no "[port]",
///         remote id or "[remote port]".
[[nodiscard]] Result<IbnetCounts> scan_ibnetdiscover(std::string_view text,
                                                     std::string_view source);

}  // namespace switchyard::topology
