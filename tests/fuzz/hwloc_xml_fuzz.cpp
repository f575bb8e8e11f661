// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: any bytes given to the hwloc XML reader (`switchyard node --hwloc-xml`, the
// policy's node.hwloc_xml). hwloc itself is not instrumented (a Debian package); our reading of
// what it returns is. An accepted node must describe itself without failing.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "switchyard/node/node_readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view xml(reinterpret_cast<const char*>(data), size);
    auto node = switchyard::node::read_hwloc_xml(xml, "fuzz.xml");
    if (!node) {
        return 0;
    }
    if (node->paths.size() != node->gpus.size() * node->nics.size()) {
        std::abort();  // every GPU × NIC has a path class
    }
    for (std::size_t g = 0; g < node->gpus.size(); ++g) {
        (void)switchyard::node::nearest_nics(*node, static_cast<int>(g));
    }
    return 0;
}
