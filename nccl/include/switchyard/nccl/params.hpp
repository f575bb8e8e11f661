// SPDX-License-Identifier: Apache-2.0
// Which variables each NCCL release reads, and their defaults: facts taken from NCCL's own
// source (scripts/nccl-params over NVIDIA/nccl's release tags, 2.18 to 2.30), so that a policy
// naming a misspelt or retired variable is refused for the releases it is configured for, and
// a rule knows the default it overrides.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "switchyard/nccl/nccl_policy.hpp"

namespace switchyard::nccl {

/// One row of the table: NCCL 2.<first> to 2.<last> (0: to the newest listed) read `name`, with
/// `default_value` ("" when it is not a plain number, or the variable is a string).
struct NcclParam {
    std::string_view name;
    int first = 0;
    int last = 0;
    std::string_view default_value;
};

/// The releases the table covers (2.<first> to 2.<last>).
inline constexpr int kNcclParamsFirstMinor = 18;
inline constexpr int kNcclParamsLastMinor = 30;

/// The row of `name` for release `v`; nullptr when `v` does not read it (or lies outside the
/// table: a 2.17 or a 3.x is not known).
[[nodiscard]] const NcclParam* nccl_param(std::string_view name, const NcclVersion& v);

/// Whether some release from `from` on, inside `range` (empty: any), reads `name`; when none
/// does, why, in a sentence for the policy's problem list ("NCCL reads no variable
/// NCCL_IB_TIMOUT (releases 2.18 to 2.30); did you mean NCCL_IB_TIMEOUT?", "... last read by
/// NCCL 2.19"). Releases older than the table's first accept any name the table knows.
[[nodiscard]] std::optional<std::string> nccl_name_problem(std::string_view name,
                                                           const NcclVersion& from,
                                                           const VersionRange& range);

}  // namespace switchyard::nccl
