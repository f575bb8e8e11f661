// SPDX-License-Identifier: Apache-2.0
// `switchyard steer`: its options; ops::run_steer (ops/steer.hpp) does the rest.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "switchyard/ops/steer.hpp"

namespace switchyard::cli {

void steer_options(CLI::App& cmd, ops::SteerRequest& a) {
    cmd.add_option("--map", a.map, "fabric map written by 'switchyard discover'");
    cmd.add_flag("--apply", a.apply, "set the weights in Slurm (scontrol update)");
    cmd.add_option("--state", a.state,
                   "the weights switchyard set (a file in a directory only you can write)")
        ->capture_default_str();
    cmd.add_option("--health", a.health,
                   "a directory of `switchyard health --json` outputs: passing checks near "
                   "their limit (growing link errors) count too");
    cmd.add_option("--preflight", a.preflight,
                   "a directory of `switchyard preflight --json` outputs: the hosts behind a "
                   "cable or switch at fault count too (--preflight-weight)");
    cmd.add_option("--preflight-weight", a.preflight_weight,
                   "what a preflight's link fault counts for, against a place with no uplink left")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1.0));
    cmd.add_option("--soft-weight", a.soft_weight,
                   "what a check at its limit counts for, against a place with no uplink left")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1.0));
    cmd.add_option("--flap-window", a.flap_window_s,
                   "seconds a node switchyard drained counts as degraded after it is back "
                   "(seen by successive --apply runs)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 86400.0 * 365));
    cmd.add_option("--base-weight", a.policy.base_weight,
                   "the weight of nodes nobody customised (slurm.conf's default is 1)")
        ->capture_default_str()
        ->check(CLI::Range(0U, 1000000U));
    cmd.add_option("--max-penalty", a.policy.max_penalty, "weight added for the worst place")
        ->capture_default_str()
        ->check(CLI::Range(1U, 1000000U));
    cmd.add_option("--min-interval", a.policy.min_interval_s,
                   "seconds between two changes of one node's weight")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 86400.0 * 30));
}

void setup_steer(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<ops::SteerRequest>();
    cmd.footer(
        "\nPrints each degraded node's score, the Weight it should have and why. With --apply\n"
        "(as root or SlurmUser, e.g. from a timer after discover) sets those weights with\n"
        "scontrol and records them in --state; a node whose weight someone else set (not the\n"
        "base, not switchyard's last) is never changed, and a node that heals gets the base back.\n"
        "\nExamples:\n  switchyard steer --map /etc/slurm/switchyard/fabric.map\n"
        "  switchyard steer --map /etc/slurm/switchyard/fabric.map --apply\n");
    steer_options(cmd, *a);
    cmd.get_option("--map")->required();
    cmd.callback([&run, a] {
        run = [a] {
            const auto report = ops::run_steer(*a, deps());
            ops::print_steer(report, std::cout, std::cerr);
            return report.rc;
        };
    });
}

}  // namespace switchyard::cli
