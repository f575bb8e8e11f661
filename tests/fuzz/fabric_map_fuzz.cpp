// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: any text given to the fabric map reader; an accepted map must round-trip,
// and its index must give the same hosts as the map. A version 3 map is also read with its
// digest made right, so that mutations reach the lines after it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "switchyard/common/file.hpp"
#include "switchyard/fabric/fabric_index.hpp"
#include "switchyard/fabric/fabric_map.hpp"

namespace {

constexpr std::string_view kV3 = "switchyard-fabric-map 3 ";

void check(std::string_view text) {
    auto map = switchyard::fabric::read_fabric_map(text, "fuzz");
    if (!map) {
        return;
    }
    for (const auto& h : map->hosts) {
        if (map->find_host(h.name) != &h) {
            std::abort();
        }
    }
    const auto once = switchyard::fabric::write_fabric_map(*map, "");
    auto again = switchyard::fabric::read_fabric_map(once, "round-trip");
    if (!again || switchyard::fabric::write_fabric_map(*again, "") != once) {
        std::abort();
    }
    auto index = switchyard::fabric::write_fabric_index(*again, once);
    if (!index) {
        return;  // only when a table's records are over the bounds
    }
    std::vector<std::string> some;
    for (std::size_t i = 0; i < again->hosts.size(); i += 2) {
        some.push_back(again->hosts[i].name);
    }
    const switchyard::fabric::MapStamp stamp{
        *switchyard::fabric::fabric_map_digest(once.substr(0, once.find('\n'))), once.size()};
    auto from_index = switchyard::fabric::read_fabric_index_for(
        switchyard::StringSource("index", *index), stamp, some);
    auto from_map = switchyard::fabric::read_fabric_map_for(once, "map", some);
    if (!from_index || !from_map || from_index->hosts.size() != from_map->hosts.size()) {
        std::abort();
    }
    for (std::size_t i = 0; i < from_map->hosts.size(); ++i) {
        const auto& a = from_index->hosts[i];
        const auto& b = from_map->hosts[i];
        if (a.name != b.name || from_index->sus[a.su].name != from_map->sus[b.su].name ||
            a.rail_count != b.rail_count) {
            std::abort();
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    check(text);
    const auto nl = text.find('\n');
    if (text.substr(0, kV3.size()) == kV3 && nl != std::string_view::npos) {
        char line[64];
        std::snprintf(
            line, sizeof line, "%s%016llx\n", std::string(kV3).c_str(),
            static_cast<unsigned long long>(switchyard::content_digest(text.substr(nl + 1))));
        check(line + std::string(text.substr(nl + 1)));
    }
    return 0;
}
