// SPDX-License-Identifier: Apache-2.0
// A running job's collectives as NCCL Inspector writes them (NVIDIA/nccl, ext-profiler/
// inspector/README.md: one JSON object per collective and communicator, "header" {id, rank,
// n_ranks, nnodes}, "metadata" {hostname, pid, ...}, "coll_perf" {coll, coll_sn,
// coll_msg_size_bytes, coll_exec_time_us, coll_algobw_gbs, coll_busbw_gbs}), and the ranks
// slow against the job's median: a robust z-score over each rank's median bus bandwidth.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/result.hpp"
#include "switchyard/preflight/model.hpp"

namespace switchyard::preflight {

struct CollRecord {
    std::string host;
    std::uint32_t rank = 0;
    std::uint32_t ranks = 0;
    std::string comm;  ///< header.id
    std::string coll;  ///< AllReduce, ReduceScatter, ...
    std::uint64_t bytes = 0;
    double exec_time_us = 0;
    double busbw_gbs = 0;
};

/// At most this many records are read from one file, and objects of at most 64 KiB.
inline constexpr std::size_t kMaxInspectorRecords = 4'000'000;

struct InspectorFile {
    std::vector<CollRecord> records;
    /// Objects of other kinds (Inspector's per-dump statistics, point-to-point records): read
    /// past, counted.
    std::size_t other = 0;
};

/// The collective records of one Inspector file (JSON objects one after another). A malformed
/// object, or a collective record without its fields, is an error naming the file and line.
[[nodiscard]] Result<InspectorFile> parse_inspector(std::string_view text, std::string_view source);

struct SlowRank {
    std::string host;
    std::uint32_t rank = 0;
    double busbw_gbs = 0;  ///< its median
    double z = 0;          ///< robust z-score against the job's ranks
};

struct RankReport {
    std::string coll;  ///< the collective and size compared (the most common one)
    std::uint64_t bytes = 0;
    double median_gbs = 0;  ///< the job's ranks' median
    std::uint32_t ranks = 0;
    std::vector<SlowRank> slow;  ///< z at or under -threshold, slowest first
};

/// The ranks slow against the job's median, on the collective and size most records have.
/// z = 0.6745 (x - median) / MAD (Iglewicz and Hoaglin); a MAD of 0 takes 1 % of the median.
[[nodiscard]] RankReport slow_ranks(std::span<const CollRecord> records, double threshold = 3.5);

struct PlacedFault {
    std::uint32_t part = kNone;  ///< a Leaf part when all of its job hosts are slow, else a host's
    std::string host;            ///< the host, for a node
    std::vector<std::string> hosts;  ///< the slow hosts it explains
};

/// The slow hosts on the map: a leaf whose every job host (two or more) is slow is the leaf's
/// fault; the others each their node's. Hosts not on the model's first plane are nodes.
[[nodiscard]] std::vector<PlacedFault> place_slow_hosts(const Model& m,
                                                        std::span<const std::string> slow_hosts);

}  // namespace switchyard::preflight
