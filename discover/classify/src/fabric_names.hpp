// SPDX-License-Identifier: Apache-2.0
// Stable names for switches, scalable units and groups: meaningful names from switch
// descriptions when there are any, else derived from GUIDs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "switchyard/discover/graph/fabric_graph.hpp"
#include "switchyard/fabric/fabric_map.hpp"

namespace switchyard::discover {

using fabric::Anomaly;
using fabric::FabricMap;

/// One ASIC of a director chassis (IS5600, CS7500/CS8500, modular Quantum), from its
/// description "MF0;<chassis>:<model>/L<nn>/U<n>" (a line card) or ".../S<nn>/U<n>" (a spine
/// card); every ASIC of a chassis usually carries the same chassis name.
struct ChassisCard {
    std::string chassis;  ///< "IS5600-1"
    std::string slot;     ///< "L15", "S03"
    std::string unit;     ///< "U1"
    bool spine = false;   ///< a spine card (S), else a line card (L)
};
[[nodiscard]] std::optional<ChassisCard> chassis_card(std::string_view desc);

/// True when every character is one Slurm and the map file take in a name: [A-Za-z0-9._-].
[[nodiscard]] bool is_valid_name(std::string_view name);

/// `name` with every other character replaced by '_'.
[[nodiscard]] std::string sanitize_name(std::string_view name);

/// "sw-<16 hex>": the name of a switch whose description names nothing.
[[nodiscard]] std::string guid_name(std::string_view prefix, std::uint64_t guid);

/// Names for the switch nodes `nodes` of `g`: the name in "MF0;<name>:<model>" (a chassis ASIC:
/// "<chassis>-<slot>", "-<unit>" added when a slot has several), or a one-word description,
/// else GUID-derived. Names used twice fall back to GUID names (an anomaly).
[[nodiscard]] std::vector<std::string> name_switches(const FabricGraph& g,
                                                     const std::vector<NodeIndex>& nodes,
                                                     std::vector<Anomaly>& anomalies);

/// Names every SU: its leaf's name, or the common stem of its leaves' names
/// ("A09-P1-IBLEAF-04-01..08" → "A09-P1-IBLEAF-04"), else "su-<lowest leaf GUID>".
void name_sus(FabricMap& map);

/// Names every group from the switches above its leaves ("g1-spine1,g1-spine2" → "g1"); a
/// fabric of one group is "fabric"; else "group-<lowest GUID>".
/// `group_of_switch[w]` is the group of map switch w, or UINT32_MAX.
void name_groups(FabricMap& map, const std::vector<std::uint32_t>& group_of_switch);

}  // namespace switchyard::discover
