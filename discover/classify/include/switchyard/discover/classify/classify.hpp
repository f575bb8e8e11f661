// SPDX-License-Identifier: Apache-2.0
// Classification of a FabricGraph from its cabling alone: compute hosts, leaves, tiers,
// scalable units, pods/groups, rails; every dirty record reported as an anomaly.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "switchyard/common/result.hpp"
#include "switchyard/discover/classify/expected_cabling.hpp"
#include "switchyard/discover/classify/guid_map.hpp"
#include "switchyard/discover/graph/fabric_graph.hpp"
#include "switchyard/fabric/fabric_map.hpp"

namespace switchyard::discover {

struct ClassifyOptions {
    const GuidMap* guid_map = nullptr;  ///< optional
    /// Whether an HCA device name belongs to the compute fabric (discover: a Pattern of
    /// --compute-hca, e.g. "mlx5_[0-7]"); others are storage/management HCAs and never shape
    /// the compute topology. Empty: all HCAs. Called from two threads at once on large fabrics.
    std::function<bool(std::string_view)> compute_hca;
    /// The hosts a site expects (discover --expect-hosts): which hosts cabled into a spine are
    /// compute hosts. Without it, those named like the hosts on leaves are. Optional.
    const std::vector<std::string>* expected_hosts = nullptr;
    /// The design's cable counts, judged from the fabric where not given. Optional.
    const ExpectedCabling* expected_cabling = nullptr;
    /// Graph nodes from which the hosts are found in two halves at once (the result is the
    /// same either way; tests set 0 and SIZE_MAX to compare).
    std::size_t two_threads_from = 50000;
};

/// Compares the map with the hosts a site expects (the node names of its slurm.conf, say):
/// each expected host that has no HCA in the fabric becomes an "expected-host-missing" anomaly
/// in `map`, sorted by name. Returns how many were missing.
std::size_t check_expected_hosts(fabric::FabricMap& map, const std::vector<std::string>& expected);

/// Compares the map with the map it replaces (--previous-map): the hosts gone since, one
/// "hosts-vanished" anomaly per SU of the previous map that lost some, saying when its leaf
/// switches went too (a rack powered down or unplugged). Returns how many hosts vanished.
std::size_t check_previous_hosts(fabric::FabricMap& map, const fabric::FabricMap& previous);

/// Facts for the discover summary that the map file does not keep.
struct ClassifyStats {
    std::vector<std::size_t> switches_per_tier;  ///< [0] = unreachable, [1] = leaves, ...
    /// cables per (leaf, upper switch) pair → how many such pairs; {2: 62} = all doubled
    std::vector<std::pair<std::uint32_t, std::size_t>> uplink_cables;
    std::size_t compute_hcas = 0;
    std::size_t excluded_hcas = 0;  ///< SHARP, unnamed, placeholder, non-compute, isolated
    /// Rails from cabling: the most leaves of one SU that most of its hosts reach (HCA names
    /// can differ host to host: HCA-1 on one, mlx5_0 on the next).
    std::size_t rails = 0;
};

struct Classification {
    fabric::FabricMap map;
    ClassifyStats stats;
};

/// Classifies the fabric. Deterministic: the same graph and options give the same map.
[[nodiscard]] Classification classify(const FabricGraph& graph, const ClassifyOptions& options);

}  // namespace switchyard::discover
