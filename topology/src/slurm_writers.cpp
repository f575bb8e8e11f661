// SPDX-License-Identifier: Apache-2.0
// Slurm topology and feature files from a FabricMap.
#include "switchyard/topology/slurm_writers.hpp"

#include <algorithm>
#include <vector>

#include "switchyard/common/hostlist.hpp"

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

/// SUs in group order, then their own order: blocks aggregate consecutive base blocks.
std::vector<std::uint32_t> sus_by_group(const FabricMap& map) {
    std::vector<std::uint32_t> out;
    for (const auto& g : map.groups) {
        out.insert(out.end(), g.sus.begin(), g.sus.end());
    }
    return out;
}

/// Base block = the smallest SU; one more level when every group holds at least twice that
/// (the largest power-of-two multiple of the base that fits in the smallest group).
std::vector<std::size_t> block_sizes(const FabricMap& map) {
    std::size_t base = SIZE_MAX;
    for (const auto& su : map.sus) {
        base = std::min(base, su.hosts.size());
    }
    if (map.sus.empty()) {
        return {};
    }
    std::vector<std::size_t> sizes{base};
    if (map.groups.size() > 1) {
        std::size_t smallest_group = SIZE_MAX;
        for (const auto& g : map.groups) {
            std::size_t n = 0;
            for (const auto s : g.sus) {
                n += map.sus[s].hosts.size();
            }
            smallest_group = std::min(smallest_group, n);
        }
        std::size_t level = base;
        while (level * 2 <= smallest_group) {
            level *= 2;
        }
        if (level > base) {
            sizes.push_back(level);
        }
    }
    return sizes;
}

}  // namespace

std::string su_feature(std::string_view su) {
    return "su_" + std::string(su);
}
std::string group_feature(std::string_view group) {
    return "grp_" + std::string(group);
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
    out += "# One block per scalable unit, grouped by Dragonfly+ group / pod\n";
    for (const auto s : sus_by_group(map)) {
        out += "BlockName=" + map.sus[s].name + " Nodes=" + su_hosts(map, map.sus[s]) + "\n";
    }
    const auto sizes = block_sizes(map);
    if (!sizes.empty()) {
        out += "BlockSizes=";
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            out += (i > 0 ? "," : "") + std::to_string(sizes[i]);
        }
        out += "\n";
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
    const auto sizes = block_sizes(map);
    if (!sizes.empty()) {
        out += "- topology: blocks\n  cluster_default: false\n  block:\n    block_sizes:\n";
        for (const auto s : sizes) {
            out += "      - " + std::to_string(s) + "\n";
        }
        out += "    blocks:\n";
        for (const auto s : sus_by_group(map)) {
            out += "      - block: " + map.sus[s].name +
                   "\n        nodes: " + su_hosts(map, map.sus[s]) + "\n";
        }
    }
    return out;
}

std::string write_node_features(const FabricMap& map, std::string_view header) {
    std::string out = comment_block(header);
    for (const auto& su : map.sus) {
        out += "NodeName=" + su_hosts(map, su) + " Features=" + su_feature(su.name) + "," +
               group_feature(map.groups[su.group].name) + "\n";
    }
    return out;
}

std::string write_job_submit_hints(const FabricMap& map, std::string_view header) {
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
        std::size_t n = 0;
        for (const auto s : g.sus) {
            n += map.sus[s].hosts.size();
        }
        group_size = std::max(group_size, n);
        groups += (groups.empty() ? "\"" : ", \"") + group_feature(g.name) + "\"";
    }
    out += "return {\n  su_size = " + std::to_string(su_size) +
           ",\n  group_size = " + std::to_string(group_size) + ",\n  groups = { " + groups +
           " },\n}\n";
    return out;
}

std::string write_feature_commands(const FabricMap& map, std::string_view header) {
    std::string out = comment_block(header);
    for (const auto& su : map.sus) {
        const auto features = su_feature(su.name) + "," + group_feature(map.groups[su.group].name);
        out += "scontrol update NodeName=" + su_hosts(map, su) + " AvailableFeatures=" + features +
               " ActiveFeatures=" + features + "\n";
    }
    return out;
}

}  // namespace switchyard::topology
