// SPDX-License-Identifier: Apache-2.0
// `switchyard health`: the prolog gate's checks on this node; exit 0 pass, 1 fail.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "io.hpp"
#include "switchyard/common/process.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/health/drain.hpp"
#include "switchyard/node/node_readers.hpp"
#include "switchyard/policy/loaders.hpp"
#include "switchyard/slurmconf/scontrol.hpp"

namespace switchyard::cli {
namespace {

struct HealthArgs {
    std::string policy = "/etc/slurm/switchyard.yaml";
    std::string sysfs_root;
    std::string hwloc_xml;
    std::string host;
    std::string partition;
    std::string prometheus;
    bool json = false;
    bool resume = false;
};

/// The reason Slurm holds the node for; "" when it has none or Slurm does not hold it.
Result<std::string> slurm_reason(const std::string& node) {
    auto nodes = slurm_nodes(node);
    if (!nodes) {
        return fail(nodes.error());
    }
    const auto it = nodes->find(node);
    if (it == nodes->end()) {
        return fail(Error::io("sinfo shows no node '" + node +
                              "' (not a node of this cluster, or in no partition)"));
    }
    return it->second.reason;
}

/// --resume: a node drained by switchyard that passes again is resumed; any other reason is
/// left alone. Returns a line for the operator.
Result<std::string> resume_if_owned(const std::string& node) {
    auto reason = slurm_reason(node);
    if (!reason) {
        return fail(reason.error());
    }
    const auto decision = health::decide_resume(node, *reason);
    if (!decision.resume) {
        return decision.message;
    }
    const auto r = run_process({"scontrol", "update", "NodeName=" + node, "State=RESUME"}, 15);
    if (r.exit_code != 0) {
        return fail(Error::io("scontrol update NodeName=" + node +
                              " State=RESUME: " + slurmconf::slurm_problem(r, "scontrol")));
    }
    return decision.message;
}

std::string prometheus_text(const health::HealthReport& r, const std::string& host) {
    auto value = [](health::HealthStatus s) { return std::to_string(static_cast<int>(s)); };
    std::string out =
        "# HELP switchyard_health_verdict Worst check status: 0 pass, 1 warn, 2 fail.\n"
        "# TYPE switchyard_health_verdict gauge\n"
        "switchyard_health_verdict{node=\"" +
        prometheus_label(host) + "\"} " + value(r.verdict) +
        "\n"
        "# HELP switchyard_health_check_status Check status: 0 pass, 1 warn, 2 fail.\n"
        "# TYPE switchyard_health_check_status gauge\n";
    for (const auto& c : r.checks) {
        out += "switchyard_health_check_status{node=\"" + prometheus_label(host) + "\",check=\"" +
               prometheus_label(c.name) + "\"} " + value(c.status) + "\n";
    }
    out +=
        "# HELP switchyard_health_check_duration_seconds Time the check took.\n"
        "# TYPE switchyard_health_check_duration_seconds gauge\n";
    for (const auto& c : r.checks) {
        out += "switchyard_health_check_duration_seconds{node=\"" + prometheus_label(host) +
               "\",check=\"" + prometheus_label(c.name) + "\"} " +
               std::to_string(c.duration_ms / 1000.0) + "\n";
    }
    return out;
}

int run_health(HealthArgs a) {
    if (const char* p = std::getenv("SLURM_JOB_PARTITION"); a.partition.empty() && p != nullptr) {
        a.partition = p;
    }
    auto pol = policy::load_policy_file(a.policy);
    if (!pol) {
        std::cerr << "switchyard health: " << pol.error().message() << "\n";
        return kExitProblem;
    }
    std::string host = a.host;
    if (const char* n = std::getenv("SLURMD_NODENAME"); host.empty() && n != nullptr) {
        host = n;  // set by slurmd for its HealthCheckProgram
    }
    if (host.empty()) {
        host = short_hostname();
    }
    // The node's facts only when a set is chosen by its shape or a check reads them: the
    // memory, filesystem and command checks of a HealthCheckProgram run every few minutes on
    // every node need no scan of its PCI devices and RDMA ports.
    node::NodeTopology node;
    bool node_read = false;
    const auto read_node = [&]() -> bool {
        auto n = policy::load_node(*pol, {host, a.hwloc_xml, a.sysfs_root});
        if (!n) {
            std::cerr << "ERROR: switchyard: node facts: " << n.error().to_string() << "\n";
            return false;
        }
        node = std::move(*n);
        node_read = true;
        return true;
    };
    if (pol->health.sets_by_shape() && !read_node()) {
        return kExitProblem;
    }
    std::string set;
    const auto& set_checks = pol->health.for_node(node.shape, a.partition, &set);
    if (!node_read && set_checks.reads_node_facts() && !read_node()) {
        return kExitProblem;
    }
    health::SystemProbe probe(
        node, node::expand_node_path(!a.sysfs_root.empty() ? a.sysfs_root : pol->sysfs_root, host));
    std::vector<std::string> notes;
    const auto chosen = policy::node_checks(*pol, set_checks, host, &notes);
    for (const auto& n : notes) {
        std::cerr << "switchyard health: warning: " << n << "\n";
    }
    const auto report = health::run_health_checks(chosen, probe, pol->health.budget_s);
    if (!a.prometheus.empty()) {
        if (auto w = write_file_atomic(a.prometheus, prometheus_text(report, host)); !w) {
            std::cerr << "switchyard health: --prometheus: " << w.error().to_string() << "\n";
            return kExitProblem;
        }
    }
    const bool failed = report.verdict == health::HealthStatus::Fail;
    if (a.resume && !failed && report.checks.empty()) {
        // Nothing was checked: passing proves nothing, so nothing is resumed.
        std::cerr << "switchyard health: --resume: not resuming " << host
                  << ": the policy has no health checks\n";
    } else if (a.resume && !failed) {
        auto said = resume_if_owned(host);
        if (!said) {
            std::cerr << "switchyard health: --resume: " << said.error().message() << "\n";
            return kExitProblem;
        }
        if (!said->empty()) {
            std::cerr << "switchyard health: " << *said << "\n";
        }
    }
    if (a.json) {
        nlohmann::json out{
            {"verdict", health::to_string(report.verdict)}, {"node", host}, {"set", set}};
        auto& checks = out["checks"] = nlohmann::json::array();
        for (const auto& c : report.checks) {
            checks.push_back({{"name", c.name},
                              {"status", health::to_string(c.status)},
                              {"detail", c.detail},
                              {"duration_ms", c.duration_ms}});
            if (c.soft > 0) {  // how near failing a passing check came (switchyard steer)
                checks.back()["soft"] = c.soft;
            }
        }
        std::cout << out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else if (failed) {
        std::cout << "ERROR: " << report.reason() << "\n";  // NHC style: one line
    } else {
        std::cout << "OK: switchyard: " << report.checks.size() << " checks, verdict "
                  << health::to_string(report.verdict) << "\n";
    }
    return failed ? kExitProblem : kExitOk;
}

}  // namespace

void setup_health(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<HealthArgs>();
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
    cmd.callback([&run, a] { run = [a] { return run_health(*a); }; });
}

}  // namespace switchyard::cli
