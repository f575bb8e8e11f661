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

std::vector<std::string_view> split_words(std::string_view s, std::size_t max) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (i < s.size() && out.size() < max) {
        while (i < s.size() && blank(s[i])) {
            ++i;
        }
        const std::size_t start = i;
        while (i < s.size() && !blank(s[i])) {
            ++i;
        }
        if (i > start) {
            out.push_back(s.substr(start, i - start));
        }
    }
    return out;
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

std::size_t utf8_char(std::string_view s) {
    if (s.empty()) {
        return 0;
    }
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    const auto lead = b(0);
    std::size_t n = 0;
    unsigned lo = 0x80;
    unsigned hi = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
        n = 2;
        lo = lead == 0xc2 ? 0xa0 : 0x80;  // C2 80 to C2 9F are the C1 controls
    } else if (lead >= 0xe0 && lead <= 0xef) {
        n = 3;
        lo = lead == 0xe0 ? 0xa0 : 0x80;  // not overlong
        hi = lead == 0xed ? 0x9f : 0xbf;  // not a surrogate
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        n = 4;
        lo = lead == 0xf0 ? 0x90 : 0x80;
        hi = lead == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (s.size() < n || b(1) < lo || b(1) > hi) {
        return 0;
    }
    for (std::size_t i = 2; i < n; ++i) {
        if (b(i) < 0x80 || b(i) > 0xbf) {
            return 0;
        }
    }
    return n;
}

std::string printable(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const auto u = static_cast<unsigned char>(s[i]);
        if (u >= 0x20 && u < 0x7f) {
            out += s[i++];
        } else if (const auto k = u >= 0x80 ? utf8_char(s.substr(i)) : 0; k > 0) {
            out.append(s.substr(i, k));
            i += k;
        } else {
            constexpr const char* kHex = "0123456789abcdef";
            out += "\\x";
            out += kHex[u >> 4U];
            out += kHex[u & 15U];
            ++i;
        }
    }
    return out;
}

std::string printable_lines(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    std::size_t at = 0;
    while (at <= s.size()) {
        const auto nl = s.find('\n', at);
        out += printable(s.substr(at, nl == std::string_view::npos ? s.npos : nl - at));
        if (nl == std::string_view::npos) {
            break;
        }
        out += '\n';
        at = nl + 1;
    }
    return out;
}

std::string bounded_line(std::string_view s, std::size_t max_bytes) {
    auto out = printable(s);
    if (out.size() <= max_bytes) {
        return out;
    }
    // printable() leaves ASCII and whole UTF-8 characters: cut before a continuation byte.
    auto cut = max_bytes > 3 ? max_bytes - 3 : 0;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0U) == 0x80U) {
        --cut;
    }
    out.resize(cut);
    return out + "...";
}

std::string hex_digits(std::uint64_t v, int width) {
    char buf[20];
    std::snprintf(buf, sizeof buf, "%0*llx", std::clamp(width, 1, 16),
                  static_cast<unsigned long long>(v));
    return buf;
}

std::string prometheus_label(std::string_view v) {
    // printable() first: a metrics file must be valid UTF-8 (node_exporter drops a file that is
    // not) and hold no control character; its \xNN escapes are then kept as text.
    std::string out;
    for (const char c : printable(v)) {
        if (c == '\\' || c == '"') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace switchyard
