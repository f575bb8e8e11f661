// SPDX-License-Identifier: Apache-2.0
// What the probes print, read and bounded: perftest's ib_write_lat and ib_write_bw (the client's
// result table) and nccl-tests' all_reduce_perf (its table of sizes); and the verdict on one
// pair against the policy's limits.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/result.hpp"

namespace switchyard::preflight {

/// ib_write_lat's result row. typical is perftest's median.
struct LatencyReading {
    std::uint64_t bytes = 0;
    double typical_us = 0;
    double avg_us = 0;
};

/// ib_write_bw's result row, in Gb/s (MB/sec tables, without --report_gbits, are converted:
/// perftest's MB is 2^20 bytes).
struct BandwidthReading {
    std::uint64_t bytes = 0;
    double peak_gbps = 0;
    double avg_gbps = 0;
};

/// One size of all_reduce_perf: the out-of-place time and bus bandwidth.
struct AllReduceRow {
    std::uint64_t bytes = 0;
    double time_us = 0;
    double busbw_gbs = 0;  ///< GB/s, as nccl-tests prints it
};

/// Output larger than this is refused before it is read (perftest prints a few kB).
inline constexpr std::size_t kMaxProbeOutput = std::size_t{1} << 20;

/// Each names `source` (the probe, its pair and side) and what was expected when the output is
/// not a result table: a probe that printed an error, or garbage, is the probe's failure.
[[nodiscard]] Result<LatencyReading> parse_ib_write_lat(std::string_view out,
                                                        std::string_view source);
[[nodiscard]] Result<BandwidthReading> parse_ib_write_bw(std::string_view out,
                                                         std::string_view source);
[[nodiscard]] Result<std::vector<AllReduceRow>> parse_all_reduce_perf(std::string_view out,
                                                                      std::string_view source);

enum class Outcome : std::uint8_t {
    Ok,
    Slow,         ///< measured, and over a limit
    ProbeFailed,  ///< the probe hung, failed or printed no result: nobody's fault but its own
};
[[nodiscard]] std::string_view to_string(Outcome o);

struct Limits {
    double max_latency_us = 5;         ///< per pair (ib_write_lat's typical)
    double min_bandwidth_share = 0.9;  ///< of the link rate
    double link_rate_gbps = 0;         ///< 0: bandwidth not judged (the rate is not known)
};

/// One measurement of one probe (an index into its Schedule's probes). A probe measured twice
/// has two: it is slow only if both are.
struct Verdict {
    std::uint32_t probe = 0;
    Outcome outcome = Outcome::Ok;
    double latency_us = -1;  ///< -1: not measured
    double bandwidth_gbps = -1;
    std::string detail;  ///< what was over the limit, or why the probe failed
};

/// The verdict on readings (either may be absent: -1) against the limits.
[[nodiscard]] Verdict judge(std::uint32_t probe,
                            double latency_us,
                            double bandwidth_gbps,
                            const Limits& limits);

}  // namespace switchyard::preflight

namespace switchyard::preflight {

/// One pair's result as the probes' runner records it, one JSON object per line:
/// {"client": "node007", "server": "node003", "rail": "mlx5_2", "latency_us": 11.2,
///  "bandwidth_gbps": 190.5} or, for a probe that hung or failed, {..., "error": "why"}.
/// "rail" is "nvlink" for a pair over NVLink.
struct PairResult {
    std::string client;
    std::string server;
    std::string rail;
    double latency_us = -1;
    double bandwidth_gbps = -1;
    std::string error;  ///< "" when measured
    std::uint32_t line = 0;
};

/// At most this many lines, each at most 4 KiB.
inline constexpr std::size_t kMaxPairResults = 2'000'000;

/// The results of a file of them; an error names source:line and what was expected.
[[nodiscard]] Result<std::vector<PairResult>> parse_pair_results(std::string_view text,
                                                                 std::string_view source);

/// One result as a line of that file (no newline).
[[nodiscard]] std::string pair_result_line(const PairResult& r);

}  // namespace switchyard::preflight
