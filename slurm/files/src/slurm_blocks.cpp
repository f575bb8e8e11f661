// SPDX-License-Identifier: Apache-2.0
// How the fabric becomes Slurm's blocks (topology/block, 24.05+): one base block per SU, or per
// NVLink domain when the map has them, and the aggregated sizes Slurm's aligned rule allows.
#include <algorithm>
#include <map>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/slurm/files/slurm_writers.hpp"

namespace switchyard::slurm {

using fabric::FabricMap;
using fabric::kNoDomain;

namespace {

bool power_of_two(std::size_t n) {
    return n > 0 && (n & (n - 1)) == 0;
}

/// "every SU holds 3 NVLink domains, not a power of two of at least 2" and the like, or "" when
/// the counts are one power of two of at least 2.
std::string uneven(const std::vector<std::size_t>& counts,
                   const std::string& unit,
                   const std::string& holder) {
    const std::size_t first = counts.front();
    const bool same =
        std::all_of(counts.begin(), counts.end(), [&](std::size_t n) { return n == first; });
    if (same && power_of_two(first) && first >= 2) {
        return "";
    }
    if (!same) {
        std::string list;
        for (const auto n : counts) {
            list += (list.empty() ? "" : ", ") + std::to_string(n);
        }
        return holder + "s hold " + list + " " + unit + "s";
    }
    return "every " + holder + " holds " + std::to_string(first) + " " + unit +
           (first == 1 ? "" : "s") + ", not a power of two of at least 2";
}

BlockLayout su_block_layout(const FabricMap& map) {
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
    const auto why = smallest != largest ? std::string("the SUs differ in size")
                                         : uneven(per_group, "SU", "group");
    if (!why.empty()) {
        out.notes.push_back(why +
                            ": Slurm aggregates 2^k consecutive blocks, aligned, so an aggregated "
                            "block would not be one group; BlockSizes has the SU level only "
                            "(groups come from the plan's stage order)");
        return out;
    }
    out.group = smallest * per_group.front();
    return out;
}

/// The NVLink level under the SU layout: a base block per domain, SU by SU in the SU layout's
/// order; an SU's hosts in no domain get a block of their own, after all the others (they set
/// no size); a second size of one SU and a third of one group where Slurm's aligned rule
/// makes them exactly that.
BlockLayout domain_block_layout(const FabricMap& map, BlockLayout sus) {
    BlockLayout out;
    out.sus = std::move(sus.sus);
    std::vector<std::vector<std::uint32_t>> per_su(map.sus.size());
    for (std::uint32_t d = 0; d < map.domains.size(); ++d) {
        per_su[map.domains[d].su].push_back(d);
    }
    std::vector<std::size_t> hosts_outside(map.sus.size(), 0);
    for (const auto& h : map.hosts) {
        hosts_outside[h.su] += h.domain == kNoDomain ? 1 : 0;
    }
    std::map<std::size_t, std::size_t> sizes;  // hosts → domains of that size
    std::vector<std::size_t> domains_per_su;
    for (const auto s : out.sus) {
        for (const auto d : per_su[s]) {
            out.domains.push_back(d);
            ++sizes[map.domains[d].members.size()];
        }
        domains_per_su.push_back(per_su[s].size());
        if (hosts_outside[s] > 0) {
            out.rest.push_back(s);
        }
    }
    if (out.domains.empty()) {
        return out;
    }
    // The design size is the most common one (the larger on a tie): a rack short of a tray or
    // two must not shrink every block Slurm plans.
    std::size_t most = 0;
    for (const auto& [n, count] : sizes) {
        if (count >= most) {
            most = count;
            out.base = n;
        }
    }
    for (const auto s : out.rest) {
        out.notes.push_back(std::to_string(hosts_outside[s]) + " host(s) of SU " + map.sus[s].name +
                            " are in no NVLink domain: their block comes last and sets no size");
    }
    std::vector<std::string> smaller;
    std::vector<std::string> larger;
    for (const auto d : out.domains) {
        const auto n = map.domains[d].members.size();
        if (n != out.base) {
            (n < out.base ? smaller : larger).push_back(map.domains[d].name);
        }
    }
    if (!smaller.empty()) {
        out.notes.push_back(std::to_string(smaller.size()) + " NVLink domain(s) hold fewer than " +
                            std::to_string(out.base) + " hosts (" + join(smaller, ", ") +
                            "): Slurm plans every block as " + std::to_string(out.base) +
                            " nodes, so a segment of that size does not fit in them");
    }
    if (!larger.empty()) {
        out.notes.push_back(std::to_string(larger.size()) + " NVLink domain(s) hold more than " +
                            std::to_string(out.base) + " hosts (" + join(larger, ", ") +
                            "): Slurm plans every block as " + std::to_string(out.base) + " nodes");
    }
    // One domain per SU (one NVL72 rack under each leaf, the usual layout): the SU is the base
    // block already, and the levels go on upward from it, as they do without the facts.
    const bool one_per_su = std::all_of(domains_per_su.begin(), domains_per_su.end(),
                                        [](std::size_t n) { return n == 1; });
    const auto su_why = one_per_su ? std::string() : uneven(domains_per_su, "NVLink domain", "SU");
    if (!su_why.empty()) {
        out.notes.push_back(su_why +
                            ": Slurm aggregates 2^k consecutive blocks, aligned, so an aggregated "
                            "block would not be one SU; BlockSizes has the NVLink level only");
        return out;
    }
    const auto su_size = out.base * domains_per_su.front();
    out.su = one_per_su ? 0 : su_size;
    if (map.groups.size() < 2) {
        return out;
    }
    std::vector<std::size_t> sus_per_group(map.groups.size(), 0);
    for (const auto s : out.sus) {
        ++sus_per_group[map.sus[s].group];
    }
    const auto group_why = uneven(sus_per_group, "SU", "group");
    if (!group_why.empty()) {
        out.notes.push_back(group_why +
                            ": an aggregated block of SUs would not be one group; BlockSizes has "
                            "the NVLink and SU levels only");
        return out;
    }
    out.group = su_size * sus_per_group.front();
    return out;
}

}  // namespace

BlockLayout block_layout(const FabricMap& map) {
    auto sus = su_block_layout(map);
    return map.domains.empty() ? sus : domain_block_layout(map, std::move(sus));
}

std::vector<std::size_t> layout_sizes(const BlockLayout& layout) {
    std::vector<std::size_t> out;
    for (const auto n : {layout.base, layout.su, layout.group}) {
        if (n > 0) {
            out.push_back(n);
        }
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> layout_blocks(const FabricMap& map,
                                                               const BlockLayout& layout) {
    std::vector<std::pair<std::string, std::string>> out;
    auto hosts_of = [&](std::uint32_t su, bool outside_only) {
        std::vector<std::string> names;
        for (const auto h : map.sus[su].hosts) {
            if (!outside_only || map.hosts[h].domain == kNoDomain) {
                names.push_back(map.hosts[h].name);
            }
        }
        return compress_hostlist(std::move(names));
    };
    if (map.domains.empty()) {
        for (const auto s : layout.sus) {
            out.emplace_back(map.sus[s].name, hosts_of(s, false));
        }
        return out;
    }
    for (const auto d : layout.domains) {
        out.emplace_back(map.domains[d].name, compress_hostlist(map.domains[d].members));
    }
    for (const auto s : layout.rest) {
        out.emplace_back(map.sus[s].name + "-other", hosts_of(s, true));
    }
    return out;
}

}  // namespace switchyard::slurm
