// SPDX-License-Identifier: Apache-2.0
// `switchyard health`: its options; ops::run_health (ops/health.hpp) does the rest.
#include <cstdlib>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "switchyard/ops/health.hpp"

namespace switchyard::cli {

void setup_health(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<ops::HealthRequest>();
    cmd.footer(
        "\nExamples:\n  switchyard health\n  switchyard health --json --prometheus "
        "/var/lib/node_exporter/switchyard.prom\n"
        "  switchyard health --partition a100 --json\n"
        "  switchyard health --resume      # HealthCheckProgram: resume nodes switchyard "
        "drained\n");
    cmd.add_option("--policy", a->policy,
                   "policy file with the health section (default /etc/slurm/switchyard.yaml)");
    cmd.add_option("--sysfs-root", a->sysfs_root, "directory standing for /sys (%n = --host)");
    cmd.add_option("--hwloc-xml", a->hwloc_xml, "hwloc XML of the node");
    cmd.add_option("--host", a->host,
                   "this node's Slurm name (default: $SLURMD_NODENAME, else the host name)");
    cmd.add_flag("--resume", a->resume,
                 "when every check passes and switchyard drained this node, resume it "
                 "(scontrol); for slurmd's HealthCheckProgram");
    cmd.add_option("--partition", a->partition,
                   "partition(s) the checks are for: picks the policy's health.sets entry "
                   "(default $SLURM_JOB_PARTITION)");
    cmd.add_option("--prometheus", a->prometheus, "also write node_exporter textfile metrics here");
    cmd.add_flag("--json", a->json,
                 "JSON: verdict, checks [{name, status, detail, duration_ms[, soft]}]");
    cmd.callback([&run, a] {
        run = [a] {
            ops::HealthRequest req = *a;
            if (const char* p = std::getenv("SLURM_JOB_PARTITION");
                req.partition.empty() && p != nullptr) {
                req.partition = p;
            }
            if (const char* n = std::getenv("SLURMD_NODENAME"); req.host.empty() && n != nullptr) {
                req.host = n;  // set by slurmd for its HealthCheckProgram
            }
            const auto report = ops::run_health(req, deps());
            ops::print_health(report, a->json, std::cout, std::cerr);
            return report.rc;
        };
    });
}

}  // namespace switchyard::cli
