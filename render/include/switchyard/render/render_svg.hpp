// SPDX-License-Identifier: Apache-2.0
// The fabric picture: groups (pods / Dragonfly+ groups) holding scalable units, their leaves and
// hosts, with a job's pipeline stages coloured over the hosts and drained nodes marked.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "switchyard/fabric/fabric_map.hpp"

namespace switchyard::render {

struct RenderOverlay {
    std::string job;                           ///< caption of the plan, e.g. "plan: 8 nodes"
    std::map<std::string, unsigned> stage_of;  ///< host → pipeline stage
    unsigned stages = 0;
    std::map<std::string, std::string> drained;  ///< host → reason
};

/// A self-contained SVG (no scripts, no external resources). Hosts are labelled cells when the
/// fabric is small, small squares with tooltips when it is large, and one stacked bar per SU
/// (hosts counted per stage) when an SU holds more than 128 hosts or the fabric more than 8192.
[[nodiscard]] std::string render_svg(const fabric::FabricMap& map, const RenderOverlay& overlay);

}  // namespace switchyard::render
