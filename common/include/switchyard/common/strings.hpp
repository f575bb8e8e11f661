// SPDX-License-Identifier: Apache-2.0
// Small string helpers shared by the parsers: trimming, splitting, strict number parsing.
#pragma once

#include <charconv>
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

/// Parses a whole number of type T in `base` (no sign for unsigned T, no blanks, no trailing
/// text); nullopt on any deviation or when it does not fit T.
template <typename T>
[[nodiscard]] std::optional<T> parse_number(std::string_view s, int base = 10) {
    T v{};
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (s.empty() || ec != std::errc{} || p != s.data() + s.size()) {
        return std::nullopt;
    }
    return v;
}

/// `v` as `width` lower-case hex digits, zero-padded ("%016llx").
[[nodiscard]] std::string hex_digits(std::uint64_t v, int width);

/// A number for messages, as printf's %g writes it ("400", "0.5", "1e+06").
[[nodiscard]] std::string short_number(double v);

/// Joins with a separator.
[[nodiscard]] std::string join(const std::vector<std::string>& parts, std::string_view sep);

}  // namespace switchyard
