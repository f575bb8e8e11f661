// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: what the preflight reads, each given the whole input — perftest's
// ib_write_lat and ib_write_bw tables, nccl-tests' all_reduce_perf table, a file of pair results
// (what is accepted must write back to lines that read as the same results), and NCCL
// Inspector's records, then the slow ranks over them.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "switchyard/preflight/inspector.hpp"
#include "switchyard/preflight/measure.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace pf = switchyard::preflight;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)pf::parse_ib_write_lat(text, "fuzz.lat");
    (void)pf::parse_ib_write_bw(text, "fuzz.bw");
    (void)pf::parse_all_reduce_perf(text, "fuzz.allreduce");
    if (auto results = pf::parse_pair_results(text, "fuzz.jsonl")) {
        std::string again;
        for (const auto& r : *results) {
            again += pf::pair_result_line(r) + "\n";
        }
        auto twice = pf::parse_pair_results(again, "round-trip");
        if (!twice || twice->size() != results->size()) {
            std::abort();
        }
        for (std::size_t i = 0; i < results->size(); ++i) {
            const auto& a = (*results)[i];
            const auto& b = (*twice)[i];
            if (a.client != b.client || a.server != b.server || a.rail != b.rail ||
                a.error != b.error || a.latency_us != b.latency_us ||
                a.bandwidth_gbps != b.bandwidth_gbps) {
                std::abort();
            }
        }
    }
    if (auto file = pf::parse_inspector(text, "fuzz.log")) {
        (void)pf::slow_ranks(file->records);
    }
    return 0;
}
