// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: ibnetdiscover text → parse → classify → map file → read → write must give
// the same text, and every Slurm writer must run. Any crash, sanitizer report or abort is a bug.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "switchyard/discover/classify/classify.hpp"
#include "switchyard/discover/ib/ibnetdiscover.hpp"
#include "switchyard/slurm/files/slurm_writers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto graph = switchyard::discover::parse_ibnetdiscover(text, "fuzz");
    if (!graph) {
        return 0;
    }
    const auto c = switchyard::discover::classify(*graph, {});
    const auto written = switchyard::fabric::write_fabric_map(c.map, "fuzz");
    auto back = switchyard::fabric::read_fabric_map(written, "round-trip");
    if (!back || switchyard::fabric::write_fabric_map(*back, "fuzz") != written) {
        std::abort();  // the writer produced a map its own reader rejects or changes
    }
    (void)switchyard::slurm::write_topology_conf(c.map, "");
    (void)switchyard::slurm::write_topology_block(c.map, "");
    (void)switchyard::slurm::write_topology_yaml(c.map, "");
    (void)switchyard::slurm::write_node_features(c.map, "");
    return 0;
}
