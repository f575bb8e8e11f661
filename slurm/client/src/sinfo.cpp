// SPDX-License-Identifier: Apache-2.0
// sinfo's command lines and what they print.
#include "switchyard/slurm/client/sinfo.hpp"

#include <cctype>
#include <optional>

#include "switchyard/common/strings.hpp"
#include "switchyard/slurm/client/slurm_jobs.hpp"

namespace switchyard::slurm {

namespace {

/// Whether a node state, as sinfo (idle, drained*, mixed+drain) or scontrol (IDLE+DRAIN,
/// IDLE+CLOUD+POWERED_DOWN) prints it, holds the node out of service: a part that is DRAIN...,
/// DOWN or FAIL... (power saving's POWERED_DOWN is not one).
bool state_held(std::string_view state) {
    for (auto part : split(state, '+')) {
        std::string up;
        for (const char c : part) {
            up += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        }
        if (up.starts_with("DRAIN") || up.starts_with("DOWN") || up.starts_with("FAIL")) {
            return true;
        }
    }
    return false;
}

}  // namespace

std::vector<std::string> slurm_nodes_query(const std::string& nodes) {
    std::vector<std::string> argv{"sinfo", "--all", "--noheader", "--Node", "--format=%N|%w|%T|%E"};
    if (!nodes.empty()) {
        argv.push_back("--nodes=" + nodes);
    }
    return argv;
}

Result<std::map<std::string, NodeState>> parse_slurm_nodes(std::string_view text) {
    std::map<std::string, NodeState> out;
    std::size_t number = 0;
    for (auto line : split(text, '\n')) {
        ++number;
        line = trim(line);
        if (line.empty() || line.starts_with("sinfo: ")) {
            continue;  // sinfo's own diagnostics (its stderr comes along): not a node
        }
        const auto fields = split(line, '|');
        std::optional<unsigned> weight;
        if (fields.size() >= 4) {
            weight = parse_number<unsigned>(fields[1]);
        }
        if (!weight || fields[0].empty()) {
            return fail(Error::parse({"sinfo output", static_cast<std::uint32_t>(number), 0},
                                     "'" + std::string(line.substr(0, 120)) +
                                         "': expected <node>|<weight>|<state>|<reason>"));
        }
        NodeState node{*weight, state_held(fields[2]), {}};
        if (node.held) {
            // Everything after the third '|' (a reason may hold one); sinfo prints "none" for
            // no reason.
            const auto reason =
                line.substr(fields[0].size() + fields[1].size() + fields[2].size() + 3);
            node.reason = reason == "none" ? std::string() : std::string(reason);
        }
        out[std::string(fields[0])] = std::move(node);
    }
    return out;
}

Result<std::map<std::string, NodeState>> node_states(Client& client, const std::string& nodes) {
    auto argv = slurm_nodes_query(nodes);
    argv.erase(argv.begin());
    Call call{Tool::Sinfo, std::move(argv)};
    auto text = client.run(call);
    if (!text) {
        return fail(text.error());
    }
    auto parsed = parse_slurm_nodes(*text);
    if (!parsed) {
        return fail(Error::io(call.command_line() + ": " + parsed.error().to_string()));
    }
    return parsed;
}

Result<std::map<std::string, std::set<std::string>>> node_features(Client& client) {
    auto text = client.run(
        {Tool::Sinfo, {"--noheader", "--Node", "--format=" + std::string(kSinfoFeaturesFormat)}});
    if (!text) {
        return fail(text.error());
    }
    return parse_node_features(*text);
}

Result<std::map<std::string, std::set<std::string>>> partition_nodes(Client& client) {
    auto text = client.run(
        {Tool::Sinfo, {"--noheader", "--Node", "--format=" + std::string(kSinfoPartitionsFormat)}});
    if (!text) {
        return fail(text.error());
    }
    return parse_partition_nodes(*text);
}

Result<std::vector<std::string>> usable_nodes(Client& client,
                                              const std::string& partition,
                                              double timeout_s) {
    Call call{Tool::Sinfo,
              {"--noheader", "--Node", "--format=" + std::string(kSinfoStatesFormat)},
              timeout_s};
    if (!partition.empty()) {
        call.args.push_back("--partition=" + partition);
    }
    auto text = client.run(call);
    if (!text) {
        return fail(text.error());
    }
    return parse_usable_nodes(*text);
}

}  // namespace switchyard::slurm
