// SPDX-License-Identifier: Apache-2.0
// The checks of a multi-node NVLink node (GB200/GB300 NVL72): the GPUs' fabric registration and
// health, the node's NVLink domain against the fabric map, the IMEX daemon's domain and its
// channel device; and two GPU checks every node can use: XID errors in the kernel log since
// boot and the GPUs' clock-event reasons (hardware slowdown, thermal, power brake).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/result.hpp"
#include "switchyard/node/nvml.hpp"

namespace switchyard::health {

/// Every GPU's fabric state completed and health mask clean, the node's GPUs in one NVLink
/// domain, and that domain the one the fabric map gives this node.
struct NvlinkCheck {
    std::string library = node::kNvmlLibrary;
    double timeout_s = 10;
    /// The map's domain key for this node ("<clusterUuid>.<clique>"), set at run time from the
    /// policy's fabric map (with_fabric); "" when the map has none for it.
    std::string expected_domain;
};

/// The IMEX daemon's view of its domain (`nvidia-imex-ctl -N -j -H`: by absolute path, clean
/// environment, deadline) and the IMEX channel device.
struct ImexCheck {
    std::string command = "/usr/bin/nvidia-imex-ctl";
    double timeout_s = 5;
    std::string channel = "/dev/nvidia-caps-imex-channels/channel0";  ///< may contain %n
    std::optional<std::uint32_t> channel_uid;   ///< the owner the device must have
    std::optional<std::uint32_t> channel_mode;  ///< its permission bits (0666)
    std::string node_name;                      ///< set at run time (with_node_paths)
};

/// XID errors in the kernel log since boot ("NVRM: Xid (PCI:0000:1b:00): 79, ..."), except the
/// codes that applications cause.
struct XidCheck {
    std::string source = "/dev/kmsg";  ///< the kernel log (or a file of it; may contain %n)
    std::vector<unsigned> ignore = {13, 31, 43, 45};  ///< graphics exception, MMU fault, ...
};

/// The GPUs' current clock-event reasons through NVML: hardware slowdown, hardware thermal
/// slowdown and power brake fail; software thermal slowdown warns.
struct ClockEventsCheck {
    std::string library = node::kNvmlLibrary;
    double timeout_s = 10;
};

/// What `nvidia-imex-ctl -N -j` says: the domain's status and each node's.
struct ImexNode {
    std::string key;  ///< its number in the output
    std::string host;
    std::string host_name;                   ///< with -H
    std::string status;                      ///< READY, UNAVAILABLE, ...
    std::vector<std::string> not_connected;  ///< hosts of its connections not CONNECTED
};
struct ImexStatus {
    std::string status;  ///< UP, DOWN, DEGRADED
    std::vector<ImexNode> nodes;
};

/// Output larger than this is refused before parsing.
inline constexpr std::size_t kMaxImexOutput = std::size_t{1} << 20;

/// Parses `nvidia-imex-ctl -N -j` output: a JSON object with "status" (a string) and "nodes"
/// (an object of objects with "status", "host", "hostName" and "connections"). At most 32
/// levels of nesting and 4096 nodes.
/// \return the status, or Error::parse naming `source` and what is missing or wrong.
[[nodiscard]] Result<ImexStatus> parse_imex_status(std::string_view text, std::string_view source);

/// One XID record of the kernel log.
struct XidEvent {
    unsigned code = 0;
    std::string device;  ///< "PCI:0000:1b:00"
};

/// The XID records of kernel log text (one record per line; /dev/kmsg's "pri,seq,ts,-;" prefix
/// or dmesg's "[ ts ]" are skipped): "NVRM: Xid (<device>): <code>, ...". At most 100000.
[[nodiscard]] std::vector<XidEvent> parse_xids(std::string_view log);

/// nvmlClocksEventReasons bits the check judges.
inline constexpr std::uint64_t kClockHwSlowdown = 0x8;
inline constexpr std::uint64_t kClockSwThermal = 0x20;
inline constexpr std::uint64_t kClockHwThermal = 0x40;
inline constexpr std::uint64_t kClockHwPowerBrake = 0x80;

}  // namespace switchyard::health
