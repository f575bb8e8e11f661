// SPDX-License-Identifier: Apache-2.0
// `switchyard health`: the prolog gate's checks on this node; exit 0 pass, 1 fail.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "io.hpp"
#include "switchyard/policy/nccl_context.hpp"
#include "switchyard/topology/node_readers.hpp"

namespace switchyard::cli {
namespace {

struct HealthArgs {
    std::string policy = "/etc/slurm/switchyard.yaml";
    std::string sysfs_root;
    std::string hwloc_xml;
    std::string host;
    std::string prometheus;
    bool json = false;
};

std::string prometheus_text(const policy::HealthReport& r, const std::string& host) {
    auto value = [](policy::HealthStatus s) { return std::to_string(static_cast<int>(s)); };
    std::string out =
        "# HELP switchyard_health_verdict Worst check status: 0 pass, 1 warn, 2 fail.\n"
        "# TYPE switchyard_health_verdict gauge\n"
        "switchyard_health_verdict{node=\"" +
        host + "\"} " + value(r.verdict) +
        "\n"
        "# HELP switchyard_health_check_status Check status: 0 pass, 1 warn, 2 fail.\n"
        "# TYPE switchyard_health_check_status gauge\n";
    for (const auto& c : r.checks) {
        out += "switchyard_health_check_status{node=\"" + host + "\",check=\"" + c.name + "\"} " +
               value(c.status) + "\n";
    }
    out +=
        "# HELP switchyard_health_check_duration_seconds Time the check took.\n"
        "# TYPE switchyard_health_check_duration_seconds gauge\n";
    for (const auto& c : r.checks) {
        out += "switchyard_health_check_duration_seconds{node=\"" + host + "\",check=\"" + c.name +
               "\"} " + std::to_string(c.duration_ms / 1000.0) + "\n";
    }
    return out;
}

int run_health(const HealthArgs& a) {
    auto pol = policy::load_policy_file(a.policy);
    if (!pol) {
        std::cerr << "switchyard health: " << pol.error().message() << "\n";
        return kExitProblem;
    }
    std::string host = a.host;
    if (host.empty()) {
        char buf[256] = {};
        gethostname(buf, sizeof buf - 1);
        host = std::string(buf).substr(0, std::string(buf).find('.'));
    }
    auto node = policy::load_node(*pol, {host, a.hwloc_xml, a.sysfs_root});
    if (!node) {
        std::cerr << "ERROR: switchyard: node facts: " << node.error().to_string() << "\n";
        return kExitProblem;
    }
    const auto root =
        topology::expand_sysfs_root(!a.sysfs_root.empty() ? a.sysfs_root : pol->sysfs_root, host);
    const auto meminfo = read_input("/proc/meminfo");
    const auto report =
        policy::run_health_checks(pol->health, *node, root, meminfo ? *meminfo : std::string());
    if (!a.prometheus.empty()) {
        if (auto w = write_file_atomic(a.prometheus, prometheus_text(report, host)); !w) {
            std::cerr << "switchyard health: --prometheus: " << w.error().to_string() << "\n";
            return kExitProblem;
        }
    }
    const bool failed = report.verdict == policy::HealthStatus::Fail;
    if (a.json) {
        nlohmann::json out{{"verdict", policy::to_string(report.verdict)}, {"node", host}};
        auto& checks = out["checks"] = nlohmann::json::array();
        for (const auto& c : report.checks) {
            checks.push_back({{"name", c.name},
                              {"status", policy::to_string(c.status)},
                              {"detail", c.detail},
                              {"duration_ms", c.duration_ms}});
        }
        std::cout << out.dump(1) << "\n";
    } else if (failed) {
        std::cout << "ERROR: " << report.reason() << "\n";  // NHC style: one line
    } else {
        std::cout << "OK: switchyard: " << report.checks.size() << " checks, verdict "
                  << policy::to_string(report.verdict) << "\n";
    }
    return failed ? kExitProblem : kExitOk;
}

}  // namespace

void setup_health(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<HealthArgs>();
    cmd.footer(
        "\nExamples:\n  switchyard health\n  switchyard health --json --prometheus "
        "/var/lib/node_exporter/switchyard.prom\n");
    cmd.add_option("--policy", a->policy,
                   "policy file with the health section (default /etc/slurm/switchyard.yaml)");
    cmd.add_option("--sysfs-root", a->sysfs_root, "directory standing for /sys (%n = --host)");
    cmd.add_option("--hwloc-xml", a->hwloc_xml, "hwloc XML of the node");
    cmd.add_option("--host", a->host, "this node's Slurm name (default: the host name)");
    cmd.add_option("--prometheus", a->prometheus, "also write node_exporter textfile metrics here");
    cmd.add_flag("--json", a->json, "JSON: verdict, checks [{name, status, detail, duration_ms}]");
    cmd.callback([&run, a] { run = [a] { return run_health(*a); }; });
}

}  // namespace switchyard::cli
