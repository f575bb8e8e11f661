// SPDX-License-Identifier: Apache-2.0
// Small string helpers shared by the parsers.
#include "switchyard/common/strings.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace switchyard {

std::string_view trim(std::string_view s) {
    // A plain loop: find_first_not_of with a set is several times slower on the parsers' hot path.
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    std::size_t b = 0;
    std::size_t e = s.size();
    while (b < e && blank(s[b])) {
        ++b;
    }
    while (e > b && blank(s[e - 1])) {
        --e;
    }
    return s.substr(b, e - b);
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (true) {
        const auto pos = s.find(sep, start);
        if (pos == std::string_view::npos) {
            out.push_back(s.substr(start));
            return out;
        }
        out.push_back(s.substr(start, pos - start));
        start = pos + 1;
    }
}

std::optional<std::uint64_t> parse_uint(std::string_view s) {
    if (s.empty()) {
        return std::nullopt;
    }
    std::uint64_t value = 0;
    const auto* end = s.data() + s.size();
    const auto [ptr, ec] = std::from_chars(s.data(), end, value);
    if (ec != std::errc{} || ptr != end) {
        return std::nullopt;
    }
    return value;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) {
            out += sep;
        }
        out += parts[i];
    }
    return out;
}

std::string short_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string hex_digits(std::uint64_t v, int width) {
    char buf[20];
    std::snprintf(buf, sizeof buf, "%0*llx", std::clamp(width, 1, 16),
                  static_cast<unsigned long long>(v));
    return buf;
}

}  // namespace switchyard
