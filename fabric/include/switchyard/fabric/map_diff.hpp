// SPDX-License-Identifier: Apache-2.0
// What changed between two fabric maps (the installed one and a new discover): hosts added,
// removed or moved between SUs and groups, SUs and groups added or removed, cables gained or
// lost per switch and per group, anomalies new and resolved. Pure: two maps in, a diff out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "switchyard/fabric/fabric_map.hpp"

namespace switchyard::fabric {

struct MapDiff {
    std::string kind_before, kind_after;  ///< fabric kinds ("dragonfly+", "fat-tree-2", ...)
    std::vector<std::string> hosts_added, hosts_removed;
    struct Move {
        std::string host, from_su, to_su, from_group, to_group;
    };
    std::vector<Move> hosts_moved;  ///< hosts whose SU changed (their group may too)
    std::vector<std::string> sus_added, sus_removed, groups_added, groups_removed;
    /// NVLink domains (their blocks) by name; a placeholder kept from the previous map counts
    /// as present.
    std::vector<std::string> domains_added, domains_removed;
    /// A cable count that changed: a switch's uplinks to the tier above, or a group's fewest
    /// global cables to another group (Dragonfly+) / cables to the core (3-level fat tree).
    struct Cables {
        std::string where;  ///< "switch g1-leaf1 uplinks", "group g2 global"
        std::uint32_t before = 0, after = 0;
    };
    std::vector<Cables> cables;
    std::vector<std::string> anomalies_new, anomalies_resolved;  ///< "<kind>: <detail>"
    std::size_t hosts_before = 0, hosts_after = 0;

    /// Whether anything at all changed.
    [[nodiscard]] bool changed() const;
};

/// `before` → `after`, every list sorted by name. Cable counts are compared only when both maps
/// carry them (version 4).
[[nodiscard]] MapDiff compare_maps(const FabricMap& before, const FabricMap& after);

/// The diff for people, grouped, with counts; "no change" when none. Hosts, switches, SUs
/// and groups as hostlists; anomalies per kind (a count, the first three); at most 20 cable
/// lines. The MapDiff (--json) keeps every name.
[[nodiscard]] std::string format_diff(const MapDiff& d);

}  // namespace switchyard::fabric
