// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: Slurm host lists (a step's node list comes from the client's environment
// and reaches slurmstepd) and CPU lists. Expansion stays within its bounds; an expanded list
// compresses to an expression that expands to the same names (when it is within the text bound).
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/policy/nccl_rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)switchyard::policy::parse_cpu_list(text);
    auto hosts = switchyard::expand_hostlist(text);
    if (!hosts) {
        return 0;
    }
    if (hosts->size() > switchyard::kMaxHostlistSize) {
        std::abort();
    }
    const auto again = switchyard::compress_hostlist(*hosts);
    if (again.size() > switchyard::kMaxHostlistText) {
        return 0;  // ranges only on a trailing number: "a-[1-9]-b" compresses to each name
    }
    auto back = switchyard::expand_hostlist(again);
    const std::set<std::string> unique(hosts->begin(), hosts->end());
    if (!back || std::set<std::string>(back->begin(), back->end()) != unique) {
        std::abort();  // compress gave an expression that does not expand to the same names
    }
    return 0;
}
