// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: ibnetdiscover text → parse → classify → map file → read → write must give
// the same text, and every Slurm writer must run. Any crash, sanitizer report or abort is a bug.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "switchyard/topology/classify.hpp"
#include "switchyard/topology/slurm_writers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace topo = switchyard::topology;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto graph = topo::parse_ibnetdiscover(text, "fuzz");
    if (!graph) {
        return 0;
    }
    const auto c = topo::classify(*graph, {});
    const auto written = topo::write_fabric_map(c.map, "fuzz");
    auto back = topo::read_fabric_map(written, "round-trip");
    if (!back || topo::write_fabric_map(*back, "fuzz") != written) {
        std::abort();  // the writer produced a map its own reader rejects or changes
    }
    (void)topo::write_topology_conf(c.map, "");
    (void)topo::write_topology_block(c.map, "");
    (void)topo::write_topology_yaml(c.map, "");
    (void)topo::write_node_features(c.map, "");
    return 0;
}
