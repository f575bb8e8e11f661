// SPDX-License-Identifier: Apache-2.0
// Partitions and their topologies, read from scontrol's text or the --partition-topology option.
#include "switchyard/slurm/files/slurm_partitions.hpp"

#include <algorithm>
#include <array>

#include "switchyard/common/strings.hpp"
#include "switchyard/slurm/files/slurm_text.hpp"

namespace switchyard::slurm {
namespace {

constexpr std::size_t kMaxName = 256;

/// Partition and topology names go into the Lua hints as quoted words: Slurm's own characters.
bool safe_name(std::string_view s) {
    return !s.empty() && s.size() <= kMaxName && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-' || c == '.';
    });
}

using detail::shown;

Error parse_error(std::string_view source, std::size_t line, std::string message) {
    return Error::parse({std::string(source), static_cast<std::uint32_t>(line), 0},
                        std::move(message));
}

void set_partition(SlurmTopologies& out, const std::string& name, const std::string& kind) {
    for (auto& [n, k] : out.partitions) {
        if (n == name) {
            k = kind;
            return;
        }
    }
    out.partitions.emplace_back(name, kind);
}

}  // namespace

std::string topology_kind(std::string_view slurm_name) {
    auto name = slurm_name;
    if (name.substr(0, 9) == "topology/") {
        name.remove_prefix(9);
    }
    if (name == "tree" || name == "block" || name == "flat") {
        return std::string(name);
    }
    if (name == "ring" || name == "torus3d" || name == "3d_torus" || name == "other") {
        return "other";
    }
    if (name == "default" || name == "none") {  // TopologyPlugin=topology/default (before 23.11)
        return "flat";
    }
    return {};
}

std::string TopologyConfig::kind_of(std::string_view name) const {
    for (const auto& [n, k] : topologies) {
        if (n == name) {
            return k;
        }
    }
    return {};
}

Result<TopologyConfig> parse_topoconf(std::string_view text, std::string_view source) {
    TopologyConfig out;
    struct Entry {
        std::string name;
        bool is_default = false;
        std::vector<std::string> kinds;  // keys with content
        std::size_t line = 0;
    };
    std::vector<Entry> entries;
    std::size_t n = 0;
    for (std::size_t start = 0; start <= text.size();) {
        const auto nl = text.find('\n', start);
        const auto raw = text.substr(start, nl == std::string_view::npos ? nl : nl - start);
        start = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
        ++n;
        const auto line = trim(raw);
        if (line.empty() || line == "---" || line == "..." || line.substr(0, 5) == "%YAML" ||
            line[0] == '#') {
            continue;
        }
        if (raw.substr(0, 12) == "- topology: ") {
            const auto name = trim(raw.substr(12));
            if (!safe_name(name)) {
                return fail(parse_error(source, n,
                                        "topology name '" + shown(name) +
                                            "': expected letters, digits, '_', '-' or '.'"));
            }
            entries.push_back({std::string(name), false, {}, n});
            continue;
        }
        const std::size_t indent = raw.find_first_not_of(' ');
        if (indent != 2) {
            if (indent > 2 && !entries.empty()) {
                continue;  // the body of a tree, block, ring or torus
            }
            return fail(parse_error(source, n,
                                    "'" + shown(line) +
                                        "': expected '- topology: <name>' or an entry's key, as "
                                        "'scontrol show topoconf' prints them"));
        }
        if (entries.empty()) {
            return fail(parse_error(source, n, "'" + shown(line) + "' before any '- topology:'"));
        }
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) {
            return fail(parse_error(source, n, "'" + shown(line) + "': expected 'key: value'"));
        }
        const auto key = line.substr(0, colon);
        const auto value = trim(line.substr(colon + 1));
        auto& e = entries.back();
        if (key == "cluster_default") {
            e.is_default = value == "true" || value == "yes";
        } else if (key == "tree" || key == "block" || key == "ring" || key == "torus3d" ||
                   key == "flat") {
            if (value != "{}" && value != "false" && value != "[]") {
                e.kinds.push_back(topology_kind(key));
            }
        }  // other keys (a later release's) are not the kind
    }
    for (const auto& e : entries) {
        if (e.kinds.size() > 1) {
            return fail(parse_error(source, e.line,
                                    "topology '" + e.name + "' has " + join(e.kinds, " and ") +
                                        " content; expected one kind"));
        }
        const std::string kind = e.kinds.empty() ? "flat" : e.kinds[0];
        if (!out.kind_of(e.name).empty()) {
            return fail(parse_error(source, e.line, "topology '" + e.name + "' appears twice"));
        }
        out.topologies.emplace_back(e.name, kind);
        if (e.is_default && out.cluster_default.empty()) {
            out.cluster_default = e.name;
        }
    }
    if (out.topologies.empty()) {
        return fail(parse_error(source, 0, "no '- topology: <name>' entry"));
    }
    if (out.cluster_default.empty()) {
        out.cluster_default = out.topologies.front().first;
    }
    return out;
}

Result<std::vector<PartitionLine>> parse_partitions(std::string_view text,
                                                    std::string_view source) {
    std::vector<PartitionLine> out;
    std::size_t n = 0;
    for (std::size_t start = 0; start <= text.size();) {
        const auto nl = text.find('\n', start);
        const auto line = trim(text.substr(start, nl == std::string_view::npos ? nl : nl - start));
        start = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
        ++n;
        if (line.empty()) {
            continue;
        }
        if (line.substr(0, 14) != "PartitionName=") {
            return fail(parse_error(source, n,
                                    "'" + shown(line) +
                                        "': expected 'PartitionName=...' (scontrol show "
                                        "partition --oneliner)"));
        }
        PartitionLine p;
        for (const auto word : split(line, ' ')) {
            const auto eq = word.find('=');
            if (eq == std::string_view::npos) {
                continue;
            }
            const auto key = word.substr(0, eq);
            const auto value = word.substr(eq + 1);
            if (key == "PartitionName") {
                p.name = std::string(value);
            } else if (key == "Topology") {
                p.topology = value == "(null)" ? std::string() : std::string(value);
            } else if (key == "Default") {
                p.is_default = value == "YES";
            }
        }
        if (!safe_name(p.name)) {
            return fail(parse_error(source, n,
                                    "partition name '" + shown(p.name) +
                                        "': expected letters, digits, '_', '-' or '.'"));
        }
        if (!p.topology.empty() && !safe_name(p.topology)) {
            return fail(parse_error(source, n,
                                    "partition " + p.name + ": Topology='" + shown(p.topology) +
                                        "': expected letters, digits, '_', '-' or '.'"));
        }
        out.push_back(std::move(p));
    }
    return out;
}

Result<SlurmTopologies> slurm_topologies(const std::vector<PartitionLine>& partitions,
                                         const TopologyConfig& config) {
    SlurmTopologies out;
    out.default_kind = config.kind_of(config.cluster_default);
    if (out.default_kind.empty()) {
        return fail(Error::invalid_argument("the cluster default topology '" +
                                            config.cluster_default + "' is not configured"));
    }
    for (const auto& p : partitions) {
        if (p.is_default && out.default_partition.empty()) {
            out.default_partition = p.name;
        }
        if (p.topology.empty()) {
            continue;  // the cluster default
        }
        const auto kind = config.kind_of(p.topology);
        if (kind.empty()) {
            return fail(Error::invalid_argument("partition " + p.name + ": Topology=" + p.topology +
                                                " is not one of the cluster's topologies"));
        }
        if (kind != out.default_kind) {
            set_partition(out, p.name, kind);
        }
    }
    return out;
}

Result<void> add_partition_topologies(std::string_view text,
                                      const TopologyConfig& config,
                                      SlurmTopologies& out) {
    for (const auto item_raw : split(text, ',')) {
        const auto item = trim(item_raw);
        const auto eq = item.find('=');
        const auto name = trim(item.substr(0, eq));
        const auto topo =
            eq == std::string_view::npos ? std::string_view() : trim(item.substr(eq + 1));
        if (eq == std::string_view::npos || !safe_name(name) || topo.empty()) {
            return fail(Error::invalid_argument(
                "--partition-topology: '" + shown(item) +
                "': expected PARTITION=TOPOLOGY (a partition name, then tree, block, flat, other "
                "or a topology name of discover's topology.yaml), or 'slurm'"));
        }
        auto kind = topology_kind(topo);
        if (kind.empty()) {
            kind = config.kind_of(topo);
        }
        if (kind.empty()) {
            std::vector<std::string> names;
            for (const auto& [n, k] : config.topologies) {
                names.push_back(n + " (" + k + ")");
            }
            return fail(Error::invalid_argument(
                "--partition-topology: " + std::string(name) + "=" + shown(topo) +
                ": unknown topology; expected tree, block, flat, other" +
                (names.empty() ? std::string() : " or one of " + join(names, ", "))));
        }
        set_partition(out, std::string(name), kind);
    }
    return {};
}

TopologyConfig discover_topology_names() {
    TopologyConfig c;
    c.topologies = {{"fabric", "tree"}, {"blocks", "block"}};
    c.cluster_default = "fabric";
    return c;
}

}  // namespace switchyard::slurm
