// SPDX-License-Identifier: Apache-2.0
// The loaders of the files everything else works from: the policy, the fabric map (or its
// index, for a step), and the node (hwloc XML or sysfs under the policy's per-node paths, or the
// prolog's cache). Shared by the plugin and the CLI.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "switchyard/common/result.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/node/node_topology.hpp"
#include "switchyard/policy/policy.hpp"

namespace switchyard::policy {

/// Reads and validates a policy file; the error lists every problem, one per line.
[[nodiscard]] Result<Policy> load_policy_file(const std::string& path);

/// Reads a fabric map file; with `hosts`, only what those hosts need (step launch): from the
/// index beside the map (`<path>.index`) when it was made from this map, which costs a few reads
/// whatever the fabric's size, else from the map's own lines. Why an index present was not used
/// (stale, untrusted, damaged) is added to `notes`; a missing one is not a problem.
[[nodiscard]] Result<fabric::FabricMap> load_fabric_map_file(
    const std::string& path,
    const std::vector<std::string>* hosts = nullptr,
    std::vector<std::string>* notes = nullptr);

/// The checks `chosen` as they run on `node_name`: %n expanded (health::with_node_paths) and,
/// when the nvlink check runs and the policy names a fabric map, the node's NVLink domain from
/// it (health::with_fabric; the map read for this node only). A map that cannot be read is
/// added to `notes` and the domain left unchecked.
[[nodiscard]] health::HealthChecks node_checks(const Policy& policy,
                                               const health::HealthChecks& chosen,
                                               const std::string& node_name,
                                               std::vector<std::string>* notes = nullptr);

/// What load_node does with the policy's node cache (node.cache).
enum class NodeCache {
    None,   ///< read the node, every port in full (the CLI)
    Read,   ///< a step: the cached facts when fresh, ports read again (no counters)
    Write,  ///< the prolog: read the node in full and cache its facts for the steps
};

/// Where the node's facts come from; empty fields fall back to the policy.
struct NodeSources {
    std::string node_name;   ///< replaces %n
    std::string hwloc_xml;   ///< overrides node.hwloc_xml
    std::string sysfs_root;  ///< overrides node.sysfs_root
    NodeCache cache = NodeCache::None;
    /// Why a cache present was not used or could not be written (stale, untrusted, damaged);
    /// a missing cache or cache directory is not a problem.
    std::vector<std::string>* notes = nullptr;
};

/// The prolog's part when the health gate is off: makes node.cache fresh for the job's steps,
/// reading the node only when the cache is missing or stale (its key is checked first: a few
/// directory reads). Problems (a directory others can write) are added to `notes`.
void refresh_node_cache(const Policy& policy,
                        const std::string& node_name,
                        std::vector<std::string>* notes);

/// The node: hwloc XML (+ RDMA ports from sysfs) when configured, else everything from sysfs
/// (GPUs from bus/pci, NUMA nodes, RDMA devices). With a sysfs node and node.cache, the prolog
/// caches the static facts (GPUs, NICs, PCI places, NUMA) keyed by node_device_key, and a step
/// reads them back and only its ports from sysfs.
[[nodiscard]] Result<node::NodeTopology> load_node(const Policy& policy,
                                                   const NodeSources& sources);

/// Where the prolog leaves what its `nvlink` check found for the steps (R17): the node cache's
/// path with ".nvlink" appended; "" without a node cache.
[[nodiscard]] std::string nvlink_state_path(const Policy& policy, const std::string& node_name);

/// The prolog's part after its health checks: when `checks` has the `nvlink` check, records
/// whether it passed (and what it said when not) at nvlink_state_path, 0644 in the node cache's
/// directory, for the steps. Problems are added to `notes`.
void record_nvlink_state(const Policy& policy,
                         const std::string& node_name,
                         const std::vector<health::CheckResult>& checks,
                         std::vector<std::string>* notes);

/// What the prolog's last `nvlink` check said, when root left it: "" for a pass, else what it
/// found; nullopt when nothing is known (no file, not root's, damaged).
[[nodiscard]] std::optional<std::string> read_nvlink_state(const std::string& path);

}  // namespace switchyard::policy
