// SPDX-License-Identifier: Apache-2.0
// A regular expression from the policy, compiled once: when the policy is loaded (after the
// loader bounded and validated its text), not again at every use.
#pragma once

#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>

#include "switchyard/common/result.hpp"

namespace switchyard {

/// Most characters of text a pattern is searched in at once: std::regex recurses per character.
inline constexpr std::size_t kMaxPatternText = 4096;
/// Bounds on a pattern's own text, checked before std::regex compiles it: its compiler overflows
/// on huge repetition counts (a{77777777777777777777}) and back-references (\11111111111111111111)
/// and recurses on long patterns.
inline constexpr std::size_t kMaxPatternLength = 256;
inline constexpr unsigned long kMaxPatternRepeat = 1000;
inline constexpr std::size_t kMaxBackrefDigits = 3;

class Pattern {
public:
    Pattern() = default;
    /// Compiles `text` (ECMAScript); "" is the empty pattern. Throws std::regex_error for text
    /// the loader would have refused; policy fields are assigned text the loader validated.
    Pattern(std::string text);  // NOLINT(google-explicit-constructor): fields take text
    Pattern(const char* text);  // NOLINT(google-explicit-constructor)

    /// `text` checked against the bounds above and compiled: the one way any pattern from a
    /// user or admin (policy, command line) becomes a Pattern. \return Error::invalid_argument
    /// saying what is wrong ("repetition {2000} is above 1000 in ..."; std::regex's complaint).
    [[nodiscard]] static Result<Pattern> compile(std::string text);

    [[nodiscard]] const std::string& text() const { return text_; }
    [[nodiscard]] bool empty() const { return text_.empty(); }
    /// The whole of `s` matches; the empty pattern matches everything.
    [[nodiscard]] bool matches(std::string_view s) const;
    /// The pattern occurs in `s` (its first kMaxPatternText characters); the empty pattern
    /// occurs everywhere.
    [[nodiscard]] bool found_in(std::string_view s) const;
    /// The first match in `s` (its first kMaxPatternText characters), if any.
    [[nodiscard]] std::optional<std::string> first_match(std::string_view s) const;

private:
    std::string text_;
    std::shared_ptr<const std::regex> re_;
};

}  // namespace switchyard
