// SPDX-License-Identifier: Apache-2.0
// Slurm topology and feature files from a FabricMap.
#include "switchyard/slurm/files/slurm_writers.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/common/two_cores.hpp"
#include "switchyard/fabric/fabric_index.hpp"
#include "switchyard/slurm/files/discover_files.hpp"

namespace switchyard::slurm {

using fabric::FabricMap;
using fabric::kNoDomain;
using fabric::MapGroup;
using fabric::MapHost;
using fabric::MapSu;
using fabric::write_fabric_index;
using fabric::write_fabric_map;

namespace {

std::string comment_block(std::string_view header) {
    std::string out;
    std::size_t start = 0;
    while (start <= header.size() && !header.empty()) {
        const auto nl = header.find('\n', start);
        out += "# " + printable(header.substr(start, nl - start)) + "\n";
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

}  // namespace

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

std::string host_features(const FabricMap& map, const MapHost& host) {
    auto out = node_features(map, map.sus[host.su]);
    if (host.domain != kNoDomain) {
        out += "," + map.domains[host.domain].name;
    }
    return out;
}

namespace {

/// The SU's hosts by NVLink domain (kNoDomain last), each set as a hostlist.
std::vector<std::pair<std::uint32_t, std::string>> su_hosts_by_domain(const FabricMap& map,
                                                                      const MapSu& su) {
    std::map<std::uint32_t, std::vector<std::string>> by;
    for (const auto h : su.hosts) {
        by[map.hosts[h].domain].push_back(map.hosts[h].name);
    }
    std::vector<std::pair<std::uint32_t, std::string>> out;
    for (auto& [d, names] : by) {
        out.emplace_back(d, compress_hostlist(std::move(names)));
    }
    return out;
}

/// `<prefix><hosts><middle><features>` per SU, or per NVLink domain of each SU.
std::string feature_lines(const FabricMap& map,
                          const std::string& prefix,
                          const std::string& middle,
                          bool twice) {
    std::string out;
    for (const auto& su : map.sus) {
        const auto base = node_features(map, su);
        for (const auto& [d, hosts] : su_hosts_by_domain(map, su)) {
            const auto f = d == kNoDomain ? base : base + "," + map.domains[d].name;
            out += prefix + hosts + middle + f + (twice ? " ActiveFeatures=" + f : "") + "\n";
        }
    }
    return out;
}

}  // namespace

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
    out += map.domains.empty()
               ? "# One block per scalable unit, grouped by Dragonfly+ group / pod\n"
               : "# One block per NVLink domain, SU by SU, grouped by Dragonfly+ group / pod\n";
    for (const auto& note : layout.notes) {
        out += "# Note: " + note + "\n";
    }
    for (const auto& [name, nodes] : layout_blocks(map, layout)) {
        out += "BlockName=" + name + " Nodes=" + nodes + "\n";
    }
    std::string sizes;
    for (const auto n : layout_sizes(layout)) {
        sizes += (sizes.empty() ? "" : ",") + std::to_string(n);
    }
    if (!sizes.empty()) {
        out += "BlockSizes=" + sizes + "\n";
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
        for (const auto n : layout_sizes(layout)) {
            out += "      - " + std::to_string(n) + "\n";
        }
        out += "    blocks:\n";
        for (const auto& [name, nodes] : layout_blocks(map, layout)) {
            out += "      - block: " + name + "\n        nodes: " + nodes + "\n";
        }
    }
    return out;
}

std::string write_node_features(const FabricMap& map, std::string_view header) {
    return comment_block(header) + feature_lines(map, "NodeName=", " Features=", false);
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
           ",\n  group_block_size = " + std::to_string(layout.group) + ",\n";
    if (!map.domains.empty()) {
        std::string names;
        for (const auto& d : map.domains) {
            names += (names.empty() ? "\"" : ", \"") + d.name + "\"";
        }
        out += "  nvl_size = " + std::to_string(layout.base) +
               ",\n  su_block_size = " + std::to_string(layout.su) + ",\n  nvl_domains = { " +
               names + " },\n";
    }
    out += "}\n";
    return out;
}

std::string write_feature_commands(const FabricMap& map, std::string_view header) {
    return comment_block(header) +
           feature_lines(map, "scontrol update NodeName=", " AvailableFeatures=", true);
}

Result<std::vector<DiscoverFile>> write_discover_files(const FabricMap& map,
                                                       std::string_view map_comment,
                                                       std::string_view header,
                                                       const SlurmTopologies& topologies) {
    std::vector<DiscoverFile> files(8);
    Result<std::string> index = std::string();
    auto map_and_index = [&] {
        files[0] = {std::string(discover_file(OutputFile::FabricMap)),
                    write_fabric_map(map, map_comment)};
        index = write_fabric_index(map, files[0].text);
    };
    auto slurm_files = [&] {
        files[2] = {std::string(discover_file(OutputFile::TopologyConf)),
                    write_topology_conf(map, header)};
        files[3] = {std::string(discover_file(OutputFile::TopologyBlock)),
                    write_topology_block(map, header)};
        files[4] = {std::string(discover_file(OutputFile::TopologyYaml)),
                    write_topology_yaml(map, header)};
        files[5] = {std::string(discover_file(OutputFile::NodeFeatures)),
                    write_node_features(map, header)};
        files[6] = {std::string(discover_file(OutputFile::FeatureCommands)),
                    write_feature_commands(map, header)};
        files[7] = {std::string(discover_file(OutputFile::Hints)),
                    write_job_submit_hints(map, header, topologies)};
    };
    // A thread costs more than it saves below a few thousand hosts.
    constexpr std::size_t kTwoThreadsFromHosts = 5000;
    if (map.hosts.size() < kTwoThreadsFromHosts || !both_at_once(map_and_index, slurm_files)) {
        map_and_index();
        slurm_files();
    }
    if (!index) {
        return fail(index.error());
    }
    files[1] = {std::string(discover_file(OutputFile::FabricIndex)), std::move(*index)};
    return files;
}

}  // namespace switchyard::slurm
