// SPDX-License-Identifier: Apache-2.0
// Ethernet (RoCE) fabrics from LLDP: what lldpd's `lldpctl` says on each host and switch, read
// from its JSON, JSON0 or keyvalue output, and the FabricGraph the same classifier reads as it
// reads an InfiniBand one.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/result.hpp"
#include "switchyard/discover/graph/fabric_graph.hpp"
#include "switchyard/discover/graph/reader.hpp"
#include "switchyard/fabric/guid.hpp"
#include "switchyard/node/node_topology.hpp"

namespace switchyard::discover {

/// A system as LLDP describes it (its own `show chassis`, or a neighbour's view of it).
struct LldpChassis {
    std::string name;     ///< system name; empty when none was sent
    std::string id;       ///< chassis id (most often a MAC)
    std::string id_type;  ///< "mac", "local", "ifname", "ip", ...
    bool caps_known = false;
    bool bridge = false;  ///< capabilities enabled
    bool router = false;
    bool station = false;
    bool operator==(const LldpChassis&) const = default;
};

/// One neighbour seen on one local port.
struct LldpNeighbor {
    std::string local_port;  ///< the interface of the system that ran lldpctl
    LldpChassis chassis;
    std::string port_id;       ///< the neighbour's port id
    std::string port_id_type;  ///< "mac", "ifname", "local", ...
    std::string port_descr;
    std::uint32_t line = 0;  ///< where the record starts
    bool operator==(const LldpNeighbor&) const = default;
};

/// One gathered file: `lldpcli -f json show chassis` followed by `lldpctl -f json` (or the
/// json0 or keyvalue form of both), as the admin guide gathers them. Without the first part the
/// file's own system is not known and is found from the other files.
struct LldpFile {
    std::string source;
    std::optional<LldpChassis> local;
    std::vector<LldpNeighbor> neighbors;
    bool operator==(const LldpFile&) const = default;
};

/// Largest file, neighbours per file and JSON nesting read; beyond, the file is refused. One
/// system's lldpctl output is about 3 KiB a neighbour: 16 MiB holds thousands of ports.
inline constexpr std::size_t kMaxLldpFileBytes = std::size_t{16} << 20U;
inline constexpr std::size_t kMaxLldpNeighbors = 65536;
inline constexpr std::size_t kMaxLldpDepth = 32;
/// JSON values read from a file of n bytes: at most n / kMinLldpBytesPerValue + 4096 (lldpctl
/// writes 32 to 37 bytes a value). Each value read costs 32 bytes, so a file of tiny values
/// ("[0,0,0,…]") is refused instead of costing 16 times its size.
inline constexpr std::size_t kMinLldpBytesPerValue = 16;
/// Largest number of files in one --lldp directory.
inline constexpr std::size_t kMaxLldpFiles = 1'000'000;

/// Reads one lldpctl output: one or more JSON documents (the `json` or `json0` format), or
/// keyvalue lines. Lines lldpcli writes back when its commands come from a pipe ("show
/// chassis", as the admin guide gathers) are skipped. Never throws; an error names the source,
/// line and column, what was expected and what was found.
[[nodiscard]] Result<LldpFile> parse_lldp(std::string_view text, std::string_view source);

/// True when `text` holds nothing but blanks and lldpcli's echoed commands: the output of a
/// gathering whose lldpd did not answer.
[[nodiscard]] bool lldp_says_nothing(std::string_view text);

namespace detail {
/// How parse_lldp reads JSON: the fast reading (SSE2: x86-64) and, where it gives up, the
/// careful byte-by-byte one (Both); or only one of them, for the tests and the fuzz harness,
/// which check that the two read alike (Fast fails with "the fast reading gave up" where it
/// would have handed over).
enum class JsonReading { Both, Fast, Careful };
[[nodiscard]] Result<LldpFile> parse_lldp(std::string_view text,
                                          std::string_view source,
                                          JsonReading how);
}  // namespace detail

/// How the systems of the files are told apart and named.
struct LldpOptions {
    /// Chassis ids or MACs (lowercase "aa:bb:cc:dd:ee:ff") → system name, for systems that send
    /// none or a useless one ("localhost"). Optional.
    const std::map<std::string, std::string, std::less<>>* names = nullptr;
    /// Systems that are hosts whatever their capabilities say (a host that routes announces
    /// Router). Optional.
    const std::vector<std::string>* hosts = nullptr;
    /// Host → its net device → the RDMA device on it ("eth0" → "mlx5_0"), from the nodes' own
    /// facts: a host port's CA is named by its RDMA device where known, by its net device
    /// otherwise. Optional.
    const std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>>*
        rdma_devices = nullptr;
    /// Host ports from which the graph's CA nodes are made in two halves at once.
    std::size_t two_threads_from = 50000;
};

namespace lldp_detail {
class LldpFabricBuilder;
}

/// The fabric the files describe: a Switch node per switch, a Ca node per host port cabled to a
/// switch (NodeDescription "<host> <port>", so the classifier reads host and rail as it reads
/// an InfiniBand HCA), and a cable per port pair, from either end. A system is a switch when
/// its capabilities enable Bridge or Router, unless `hosts` names it. Dirty data becomes
/// warnings (kind, source:line, message): lldp-unnamed-chassis, lldp-duplicate-name,
/// lldp-no-file, lldp-unseen-host, lldp-port-mismatch, lldp-separate-network,
/// lldp-unknown-system, lldp-name-disagrees (a file without its chassis named by most of its
/// cables, not all), lldp-empty-file (a file with no system and no neighbour, such as the
/// empty output of a dead lldpd: left out). Only the network with the most host ports is kept.
/// Files are added one at a time (discover: in name order) and dropped once read: a file keeps
/// only its cables, as system and port numbers.
class LldpFabric {
public:
    explicit LldpFabric(const LldpOptions& opt = {});
    ~LldpFabric();
    LldpFabric(const LldpFabric&) = delete;
    LldpFabric& operator=(const LldpFabric&) = delete;

    void add(LldpFile file);
    [[nodiscard]] FabricGraph finish();

private:
    std::unique_ptr<lldp_detail::LldpFabricBuilder> impl_;
};

/// All of `files`, in their order, through LldpFabric.
[[nodiscard]] FabricGraph lldp_fabric(std::vector<LldpFile> files, const LldpOptions& opt = {});

/// What lldpd sees on one RDMA port of this node: the port's net device and the neighbour
/// there (most often the leaf switch and its port).
struct PortNeighbor {
    std::string nic;  ///< "mlx5_0"
    std::uint32_t port = 0;
    std::string netdev;  ///< "eth0"
    LldpNeighbor seen;
};

/// Each RDMA port's LLDP neighbours, in the node's NIC and port order. A port's net devices are
/// those of its RoCE GIDs, or its NIC's own when the NIC has one port (an InfiniBand port's
/// ipoib device sends no LLDP and finds nothing). Neighbours on other interfaces (management,
/// storage without RDMA) are not reported.
[[nodiscard]] std::vector<PortNeighbor> rdma_port_neighbors(const node::NodeTopology& node,
                                                            const LldpFile& lldp);

using fabric::parse_mac;

/// A directory of lldpctl outputs, one per host or switch: every file read and parsed on up to
/// four threads and added in name order (a file keeps only its cables once added). What
/// `options` points at must outlive read().
[[nodiscard]] std::unique_ptr<FabricReader> lldp_reader(std::string dir, LldpOptions options);

}  // namespace switchyard::discover
