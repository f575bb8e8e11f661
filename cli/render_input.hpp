// SPDX-License-Identifier: Apache-2.0
// What `switchyard render` overlays on the fabric: a job's plan (`switchyard plan --json`) and
// health verdicts (`switchyard health --json`), read from text with every shape checked.
#pragma once

#include <string>
#include <string_view>

#include "render_svg.hpp"
#include "switchyard/common/result.hpp"

namespace switchyard::cli {

/// Adds the stages of a plan: {"stages": [{"stage": 0, "nodes": ["n1", ...]}, ...]}. A stage
/// number must be below kMaxPipelineStages (a plan cannot have more).
/// \return Error::invalid_argument naming `source`, the line and column of a JSON syntax error
///         or the stage entry whose shape is wrong, and what was expected.
[[nodiscard]] Result<void> parse_plan_json(std::string_view text,
                                           const std::string& source,
                                           RenderOverlay& ov);

/// Adds the node of one health verdict when it failed: {"node": "n1", "verdict": "fail",
/// "checks": [{"name": ..., "status": ..., "detail": ...}]}; the first failed check is the
/// reason shown. \return Error::invalid_argument naming `source` for any other shape.
[[nodiscard]] Result<void> parse_health_json(std::string_view text,
                                             const std::string& source,
                                             RenderOverlay& ov);

}  // namespace switchyard::cli
