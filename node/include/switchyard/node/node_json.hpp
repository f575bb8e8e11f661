// SPDX-License-Identifier: Apache-2.0
// The node facts `switchyard node` gives discover, in one place: the --json document (the
// node's topology, its ports' LLDP neighbours, its NVLink domain) and the --nvlink-only forms
// are written here, and discover --node-facts reads them back here, checked before anything of
// them can reach the map.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "switchyard/common/result.hpp"
#include "switchyard/node/node_topology.hpp"
#include "switchyard/node/nvlink.hpp"
#include "switchyard/node/nvml.hpp"

namespace switchyard::node {

/// The node's GPUs' fabric information and its NVLink domain, or why nothing is known.
struct NvlinkView {
    bool asked = false;
    NvmlFacts facts;
    NodeNvlink node;
    std::string note;  ///< "" when NVML answered
};

/// What lldpd sees on one RDMA port of this node: the port's net device and the neighbour
/// there (most often the leaf switch and its port), as discover's LLDP reader found it.
struct PortLldp {
    std::string nic;  ///< "mlx5_0"
    std::uint32_t port = 0;
    std::string netdev;        ///< "eth0"
    std::string system;        ///< the neighbour's system name
    std::string chassis_id;    ///< the neighbour's chassis id
    std::string port_id;       ///< the neighbour's port id
    std::string port_id_type;  ///< "mac", "ifname", "local", ...
    std::string port_descr;
};

/// Most files a --node-facts directory may hold (one per host).
inline constexpr std::size_t kMaxFactsFiles = 1'000'000;
/// A line of --node-facts FILE at most (`--nvlink-only --line` of a node is under 4 KiB).
inline constexpr std::size_t kMaxFactsLine = 64 * 1024;

/// What lldpd sees on this node's RDMA ports, or why nothing is known (a note, never an
/// error: a node without lldpd is an ordinary node).
struct LldpView {
    std::vector<PortLldp> ports;
    std::string note;  ///< "" when read; why not otherwise
    bool asked = false;
    bool bad_file = false;  ///< a file named with --lldp that could not be read: an error
};

/// `switchyard node --json`: the node's topology, its `verbs` cross-check, the LLDP view of
/// its ports (when asked) and its NVLink view (when asked), as an indented JSON document.
[[nodiscard]] std::string node_json(const NodeTopology& n,
                                    const std::string& verbs,
                                    const LldpView& lldp,
                                    const NvlinkView& nvlink);

/// `switchyard node --nvlink-only --json`: {"nvlink": ...} alone, indented.
[[nodiscard]] std::string nvlink_json(const NvlinkView& v);

/// `switchyard node --nvlink-only --line`: one compact line naming `host`, what
/// `srun ... > facts.jsonl` gathers for discover --node-facts.
[[nodiscard]] std::string nvlink_line(const std::string& host, const NvlinkView& v);

using RdmaDevices =
    std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>>;

/// What discover takes from the hosts' `switchyard node --json` files.
struct HostFacts {
    RdmaDevices devices;   ///< host → net device → RDMA device
    HostNvlinkMap nvlink;  ///< host → its NVLink domain, when its file has "nvlink"
};

/// --node-facts PATH: a directory of `switchyard node --json` files, <host>.json (parsed on up
/// to four threads in name order; with `nics`, for --lldp, each must list its NICs), or a file
/// of `switchyard node --nvlink-only --line` lines (not with `nics`). Domain keys, host names
/// and problem text are checked or made printable before they can reach the map.
/// \return the facts, or the first error in file order naming the file (and line).
[[nodiscard]] Result<HostFacts> read_facts(const std::string& path, bool nics);

}  // namespace switchyard::node
