// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: lldpctl outputs (discover --lldp reads a directory of them, gathered from
// every host and switch). The reader never fails but with a message; a file it accepts builds
// a fabric, alone and beside a copy of itself that claims to be its first neighbour (so that
// names, cables from both ends, disagreements and separate networks are reached), and as plain
// files without their chassis beside a mirror of its cables (naming from mutual cables), whose
// every cable points at a node of the graph and whose every host port has exactly one cable. The
// fast JSON reading and the careful one agree on every input: the same file, or the same error.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "switchyard/discover/lldp/lldp.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto file = switchyard::discover::parse_lldp(text, "fuzz.json");
    const auto careful = switchyard::discover::detail::parse_lldp(
        text, "fuzz.json", switchyard::discover::detail::JsonReading::Careful);
    if (file.has_value() != careful.has_value() || (file && *file != *careful) ||
        (!file && file.error().to_string() != careful.error().to_string())) {
        std::abort();
    }
    if (!file) {
        if (file.error().message().empty()) {
            std::abort();
        }
        return 0;
    }
    std::vector<switchyard::discover::LldpFile> files = {*file};
    if (!file->neighbors.empty()) {
        auto other = *file;
        other.source = "other.json";
        other.local = file->neighbors.front().chassis;
        files.push_back(std::move(other));
    }
    // The same cables as plain files (no chassis), from both ends: named from each other.
    auto plain = *file;
    plain.local.reset();
    auto mirror = plain;
    mirror.source = "mirror.json";
    mirror.neighbors.clear();
    for (const auto& nb : plain.neighbors) {
        auto back = nb;
        back.local_port = nb.port_descr.empty() ? nb.port_id : nb.port_descr;
        back.chassis.name = "fuzz-self";
        back.chassis.id.clear();
        back.port_id = nb.local_port;
        back.port_id_type = "ifname";
        mirror.neighbors.push_back(std::move(back));
    }
    std::vector<std::vector<switchyard::discover::LldpFile>> sets;
    for (std::size_t n = 1; n <= files.size(); ++n) {
        sets.emplace_back(files.begin(), files.begin() + static_cast<long>(n));
    }
    sets.push_back({plain, mirror});
    for (auto& set : sets) {
        const auto g = switchyard::discover::lldp_fabric(std::move(set));
        for (const auto& node : g.nodes) {
            if (node.kind == switchyard::discover::NodeKind::Ca && node.ports.size() != 1) {
                std::abort();
            }
            for (const auto& p : node.ports) {
                if (p.remote >= g.nodes.size()) {
                    std::abort();
                }
            }
        }
    }
    return 0;
}
