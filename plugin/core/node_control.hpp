// SPDX-License-Identifier: Apache-2.0
// NodeControl: what the health gate asks of Slurm (a node's drain reason, its partition's size,
// draining it), behind
// an interface so the gate's logic runs in tests without slurmctld.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "switchyard/common/result.hpp"
#include "switchyard/health/health.hpp"

namespace switchyard::spank {

class NodeControl {
public:
    virtual ~NodeControl() = default;
    /// The node's drain/down reason while Slurm holds it out of service ("" otherwise: a
    /// resumed node's leftover reason is no reason).
    [[nodiscard]] virtual Result<std::string> reason(const std::string& node) = 0;
    /// Nodes in the smallest partition holding `node` (the breaker's percent base); 0 = unknown.
    [[nodiscard]] virtual Result<unsigned> partition_size(const std::string& node) = 0;
    /// Nodes held out of service now with an owned ("switchyard:") reason set within the last
    /// `window_s`.
    [[nodiscard]] virtual Result<unsigned> recent_owned_drains(double window_s, double now) = 0;
    /// Drains the node with `reason` (an owned "switchyard: ..." text).
    [[nodiscard]] virtual Result<void> drain(const std::string& node,
                                             const std::string& reason) = 0;
};

/// The real one, through libslurm's RPCs (slurm_load_node_single, slurm_load_partitions,
/// slurm_update_node).
NodeControl& slurm_node_control();

}  // namespace switchyard::spank
