// SPDX-License-Identifier: Apache-2.0
// What `switchyard render` overlays on the fabric: a job's plan (`switchyard plan --json`) and
// health verdicts (`switchyard health --json`), read from text with every shape checked.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/result.hpp"
#include "switchyard/render/render_svg.hpp"

namespace switchyard::render {

/// Adds the stages of a plan: {"stages": [{"stage": 0, "nodes": ["n1", ...]}, ...]}. A stage
/// number must be below kMaxPipelineStages (a plan cannot have more).
/// \return Error::invalid_argument naming `source`, the line and column of a JSON syntax error
///         or the stage entry whose shape is wrong, and what was expected.
[[nodiscard]] Result<void> parse_plan_json(std::string_view text,
                                           const std::string& source,
                                           RenderOverlay& ov);

/// One node's `switchyard health --json` output: {"node": "n1", "verdict": "fail", "checks":
/// [{"name": ..., "status": ..., "detail": ..., "soft": 0.4}]}: whether it failed and why (the
/// first failed check), and the largest soft signal of its checks (0..1) and whose.
struct HealthVerdict {
    std::string node;
    bool failed = false;
    std::string reason;
    double soft = 0;
    std::string soft_reason;
};
[[nodiscard]] Result<HealthVerdict> read_health_verdict(std::string_view text,
                                                        const std::string& source);

/// Adds the node of one health verdict when it failed: {"node": "n1", "verdict": "fail",
/// "checks": [{"name": ..., "status": ..., "detail": ...}]}; the first failed check is the
/// reason shown. \return Error::invalid_argument naming `source` for any other shape.
[[nodiscard]] Result<void> parse_health_json(std::string_view text,
                                             const std::string& source,
                                             RenderOverlay& ov);

}  // namespace switchyard::render
