// SPDX-License-Identifier: Apache-2.0
// What the readers of Slurm's own text (scontrol output, slurm.conf lines) share.
#pragma once

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/strings.hpp"

namespace switchyard::slurm::detail {

/// A value as an error message shows it: printable ASCII only (others as '?'), at most 80
/// characters, then "...".
inline std::string shown(std::string_view s) {
    std::string out;
    for (const char c : s.substr(0, 80)) {
        out += (c >= 0x20 && c < 0x7f) ? c : '?';
    }
    return s.size() > 80 ? out + "..." : out;
}

/// A value Slurm prints for "none": empty, "(null)", "N/A", "None", "Unknown".
inline bool unset_word(std::string_view v) {
    return v.empty() || v == "(null)" || v == "N/A" || v == "None" || v == "Unknown";
}

/// A job id as squeue and sacct print it: digits, then at most one "_<task>" or "+<offset>"
/// part (an array's pending tasks "_[1-4%2]").
inline bool valid_job_id(std::string_view id) {
    if (id.empty() || id.size() > 64 || !std::isdigit(static_cast<unsigned char>(id[0]))) {
        return false;
    }
    return std::all_of(id.begin(), id.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '[' ||
               c == ']' || c == '-' || c == ',' || c == '%';
    });
}

/// A decimal count no larger than `max`.
inline std::optional<unsigned> small_count(std::string_view v, unsigned max) {
    const auto n = parse_uint(v);
    if (!n || *n > max) {
        return std::nullopt;
    }
    return static_cast<unsigned>(*n);
}

/// At most `fields` tab-separated fields of `line`, trimmed, the last taking the rest of the
/// line (a user's text); fewer when the line has fewer tabs.
inline std::vector<std::string_view> tab_fields(std::string_view line, std::size_t fields) {
    std::vector<std::string_view> f;
    std::size_t at = 0;
    while (f.size() + 1 < fields) {
        const auto tab = line.find('\t', at);
        if (tab == std::string_view::npos) {
            break;
        }
        f.push_back(trim(line.substr(at, tab - at)));
        at = tab + 1;
    }
    f.push_back(trim(line.substr(at)));
    return f;
}

}  // namespace switchyard::slurm::detail
