// SPDX-License-Identifier: Apache-2.0
// Slurm hostlist expressions: expand "node[001-004,010],gpu7" and compress host names back.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/result.hpp"

namespace switchyard {

/// Largest number of names one expression may expand to (guards against "n[0-999999999]").
inline constexpr std::size_t kMaxHostlistSize = 1'000'000;
/// Longest expression accepted, in bytes. A step's node list reaches root code (slurmstepd) from
/// the client's environment, so its size is bounded before any work; 100k ranged hosts are far
/// below this.
inline constexpr std::size_t kMaxHostlistText = 4u << 20;

/// Expands a Slurm hostlist expression in order, keeping duplicates, as Slurm does for a step's
/// node list. Several bracket groups in one name expand as a product ("r[1-2]n[1-2]" → 4 names).
/// \return the names, or Error::invalid_argument naming the bad part for an unbalanced bracket,
///         an empty or descending range, a non-numeric bound, more than kMaxHostlistSize names
///         (checked before they are built, products included), or a text longer than
///         kMaxHostlistText.
[[nodiscard]] Result<std::vector<std::string>> expand_hostlist(std::string_view expr);

/// Compresses names into Slurm's ranged form, sorted and without duplicates:
/// {"node003","node001","node002","gpu1"} → "gpu1,node[001-003]". Zero-padded numbers keep their
/// width; numbers of different widths are never merged into one range.
[[nodiscard]] std::string compress_hostlist(std::vector<std::string> names);

}  // namespace switchyard
