// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: any text given to the fabric map reader; an accepted map must round-trip.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "switchyard/topology/fabric_map.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace topo = switchyard::topology;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto map = topo::read_fabric_map(text, "fuzz");
    if (!map) {
        return 0;
    }
    for (const auto& h : map->hosts) {
        if (map->find_host(h.name) != &h) {
            std::abort();
        }
    }
    const auto once = topo::write_fabric_map(*map, "");
    auto again = topo::read_fabric_map(once, "round-trip");
    if (!again || topo::write_fabric_map(*again, "") != once) {
        std::abort();
    }
    return 0;
}
