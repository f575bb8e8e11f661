// SPDX-License-Identifier: Apache-2.0
// Which pairs a preflight measures, and in which rounds. On each plane every host gets two
// pairs (one inside its leaf, one to a host of another leaf; a host alone on its leaf two of the
// latter), so a plane of N hosts has N pairs, not N²/2, and a host at fault is the one whose
// pairs are all slow while its partners' other pairs are not. The pairs across leaves reach
// every other group of the job at least once per plane (its global cables), and otherwise stay
// in their group, rotating over its leaves. A round holds disjoint pairs that share no link:
// no host port twice, and without forwarding tables no two pairs leaving one leaf (nor two
// crossing between the same two groups), since which uplink each takes is the subnet manager's
// choice; with exact paths, no cable twice.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "switchyard/preflight/model.hpp"

namespace switchyard::preflight {

struct Schedule {
    std::vector<Probe> probes;  ///< by round
    std::uint32_t rounds = 0;
    std::vector<std::string> notes;  ///< what no pair could measure, and why
};

/// The pairs and their rounds for every plane of the model.
[[nodiscard]] Schedule plan_pairs(const Model& m);

/// `probes` again (the ones to measure a second time), in as few rounds as the same rules allow.
[[nodiscard]] Schedule plan_again(const Model& m, std::span<const Probe> probes);

}  // namespace switchyard::preflight
