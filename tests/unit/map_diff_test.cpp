// SPDX-License-Identifier: Apache-2.0
// Two fabric maps compared: what `switchyard fabric diff` reports (its golden cases use maps
// discover wrote from ibsim fabrics with cables pulled and a host gone).
#include "switchyard/topology/map_diff.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"

using namespace switchyard::topology;

namespace {
/// A map of SUs (name, group) and hosts (name, SU index), with one anomaly.
FabricMap small_map(const std::vector<std::pair<std::string, std::uint32_t>>& sus,
                    const std::vector<std::pair<std::string, std::uint32_t>>& hosts,
                    const std::string& anomaly) {
    FabricMap m;
    m.kind = FabricKind::DragonflyPlus;
    m.groups = {{"g1", {}, 2, 0}, {"g2", {}, 2, 0}};
    for (const auto& [name, group] : sus) {
        MapSu su;
        su.name = name;
        su.group = group;
        m.sus.push_back(su);
    }
    for (const auto& [name, su] : hosts) {
        m.hosts.push_back({name, su, 0, 0});
    }
    m.anomalies.push_back({"missing-uplink", anomaly});
    return m;
}
}  // namespace

TEST_CASE("map diff: hosts added, removed and moved; SUs; anomalies", "[map-diff]") {
    const auto before =
        small_map({{"a", 0}, {"b", 1}}, {{"n1", 0}, {"n2", 0}, {"n3", 1}}, "leaf a");
    const auto after = small_map({{"a", 0}, {"c", 1}}, {{"n1", 1}, {"n2", 0}, {"n4", 0}}, "leaf c");
    const auto d = compare_maps(before, after);
    CHECK(d.changed());
    CHECK(d.hosts_added == std::vector<std::string>{"n4"});
    CHECK(d.hosts_removed == std::vector<std::string>{"n3"});
    REQUIRE(d.hosts_moved.size() == 1);
    CHECK(d.hosts_moved[0].host == "n1");
    CHECK(d.hosts_moved[0].to_su == "c");
    CHECK(d.hosts_moved[0].to_group == "g2");
    CHECK(d.sus_added == std::vector<std::string>{"c"});
    CHECK(d.sus_removed == std::vector<std::string>{"b"});
    CHECK(d.anomalies_new == std::vector<std::string>{"missing-uplink: leaf c"});
    CHECK(d.anomalies_resolved == std::vector<std::string>{"missing-uplink: leaf a"});
    CHECK(d.cables.empty());  // neither map carries cable counts
    CHECK_THAT(format_diff(d), Catch::Contains("  n1: SU a -> c, group g1 -> g2\n"));
    CHECK_FALSE(compare_maps(after, after).changed());
    CHECK(format_diff(compare_maps(after, after)) == "hosts: 3 -> 3\nno change\n");
}
