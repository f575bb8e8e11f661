// SPDX-License-Identifier: Apache-2.0
// Multi-node NVLink domains in the fabric map: discover puts each host into the domain its
// facts give (switchyard node --json), keeps missing racks in place, reports what disagrees.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/node/nvlink.hpp"

namespace switchyard::discover {

struct NvlinkDomainOptions {
    std::uint32_t expect_size = 0;  ///< hosts per domain by design (0: not checked)
    const fabric::FabricMap* previous =
        nullptr;  ///< the map installed before: blocks keep their places
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
void assign_nvlink_domains(fabric::FabricMap& map,
                           const node::HostNvlinkMap& facts,
                           const NvlinkDomainOptions& options);

}  // namespace switchyard::discover
