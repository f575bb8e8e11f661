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
#include "switchyard/topology/fabric_graph.hpp"
#include "switchyard/topology/fabric_map.hpp"

namespace switchyard::topology {

/// What a GUID→host map says about one node or port GUID.
struct GuidEntry {
    std::string host;
    std::string hca;  ///< empty when the map line had no device
};

using GuidMap = std::unordered_map<std::uint64_t, GuidEntry>;

/// Parses "<guid> <host> [<hca>]" lines (node or port GUIDs; '#' comments and blank lines
/// allowed), as gathered per node from /sys/class/infiniband/*/node_guid or `ibstat -p`.
/// \return the map, or Error::parse with source:line for a bad GUID, a missing host, extra
///         fields, or one GUID given two different hosts.
[[nodiscard]] Result<GuidMap> parse_guid_map(std::string_view text, std::string_view source);

/// The cable counts a fabric's design gives (discover --expect-cabling), where the admin knows
/// them; each unset one is judged from the fabric (the largest count that many pairs have).
struct ExpectedCabling {
    std::optional<std::uint32_t> leaf_spine;  ///< cables between a leaf and each upper switch
    std::optional<std::uint32_t> global;      ///< cables between two Dragonfly+ groups
};
inline constexpr std::uint32_t kMaxExpectedCables = 65535;

/// Parses "leaf-spine-cables <n>" and "global-cables <n>" lines ('#' comments, blank lines).
/// \return the counts, or Error::parse with source:line for an unknown key, a key given twice,
///         or a count that is not 1 to kMaxExpectedCables.
[[nodiscard]] Result<ExpectedCabling> parse_expected_cabling(std::string_view text,
                                                             std::string_view source);

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
std::size_t check_expected_hosts(FabricMap& map, const std::vector<std::string>& expected);

/// Facts for the discover summary that the map file does not keep.
struct ClassifyStats {
    std::vector<std::size_t> switches_per_tier;  ///< [0] = unreachable, [1] = leaves, ...
    /// cables per (leaf, upper switch) pair → how many such pairs; {2: 62} = all doubled
    std::vector<std::pair<std::uint32_t, std::size_t>> uplink_cables;
    std::size_t compute_hcas = 0;
    std::size_t excluded_hcas = 0;  ///< SHARP, unnamed, placeholder, non-compute, isolated
};

struct Classification {
    FabricMap map;
    ClassifyStats stats;
};

/// Classifies the fabric. Deterministic: the same graph and options give the same map.
[[nodiscard]] Classification classify(const FabricGraph& graph, const ClassifyOptions& options);

}  // namespace switchyard::topology
