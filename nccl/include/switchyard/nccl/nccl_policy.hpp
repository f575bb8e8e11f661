// SPDX-License-Identifier: Apache-2.0
// The NCCL settings the policy file gives (nccl: section): versions, profiles, the rules' knobs;
// and what NCCL's own documentation says of variable names.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "switchyard/common/pattern.hpp"
#include "switchyard/fabric/fabric_map.hpp"

namespace switchyard::nccl {

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
    std::optional<fabric::FabricKind> match_fabric;
    unsigned min_nodes = 0;
    unsigned max_nodes = 0;  ///< 0: no limit
    VersionRange nccl_versions;
    std::vector<std::pair<std::string, std::string>> set;  ///< in file order
};

/// NCCL Inspector (NVIDIA/nccl `ext-profiler/inspector`), turned on for the jobs of some
/// partitions only: it is opt-in, its overhead on small messages is several percent. Its
/// per-rank output is what `switchyard locate --inspector` reads.
struct InspectorPolicy {
    std::vector<std::string> partitions;  ///< jobs in these partitions get it; empty: nobody
    std::string plugin;    ///< NCCL_PROFILER_PLUGIN: the Inspector library (absolute path)
    std::string dump_dir;  ///< NCCL_INSPECTOR_DUMP_DIR; %j the job id, %n this node
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
    /// The IMEX channel device a job's multi-node NVLink needs (may contain %n); MNNVL is
    /// turned off on a node without it. Empty: not checked.
    std::string imex_channel = "/dev/nvidia-caps-imex-channels/channel0";
    std::vector<NcclProfile> profiles;
    InspectorPolicy inspector;
    /// NCCL_RAS_ADDR ports for jobs on shared nodes (R19): job id modulo the range's size from
    /// the first. 0, 0: not set (nccl.ras_ports: '').
    unsigned ras_port_first = 28100;
    unsigned ras_port_last = 28999;

    [[nodiscard]] const NcclProfile* find_profile(std::string_view name) const;
    /// "debug, h100-workaround" — the profiles users may name, for messages.
    [[nodiscard]] std::string user_profile_names() const;
};

/// Variables that NCCL documents as "debugging" ones: a profile may set them only together with
/// an `nccl_versions` range.
[[nodiscard]] bool is_debugging_variable(std::string_view name);

/// Names that NCCL removed or never had, with what to use instead; nullopt for valid names.
[[nodiscard]] std::optional<std::string_view> obsolete_variable(std::string_view name);

/// Every variable worth checking in a user's environment: the obsolete names above and the
/// range-checked NCCL_IB_RETRY_CNT.
[[nodiscard]] std::vector<std::string_view> suspect_user_variables();

}  // namespace switchyard::nccl
