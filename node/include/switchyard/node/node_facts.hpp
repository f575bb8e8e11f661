// SPDX-License-Identifier: Apache-2.0
// A node's static facts as a small text file: what the prolog caches once so that each step
// need not walk the PCI tree again (GPUs, NICs and their PCI places, NUMA nodes). Ports are not
// in it: they change while the node runs and are read again at every step.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "switchyard/common/result.hpp"
#include "switchyard/node/node_topology.hpp"

namespace switchyard::node {

inline constexpr int kNodeFactsVersion = 1;
/// Bounds a reader enforces: GPUs, NICs, NUMA nodes each; PCI hops above one device.
inline constexpr std::size_t kMaxNodeFactsItems = 1024;
inline constexpr std::size_t kMaxPciHops = 64;

/// "switchyard-node-facts 1", "key <16 hex>", then numa, gpu and nic lines (free text
/// percent-encoded: space, '%', ',' and control bytes) and "end <numa> <gpus> <nics>".
/// Ports, paths, shape and warnings are left out.
[[nodiscard]] std::string write_node_facts(const NodeTopology& node, std::uint64_t key);

/// The facts in `text` when they were written under `key` (node_device_key).
/// \return the node without ports, paths or shape; Error::parse naming source:line and the
///         expected form; Error::invalid_argument when the key differs (stale: the node
///         rebooted or its devices changed).
[[nodiscard]] Result<NodeTopology> read_node_facts(std::string_view text,
                                                   std::string_view source,
                                                   std::uint64_t key);

}  // namespace switchyard::node
