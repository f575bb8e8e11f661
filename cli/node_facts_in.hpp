// SPDX-License-Identifier: Apache-2.0
// discover --node-facts: what discover takes from the hosts' `switchyard node` outputs.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "switchyard/common/result.hpp"
#include "switchyard/node/nvlink.hpp"

namespace switchyard::cli {

using RdmaDevices =
    std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>>;

/// What discover takes from the hosts' `switchyard node --json` files.
struct HostFacts {
    RdmaDevices devices;         ///< host → net device → RDMA device
    node::HostNvlinkMap nvlink;  ///< host → its NVLink domain, when its file has "nvlink"
};

/// --node-facts PATH: a directory of `switchyard node --json` files, <host>.json (parsed on up
/// to four threads in name order; with `nics`, for --lldp, each must list its NICs), or a file
/// of `switchyard node --nvlink-only --line` lines (not with `nics`). Domain keys, host names
/// and problem text are checked or made printable before they can reach the map.
/// \return the facts, or the first error in file order naming the file (and line).
[[nodiscard]] Result<HostFacts> read_facts(const std::string& path, bool nics);

}  // namespace switchyard::cli
