// SPDX-License-Identifier: Apache-2.0
// `switchyard why`: its options; ops::run_why (ops/why.hpp) does the rest.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "switchyard/ops/why.hpp"

namespace switchyard::cli {

void setup_why(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<ops::WhyRequest>();
    cmd.footer(
        "\nSays whether a pipeline job's placement request (a segment per stage on a block\n"
        "partition, a switch count or one group on a tree) fits the nodes usable now (idle:\n"
        "not drained, down, reserved or allocated; one sinfo), and if not, what would start\n"
        "now: more, smaller stages, fewer nodes, a wider --stage-scope. For a pending job the\n"
        "request is read back from squeue (with Slurm 26.05's pending reasons such as\n"
        "No_suitable_topology_unit_found). cli_filter.lua runs it with --quiet before each\n"
        "pipeline submission. Exit 0 when it could tell, 1 when Slurm or the map could not\n"
        "be read.\n"
        "\nExamples:\n  switchyard why 1234\n"
        "  switchyard why --nodes 16 --stages 4 --topology block --segment 4 --partition gpu\n"
        "  switchyard why --nodes 16 --stages 4 --scope leaf --topology tree --switches 4\n");
    cmd.add_option("job", a->job, "a pending job's id");
    cmd.add_option("--nodes", a->nodes, "nodes the job asks (-N)");
    cmd.add_option("--stages", a->stages, "its pipeline stages")->capture_default_str();
    cmd.add_option("--scope", a->scope, "its --stage-scope: leaf, group or any")
        ->capture_default_str();
    cmd.add_option("--partition", a->partition, "its partition (default: every node)");
    cmd.add_option("--topology", a->topology, "the partition's topology: tree or block");
    cmd.add_option("--segment", a->segment, "block: nodes per segment asked");
    cmd.add_flag("--spread-segments", a->spread, "block: each segment in a block of its own");
    cmd.add_option("--switches", a->switches, "tree: leaf switches asked");
    cmd.add_option("--switch-wait", a->switch_wait_s, "tree: seconds Slurm waits for them");
    cmd.add_flag("--one-group", a->one_group, "tree: the job is constrained to one group");
    cmd.add_option("--map", a->map, "fabric map (default: the policy's fabric.map)");
    cmd.add_option("--policy", a->policy, "policy file whose fabric.map to use")
        ->capture_default_str();
    cmd.add_option("--timeout", a->timeout_s, "seconds each Slurm command may take")
        ->check(CLI::Range(0.1, 600.0))
        ->capture_default_str();
    cmd.add_flag("--quiet", a->quiet, "print only when the request cannot start now");
    cmd.callback([&run, a] {
        run = [a] {
            const auto report = ops::run_why(*a, deps());
            ops::print_why(report, std::cout, std::cerr);
            return report.rc;
        };
    });
}

}  // namespace switchyard::cli
