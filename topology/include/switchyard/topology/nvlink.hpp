// SPDX-License-Identifier: Apache-2.0
// Multi-node NVLink domains (GB200/GB300 NVL72 racks): a node's domain and its health from its
// GPUs' fabric information, judged the same way by `switchyard node`, discover and the prolog.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/topology/fabric_map.hpp"
#include "switchyard/topology/nvml.hpp"

namespace switchyard::topology {

/// "not-supported", "not-started", "in-progress", "completed", "unknown".
[[nodiscard]] std::string_view to_string(GpuFabricState s);

/// The conditions a fabric health mask reports, one phrase each ("bandwidth degraded", "route
/// recovery in progress", "route unhealthy", "access-timeout recovery in progress", "incorrect
/// configuration (code N)"); empty when the mask is clean. Each field is 2 bits (4 for the
/// configuration) whose value 1 means the condition holds (nvml.h, NVML_GPU_FABRIC_HEALTH_MASK_*).
[[nodiscard]] std::vector<std::string> fabric_health_problems(std::uint32_t mask);

/// "<clusterUuid>.<cliqueId>": the key NVIDIA's tools name a domain by.
[[nodiscard]] std::string nvlink_domain_key(std::string_view cluster_uuid, std::uint32_t clique);

/// A node's NVLink domain as its GPUs give it.
struct NodeNvlink {
    bool multi_node = false;  ///< some GPU takes part in a multi-node NVLink fabric
    std::string domain;       ///< the domain key every such GPU agrees on; "" when they do not
    GpuFabricState state = GpuFabricState::NotSupported;  ///< the least advanced GPU's state
    bool healthy = true;  ///< every GPU completed, registered without error, health mask clean
    std::vector<std::string> problems;  ///< one sentence each, naming the GPU
};

/// Judges a node's GPUs: their domains must agree, each must have completed its registration
/// with status success, and its health mask must be clean. A GPU whose handle or fabric query
/// failed is a problem when others are in a fabric. Nodes without a multi-node fabric (every
/// GPU NOT_SUPPORTED, or no GPU) are `multi_node = false`, healthy, with no domain.
[[nodiscard]] NodeNvlink node_nvlink(const std::vector<NvmlGpu>& gpus);

/// What discover knows of one host's NVLink domain: the `nvlink` object of its `switchyard node
/// --json` output.
struct HostNvlinkFacts {
    bool multi_node = false;
    std::string domain;  ///< the domain key; "" when its GPUs disagree or none registered
    bool healthy = true;
    std::vector<std::string> problems;
};
using HostNvlinkMap = std::map<std::string, HostNvlinkFacts, std::less<>>;

struct NvlinkDomainOptions {
    std::uint32_t expect_size = 0;        ///< hosts per domain by design (0: not checked)
    const FabricMap* previous = nullptr;  ///< the map installed before: blocks keep their places
};

/// The domain's short name: "nvl_" + the first 8 hex digits of the cluster UUID + "_" + the
/// clique ("nvl_8c6f0a52_32766"); `long_form` takes all 32 digits (for two domains whose
/// short names would be the same).
[[nodiscard]] std::string nvlink_domain_name(std::string_view key, bool long_form = false);

/// Puts the map's hosts into their NVLink domains (MapHost::domain, FabricMap::domains) from
/// the hosts' facts; nothing changes when no host takes part in a multi-node NVLink fabric.
/// Each domain belongs to the SU most of its hosts are in; domains are listed SU by SU in
/// block order, each SU's in the previous map's order first (a rack coming back takes its old
/// place), new ones by name after them. A domain of the previous map that no host reports now
/// is kept as a placeholder (DomainState::Missing, the previous map's hosts), so the blocks
/// after it do not move. A domain with an unhealthy host is Degraded. Reported as anomalies:
/// nvl-no-facts (hosts without facts), nvl-not-in-domain (facts but no multi-node fabric),
/// nvl-gpus-disagree, nvl-host-unhealthy, nvl-domain-spans-sus, nvl-domain-size (against
/// `expect_size`), nvl-domain-missing, nvl-facts-unknown-host (facts of a host not in the
/// fabric).
void assign_nvlink_domains(FabricMap& map,
                           const HostNvlinkMap& facts,
                           const NvlinkDomainOptions& options);

}  // namespace switchyard::topology
