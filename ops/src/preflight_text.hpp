// SPDX-License-Identifier: Apache-2.0
// What the preflight's runner and its printers both say of pairs and numbers (internal to ops/).
#pragma once

#include <string>
#include <vector>

#include "switchyard/preflight/locate.hpp"

namespace switchyard::ops::preflight_text {

/// `v` with `decimals` places (%g: common/strings.hpp's short_number).
[[nodiscard]] std::string num(double v, int decimals);

/// "client -> server on rail[: detail]".
[[nodiscard]] std::string pair_text(const preflight::Model& m,
                                    const preflight::Probe& p,
                                    const preflight::Verdict* v);

/// Per probe: its worst slow verdict (highest latency), or nullptr.
[[nodiscard]] std::vector<const preflight::Verdict*> worst_slow(const preflight::Measured& ms);

/// Per probe: its first failed verdict, or nullptr.
[[nodiscard]] std::vector<const preflight::Verdict*> failed_of(const preflight::Measured& ms);

}  // namespace switchyard::ops::preflight_text
