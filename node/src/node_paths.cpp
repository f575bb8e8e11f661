// SPDX-License-Identifier: Apache-2.0
// GPU↔NIC path classes with NCCL's semantics, nearest NICs, and the node shape fingerprint.
#include <algorithm>
#include <map>

#include "switchyard/node/node_topology.hpp"

namespace switchyard::node {
namespace {

/// Broadcom PEX switches in base mode, which NCCL flattens (src/graph/topo.cc): Gen4
/// 1000:c010 with subsystem 1000:axxx, Gen5 1000:c030 with subsystem 1000:0xxx.
bool is_bcm_base_mode(const PciHop& h) {
    if (h.vendor != 0x1000 || h.subvendor != 0x1000) {
        return false;
    }
    return (h.device == 0xc010 && (h.subdevice & 0xf000) == 0xa000) ||
           (h.device == 0xc030 && (h.subdevice & 0xf000) == 0x0000);
}

bool same_ids(const PciHop& a, const PciHop& b) {
    return a.vendor == b.vendor && a.device == b.device && a.subvendor == b.subvendor &&
           a.subdevice == b.subdevice;
}

/// Switch upstream ports above a device, nearest first. `above` runs root port → parent bridge;
/// hops alternate downstream port (nearer the device) / upstream port; the root port is not a
/// switch. A BCM base-mode sub-switch directly under the same kind of switch merges into it.
std::vector<const PciHop*> switch_chain(const PciPlace& p) {
    std::vector<const PciHop*> chain;
    // Walk up from the device: parent (downstream port), its parent (upstream port) ...
    for (std::size_t i = p.above.size(); i >= 2; i -= 2) {
        chain.push_back(&p.above[i - 2]);  // the upstream port above the downstream port i-1
    }
    for (std::size_t k = 0; k + 1 < chain.size();) {
        if (is_bcm_base_mode(*chain[k + 1]) && same_ids(*chain[k], *chain[k + 1])) {
            chain.erase(chain.begin() + static_cast<std::ptrdiff_t>(k));
        } else {
            ++k;
        }
    }
    return chain;
}

}  // namespace

bool is_gpu_class(std::uint64_t pci_class, std::uint64_t vendor) {
    return ((pci_class == 0x0300 || pci_class == 0x0302 || pci_class == 0x0380) &&
            (vendor == 0x10de || vendor == 0x1002)) ||
           (pci_class == 0x1200 && vendor == 0x1002);  // AMD MI300A/X: processing accelerator
}

std::string_view to_string(PathType p) {
    switch (p) {
        case PathType::PIX:
            return "PIX";
        case PathType::PXB:
            return "PXB";
        case PathType::PHB:
            return "PHB";
        case PathType::NODE:
            return "NODE";
        case PathType::SYS:
            return "SYS";
    }
    return "?";
}

std::string_view nccl_name(PathType p) {
    return p == PathType::NODE ? "PHB" : to_string(p);
}

PathType path_type(const PciPlace& gpu, const PciPlace& nic) {
    const auto a = switch_chain(gpu);
    const auto b = switch_chain(nic);
    for (std::size_t i = 0; i < a.size(); ++i) {
        for (std::size_t j = 0; j < b.size(); ++j) {
            if (a[i]->busid == b[j]->busid) {
                return i == 0 && j == 0 ? PathType::PIX : PathType::PXB;
            }
        }
    }
    if (!gpu.host_bridge.empty() && gpu.host_bridge == nic.host_bridge) {
        return PathType::PHB;
    }
    if (gpu.numa >= 0 && gpu.numa == nic.numa) {
        return PathType::NODE;
    }
    return PathType::SYS;
}

void derive_paths(NodeTopology& node) {
    node.paths.clear();
    std::map<PathType, int> best_count;
    for (const auto& g : node.gpus) {
        std::optional<PathType> best;
        for (const auto& n : node.nics) {
            const auto t = path_type(g.place, n.place);
            node.paths.push_back({g.index, n.name, t});
            best = best ? std::min(*best, t) : t;
        }
        if (best) {
            ++best_count[*best];
        }
    }
    std::map<std::string, int> gpu_kinds;
    for (const auto& g : node.gpus) {
        char id[16];
        std::snprintf(id, sizeof id, "%04x:%04x", g.vendor_id, g.device_id);
        ++gpu_kinds[id];
    }
    std::map<std::string, int> nic_kinds;
    for (const auto& n : node.nics) {
        ++nic_kinds[n.kind];
    }
    std::string shape = "gpu:";
    auto append = [&shape](const std::string& key, int n, bool first) {
        shape += (first ? "" : "+") + std::to_string(n) + "x" + key;
    };
    bool first = true;
    for (const auto& [k, n] : gpu_kinds) {
        append(k, n, first);
        first = false;
    }
    if (first) {
        shape += "0";
    }
    shape += " nic:";
    first = true;
    for (const auto& [k, n] : nic_kinds) {
        append(k, n, first);
        first = false;
    }
    if (first) {
        shape += "0";
    }
    // NUMA nodes with CPUs: GPU or HBM memory exposed as NUMA (POWER9, Grace, MI300A) is not a
    // socket, and counting it would split one node type into several shapes.
    const auto cpu_numa = std::count_if(node.numa.begin(), node.numa.end(),
                                        [](const NumaNode& n) { return !n.cpus.empty(); });
    shape += " numa:" + std::to_string(cpu_numa) + " best:";
    first = true;
    for (const auto& [t, n] : best_count) {
        append(std::string(to_string(t)), n, first);
        first = false;
    }
    if (first) {
        shape += "none";
    }
    node.shape = shape;
}

std::vector<std::string> nearest_nics(const NodeTopology& node, int index) {
    std::optional<PathType> best;
    for (const auto& p : node.paths) {
        if (p.gpu == index) {
            best = best ? std::min(*best, p.type) : p.type;
        }
    }
    std::vector<std::string> out;
    for (const auto& p : node.paths) {
        if (p.gpu == index && best && p.type == *best) {
            out.push_back(p.nic);
        }
    }
    return out;
}

Nic* NodeTopology::find_nic(std::string_view name) {
    for (auto& n : nics) {
        if (n.name == name) {
            return &n;
        }
    }
    return nullptr;
}

std::vector<std::string> port_netdevs(const Nic& nic, const RdmaPort& port) {
    std::vector<std::string> out;
    for (const auto& g : port.gids) {
        if (!g.ndev.empty()) {
            out.push_back(g.ndev);
        }
    }
    if (out.empty() && nic.ports.size() == 1) {
        out = nic.netdevs;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace switchyard::node
