// SPDX-License-Identifier: Apache-2.0
// `switchyard audit`: its options; ops::run_audit (ops/audit.hpp) does the rest.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "switchyard/common/file.hpp"
#include "switchyard/ops/audit.hpp"

namespace switchyard::cli {
namespace {

int audit(const ops::AuditRequest& a) {
    const auto report = ops::run_audit(a, deps());
    if (!report.error.empty()) {
        std::cerr << "switchyard audit: " << report.error << "\n";
        return report.rc;
    }
    if (a.json) {
        ops::print_audit_json(report, std::cout);
    } else {
        ops::print_audit_text(report, std::cout);
    }
    if (!a.metrics.empty()) {
        if (auto w = write_file_atomic(a.metrics, ops::audit_metrics(report)); !w) {
            std::cerr << "switchyard audit: --metrics: " << w.error().message() << "\n";
            return kExitProblem;
        }
    }
    return report.rc;
}

}  // namespace

void audit_options(CLI::App& cmd, ops::AuditRequest& a) {
    cmd.add_option("--map", a.map, "fabric map (default: the policy's fabric.map)");
    cmd.add_option("--policy", a.policy, "policy file whose fabric.map and costs to use")
        ->capture_default_str();
    cmd.add_option("--jobs", a.jobs, "only these running jobs (comma-separated ids)");
    cmd.add_option("--since", a.since,
                   "also the jobs that ended since TIME (sacct: slurmdbd), and for every job the "
                   "best the free nodes at its start allowed");
    cmd.add_option("--metrics", a.metrics, "also write node_exporter textfile metrics here");
    cmd.add_flag("--json", a.json, "JSON: topologies, jobs, their stages and checks");
    cmd.add_flag("--no-topology", a.no_topology, "leave slurmctld's topology out");
    cmd.add_flag("--no-jobs", a.no_jobs, "only slurmctld's topology");
    cmd.add_option("--timeout", a.timeout_s,
                   "seconds each Slurm command may take; none more runs after one times out")
        ->capture_default_str()
        ->check(CLI::Range(1.0, 3600.0));
}

void setup_audit(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<ops::AuditRequest>();
    cmd.footer(
        "\nChecks slurmctld's topology (scontrol show topology) against the installed fabric\n"
        "map, then every running job: its stages (the planner's order of its nodes, which its\n"
        "steps ran), the SUs, groups and NVLink domains each spans, and whether what it asked\n"
        "(--segment, --switches, its constraint and preference, --stage-scope, --nvl-group)\n"
        "was honoured. Exit 0: all well; 3: a job placed worse than its request promised, or\n"
        "slurmctld's topology disagrees with the map; 1: the audit could not run.\n"
        "\nExamples:\n  switchyard audit\n"
        "  switchyard audit --json --jobs 1234,1240\n"
        "  switchyard audit --since now-1day\n"
        "  switchyard audit --metrics /var/lib/node_exporter/switchyard-audit.prom\n");
    audit_options(cmd, *a);
    cmd.callback([&run, a] { run = [a] { return audit(*a); }; });
}

}  // namespace switchyard::cli
