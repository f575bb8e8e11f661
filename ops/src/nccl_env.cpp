// SPDX-License-Identifier: Apache-2.0
// `switchyard nccl-env` (ops/nccl_env.hpp).
#include "switchyard/ops/nccl_env.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/job_options.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/ops/inputs.hpp"
#include "switchyard/policy/loaders.hpp"
#include "switchyard/policy/step_input.hpp"

namespace switchyard::ops {
namespace {

constexpr const char* kDefaultPolicy = "/etc/slurm/switchyard.yaml";

}  // namespace

NcclEnvReport run_nccl_env(const NcclEnvRequest& a, Deps& /*deps*/) {
    NcclEnvReport r;
    const auto stop = [&](int rc, std::string why) {
        r.rc = rc;
        r.error = std::move(why);
        return std::move(r);
    };
    policy::Policy pol;
    const bool explicit_policy = !a.policy.empty();
    const std::string policy_path = explicit_policy ? a.policy : kDefaultPolicy;
    if (explicit_policy || std::filesystem::exists(policy_path)) {
        auto loaded = policy::load_policy_file(policy_path);
        if (!loaded) {
            return stop(kExitProblem, loaded.error().message());
        }
        pol = std::move(*loaded);
    }
    auto choice = parse_nccl_env(a.choice);
    if (!choice) {
        return stop(kExitUsage, choice.error().message());
    }
    nccl::JobFacts job;
    job.this_host = !a.host.empty() ? a.host : short_hostname();
    if (!a.nodes.empty()) {
        auto hosts = expand_hostlist(a.nodes);
        if (!hosts) {
            return stop(kExitUsage, "--nodes: " + hosts.error().message());
        }
        job.hosts = std::move(*hosts);
    } else {
        job.hosts = {job.this_host};
    }
    job.exclusive = !a.shared;
    job.tasks_per_node = a.tasks_per_node;
    job.partition = a.partition;
    job.job_id = a.job;
    // The step's inputs as the plugin loads them (the whole map here, the node read in full).
    const auto in = policy::load_step_input(
        pol, {job.this_host, job.hosts, !a.map.empty() ? a.map : pol.fabric_map, /*step=*/false,
              /*node=*/true, a.hwloc_xml, a.sysfs_root});
    if (in.node_error) {
        return stop(kExitProblem, in.node_error->to_string());
    }
    if (in.map_error) {
        return stop(kExitProblem, in.map_error->to_string());
    }
    if (a.nvl_group != 0) {
        job.nvl_group = a.nvl_group;
    }
    job.imex_channel = in.imex.present;
    job.imex_channel_path = in.imex.path;
    job.nvlink_problem = in.nvlink_problem.value_or("");
    r.host = job.this_host;
    r.shape = in.node->shape;
    r.decision =
        nccl::decide_node_env(pol.nccl, *in.node, in.map ? &*in.map : nullptr, job, *choice, {});
    return r;
}

void print_nccl_env(const NcclEnvRequest& a,
                    const NcclEnvReport& r,
                    std::ostream& out,
                    std::ostream& err) {
    if (!r.error.empty()) {
        err << "switchyard nccl-env: " << r.error << "\n";
        return;
    }
    const auto& d = r.decision;
    if (a.json) {
        nlohmann::json o{{"host", r.host}, {"shape", r.shape}};
        auto& set = o["set"] = nlohmann::json::array();
        for (const auto& c : d.set) {
            set.push_back({{"name", c.name},
                           {"value", c.value},
                           {"rule", c.rule},
                           {"why", c.why},
                           {"enforce", c.enforce}});
        }
        o["unset"] = d.unset;
        o["warnings"] = d.warnings;
        out << o.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return;
    }
    for (const auto& c : d.set) {
        out << c.name << "=" << c.value;
        if (a.explain) {
            out << "    # " << c.rule << ": " << c.why;
        }
        out << "\n";
    }
    if (a.explain) {
        for (const auto& u : d.unset) {
            out << "# " << u << "\n";
        }
        out << "# node " << r.host << ": " << r.shape << "\n";
    }
    for (const auto& w : d.warnings) {
        err << "switchyard nccl-env: warning: " << w << "\n";
    }
}

}  // namespace switchyard::ops
