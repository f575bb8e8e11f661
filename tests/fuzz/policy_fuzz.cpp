// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: any text given to the policy loader. It must never throw (an exception
// escaping is a finding), never report a shape it read without checking (kUnexpectedShape), and
// a policy it accepts must reach the NCCL rules and the health policy without failing.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "switchyard/health/health.hpp"
#include "switchyard/policy/policy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace pol = switchyard::policy;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto loaded = pol::load_policy(text, "fuzz.yaml");
    for (const auto& p : loaded.problems) {
        if (p.message.starts_with(pol::kUnexpectedShape)) {
            std::abort();
        }
        (void)p.to_string();
    }
    if (loaded.policy.has_value() != loaded.problems.empty()) {
        std::abort();  // a policy comes with no problem, and problems with no policy
    }
    if (loaded.policy) {
        for (const auto* shape : {"", "gpu:8x10de:2330 nic:8xinfiniband"}) {
            (void)switchyard::health::with_node_paths(
                loaded.policy->health.for_node(shape, "batch,debug"), "node%n-01");
        }
    }
    return 0;
}
