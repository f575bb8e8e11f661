// SPDX-License-Identifier: Apache-2.0
// `switchyard fabric show` and `fabric diff`: their options; ops/fabric.hpp does the rest.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "switchyard/ops/fabric.hpp"

namespace switchyard::cli {

void setup_fabric(CLI::App& cmd, Runner& run) {
    cmd.require_subcommand(1, 1);
    cmd.footer("\nExamples:\n  switchyard fabric show --map /etc/slurm/switchyard/fabric.map\n");
    auto args = std::make_shared<ops::FabricRequest>();
    auto* show =
        cmd.add_subcommand("show", "print the groups, scalable units and hosts of a fabric map");
    show->footer(
        "\nExamples:\n  switchyard fabric show --map /etc/slurm/switchyard/fabric.map\n"
        "  switchyard fabric show --map fabric.map --json | jq '.hosts[0]'\n");
    show->add_option("--map", args->map, "fabric map written by 'switchyard discover'")->required();
    show->add_flag("--json", args->json, "JSON: hosts, sus, groups, switches, anomalies");
    show->callback([&run, args] {
        run = [args] {
            const auto report = ops::run_fabric_show(*args, deps());
            ops::print_fabric_show(*args, report, std::cout, std::cerr);
            return report.rc;
        };
    });
    auto* diff = cmd.add_subcommand(
        "diff", "what changed between two fabric maps (exit 0: nothing, 3: changed, 1: error)");
    diff->footer(
        "\nExamples:\n  switchyard fabric diff /etc/slurm/switchyard/fabric.map new/fabric.map\n"
        "  switchyard fabric diff old.map new.map --json | jq '.hosts_moved'\n");
    diff->add_option("before", args->before, "the installed map")->required();
    diff->add_option("after", args->after, "the new map (a later discover)")->required();
    diff->add_flag("--json", args->json,
                   "JSON: hosts added, removed and moved; SUs and groups; cables; anomalies");
    diff->callback([&run, args] {
        run = [args] {
            const auto report = ops::run_fabric_diff(*args, deps());
            ops::print_fabric_diff(*args, report, std::cout, std::cerr);
            return report.rc;
        };
    });
}

}  // namespace switchyard::cli
