// SPDX-License-Identifier: Apache-2.0
// The ibnetdiscover reader: infiniband-diags' text → FabricGraph.
#pragma once

#include <memory>
#include <string_view>

#include "switchyard/common/result.hpp"
#include "switchyard/discover/graph/fabric_graph.hpp"
#include "switchyard/discover/graph/reader.hpp"

namespace switchyard::discover {

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

/// ibnetdiscover's output, default or -p format, at `path` ("-": standard input): a file is
/// mapped, not copied, and unmapped once the graph holds what it needs.
[[nodiscard]] std::unique_ptr<FabricReader> ibnetdiscover_reader(std::string path);

}  // namespace switchyard::discover
