// SPDX-License-Identifier: Apache-2.0
// A well-formedness check run before hwloc parses an XML export. hwloc 2.9's own XML importer
// (used when its libxml2 plugin is not installed, as on most nodes) crashes on some malformed
// input, e.g. the 23 bytes `<topology version="2.0<` make lstopo itself segfault, and it
// recurses once per nesting level. Only XML that passes this check reaches hwloc.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace switchyard::node {

/// Deepest element nesting accepted (an hwloc export of the largest node nests about 20 deep).
inline constexpr std::size_t kMaxXmlDepth = 128;

/// What is wrong with `xml` as "line N: problem", or nullopt when it is one well-formed root
/// element (with an optional <?xml?> declaration, comments and a DOCTYPE without internal
/// subset): names and attribute syntax checked, every value quoted and free of '<', every
/// element closed in order, no NUL byte, nesting at most kMaxXmlDepth, and no hwloc <object>
/// with a cpuset or nodeset but not its complete_ twin (hwloc 2.9 crashes on that). Linear in
/// the input. hwloc can still crash on other inconsistent files it accepts; this refuses the
/// kinds found so far.
[[nodiscard]] std::optional<std::string> xml_problem(std::string_view xml);

}  // namespace switchyard::node
