// SPDX-License-Identifier: Apache-2.0
// NodeTopology: one node's GPUs, NICs (with RDMA port state), NUMA nodes, and the PCIe paths
// between GPUs and NICs in NCCL's terms.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/diagnostic.hpp"

namespace switchyard::node {

/// GPU↔NIC path classes, best first. NCCL has no NODE: it reports NODE as PHB.
enum class PathType {
    PIX,   ///< both under one PCIe switch (one switch hop)
    PXB,   ///< several switches, below one root port
    PHB,   ///< through the same host bridge (root complex) of one NUMA node
    NODE,  ///< across host bridges of one NUMA node
    SYS,   ///< across NUMA nodes or sockets
};
[[nodiscard]] std::string_view to_string(PathType p);
/// The name NCCL logs for this class ("PHB" for NODE).
[[nodiscard]] std::string_view nccl_name(PathType p);

/// One PCI switch or bridge above a device, from the root port down.
struct PciHop {
    std::string busid;  ///< "0000:41:00.0"
    std::uint16_t vendor = 0;
    std::uint16_t device = 0;
    std::uint16_t subvendor = 0;
    std::uint16_t subdevice = 0;
};

/// Where a PCI device sits: its host bridge, the bridges above it (root port first), its NUMA node.
struct PciPlace {
    std::string busid;
    std::string host_bridge;    ///< "pci0000:40" (sysfs) or the hwloc host bridge's bus range
    std::vector<PciHop> above;  ///< from the root port down to the device's parent bridge
    int numa = -1;              ///< -1: unknown
};

struct Gpu {
    int index = 0;       ///< order by PCI bus id
    std::string vendor;  ///< "nvidia" | "amd"
    std::uint16_t vendor_id = 0;
    std::uint16_t device_id = 0;
    std::string model;  ///< from NVML/RSMI OS devices or lspci names, else "10de:20b0"
    std::vector<std::string> osdevs;  ///< cuda0, nvml0, rsmi0, opencl0d0 ...
    PciPlace place;
};

struct Gid {
    int index = 0;
    std::string gid;   ///< "fe80:0000:0000:0000:b8ce:f603:00aa:0000"
    std::string type;  ///< "IB/RoCE v1" | "RoCE v2" | "" (IB)
    std::string ndev;  ///< RoCE net device, "" on IB
};

struct RdmaPort {
    std::uint32_t port = 0;
    int state_code = 0;       ///< 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER
    std::string state;        ///< "ACTIVE"
    int phys_state_code = 0;  ///< 2 Polling, 3 Disabled, 5 LinkUp, ...
    std::string phys_state;   ///< "LinkUp"
    double rate_gbps = 0;
    std::string rate;        ///< as sysfs says: "400 Gb/sec (4X NDR)"
    std::string link_layer;  ///< "InfiniBand" | "Ethernet"
    std::uint32_t lid = 0;
    std::vector<Gid> gids;                          ///< non-zero GIDs only
    std::map<std::string, std::uint64_t> counters;  ///< counters/ and hw_counters/ files
};

struct Nic {
    std::string name;  ///< "mlx5_0", "rdmap197s0"
    std::string kind;  ///< "infiniband" | "roce" | "efa" | "rdma"
    std::vector<std::string> netdevs;
    std::string node_guid;  ///< as sysfs prints it
    std::string fw_ver;
    std::string hca_type;
    std::vector<RdmaPort> ports;
    PciPlace place;
};

struct NumaNode {
    int os_index = 0;
    std::string cpus;  ///< list form "0-23,48-71"
};

struct GpuNicPath {
    int gpu = 0;
    std::string nic;
    PathType type = PathType::SYS;
};

struct NodeTopology {
    std::vector<NumaNode> numa;
    std::vector<Gpu> gpus;
    std::vector<Nic> nics;
    std::vector<GpuNicPath> paths;  ///< every GPU × NIC
    std::string shape;              ///< fingerprint for policy matching
    std::vector<Diagnostic> warnings;

    [[nodiscard]] Nic* find_nic(std::string_view name);
};

/// NVIDIA (0x10de) or AMD (0x1002) PCI functions of class VGA 0x0300, 3D 0x0302 or display 0x0380
/// (AMD Instinct MI50/MI200 are 0x0380). NVSwitches (0x0680) and BMC video are not GPUs.
[[nodiscard]] bool is_gpu_class(std::uint64_t pci_class, std::uint64_t vendor);

/// The path class between two PCI places, NCCL-style: switch upstream ports are compared (the
/// downstream port of each hop is skipped), and a Broadcom PEX Gen4/Gen5 switch in base mode that
/// shows up as two levels counts as one.
[[nodiscard]] PathType path_type(const PciPlace& gpu, const PciPlace& nic);

/// Fills `paths` for every GPU × NIC and the `shape` fingerprint, e.g.
/// "gpu:8x10de:2330 nic:8xinfiniband numa:2 best:8xPIX" (counts, kinds, best path per GPU).
void derive_paths(NodeTopology& node);

/// The NICs closest to GPU `index` (all NICs sharing its best path class).
[[nodiscard]] std::vector<std::string> nearest_nics(const NodeTopology& node, int index);

/// The net devices of one port of `nic`: its RoCE GIDs' devices (VLANs included), or the NIC's
/// own when the NIC has one port; sorted, each once. An InfiniBand port's are its NIC's ipoib
/// devices.
[[nodiscard]] std::vector<std::string> port_netdevs(const Nic& nic, const RdmaPort& port);

}  // namespace switchyard::node
