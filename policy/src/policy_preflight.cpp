// SPDX-License-Identifier: Apache-2.0
// The policy's preflight section: when a job's nodes are measured before it trains, the limits,
// the probes, and what a cable or switch at fault does to the job.
#include "policy_sections.hpp"

namespace switchyard::policy {
namespace {

class PreflightReader : public YamlReader {
public:
    using YamlReader::YamlReader;

    std::optional<preflight::Mode> mode(const YAML::Node& n, const std::string& key) {
        const auto m = preflight::mode_from_string(scalar(n));
        // YAML reads a bare `off` as false: the same word either way.
        if (!m && n.IsScalar() && (scalar(n) == "false" || scalar(n) == "no")) {
            return preflight::Mode::Off;
        }
        if (!m) {
            problem(n, key, "expected off, quick or full, got '" + scalar(n) + "'");
        }
        return m;
    }

    std::vector<std::string> argv(const YAML::Node& n, const std::string& key) {
        std::vector<std::string> out;
        if (!list_of(n, key, "words, the first an absolute path (no shell)") || n.size() == 0 ||
            n.size() > 64) {
            if (n.IsSequence()) {
                problem(n, key, "expected 1 to 64 words, the first an absolute path");
            }
            return out;
        }
        for (std::size_t i = 0; i < n.size(); ++i) {
            out.push_back(text(n[i], key + "[" + std::to_string(i) + "]", "a word"));
        }
        if (!out.front().starts_with('/')) {
            problem(n[0], key + "[0]",
                    "expected an absolute path (the probe runs without a shell or PATH), got '" +
                        out.front() + "'");
            out.clear();
        }
        return out;
    }

    void read(const YAML::Node& n, preflight::PreflightPolicy& out) {
        if (auto v = n["mode"]) {
            out.mode = mode(v, "preflight.mode").value_or(out.mode);
        }
        if (auto v = n["partitions"]) {
            if (!v.IsMap()) {
                problem(v, "preflight.partitions",
                        "expected a mapping of partition names to off, quick or full");
            } else {
                for (auto it = v.begin(); it != v.end(); ++it) {
                    const auto name = scalar(it->first);
                    if (auto m = mode(it->second, "preflight.partitions." + name)) {
                        out.partitions.emplace_back(name, *m);
                    }
                }
            }
        }
        if (auto v = n["deadline_s"]) {
            out.deadline_s = positive(v, "preflight.deadline_s", 3600).value_or(out.deadline_s);
        }
        if (auto v = n["probe_timeout_s"]) {
            out.probe_timeout_s =
                positive(v, "preflight.probe_timeout_s", 600).value_or(out.probe_timeout_s);
        }
        if (auto v = n["max_latency_us"]) {
            out.limits.max_latency_us =
                positive(v, "preflight.max_latency_us", 1e6).value_or(out.limits.max_latency_us);
        }
        if (auto v = n["min_bandwidth_share"]) {
            const auto s = positive(v, "preflight.min_bandwidth_share", 1);
            out.limits.min_bandwidth_share = s.value_or(out.limits.min_bandwidth_share);
        }
        if (auto v = n["link_rate_gbps"]) {
            out.limits.link_rate_gbps =
                positive(v, "preflight.link_rate_gbps", 1e5).value_or(out.limits.link_rate_gbps);
        }
        if (auto v = n["on_link_fault"]) {
            if (scalar(v) == "warn") {
                out.on_link_fault = preflight::OnLinkFault::Warn;
            } else if (scalar(v) == "requeue") {
                out.on_link_fault = preflight::OnLinkFault::Requeue;
            } else {
                problem(v, "preflight.on_link_fault",
                        "expected warn or requeue, got '" + scalar(v) + "'");
            }
        }
        for (const auto& [key, field] :
             {std::pair<const char*, std::vector<std::string>*>{"latency", &out.latency},
              {"bandwidth", &out.bandwidth},
              {"all_reduce", &out.all_reduce}}) {
            if (auto v = n[key]) {
                auto words = argv(v, std::string("preflight.") + key);
                if (!words.empty()) {
                    *field = std::move(words);
                }
            }
        }
        if (auto v = n["command"]) {
            const auto c = text(v, "preflight.command", "the switchyard command's absolute path");
            if (!c.starts_with('/')) {
                problem(
                    v, "preflight.command",
                    "expected an absolute path (the prolog runs it without PATH), got '" + c + "'");
            } else {
                out.command = c;
            }
        }
        if (auto v = n["port"]) {
            // Under 1024: only root can listen there, so no user can pose as the first node.
            out.port =
                static_cast<std::uint16_t>(number(v, "preflight.port", 1, 1023).value_or(out.port));
        }
        if (auto v = n["ports"]) {
            out.ports = static_cast<std::uint16_t>(
                number(v, "preflight.ports", 1, 1023).value_or(out.ports));
        }
        if (out.port + out.ports > 1024) {
            problem(n, "preflight.ports",
                    "port + ports must stay under 1024 (root's ports), got " +
                        std::to_string(out.port) + " + " + std::to_string(out.ports));
            out.ports = static_cast<std::uint16_t>(1024 - out.port);
        }
        if (auto v = n["join_s"]) {
            out.join_s = positive(v, "preflight.join_s", 600).value_or(out.join_s);
        }
        if (auto v = n["reports"]) {
            out.reports = scalar(v);
            if (!out.reports.empty() && !out.reports.starts_with('/')) {
                problem(v, "preflight.reports",
                        "expected an absolute directory or \"\", got '" + out.reports + "'");
                out.reports.clear();
            }
        }
        if (auto v = n["all_reduce_limits"];
            v && list_of(v, "preflight.all_reduce_limits", "{bytes, gpus, max_time_us}")) {
            for (std::size_t i = 0; i < v.size(); ++i) {
                const auto k = "preflight.all_reduce_limits[" + std::to_string(i) + "]";
                const auto e = v[i];
                if (!keys(e, k + ".", {"bytes", "gpus", "max_time_us"})) {
                    continue;
                }
                preflight::AllReduceLimit l;
                if (!e["bytes"] || !e["gpus"] || !e["max_time_us"]) {
                    problem(e, k, "expected bytes, gpus and max_time_us, all three");
                    continue;
                }
                l.bytes = static_cast<std::uint64_t>(
                    positive(e["bytes"], k + ".bytes", 1e12).value_or(0));
                l.gpus = number(e["gpus"], k + ".gpus", 1, 1000000).value_or(0);
                l.max_time_us = positive(e["max_time_us"], k + ".max_time_us", 1e9).value_or(0);
                if (l.bytes != 0 && l.gpus != 0 && l.max_time_us > 0) {
                    out.all_reduce_limits.push_back(l);
                }
            }
        }
    }
};

}  // namespace

void read_preflight_section(const std::string& source,
                            std::vector<ConfigProblem>& problems,
                            const YAML::Node& n,
                            preflight::PreflightPolicy& out) {
    PreflightReader(source, problems).read(n, out);
}

}  // namespace switchyard::policy
