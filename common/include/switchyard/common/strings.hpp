// SPDX-License-Identifier: Apache-2.0
// Small string helpers shared by the parsers: trimming, splitting, strict number parsing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace switchyard {

/// Removes leading and trailing ASCII blanks (space, tab, CR, LF).
[[nodiscard]] std::string_view trim(std::string_view s);

/// Splits on `sep`, keeping empty fields ("a,,b" → {"a","","b"}).
[[nodiscard]] std::vector<std::string_view> split(std::string_view s, char sep);

/// Parses an unsigned decimal without sign, blanks or trailing text; nullopt on any deviation or
/// overflow. "007" is 7.
[[nodiscard]] std::optional<std::uint64_t> parse_uint(std::string_view s);

/// Joins with a separator.
[[nodiscard]] std::string join(const std::vector<std::string>& parts, std::string_view sep);

}  // namespace switchyard
