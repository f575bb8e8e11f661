// SPDX-License-Identifier: Apache-2.0
// The table of NCCL's variables per release (params.inc, generated) and its questions.
#include "switchyard/nccl/params.hpp"

#include <algorithm>
#include <vector>

namespace switchyard::nccl {
namespace {

constexpr NcclParam kParams[] = {
#include "params.inc"
};

int last_of(const NcclParam& p) {
    return p.last == 0 ? kNcclParamsLastMinor : p.last;
}

/// Edits (insert, delete, replace) between two short names.
std::size_t distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const auto up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

}  // namespace

const NcclParam* nccl_param(std::string_view name, const NcclVersion& v) {
    if (v.major != 2) {
        return nullptr;
    }
    for (const auto& p : kParams) {
        if (p.name == name && v.minor >= p.first && v.minor <= last_of(p)) {
            return &p;
        }
    }
    return nullptr;
}

std::optional<std::string> nccl_name_problem(std::string_view name,
                                             const NcclVersion& from,
                                             const VersionRange& range) {
    if (from.major != 2) {
        return std::nullopt;  // outside what the table knows
    }
    int last_read = 0;
    for (const auto& p : kParams) {
        if (p.name != name) {
            continue;
        }
        last_read = std::max(last_read, last_of(p));
        if (from.minor < kNcclParamsFirstMinor) {
            return std::nullopt;
        }
        for (int m = std::max(p.first, from.minor); m <= last_of(p); ++m) {
            if (range.empty() || range.contains({2, m, 99})) {
                return std::nullopt;
            }
        }
    }
    const std::string releases = "NCCL 2." + std::to_string(from.minor) + " or later" +
                                 (range.empty() ? "" : " in the profile's nccl_versions");
    if (last_read != 0) {
        return std::string(name) + " is not read by " + releases + " (the last release that " +
               "read it is 2." + std::to_string(last_read) + ")";
    }
    std::string_view best;
    std::size_t best_distance = 4;  // more edits than this is no suggestion
    for (const auto& p : kParams) {
        // The lengths' difference is a floor on the edits: a name that long needs no table.
        const auto longer = std::max(name.size(), p.name.size());
        if (longer - std::min(name.size(), p.name.size()) >= best_distance) {
            continue;
        }
        const auto d = distance(name, p.name);
        if (d < best_distance) {
            best = p.name;
            best_distance = d;
        }
    }
    return "NCCL reads no variable " + std::string(name) + " (releases 2." +
           std::to_string(kNcclParamsFirstMinor) + " to 2." + std::to_string(kNcclParamsLastMinor) +
           ")" + (best.empty() ? "" : "; did you mean " + std::string(best) + "?");
}

}  // namespace switchyard::nccl
