// SPDX-License-Identifier: Apache-2.0
// Policy: the admin's switchyard.yaml (paths, NCCL rules and profiles), loaded and validated with
// every problem reported compiler-style.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "switchyard/common/error.hpp"
#include "switchyard/policy/health.hpp"
#include "switchyard/policy/pattern.hpp"
#include "switchyard/topology/fabric_map.hpp"

namespace switchyard::policy {

/// An NCCL version "2.21" or "2.21.5".
struct NcclVersion {
    int major = 0;
    int minor = 0;
    int patch = 0;
    auto operator<=>(const NcclVersion&) const = default;
};
[[nodiscard]] std::optional<NcclVersion> parse_nccl_version(std::string_view s);
[[nodiscard]] std::string to_string(const NcclVersion& v);

/// ">=2.18,<2.24": every bound must hold. Empty: any version.
struct VersionRange {
    std::vector<std::pair<std::string, NcclVersion>> bounds;  ///< (operator, version)
    [[nodiscard]] bool contains(const NcclVersion& v) const;
    [[nodiscard]] bool empty() const { return bounds.empty(); }
};
[[nodiscard]] std::optional<VersionRange> parse_version_range(std::string_view s);

/// A named set of variables, applied automatically when it matches or when a user names it.
struct NcclProfile {
    std::string name;
    bool user_selectable = false;  ///< --nccl-env=<name> allowed
    bool automatic = false;        ///< applied under --nccl-env=auto when it matches
    bool enforce = false;          ///< overwrite user values (admin workaround profiles only)
    Pattern match_shape;           ///< found in the node shape; empty: any shape
    std::optional<topology::FabricKind> match_fabric;
    unsigned min_nodes = 0;
    unsigned max_nodes = 0;  ///< 0: no limit
    VersionRange nccl_versions;
    std::vector<std::pair<std::string, std::string>> set;  ///< in file order
};

struct NcclPolicy {
    bool enabled = true;
    NcclVersion min_version{2, 21,
                            0};  ///< floor of the NCCL in use (the version is unknown at launch)
    Pattern compute_hca;         ///< compute HCA names (whole); empty: NICs nearest a GPU
    std::string socket_ifname;   ///< NCCL_SOCKET_IFNAME, empty: NCCL's default
    std::optional<bool> rail_optimized;  ///< nullopt: from the fabric map
    unsigned large_job_nodes = 1024;
    unsigned roce_qps_per_connection = 4;
    std::string ib_addr_family;  ///< RoCE with NCCL >= 2.21: AF_INET / AF_INET6
    std::string ib_addr_range;
    std::vector<NcclProfile> profiles;
};

/// Cost model parameters of the planner (reference/nccl.md 8.4), calibrated for NDR (sources in
/// docs/design.md, "Cost model"): a port as NCCL reaches it, NCCL's own per-step latency.
struct PlacementPolicy {
    double link_gbps = 47.5;     ///< GB/s per rail port and direction as NCCL reaches it
    double alpha_net_us = 14;    ///< per ring step between nodes (NCCL's NET/Ring/Simple latency)
    double alpha_hop_us = 0.25;  ///< per extra switch hop
    double leaf_oversubscription = 1;  ///< only for maps without uplink counts (version < 4)
    unsigned global_links = 8;         ///< Dragonfly+ cables per group pair and rail, likewise
    double grad_gbytes = 2;            ///< DP all-reduce per stage and step
    double activation_mbytes = 64;     ///< one micro-batch at a PP boundary
    unsigned micro_batches = 8;
};

struct Policy {
    std::string source;
    std::string fabric_map;           ///< path, empty: none
    std::string hwloc_xml;            ///< path, may contain %n; empty: hwloc of the live node
    std::string sysfs_root = "/sys";  ///< may contain %n
    /// The node's facts cached by the prolog for the steps (may contain %n); empty: no cache.
    /// Used only when its directory exists (root's, writable by nobody else).
    std::string node_cache = "/var/cache/switchyard/%n.node";
    NcclPolicy nccl;
    PlacementPolicy placement;
    HealthPolicy health;

    [[nodiscard]] const NcclProfile* find_profile(std::string_view name) const;
    /// "debug, h100-workaround" — the profiles users may name, for messages.
    [[nodiscard]] std::string user_profile_names() const;
};

/// One problem: "<file>:<line>:<col>: <key.path>: <problem>".
struct ConfigProblem {
    SourceLoc where;
    std::string key;
    std::string message;
    [[nodiscard]] std::string to_string() const;
};

/// Result of loading: the policy when there is no problem, and every problem found.
struct PolicyLoad {
    std::optional<Policy> policy;
    std::vector<ConfigProblem> problems;
};

/// Starts the message of a problem that is a bug in the loader itself (a YAML shape it read
/// without checking first); the fuzz harness treats such a message as a finding.
inline constexpr std::string_view kUnexpectedShape = "unexpected shape (a bug in the loader): ";

/// Parses and validates a policy file's text. Never throws; every problem is reported.
[[nodiscard]] PolicyLoad load_policy(std::string_view yaml, std::string_view source);

/// Variables that NCCL documents as "debugging" ones: a profile may set them only together with
/// an `nccl_versions` range.
[[nodiscard]] bool is_debugging_variable(std::string_view name);

/// Names that NCCL removed or never had, with what to use instead; nullopt for valid names.
[[nodiscard]] std::optional<std::string_view> obsolete_variable(std::string_view name);

/// Every variable worth checking in a user's environment: the obsolete names above and the
/// range-checked NCCL_IB_RETRY_CNT.
[[nodiscard]] std::vector<std::string_view> suspect_user_variables();

}  // namespace switchyard::policy
