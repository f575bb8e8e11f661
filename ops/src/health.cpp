// SPDX-License-Identifier: Apache-2.0
// `switchyard health` (ops/health.hpp).
#include "switchyard/ops/health.hpp"

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <ostream>

#include "switchyard/common/file.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/health/drain.hpp"
#include "switchyard/health/node_probe.hpp"
#include "switchyard/node/node_readers.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/ops/inputs.hpp"
#include "switchyard/policy/loaders.hpp"
#include "switchyard/slurm/client/scontrol.hpp"
#include "switchyard/slurm/client/sinfo.hpp"

namespace switchyard::ops {
namespace {

/// The reason Slurm holds the node for; "" when it has none or Slurm does not hold it.
Result<std::string> slurm_reason(slurm::Client& client, const std::string& node) {
    auto nodes = slurm::node_states(client, node);
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
Result<std::string> resume_if_owned(slurm::Client& client, const std::string& node) {
    auto reason = slurm_reason(client, node);
    if (!reason) {
        return fail(reason.error());
    }
    const auto decision = health::decide_resume(node, *reason);
    if (!decision.resume) {
        return decision.message;
    }
    if (auto r = slurm::resume_node(client, node); !r) {
        return fail(r.error());
    }
    return decision.message;
}

}  // namespace

std::string health_metrics(const HealthReport& report) {
    const auto& r = report.checks;
    const auto& host = report.host;
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

HealthReport run_health(const HealthRequest& a, Deps& deps) {
    HealthReport out;
    const auto problem = [&](std::string line) {
        out.notes.push_back(std::move(line));
        out.rc = kExitProblem;
        return std::move(out);
    };
    auto pol = policy::load_policy_file(a.policy);
    if (!pol) {
        return problem("switchyard health: " + pol.error().message());
    }
    std::string host = a.host;
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
            out.notes.push_back("ERROR: switchyard: node facts: " + n.error().to_string());
            return false;
        }
        node = std::move(*n);
        node_read = true;
        return true;
    };
    if (pol->health.sets_by_shape() && !read_node()) {
        out.rc = kExitProblem;
        return out;
    }
    std::string set;
    const auto& set_checks = pol->health.for_node(node.shape, a.partition, &set);
    if (!node_read && set_checks.reads_node_facts() && !read_node()) {
        out.rc = kExitProblem;
        return out;
    }
    health::SystemProbe probe(
        node, node::expand_node_path(!a.sysfs_root.empty() ? a.sysfs_root : pol->sysfs_root, host));
    std::vector<std::string> notes;
    const auto chosen = policy::node_checks(*pol, set_checks, host, &notes);
    for (const auto& n : notes) {
        out.notes.push_back("switchyard health: warning: " + n);
    }
    out.host = host;
    out.set = set;
    out.checks = health::run_health_checks(chosen, probe, pol->health.budget_s);
    out.ran = true;
    const auto& report = out.checks;
    if (!a.prometheus.empty()) {
        if (auto w = write_file_atomic(a.prometheus, health_metrics(out)); !w) {
            out.ran = false;
            return problem("switchyard health: --prometheus: " + w.error().to_string());
        }
    }
    const bool failed = report.verdict == health::HealthStatus::Fail;
    if (a.resume && !failed && report.checks.empty()) {
        // Nothing was checked: passing proves nothing, so nothing is resumed.
        out.notes.push_back("switchyard health: --resume: not resuming " + host +
                            ": the policy has no health checks");
    } else if (a.resume && !failed) {
        auto said = resume_if_owned(deps.slurm, host);
        if (!said) {
            out.ran = false;
            return problem("switchyard health: --resume: " + said.error().message());
        }
        if (!said->empty()) {
            out.notes.push_back("switchyard health: " + *said);
        }
    }
    out.rc = failed ? kExitProblem : kExitOk;
    return out;
}

void print_health(const HealthReport& r, bool json, std::ostream& out, std::ostream& err) {
    for (const auto& n : r.notes) {
        err << n << "\n";
    }
    if (!r.ran) {
        return;
    }
    const auto& report = r.checks;
    if (json) {
        nlohmann::json o{
            {"verdict", health::to_string(report.verdict)}, {"node", r.host}, {"set", r.set}};
        auto& checks = o["checks"] = nlohmann::json::array();
        for (const auto& c : report.checks) {
            checks.push_back({{"name", c.name},
                              {"status", health::to_string(c.status)},
                              {"detail", c.detail},
                              {"duration_ms", c.duration_ms}});
            if (c.soft > 0) {  // how near failing a passing check came (switchyard steer)
                checks.back()["soft"] = c.soft;
            }
        }
        out << o.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else if (report.verdict == health::HealthStatus::Fail) {
        out << "ERROR: " << report.reason() << "\n";  // NHC style: one line
    } else {
        out << "OK: switchyard: " << report.checks.size() << " checks, verdict "
            << health::to_string(report.verdict) << "\n";
    }
}

}  // namespace switchyard::ops
