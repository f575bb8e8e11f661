// SPDX-License-Identifier: Apache-2.0
// `switchyard plan`: the stage plan for a node list, compared with Slurm's plain order; the map
// loaded as a step loads it (policy/step_input.hpp), the planner's plan, and a printer per form
// (the report, --json, --order for cli_filter.lua).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "switchyard/ops/deps.hpp"
#include "switchyard/placement/planner.hpp"

namespace switchyard::ops {

struct PlanRequest {
    std::string map;
    std::string policy;
    std::string nodes;
    unsigned stages = 1;
    unsigned nvl_group = 0;
    std::string scope = "any";  // as a job without --stage-scope
    bool json = false;
    bool order = false;
};

struct PlanReport {
    int rc = 0;
    std::string error;  ///< why there is no plan (rc 1 or 2)
    std::optional<placement::StagePlan> plan;
};

[[nodiscard]] PlanReport run_plan(const PlanRequest& request, Deps& deps);

/// The plan in the form the request asked; the error to `err`.
void print_plan(const PlanRequest& request,
                const PlanReport& report,
                std::ostream& out,
                std::ostream& err);

}  // namespace switchyard::ops
