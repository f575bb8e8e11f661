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
#include "switchyard/nccl/rules.hpp"

namespace {

/// A rough upper bound on the names `text` stands for: the product of each bracket's span.
/// Inputs of more than 2,000 names are left to the unit tests of the 1,000,000-name bound:
/// building and comparing that many names per input made this harness run at ~130 inputs/s
/// (10,000 names: ~800 inputs/s, too few for a 10-million-input run).
double rough_names(std::string_view text) {
    double product = 1;
    double bracket = 0;
    double lo = 0;
    double cur = 0;
    bool in = false;
    bool have_lo = false;
    for (const char c : text) {
        if (in && (c == ' ' || c == '\t' || c == '\r' || c == '\n')) {
            continue;  // the expander trims these around numbers ("[0-320\t]" is 321 names)
        }
        if (c >= '0' && c <= '9') {
            cur = cur * 10 + (c - '0');
        } else if (in && c == '-') {
            lo = cur;
            have_lo = true;
            cur = 0;
        } else if (in && (c == ',' || c == ']')) {
            bracket += have_lo && cur >= lo ? cur - lo + 1 : 1;
            have_lo = false;
            cur = 0;
            if (c == ']') {
                product *= bracket;
                in = false;
            }
        } else {
            in = in || c == '[';
            if (c == '[') {
                bracket = 0;
            }
            cur = 0;
            have_lo = false;
        }
    }
    return product;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)switchyard::nccl::parse_cpu_list(text);
    // Large lists only repeat the loops (their bounds have unit tests and bench/hostile-inputs):
    // with 2000 names an input cost ten times as much under coverage tracing, for no new edge.
    if (rough_names(text) > 256) {
        return 0;
    }
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
