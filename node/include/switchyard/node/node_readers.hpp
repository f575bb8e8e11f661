// SPDX-License-Identifier: Apache-2.0
// Readers that build a NodeTopology: hwloc (an XML export or the live machine) and sysfs under a
// root directory (RDMA devices and ports, PCI devices for nodes described only by sysfs).
#pragma once

#include <array>
#include <filesystem>
#include <string_view>

#include "switchyard/common/result.hpp"
#include "switchyard/node/node_topology.hpp"

namespace switchyard::node {

/// A per-node path from the policy (sysfs root, hwloc XML, node cache, state files), where "%n"
/// stands for the Slurm node name and "%%" for '%': "/srv/fake-sys/%n" on node007 →
/// "/srv/fake-sys/node007". Other '%' sequences stay as written.
[[nodiscard]] std::filesystem::path expand_node_path(std::string_view pattern,
                                                     std::string_view node);

/// GPUs, NICs (OpenFabrics OS devices and their net devices), NUMA nodes and PCIe places from an
/// hwloc XML export (hwloc 2.x or 1.x format), given as text.
/// \return the node without ports, or Error::parse naming `source` when hwloc rejects the XML.
[[nodiscard]] Result<NodeTopology> read_hwloc_xml(std::string_view xml, std::string_view source);

/// The same from the live machine (hwloc's own discovery).
[[nodiscard]] Result<NodeTopology> read_hwloc_live();

/// How much of each RDMA port to read: everything (`switchyard node`, the health gate), or what
/// a step's NCCL rules use (state, rate, link layer, LID; GIDs on RoCE ports only; no counters,
/// which are most of a port's files).
enum class PortDetail { Full, Step };

/// GPUs (PCI class 0x0300/0x0302 of NVIDIA or AMD), RDMA devices and NUMA nodes from a sysfs tree
/// rooted at `root` (a directory that stands for /sys), using the PCI paths of its devices.
/// Unreadable entries and odd values become warnings naming the path.
[[nodiscard]] Result<NodeTopology> read_sysfs_node(const std::filesystem::path& root,
                                                   PortDetail detail = PortDetail::Full);

/// Reads the RDMA devices under `root`/class/infiniband and attaches their ports (state, rate,
/// link layer, LID, GIDs with RoCE types and net devices, counters) to the NICs of `node`, adding
/// NICs that `node` lacks. A NIC of `node` that sysfs does not have gets a warning.
void attach_rdma_sysfs(NodeTopology& node,
                       const std::filesystem::path& root,
                       PortDetail detail = PortDetail::Full);

/// Re-reads the ports of the NICs `node` already has (their PCI places and the GPUs stay as
/// they are), then the paths and shape: a node's facts from a cache made fresh again. A NIC that
/// sysfs no longer has gets a warning and no ports.
void refresh_rdma_ports(NodeTopology& node,
                        const std::filesystem::path& root,
                        PortDetail detail = PortDetail::Step);

/// The directories under a sysfs root whose entries node_device_key reads.
inline constexpr std::array<std::string_view, 4> kDeviceKeyDirs = {
    "bus/pci/devices", "class/infiniband", "class/net", "devices/system/node"};

/// The files of an RDMA port (…/ports/<n>/) whose values a step's NCCL variables depend on (the
/// rules read the port's state and link layer; its rate, LID and physical state only explain),
/// GIDs aside: the step cache checks these before it repeats a decision.
inline constexpr std::array<std::string_view, 2> kRulePortFiles = {"state", "link_layer"};

/// A digest of what the node's facts under `root` depend on: this switchyard's version, the
/// boot id, and the entries of bus/pci/devices, class/infiniband, class/net and
/// devices/system/node. It changes on reboot and when a device comes or goes (a few directory
/// reads, no device file).
[[nodiscard]] std::uint64_t node_device_key(const std::filesystem::path& root);

/// Compares port state and LID with libibverbs (loaded at run time) when it can be loaded and
/// lists devices; differences become warnings. Returns a one-line account of what it did
/// ("verbs: not available: ..." is not an error).
[[nodiscard]] std::string cross_check_verbs(NodeTopology& node);

}  // namespace switchyard::node
