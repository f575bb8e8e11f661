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

/// The words of `s` between runs of blanks (space, tab, CR), at most `max` of them.
[[nodiscard]] std::vector<std::string_view> split_words(std::string_view s,
                                                        std::size_t max = SIZE_MAX);

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

/// The length of the UTF-8 character at the start of `s` when it is one well-formed character
/// from U+00A0 up (not a C1 control, not overlong, not a surrogate), else 0.
[[nodiscard]] std::size_t utf8_char(std::string_view s);

/// `s` with every byte below 0x20 (tab and newline too), DEL, and every byte from 0x80 that
/// does not start a character utf8_char takes written as \xNN. For text from inputs (names,
/// file names, descriptions) on its way to a line-based file, a terminal or JSON: it cannot
/// break a line, carry a terminal escape or be invalid UTF-8. Applied twice, it gives the same
/// text.
[[nodiscard]] std::string printable(std::string_view s);

/// `s` as one printable line (printable()) of at most `max_bytes`, cut between characters with
/// "..." when longer: for words from outside on their way to a log, a terminal or slurmctld.
[[nodiscard]] std::string bounded_line(std::string_view s, std::size_t max_bytes);

/// Each line of `s` through printable(), the newlines kept: a text report for a terminal that
/// carries names and strings from outside (sysfs, LLDP, squeue).
[[nodiscard]] std::string printable_lines(std::string_view s);

/// The longest node reason switchyard sends to slurmctld (bytes): drains by the gate and by the
/// preflight both go through bounded_line(reason, kMaxDrainReason).
inline constexpr std::size_t kMaxDrainReason = 480;

/// Joins with a separator.
[[nodiscard]] std::string join(const std::vector<std::string>& parts, std::string_view sep);

/// A Prometheus label value (node_exporter's text format): printable() (valid UTF-8, control
/// bytes as \xNN), then backslash and quote escaped.
[[nodiscard]] std::string prometheus_label(std::string_view v);

}  // namespace switchyard
