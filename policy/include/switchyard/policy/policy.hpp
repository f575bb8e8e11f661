// SPDX-License-Identifier: Apache-2.0
// Policy: the admin's switchyard.yaml (paths, and the settings each capability declares in its own
// headers: NCCL rules and profiles, placement costs, health checks, the preflight), loaded and
// validated with every problem reported compiler-style.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "switchyard/common/error.hpp"
#include "switchyard/health/health.hpp"
#include "switchyard/nccl/nccl_policy.hpp"
#include "switchyard/placement/planner.hpp"
#include "switchyard/preflight/preflight_policy.hpp"

namespace switchyard::policy {

struct Policy {
    std::string source;
    std::string fabric_map;           ///< path, empty: none
    std::string hwloc_xml;            ///< path, may contain %n; empty: hwloc of the live node
    std::string sysfs_root = "/sys";  ///< may contain %n
    /// The node's facts cached by the prolog for the steps (may contain %n); empty: no cache.
    /// Used only when its directory exists (root's, writable by nobody else).
    std::string node_cache = "/var/cache/switchyard/%n.node";
    nccl::NcclPolicy nccl;
    placement::PlacementPolicy placement;
    health::HealthPolicy health;
    preflight::PreflightPolicy preflight;
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

}  // namespace switchyard::policy
