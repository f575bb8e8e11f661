// SPDX-License-Identifier: Apache-2.0
// Policy regular expressions, compiled once and shared by every copy of the policy.
#include "switchyard/common/pattern.hpp"

#include <cctype>

#include "switchyard/common/strings.hpp"

namespace switchyard {

Pattern::Pattern(std::string text) : text_(std::move(text)) {
    if (!text_.empty()) {
        re_ = std::make_shared<const std::regex>(text_, std::regex::ECMAScript);
    }
}

Pattern::Pattern(const char* text) : Pattern(std::string(text)) {}

Result<Pattern> Pattern::compile(std::string text) {
    if (text.size() > kMaxPatternLength) {
        return fail(Error::invalid_argument("expected a regular expression of at most " +
                                            std::to_string(kMaxPatternLength) +
                                            " characters, got " + std::to_string(text.size())));
    }
    for (std::size_t i = text.find('{'); i != std::string::npos; i = text.find('{', i + 1)) {
        std::size_t j = i + 1;
        while (j < text.size() &&
               (std::isdigit(static_cast<unsigned char>(text[j])) != 0 || text[j] == ',')) {
            ++j;
        }
        for (auto count : split(std::string_view(text).substr(i + 1, j - i - 1), ',')) {
            if (!count.empty() &&
                (count.size() > 4 || std::stoul(std::string(count)) > kMaxPatternRepeat)) {
                return fail(Error::invalid_argument(
                    "repetition {" + std::string(count) + "} is above " +
                    std::to_string(kMaxPatternRepeat) + " in '" + text + "'"));
            }
        }
    }
    // A back-reference: std::regex reads every digit after a backslash into one long (\1111...
    // overflows it) before it finds that no such group exists. Each escape is skipped whole, as
    // std::regex reads it: `\c` takes the character after it too, a backslash included (so
    // `\c\\1111...` is \c\ and then the back-reference \1111...).
    for (std::size_t i = text.find('\\'); i != std::string::npos;
         i = text.find('\\', i + (i + 1 < text.size() && text[i + 1] == 'c' ? 3 : 2))) {
        std::size_t j = i + 1;
        while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])) != 0) {
            ++j;
        }
        if (j - i - 1 > kMaxBackrefDigits) {
            return fail(Error::invalid_argument(
                "back-reference " + text.substr(i, j - i) + " has more than " +
                std::to_string(kMaxBackrefDigits) + " digits in '" + text + "'"));
        }
    }
    try {
        return Pattern(text);  // a copy: the message below still names it
    } catch (const std::regex_error& e) {
        return fail(Error::invalid_argument(std::string("expected a regular expression, got '") +
                                            text + "' (" + e.what() + ")"));
    }
}

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

}  // namespace switchyard
