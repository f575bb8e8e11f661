// SPDX-License-Identifier: Apache-2.0
// GUIDs as ibnetdiscover, sysfs and ibstat print them.
#include "switchyard/fabric/guid.hpp"

#include <charconv>
#include <cstdio>

#include "switchyard/common/strings.hpp"

namespace switchyard::fabric {

std::optional<std::uint64_t> parse_guid(std::string_view s) {
    if (s.size() == 16) {  // ibnetdiscover's own spelling in ids: 16 hex digits, nothing else
        std::uint64_t v = 0;
        bool hex = true;
        for (const char ch : s) {
            const unsigned lower = static_cast<unsigned char>(ch) | 0x20U;
            const unsigned d = ch >= '0' && ch <= '9'         ? static_cast<unsigned>(ch - '0')
                               : lower >= 'a' && lower <= 'f' ? lower - 'a' + 10
                                                              : 16U;
            hex = hex && d < 16;
            v = (v << 4U) | (d & 15U);
        }
        if (hex) {
            return v;
        }
    }
    s = trim(s);
    if (s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
    }
    std::uint64_t v = 0;
    int digits = 0;
    for (const char ch : s) {
        unsigned d = 0;
        if (ch >= '0' && ch <= '9') {
            d = static_cast<unsigned>(ch - '0');
        } else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f') {
            d = static_cast<unsigned>((ch | 0x20) - 'a' + 10);
        } else if (ch == ':') {
            continue;
        } else {
            return std::nullopt;
        }
        if (++digits > 16) {
            return std::nullopt;
        }
        v = (v << 4U) | d;
    }
    if (digits == 0) {
        return std::nullopt;
    }
    return v;
}

std::string format_guid(std::uint64_t guid) {
    char buf[19];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(guid));
    return buf;
}

std::optional<std::uint64_t> parse_mac(std::string_view s) {
    if (s.size() != 17) {
        return std::nullopt;
    }
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < 17; i += 3) {
        unsigned byte = 0;
        if ((i + 2 < 17 && s[i + 2] != ':' && s[i + 2] != '-') ||
            std::from_chars(s.data() + i, s.data() + i + 2, byte, 16).ptr != s.data() + i + 2) {
            return std::nullopt;
        }
        v = (v << 8U) | byte;
    }
    return v;
}

}  // namespace switchyard::fabric
