// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: any bytes given to the fabric index reader, stamped as the map its header
// names (so the reader goes past the stale check), asked for hosts named in the input and for
// a few that are not. An accepted lookup must give a consistent map of only the hosts asked for.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/fabric/fabric_index.hpp"

namespace {

/// The stamp in the header's second line ("map <16 hex> <bytes>"), or zeros.
switchyard::fabric::MapStamp stamp_of(std::string_view text) {
    switchyard::fabric::MapStamp s;
    const auto at = text.find("\nmap ");
    if (at == std::string_view::npos) {
        return s;
    }
    const std::string line(text.substr(at + 5, text.find('\n', at + 5) - at - 5));
    unsigned long long digest = 0;
    unsigned long long bytes = 0;
    if (std::sscanf(line.c_str(), "%16llx %20llu", &digest, &bytes) == 2) {
        s = {digest, bytes};
    }
    return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // Hosts to look up: the first word of some lines (records), and names no record has.
    std::vector<std::string> hosts = {"", "a", "zzzz", "node001"};
    std::size_t pos = 0;
    for (int i = 0; i < 64 && pos < text.size(); ++i) {
        const auto nl = text.find('\n', pos);
        const auto line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
        if (i % 3 == 0) {
            hosts.emplace_back(line.substr(0, line.find(' ')));
        }
        if (nl == std::string_view::npos) {
            break;
        }
        pos = nl + 1;
    }
    const switchyard::StringSource src("fuzz.index", text);
    auto map = switchyard::fabric::read_fabric_index_for(src, stamp_of(text), hosts);
    if (!map) {
        return 0;
    }
    for (std::size_t i = 0; i < map->hosts.size(); ++i) {
        const auto& h = map->hosts[i];
        if ((i > 0 && !(map->hosts[i - 1].name < h.name)) || h.su >= map->sus.size() ||
            map->find_host(h.name) != &h) {
            std::abort();
        }
        for (const auto& r : map->rails_of(h)) {
            if (r.hca >= map->hcas.size() || r.leaf >= map->switches.size()) {
                std::abort();
            }
        }
    }
    for (const auto& su : map->sus) {
        if (su.group >= map->groups.size()) {
            std::abort();
        }
        for (const auto l : su.leaves) {
            if (l >= map->switches.size()) {
                std::abort();
            }
        }
    }
    return 0;
}
