// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the small readers, each given the whole input — GUID → name maps
// (discover --guid-map), NCCL versions and version ranges (policy), nccl-tests output (a health
// command), /proc/meminfo (the memory check), numbers, and %n node-name patterns.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "switchyard/common/strings.hpp"
#include "switchyard/policy/health.hpp"
#include "switchyard/policy/policy.hpp"
#include "switchyard/topology/classify.hpp"
#include "switchyard/topology/node_readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace pol = switchyard::policy;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)switchyard::topology::parse_guid_map(text, "fuzz.map");
    const auto v = pol::parse_nccl_version(text);
    if (const auto r = pol::parse_version_range(text); r && v) {
        (void)r->contains(*v);
    }
    if (const auto bw = pol::parse_nccl_tests_busbw(text); bw && !(*bw >= 0)) {
        std::abort();  // a bus bandwidth is a number, never negative or NaN
    }
    (void)pol::check_memory(text, 64);
    (void)switchyard::parse_uint(text);
    if (size < 512) {
        (void)switchyard::topology::expand_sysfs_root(text, "node%n");
    }
    return 0;
}
