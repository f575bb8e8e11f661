// SPDX-License-Identifier: Apache-2.0
// `switchyard nccl-env`: the NCCL variables this node would get for a job, and why.
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "switchyard/common/hostlist.hpp"
#include "switchyard/nccl/rules.hpp"
#include "switchyard/node/node_readers.hpp"
#include "switchyard/ops/inputs.hpp"
#include "switchyard/policy/loaders.hpp"

namespace switchyard::cli {

using ops::load_fabric_map;
using ops::read_json_dir;
using ops::short_hostname;
namespace {

constexpr const char* kDefaultPolicy = "/etc/slurm/switchyard.yaml";

struct NcclArgs {
    std::string hwloc_xml;
    std::string sysfs_root;
    std::string map;
    std::string policy;
    std::string nodes;
    std::string host;
    std::string choice = "auto";
    unsigned tasks_per_node = 1;
    unsigned nvl_group = 0;
    bool shared = false;
    bool explain = false;
    bool json = false;
};

int run_nccl_env(const NcclArgs& a) {
    policy::Policy pol;
    const bool explicit_policy = !a.policy.empty();
    const std::string policy_path = explicit_policy ? a.policy : kDefaultPolicy;
    if (explicit_policy || std::filesystem::exists(policy_path)) {
        auto loaded = policy::load_policy_file(policy_path);
        if (!loaded) {
            std::cerr << "switchyard nccl-env: " << loaded.error().message() << "\n";
            return kExitProblem;
        }
        pol = std::move(*loaded);
    }
    auto choice = parse_nccl_env(a.choice);
    if (!choice) {
        std::cerr << "switchyard nccl-env: " << choice.error().message() << "\n";
        return kExitUsage;
    }
    nccl::JobFacts job;
    job.this_host = !a.host.empty() ? a.host : short_hostname();
    if (!a.nodes.empty()) {
        auto hosts = expand_hostlist(a.nodes);
        if (!hosts) {
            std::cerr << "switchyard nccl-env: --nodes: " << hosts.error().message() << "\n";
            return kExitUsage;
        }
        job.hosts = std::move(*hosts);
    } else {
        job.hosts = {job.this_host};
    }
    job.exclusive = !a.shared;
    job.tasks_per_node = a.tasks_per_node;
    auto node = policy::load_node(pol, {job.this_host, a.hwloc_xml, a.sysfs_root});
    if (!node) {
        std::cerr << "switchyard nccl-env: " << node.error().to_string() << "\n";
        return kExitProblem;
    }
    std::optional<fabric::FabricMap> map;
    const auto map_path = !a.map.empty() ? a.map : pol.fabric_map;
    if (!map_path.empty()) {
        auto m = policy::load_fabric_map_file(map_path);
        if (!m) {
            std::cerr << "switchyard nccl-env: " << m.error().to_string() << "\n";
            return kExitProblem;
        }
        map = std::move(*m);
    }
    if (a.nvl_group != 0) {
        job.nvl_group = a.nvl_group;
    }
    // The IMEX channel as the plugin looks at it: only for nodes of a map with NVLink domains.
    if (!pol.nccl.imex_channel.empty() && map && !map->domains.empty()) {
        std::error_code ec;
        const auto channel = node::expand_node_path(pol.nccl.imex_channel, job.this_host);
        job.imex_channel = std::filesystem::exists(channel, ec);
        job.imex_channel_path = channel.string();
    }
    const auto d = nccl::decide_node_env(pol.nccl, *node, map ? &*map : nullptr, job, *choice, {});
    if (a.json) {
        nlohmann::json out{{"host", job.this_host}, {"shape", node->shape}};
        auto& set = out["set"] = nlohmann::json::array();
        for (const auto& c : d.set) {
            set.push_back({{"name", c.name},
                           {"value", c.value},
                           {"rule", c.rule},
                           {"why", c.why},
                           {"enforce", c.enforce}});
        }
        out["unset"] = d.unset;
        out["warnings"] = d.warnings;
        std::cout << out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return kExitOk;
    }
    for (const auto& c : d.set) {
        std::cout << c.name << "=" << c.value;
        if (a.explain) {
            std::cout << "    # " << c.rule << ": " << c.why;
        }
        std::cout << "\n";
    }
    if (a.explain) {
        for (const auto& u : d.unset) {
            std::cout << "# " << u << "\n";
        }
        std::cout << "# node " << job.this_host << ": " << node->shape << "\n";
    }
    for (const auto& w : d.warnings) {
        std::cerr << "switchyard nccl-env: warning: " << w << "\n";
    }
    return kExitOk;
}

}  // namespace

void setup_nccl_env(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<NcclArgs>();
    cmd.footer(
        "\nExamples:\n  switchyard nccl-env --explain\n"
        "  switchyard nccl-env --policy /etc/slurm/switchyard.yaml --nodes 'gpu[001-064]' --json\n"
        "  switchyard nccl-env --sysfs-root /tmp/fake-sys --host node003 --nccl-env debug\n");
    cmd.add_option("--policy", a->policy,
                   "policy file (default /etc/slurm/switchyard.yaml if present)");
    cmd.add_option("--hwloc-xml", a->hwloc_xml, "hwloc XML of the node instead of the policy's");
    cmd.add_option("--sysfs-root", a->sysfs_root, "directory standing for /sys (%n = --host)");
    cmd.add_option("--map", a->map, "fabric map instead of the policy's");
    cmd.add_option("--nodes", a->nodes, "the job's nodes as a Slurm hostlist (default: this node)");
    cmd.add_option("--host", a->host, "this node's Slurm name (default: the host name)");
    cmd.add_option("--nccl-env", a->choice, "auto, off or a profile name, as users pass it");
    cmd.add_option("--nvl-group", a->nvl_group,
                   "nodes per NVLink group, as users pass --nvl-group (NCCL_MNNVL_CLIQUE_ID)")
        ->check(CLI::Range(1U, kMaxNvlGroup));
    cmd.add_option("--tasks-per-node", a->tasks_per_node, "ranks on this node")
        ->check(CLI::Range(1U, 4096U));
    cmd.add_flag("--shared", a->shared, "the node is shared with other jobs");
    cmd.add_flag("--explain", a->explain, "each variable's rule and facts, and what stays unset");
    cmd.add_flag("--json", a->json, "JSON: set [{name, value, rule, why}], unset, warnings");
    cmd.callback([&run, a] { run = [a] { return run_nccl_env(*a); }; });
}

}  // namespace switchyard::cli
