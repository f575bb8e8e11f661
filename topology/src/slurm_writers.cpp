// SPDX-License-Identifier: Apache-2.0
// Slurm topology and feature files from a FabricMap.
#include "switchyard/topology/slurm_writers.hpp"

#include <algorithm>
#include <vector>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/topology/fabric_index.hpp"
#include "two_cores.hpp"

namespace switchyard::topology {
namespace {

std::string comment_block(std::string_view header) {
    std::string out;
    std::size_t start = 0;
    while (start <= header.size() && !header.empty()) {
        const auto nl = header.find('\n', start);
        out += "# " + std::string(header.substr(start, nl - start)) + "\n";
        if (nl == std::string_view::npos) {
            break;
        }
        start = nl + 1;
    }
    return out;
}

std::string su_hosts(const FabricMap& map, const MapSu& su) {
    std::vector<std::string> names;
    names.reserve(su.hosts.size());
    for (const auto h : su.hosts) {
        names.push_back(map.hosts[h].name);
    }
    return compress_hostlist(std::move(names));
}

std::string names_of_sus(const FabricMap& map, const std::vector<std::uint32_t>& sus) {
    std::vector<std::string> names;
    for (const auto s : sus) {
        names.push_back(map.sus[s].name);
    }
    return compress_hostlist(std::move(names));
}

std::size_t group_hosts(const FabricMap& map, const MapGroup& g) {
    std::size_t n = 0;
    for (const auto s : g.sus) {
        n += map.sus[s].hosts.size();
    }
    return n;
}

bool power_of_two(std::size_t n) {
    return n > 0 && (n & (n - 1)) == 0;
}

}  // namespace

BlockLayout block_layout(const FabricMap& map) {
    BlockLayout out;
    if (map.sus.empty()) {
        return out;
    }
    // The compute hosts cabled into a spine form SUs of their own, usually a few hosts: they
    // neither set the base size nor count in a group's SUs, and their blocks come last, so they
    // shift no aggregate. Only when every SU is one of them do they count.
    bool any_leaf_su = false;
    for (std::uint32_t s = 0; s < map.sus.size(); ++s) {
        any_leaf_su = any_leaf_su || !map.su_on_spine(s);
    }
    const auto counted = [&](std::uint32_t s) { return !any_leaf_su || !map.su_on_spine(s); };
    std::size_t smallest = SIZE_MAX;
    std::size_t largest = 0;
    std::vector<std::size_t> per_group;
    std::vector<std::uint32_t> last;
    for (const auto& g : map.groups) {
        per_group.push_back(0);
        for (const auto s : g.sus) {
            if (!counted(s)) {
                last.push_back(s);
                continue;
            }
            out.sus.push_back(s);
            ++per_group.back();
            smallest = std::min(smallest, map.sus[s].hosts.size());
            largest = std::max(largest, map.sus[s].hosts.size());
        }
    }
    out.base = smallest;
    for (const auto s : last) {
        out.sus.push_back(s);
        out.notes.push_back("SU " + map.sus[s].name + " is the " +
                            std::to_string(map.sus[s].hosts.size()) +
                            " compute host(s) cabled into a spine: its block comes last and sets "
                            "no size");
    }
    if (smallest != largest) {
        out.notes.push_back("scalable units have " + std::to_string(smallest) + " to " +
                            std::to_string(largest) + " hosts: Slurm plans every block as " +
                            std::to_string(smallest) +
                            " nodes (BlockSizes' first size), so --segment can ask for at most " +
                            std::to_string(smallest) + " nodes inside one SU");
    }
    if (map.groups.size() < 2) {
        return out;
    }
    const std::size_t first = per_group.front();
    const bool same =
        std::all_of(per_group.begin(), per_group.end(), [&](std::size_t n) { return n == first; });
    if (!same || !power_of_two(first) || first < 2 || smallest != largest) {
        std::string counts;
        for (const auto n : per_group) {
            counts += (counts.empty() ? "" : ", ") + std::to_string(n);
        }
        const std::string why = smallest != largest ? "the SUs differ in size"
                                : !same             ? "groups hold " + counts + " SUs"
                                        : "every group holds " + std::to_string(first) + " SU" +
                                              (first == 1 ? "" : "s") +
                                              ", not a power of two of at least 2";
        out.notes.push_back(why +
                            ": Slurm aggregates 2^k consecutive blocks, aligned, so an aggregated "
                            "block would not be one group; BlockSizes has the SU level only "
                            "(groups come from the plan's stage order)");
        return out;
    }
    out.group = smallest * first;
    return out;
}

std::string su_feature(std::string_view su) {
    return "su_" + std::string(su);
}
std::string group_feature(std::string_view group) {
    return "grp_" + std::string(group);
}

std::string group_span_feature(std::string_view first_group, std::size_t span) {
    return "grp" + std::to_string(span) + "_" + std::string(first_group);
}

std::vector<GroupSpan> group_spans(const FabricMap& map) {
    std::vector<GroupSpan> out;
    const std::size_t groups = map.groups.size();
    for (std::size_t span = 2; span < groups; span *= 2) {
        GroupSpan level{span, 0, {}};
        for (std::size_t first = 0; first + span <= groups; first += span) {
            std::size_t hosts = 0;
            for (std::size_t g = first; g < first + span; ++g) {
                hosts += group_hosts(map, map.groups[g]);
            }
            level.hosts = std::max(level.hosts, hosts);
            level.features.push_back(group_span_feature(map.groups[first].name, span));
        }
        out.push_back(std::move(level));
    }
    return out;
}

/// "su_<su>,grp_<group>" and the features of the whole runs of groups that hold the SU's group.
std::string node_features(const FabricMap& map, const MapSu& su) {
    std::string out = su_feature(su.name) + "," + group_feature(map.groups[su.group].name);
    const std::size_t groups = map.groups.size();
    for (std::size_t span = 2; span < groups; span *= 2) {
        const std::size_t first = su.group / span * span;
        if (first + span <= groups) {
            out += "," + group_span_feature(map.groups[first].name, span);
        }
    }
    return out;
}

std::string write_topology_conf(const FabricMap& map, std::string_view header) {
    std::string out = comment_block(header);
    out += "# Scalable units (leaves that serve the same hosts)\n";
    for (const auto& su : map.sus) {
        out += "SwitchName=" + su.name + " Nodes=" + su_hosts(map, su) + "\n";
    }
    std::vector<std::string> top;
    if (map.groups.size() > 1) {
        out += "# Groups / pods\n";
        for (const auto& g : map.groups) {
            out += "SwitchName=" + g.name + " Switches=" + names_of_sus(map, g.sus) + "\n";
            top.push_back(g.name);
        }
    } else {
        for (const auto& su : map.sus) {
            top.push_back(su.name);
        }
    }
    if (!top.empty()) {
        out += "# One root, as Slurm's topology guide advises\n";
        out += "SwitchName=root Switches=" + compress_hostlist(top) + "\n";
    }
    return out;
}

std::string write_topology_block(const FabricMap& map, std::string_view header) {
    std::string out = comment_block(header);
    const auto layout = block_layout(map);
    out += "# One block per scalable unit, grouped by Dragonfly+ group / pod\n";
    for (const auto& note : layout.notes) {
        out += "# Note: " + note + "\n";
    }
    for (const auto s : layout.sus) {
        out += "BlockName=" + map.sus[s].name + " Nodes=" + su_hosts(map, map.sus[s]) + "\n";
    }
    if (layout.base > 0) {
        out += "BlockSizes=" + std::to_string(layout.base) +
               (layout.group > 0 ? "," + std::to_string(layout.group) : "") + "\n";
    }
    return out;
}

std::string write_topology_yaml(const FabricMap& map, std::string_view header) {
    std::string out = comment_block(header);
    out += "- topology: fabric\n  cluster_default: true\n  tree:\n    switches:\n";
    std::vector<std::string> top;
    for (const auto& su : map.sus) {
        out += "      - switch: " + su.name + "\n        nodes: " + su_hosts(map, su) + "\n";
    }
    if (map.groups.size() > 1) {
        for (const auto& g : map.groups) {
            out += "      - switch: " + g.name + "\n        children: " + names_of_sus(map, g.sus) +
                   "\n";
            top.push_back(g.name);
        }
    } else {
        for (const auto& su : map.sus) {
            top.push_back(su.name);
        }
    }
    if (!top.empty()) {
        out += "      - switch: root\n        children: " + compress_hostlist(top) + "\n";
    }
    const auto layout = block_layout(map);
    if (layout.base > 0) {
        out += "- topology: blocks\n  cluster_default: false\n  block:\n    block_sizes:\n";
        out += "      - " + std::to_string(layout.base) + "\n";
        if (layout.group > 0) {
            out += "      - " + std::to_string(layout.group) + "\n";
        }
        out += "    blocks:\n";
        for (const auto s : layout.sus) {
            out += "      - block: " + map.sus[s].name +
                   "\n        nodes: " + su_hosts(map, map.sus[s]) + "\n";
        }
    }
    return out;
}

std::string write_node_features(const FabricMap& map, std::string_view header) {
    std::string out = comment_block(header);
    for (const auto& su : map.sus) {
        out += "NodeName=" + su_hosts(map, su) + " Features=" + node_features(map, su) + "\n";
    }
    return out;
}

std::string write_job_submit_hints(const FabricMap& map,
                                   std::string_view header,
                                   const SlurmTopologies& topologies) {
    std::string out;
    for (auto line : {header}) {
        std::size_t start = 0;
        while (start < line.size()) {
            const auto nl = line.find('\n', start);
            out += "-- " + std::string(line.substr(start, nl - start)) + "\n";
            if (nl == std::string_view::npos) {
                break;
            }
            start = nl + 1;
        }
    }
    std::size_t su_size = 0;
    for (const auto& su : map.sus) {
        su_size = std::max(su_size, su.hosts.size());
    }
    std::size_t group_size = 0;
    std::string groups;
    for (const auto& g : map.groups) {
        group_size = std::max(group_size, group_hosts(map, g));
        groups += (groups.empty() ? "\"" : ", \"") + group_feature(g.name) + "\"";
    }
    std::string spans;
    for (const auto& level : group_spans(map)) {
        const auto k = std::to_string(level.span);
        std::string names;
        for (const auto& f : level.features) {
            names += (names.empty() ? "\"" : ", \"") + f + "\"";
        }
        spans += "  group_size_" + k + " = " + std::to_string(level.hosts) + ",\n  groups_" + k +
                 " = { " + names + " },\n";
    }
    const auto layout = block_layout(map);
    std::string partitions;
    if (!topologies.default_partition.empty()) {
        partitions += "  default_partition = \"" + topologies.default_partition + "\",\n";
    }
    if (!topologies.partitions.empty()) {
        std::string items;
        for (const auto& [name, kind] : topologies.partitions) {
            items += (items.empty() ? "\"" : ", \"") + name + "=" + kind + "\"";
        }
        partitions += "  partitions = { " + items + " },\n";
    }
    out += "return {\n  topology = \"" + topologies.default_kind + "\",\n" + partitions +
           "  su_size = " + std::to_string(su_size) +
           ",\n  group_size = " + std::to_string(group_size) + ",\n  groups = { " + groups +
           " },\n" + spans + "  block_size = " + std::to_string(layout.base) +
           ",\n  group_block_size = " + std::to_string(layout.group) + ",\n}\n";
    return out;
}

std::string write_feature_commands(const FabricMap& map, std::string_view header) {
    std::string out = comment_block(header);
    for (const auto& su : map.sus) {
        const auto features = node_features(map, su);
        out += "scontrol update NodeName=" + su_hosts(map, su) + " AvailableFeatures=" + features +
               " ActiveFeatures=" + features + "\n";
    }
    return out;
}

Result<std::vector<DiscoverFile>> write_discover_files(const FabricMap& map,
                                                       std::string_view map_comment,
                                                       std::string_view header,
                                                       const SlurmTopologies& topologies) {
    std::vector<DiscoverFile> files(8);
    Result<std::string> index = std::string();
    auto map_and_index = [&] {
        files[0] = {"fabric.map", write_fabric_map(map, map_comment)};
        index = write_fabric_index(map, files[0].text);
    };
    auto slurm_files = [&] {
        files[2] = {"topology.conf", write_topology_conf(map, header)};
        files[3] = {"topology-block.conf", write_topology_block(map, header)};
        files[4] = {"topology.yaml", write_topology_yaml(map, header)};
        files[5] = {"node-features.conf", write_node_features(map, header)};
        files[6] = {"node-features.sh", write_feature_commands(map, header)};
        files[7] = {"job_submit_hints.lua", write_job_submit_hints(map, header, topologies)};
    };
    // A thread costs more than it saves below a few thousand hosts.
    constexpr std::size_t kTwoThreadsFromHosts = 5000;
    if (map.hosts.size() < kTwoThreadsFromHosts ||
        !detail::both_at_once(map_and_index, slurm_files)) {
        map_and_index();
        slurm_files();
    }
    if (!index) {
        return fail(index.error());
    }
    files[1] = {"fabric.map.index", std::move(*index)};
    return files;
}

}  // namespace switchyard::topology
