// SPDX-License-Identifier: Apache-2.0
// switchyard.yaml: yaml-cpp at the edge, then a validating walk that reports every problem with
// file:line:col, the key path, what was expected and what was found.
#include "switchyard/policy/policy.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "policy_sections.hpp"
#include "switchyard/common/strings.hpp"

namespace switchyard::policy {
namespace {

class Loader : public YamlReader {
public:
    explicit Loader(std::string_view source) : YamlReader(std::string(source), own_problems_) {}

    PolicyLoad run(std::string_view text) {
        YAML::Node root;
        try {
            root = YAML::Load(std::string(text));
        } catch (const YAML::ParserException& e) {
            problems_.push_back({SourceLoc{source_, static_cast<std::uint32_t>(e.mark.line + 1),
                                           static_cast<std::uint32_t>(e.mark.column + 1)},
                                 "yaml", "not valid YAML: " + e.msg});
            return finish();
        } catch (const std::exception& e) {
            problems_.push_back(
                {SourceLoc{source_, 0, 0}, "yaml", std::string("not valid YAML: ") + e.what()});
            return finish();
        }
        Policy p;
        p.source = source_;
        try {
            read_root(root, p);
        } catch (const YAML::Exception& e) {
            // Every shape is checked before it is read; reaching here is a bug in this loader
            // (the fuzz harness treats it as a finding), reported like any other problem.
            problems_.push_back({SourceLoc{source_, static_cast<std::uint32_t>(e.mark.line + 1),
                                           static_cast<std::uint32_t>(e.mark.column + 1)},
                                 "yaml", std::string(kUnexpectedShape) + e.msg});
        }
        if (problems_.empty()) {
            result_ = std::move(p);
        }
        return finish();
    }

private:
    std::vector<ConfigProblem> own_problems_;
    std::optional<Policy> result_;

    void read_root(const YAML::Node& root, Policy& p) {
        // One list for the check and for the message (the message once named four of six).
        const std::vector<std::string_view> sections{"version",   "fabric", "node",     "nccl",
                                                     "placement", "health", "preflight"};
        if (!root.IsMap()) {
            problem(root, "(top)",
                    "the file must be a mapping of sections; expected keys " + join_keys(sections));
            return;
        }
        keys(root, "", sections);
        const auto version = root["version"];
        if (!version) {
            problem(root, "version", "missing; expected 'version: 1' at the top of the file");
        } else if (scalar(version) != "1") {
            problem(version, "version", "unsupported; expected 1, got '" + scalar(version) + "'");
        }
        if (auto fabric = section(root, "fabric", {"map"})) {
            p.fabric_map = path((*fabric)["map"], "fabric.map", false);
        }
        if (auto node = section(root, "node", {"hwloc_xml", "sysfs_root", "cache"})) {
            p.hwloc_xml = path((*node)["hwloc_xml"], "node.hwloc_xml", true);
            if ((*node)["sysfs_root"]) {
                p.sysfs_root = path((*node)["sysfs_root"], "node.sysfs_root", true);
            }
            if (const auto cache = (*node)["cache"]) {
                const bool off =
                    cache.IsScalar() &&
                    (scalar(cache) == "off" || scalar(cache) == "false" || scalar(cache) == "no");
                p.node_cache = off ? "" : path(cache, "node.cache", true);
            }
        }
        if (auto nccl =
                section(root, "nccl",
                        {"enabled", "min_version", "compute_hca", "socket_ifname", "rail_optimized",
                         "large_job_nodes", "roce_qps_per_connection", "ib_addr_family",
                         "ib_addr_range", "imex_channel", "profiles", "inspector", "ras_ports"})) {
            read_nccl_section(source_, problems_, *nccl, p.nccl);
        }
        if (auto pl = section(root, "placement",
                              {"link_gbps", "alpha_net_us", "alpha_hop_us", "leaf_oversubscription",
                               "global_links", "grad_gbytes", "activation_mbytes", "micro_batches",
                               "nvlink_gbps", "alpha_nvlink_us", "stripe_stages"})) {
            read_placement(*pl, p.placement);
        }
        if (auto h =
                section(root, "health",
                        health_keys({"enabled", "on_error", "budget_s"}, {"breaker", "sets"}))) {
            read_health_section(source_, problems_, *h, p.health);
        }
        if (auto pf =
                section(root, "preflight",
                        {"mode", "partitions", "deadline_s", "probe_timeout_s", "max_latency_us",
                         "min_bandwidth_share", "link_rate_gbps", "on_link_fault", "latency",
                         "bandwidth", "all_reduce", "all_reduce_limits", "command", "port", "ports",
                         "join_s", "reports"})) {
            read_preflight_section(source_, problems_, *pf, p.preflight);
        }
        // One definition of a compute HCA: the checks of compute ports use nccl.compute_hca
        // unless they name their own (before, an unset hca counted storage HCAs too).
        auto inherit = [&](health::HealthChecks& h) {
            if (h.rdma_ports && h.rdma_ports->hca.empty()) {
                h.rdma_ports->hca = p.nccl.compute_hca;
            }
            if (h.link_errors && h.link_errors->hca.empty()) {
                h.link_errors->hca = p.nccl.compute_hca;
            }
        };
        inherit(p.health.checks);
        for (auto& set : p.health.sets) {
            inherit(set.checks);
        }
    }

    PolicyLoad finish() { return {std::move(result_), std::move(problems_)}; }

    void read_placement(const YAML::Node& n, placement::PlacementPolicy& out) {
        const std::pair<const char*, double*> reals[] = {
            {"link_gbps", &out.link_gbps},
            {"alpha_net_us", &out.alpha_net_us},
            {"alpha_hop_us", &out.alpha_hop_us},
            {"leaf_oversubscription", &out.leaf_oversubscription},
            {"grad_gbytes", &out.grad_gbytes},
            {"activation_mbytes", &out.activation_mbytes},
            {"nvlink_gbps", &out.nvlink_gbps},
            {"alpha_nvlink_us", &out.alpha_nvlink_us}};
        for (const auto& [key, dest] : reals) {
            if (n[key]) {
                *dest = positive(n[key], std::string("placement.") + key, 1e6).value_or(*dest);
            }
        }
        if (n["global_links"]) {
            out.global_links = number(n["global_links"], "placement.global_links", 1, 4096)
                                   .value_or(out.global_links);
        }
        if (n["micro_batches"]) {
            out.micro_batches = number(n["micro_batches"], "placement.micro_batches", 1, 100000)
                                    .value_or(out.micro_batches);
        }
        if (const auto stripe = n["stripe_stages"]) {
            const auto v = text(stripe, "placement.stripe_stages", "auto or never");
            if (v == "auto" || v == "never") {
                out.stripe_stages = v == "auto";
            } else if (stripe.IsScalar()) {
                problem(stripe, "placement.stripe_stages",
                        "expected auto or never, got '" + v + "'");
            }
        }
    }
};

}  // namespace

std::string ConfigProblem::to_string() const {
    return where.to_string() + ": " + key + ": " + message;
}

PolicyLoad load_policy(std::string_view yaml, std::string_view source) {
    return Loader(source).run(yaml);
}

}  // namespace switchyard::policy
