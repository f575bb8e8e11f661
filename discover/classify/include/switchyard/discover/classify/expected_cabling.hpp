// SPDX-License-Identifier: Apache-2.0
// The cable counts a fabric's design gives (discover --expect-cabling), the classifier's
// yardstick for missing and extra cables.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "switchyard/common/result.hpp"

namespace switchyard::discover {

/// The cable counts a fabric's design gives (discover --expect-cabling), where the admin knows
/// them; each unset one is judged from the fabric (the largest count that many pairs have).
struct ExpectedCabling {
    std::optional<std::uint32_t> leaf_spine;  ///< cables between a leaf and each upper switch
    std::optional<std::uint32_t> global;      ///< cables between two Dragonfly+ groups
};
inline constexpr std::uint32_t kMaxExpectedCables = 65535;

/// Parses "leaf-spine-cables <n>" and "global-cables <n>" lines ('#' comments, blank lines).
/// \return the counts, or Error::parse with source:line for an unknown key, a key given twice,
///         or a count that is not 1 to kMaxExpectedCables.
[[nodiscard]] Result<ExpectedCabling> parse_expected_cabling(std::string_view text,
                                                             std::string_view source);

}  // namespace switchyard::discover
