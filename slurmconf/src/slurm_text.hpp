// SPDX-License-Identifier: Apache-2.0
// What the readers of Slurm's own text (scontrol output, slurm.conf lines) share.
#pragma once

#include <string>
#include <string_view>

namespace switchyard::slurmconf::detail {

/// A value as an error message shows it: printable ASCII only (others as '?'), at most 80
/// characters, then "...".
inline std::string shown(std::string_view s) {
    std::string out;
    for (const char c : s.substr(0, 80)) {
        out += (c >= 0x20 && c < 0x7f) ? c : '?';
    }
    return s.size() > 80 ? out + "..." : out;
}

}  // namespace switchyard::slurmconf::detail
