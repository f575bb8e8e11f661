// SPDX-License-Identifier: Apache-2.0
// scontrol: the cluster's topologies for discover, the reconfigure install must see taken.
#include "switchyard/slurm/client/scontrol.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "switchyard/common/strings.hpp"

namespace switchyard::slurm {

namespace fs = std::filesystem;

Result<std::string> scontrol(Client& client, std::vector<std::string> args) {
    return client.run({Tool::Scontrol, std::move(args)});
}

Result<std::vector<PartitionLine>> partitions_from_slurm(Client& client) {
    auto text = scontrol(client, {"show", "partition", "--oneliner"});
    if (!text) {
        return fail(text.error());
    }
    return parse_partitions(*text, "scontrol show partition");
}

Result<std::pair<std::string, std::string>> show_topology(Client& client, const std::string& name) {
    Call call{Tool::Scontrol, {"show", "topology"}};
    if (name != "default") {
        call.args.push_back(name);  // 25.05+: a bare word names a topology
    }
    auto text = client.run(call);
    if (!text) {
        return fail(text.error());
    }
    return std::pair{std::move(*text), call.command_line()};
}

Result<void> set_node_weight(Client& client, const std::string& nodes, unsigned w) {
    auto r = scontrol(client, {"update", "NodeName=" + nodes, "Weight=" + std::to_string(w)});
    if (!r) {
        return fail(r.error());
    }
    return {};
}

Result<void> drain_node(Client& client, const std::string& node, const std::string& reason) {
    // Whatever a check said, slurmctld keeps one printable line of bounded size.
    auto r = client.run({Tool::Scontrol,
                         {"update", "NodeName=" + node, "State=DRAIN",
                          "Reason=" + bounded_line(reason, kMaxDrainReason)},
                         15});
    if (!r) {
        return fail(r.error());
    }
    return {};
}

namespace {

Result<void> scontrol_15s(Client& client, std::vector<std::string> args) {
    auto r = client.run({Tool::Scontrol, std::move(args), 15});
    if (!r) {
        return fail(r.error());
    }
    return {};
}

}  // namespace

Result<void> requeue_job(Client& client, const std::string& job, bool hold) {
    return scontrol_15s(client, {hold ? "requeuehold" : "requeue", job});
}

Result<void> exclude_nodes(Client& client, const std::string& job, const std::string& nodes) {
    return scontrol_15s(client, {"update", "JobId=" + job, "ExcNodeList=" + nodes});
}

Result<void> release_job(Client& client, const std::string& job) {
    return scontrol_15s(client, {"release", job});
}

std::string scontrol_field(std::string_view line, std::string_view key) {
    const std::string k = std::string(key) + "=";
    for (std::size_t at = line.find(k); at != std::string_view::npos; at = line.find(k, at + 1)) {
        if (at == 0 || line[at - 1] == ' ') {
            const auto begin = at + k.size();
            const auto end = line.find_first_of(" \n", begin);
            return std::string(
                line.substr(begin, end == std::string_view::npos ? end : end - begin));
        }
    }
    return "";
}

Result<std::string> node_address(Client& client, const std::string& node) {
    auto r = client.run({Tool::Scontrol, {"show", "node", "-o", node}, 15});
    if (!r) {
        return fail(r.error());
    }
    auto addr = scontrol_field(*r, "NodeAddr");
    if (addr.empty()) {
        return fail(Error::io("scontrol show node " + node + ": no NodeAddr in its answer"));
    }
    return addr;
}

Result<std::string> excluded_nodes(Client& client, const std::string& job) {
    auto r = client.run({Tool::Scontrol, {"show", "job", "-o", job}, 15});
    if (!r) {
        return fail(r.error());
    }
    auto list = scontrol_field(*r, "ExcNodeList");
    return list == "(null)" ? std::string() : list;
}

Result<void> resume_node(Client& client, const std::string& node) {
    auto r = client.run({Tool::Scontrol, {"update", "NodeName=" + node, "State=RESUME"}, 15});
    if (!r) {
        return fail(r.error());
    }
    return {};
}

Result<TopologyConfig> topology_config_from_slurm(Client& client) {
    TopologyConfig config;
    if (auto yaml = scontrol(client, {"show", "topoconf"})) {
        auto parsed = parse_topoconf(*yaml, "scontrol show topoconf");
        if (!parsed) {
            return fail(parsed.error());
        }
        config = std::move(*parsed);
    }
    // Before 25.05 there is no topoconf; from 25.05 a cluster without topology.yaml shows one
    // empty entry named "default" (26.05.5): either way the one TopologyPlugin decides.
    if (config.topologies.empty() ||
        (config.topologies.size() == 1 && config.topologies[0].first == "default" &&
         config.topologies[0].second == "flat")) {
        auto conf = scontrol(client, {"show", "config"});
        if (!conf) {
            return fail(conf.error());
        }
        std::string kind = "flat";
        for (const auto line : split(*conf, '\n')) {
            const auto eq = line.find('=');
            if (eq != std::string_view::npos && trim(line.substr(0, eq)) == "TopologyPlugin") {
                const auto value = trim(line.substr(eq + 1));
                kind = value == "(null)" ? "flat" : topology_kind(value);
                if (kind.empty()) {
                    return fail(
                        Error::io("scontrol show config: TopologyPlugin=" + std::string(value) +
                                  " is not a topology switchyard knows"));
                }
            }
        }
        config.topologies = {{"default", kind}};
        config.cluster_default = "default";
    }
    return config;
}

Result<SlurmTopologies> topologies_from_slurm(Client& client) {
    auto parts = partitions_from_slurm(client);
    if (!parts) {
        return fail(parts.error());
    }
    auto config = topology_config_from_slurm(client);
    if (!config) {
        return fail(config.error());
    }
    return slurm_topologies(*parts, *config);
}

std::set<std::string> shown_units(std::string_view output) {
    std::set<std::string> out;
    std::string text(output);
    std::replace_if(
        text.begin(), text.end(), [](char c) { return c == '\n' || c == '\t'; }, ' ');
    for (const auto word : split(text, ' ')) {
        for (const std::string_view key : {"SwitchName=", "BlockName="}) {
            if (word.starts_with(key)) {
                out.emplace(word.substr(key.size()));
            }
        }
    }
    return out;
}

Result<void> reconfigure_and_check(Client& client,
                                   const fs::path& dir,
                                   const fabric::FabricMap& map) {
    const auto lua = dir / "job_submit.lua";
    std::error_code ec;
    if (const auto st = fs::symlink_status(lua, ec); fs::exists(st) && !fs::is_symlink(st)) {
        ::utimensat(AT_FDCWD, lua.c_str(), nullptr, 0);
    }
    if (auto r = client.run({Tool::Scontrol, {"reconfigure"}, 60}); !r) {
        return fail(r.error());
    }
    // From 23.11 on slurmctld restarts itself to reconfigure: it may not answer at once.
    std::string last;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (true) {
        auto t = scontrol(client, {"show", "topology"});
        if (t) {
            const auto shown = shown_units(*t);
            std::vector<std::string> missing;
            for (const auto& su : map.sus) {
                if (!shown.contains(su.name)) {
                    missing.push_back(su.name);
                }
            }
            if (missing.empty()) {
                return {};
            }
            last = "scontrol show topology does not list SU " + missing.front() + " (" +
                   std::to_string(missing.size()) + " of " + std::to_string(map.sus.size()) +
                   " SUs missing)";
        } else {
            last = t.error().message();
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return fail(Error::io(last));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
}

}  // namespace switchyard::slurm
