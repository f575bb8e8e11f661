// SPDX-License-Identifier: Apache-2.0
// `switchyard fabric show` and `fabric diff`: a fabric map as text or JSON, and what changed
// between two (fabric/map_diff.hpp judges).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/fabric/map_diff.hpp"
#include "switchyard/ops/deps.hpp"

namespace switchyard::ops {

struct FabricRequest {
    std::string map;
    bool json = false;
    std::string before;
    std::string after;
};

struct FabricShowReport {
    int rc = 0;
    std::string error;
    std::optional<fabric::FabricMap> map;
};

struct FabricDiffReport {
    int rc = 0;  ///< kExitChanged when the maps differ
    std::string error;
    std::optional<fabric::MapDiff> diff;
};

[[nodiscard]] FabricShowReport run_fabric_show(const FabricRequest& request, Deps& deps);
[[nodiscard]] FabricDiffReport run_fabric_diff(const FabricRequest& request, Deps& deps);

/// The map as text or JSON; the error to `err`.
void print_fabric_show(const FabricRequest& request,
                       const FabricShowReport& report,
                       std::ostream& out,
                       std::ostream& err);
/// The diff as text or JSON; the error to `err`.
void print_fabric_diff(const FabricRequest& request,
                       const FabricDiffReport& report,
                       std::ostream& out,
                       std::ostream& err);

}  // namespace switchyard::ops
