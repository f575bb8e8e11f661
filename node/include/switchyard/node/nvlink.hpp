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

#include "switchyard/node/nvml.hpp"

namespace switchyard::node {

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

}  // namespace switchyard::node
