// SPDX-License-Identifier: Apache-2.0
// Policy regular expressions, compiled once and shared by every copy of the policy.
#include "switchyard/policy/pattern.hpp"

namespace switchyard::policy {

Pattern::Pattern(std::string text) : text_(std::move(text)) {
    if (!text_.empty()) {
        re_ = std::make_shared<const std::regex>(text_, std::regex::ECMAScript);
    }
}

Pattern::Pattern(const char* text) : Pattern(std::string(text)) {}

bool Pattern::matches(std::string_view s) const {
    return !re_ || std::regex_match(s.begin(), s.end(), *re_);
}

bool Pattern::found_in(std::string_view s) const {
    if (!re_) {
        return true;
    }
    s = s.substr(0, kMaxPatternText);
    return std::regex_search(s.begin(), s.end(), *re_);
}

std::optional<std::string> Pattern::first_match(std::string_view s) const {
    if (!re_) {
        return std::nullopt;
    }
    s = s.substr(0, kMaxPatternText);
    std::match_results<std::string_view::const_iterator> m;
    if (std::regex_search(s.begin(), s.end(), m, *re_)) {
        return m.str();
    }
    return std::nullopt;
}

}  // namespace switchyard::policy
