// SPDX-License-Identifier: Apache-2.0
// `switchyard plan`: its options; ops::run_plan (ops/plan.hpp) does the rest.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "switchyard/common/job_options.hpp"
#include "switchyard/ops/plan.hpp"

namespace switchyard::cli {

void setup_plan(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<ops::PlanRequest>();
    cmd.footer(
        "\nExamples:\n  switchyard plan --map fabric.map --nodes 'gpu[001-032]' --stages 4\n"
        "  switchyard plan --policy /etc/slurm/switchyard.yaml --nodes \"$SLURM_JOB_NODELIST\" "
        "--stages 8 --json\n");
    cmd.add_option("--map", a->map, "fabric map written by 'switchyard discover'");
    cmd.add_option("--policy", a->policy, "policy file whose fabric.map to use");
    cmd.add_option("--nodes", a->nodes, "the job's nodes as a Slurm hostlist")->required();
    cmd.add_option("--stages", a->stages, "pipeline stages")
        ->required()
        ->check(CLI::Range(1U, 1024U));
    cmd.add_option("--scope", a->scope,
                   "leaf, group or any (default, as a job): where a stage must fit");
    cmd.add_option("--nvl-group", a->nvl_group,
                   "nodes per NVLink group (tensor/expert parallel): N consecutive ranks kept "
                   "inside one NVLink domain")
        ->check(CLI::Range(1U, kMaxNvlGroup));
    cmd.add_flag("--json", a->json, "JSON: stages, order, cost, facts, warnings");
    cmd.add_flag("--order", a->order, "only the node order, comma-separated (for cli_filter.lua)");
    cmd.callback([&run, a] {
        run = [a] {
            const auto report = ops::run_plan(*a, deps());
            ops::print_plan(*a, report, std::cout, std::cerr);
            return report.rc;
        };
    });
}

}  // namespace switchyard::cli
