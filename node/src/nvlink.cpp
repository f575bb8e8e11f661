// SPDX-License-Identifier: Apache-2.0
// A node's NVLink domain and health from its GPUs' fabric information.
#include "switchyard/node/nvlink.hpp"

#include <algorithm>
#include <map>

namespace switchyard::node {

std::string_view to_string(GpuFabricState s) {
    switch (s) {
        case GpuFabricState::NotSupported:
            return "not-supported";
        case GpuFabricState::NotStarted:
            return "not-started";
        case GpuFabricState::InProgress:
            return "in-progress";
        case GpuFabricState::Completed:
            return "completed";
        case GpuFabricState::Unknown:
            break;
    }
    return "unknown";
}

std::vector<std::string> fabric_health_problems(std::uint32_t mask) {
    // (shift, width, phrase): the value 1 of each field means the condition is true; 0 is
    // "not supported" and 2 "false". The configuration field is 1 when correct, 0 when not
    // supported, and names the fault otherwise.
    struct Field {
        unsigned shift;
        const char* phrase;
    };
    static constexpr Field kFields[] = {{0, "bandwidth degraded"},
                                        {2, "route recovery in progress"},
                                        {4, "route unhealthy"},
                                        {6, "access-timeout recovery in progress"}};
    std::vector<std::string> out;
    for (const auto& f : kFields) {
        if (((mask >> f.shift) & 0x3U) == 1U) {
            out.emplace_back(f.phrase);
        }
    }
    if (const auto config = (mask >> 8U) & 0xfU; config > 1U) {
        out.push_back("incorrect configuration (code " + std::to_string(config) + ")");
    }
    return out;
}

std::string nvlink_domain_key(std::string_view cluster_uuid, std::uint32_t clique) {
    return std::string(cluster_uuid) + "." + std::to_string(clique);
}

namespace {

int progress(GpuFabricState s) {
    switch (s) {
        case GpuFabricState::NotStarted:
            return 1;
        case GpuFabricState::InProgress:
            return 2;
        case GpuFabricState::Completed:
            return 3;
        case GpuFabricState::Unknown:
            return 0;
        case GpuFabricState::NotSupported:
            break;
    }
    return 4;  // not taking part: never the least advanced
}

}  // namespace

NodeNvlink node_nvlink(const std::vector<NvmlGpu>& gpus) {
    NodeNvlink out;
    for (const auto& g : gpus) {
        out.multi_node =
            out.multi_node || (g.fabric && g.fabric->state != GpuFabricState::NotSupported);
    }
    if (!out.multi_node) {
        return out;
    }
    out.state = GpuFabricState::Completed;
    std::map<std::string, std::vector<unsigned>> domains;
    for (const auto& g : gpus) {
        const std::string gpu = "GPU " + std::to_string(g.index);
        if (!g.error.empty()) {
            out.problems.push_back(gpu + ": " + g.error);
            continue;
        }
        if (!g.fabric) {
            out.problems.push_back(gpu + ": no fabric information from NVML");
            continue;
        }
        const auto& f = *g.fabric;
        if (progress(f.state) < progress(out.state)) {
            out.state = f.state;
        }
        if (f.state != GpuFabricState::Completed) {
            out.problems.push_back(gpu + ": fabric state " + std::string(to_string(f.state)) +
                                   ", expected completed");
            continue;
        }
        if (f.status != 0) {
            out.problems.push_back(gpu + ": fabric registration failed (NVML status " +
                                   std::to_string(f.status) + ")");
        }
        if (f.cluster_uuid.empty()) {
            out.problems.push_back(gpu + ": fabric completed without a cluster UUID");
            continue;
        }
        domains[nvlink_domain_key(f.cluster_uuid, f.clique)].push_back(g.index);
        for (const auto& p :
             f.health_mask ? fabric_health_problems(*f.health_mask) : std::vector<std::string>{}) {
            out.problems.push_back(gpu + ": " + p);
        }
    }
    if (domains.size() == 1) {
        out.domain = domains.begin()->first;
    } else if (domains.size() > 1) {
        std::string list;
        for (const auto& [key, idx] : domains) {
            std::string ids;
            for (const auto i : idx) {
                ids += (ids.empty() ? "" : ",") + std::to_string(i);
            }
            list += (list.empty() ? "" : "; ") + key + " (GPU " + ids + ")";
        }
        out.problems.push_back("GPUs in different NVLink domains: " + list);
    }
    out.healthy = out.problems.empty();
    return out;
}

}  // namespace switchyard::node
