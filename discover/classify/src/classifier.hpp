// SPDX-License-Identifier: Apache-2.0
// The classifier's state and steps, shared by its two files (internal to the discover library):
// classify_hosts.cpp finds the hosts and their rails, classify.cpp the tiers, SUs and groups.
#pragma once

#include <algorithm>
#include <deque>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "fabric_names.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/common/two_cores.hpp"
#include "switchyard/discover/classify/classify.hpp"

namespace switchyard::discover::detail {

using fabric::Anomaly;
using fabric::FabricKind;
using fabric::FabricMap;

inline constexpr std::uint32_t kSharpDevid = 0xcf09;
inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

/// Union-find over dense indices; the smallest index represents its set.
class Disjoint {
public:
    explicit Disjoint(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0U); }
    std::uint32_t find(std::uint32_t x) {
        while (parent_[x] != x) {
            parent_[x] = parent_[parent_[x]];
            x = parent_[x];
        }
        return x;
    }
    void join(std::uint32_t a, std::uint32_t b) {
        a = find(a);
        b = find(b);
        if (a != b) {
            parent_[std::max(a, b)] = std::min(a, b);
        }
    }

private:
    std::vector<std::uint32_t> parent_;
};

struct RawRail {
    std::string hca;
    NodeIndex leaf;
    std::uint32_t cables;
    NodeIndex ca;
};

/// Hosts found so far, by name; sorted by name once complete.
struct HostTable {
    std::vector<std::pair<std::string, std::vector<RawRail>>> hosts;
    std::unordered_map<std::string, std::uint32_t> index;

    std::vector<RawRail>& rails_of(const std::string& name) {
        auto [it, fresh] = index.try_emplace(name, static_cast<std::uint32_t>(hosts.size()));
        if (fresh) {
            hosts.emplace_back(name, std::vector<RawRail>{});
        }
        return hosts[it->second].second;
    }
    void sort_by_name() {
        std::sort(hosts.begin(), hosts.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        index.clear();
    }
};

/// What finding the hosts in a range of CAs yields. The CAs of a large fabric are read in two
/// ranges at once, each into its own scan, and the second is joined to the first: hosts,
/// rails and messages come out in CA order, as from one pass.
struct HostScan {
    HostTable hosts;
    std::vector<Anomaly> anomalies;
    std::map<std::string, std::size_t> non_compute;           ///< HCA name → CAs left out
    std::unordered_map<std::string, std::uint32_t> isolated;  ///< host → HCAs without cable
    std::map<std::string, bool> compute_cache;                ///< HCA name → compute?
    std::size_t compute_hcas = 0;
    std::size_t excluded_hcas = 0;

    void anomaly(std::string kind, std::string detail) {
        anomalies.push_back({std::move(kind), std::move(detail)});
    }
    /// Appends `later` (the scan of the CAs after this one's).
    void join(HostScan& later);
};

inline bool is_placeholder_host(std::string_view h) {
    static constexpr std::string_view kPlaceholders[] = {
        "localhost", "localhost.localdomain", "ubuntu", "debian", "(none)", "linux"};
    return std::find(std::begin(kPlaceholders), std::end(kPlaceholders), h) !=
           std::end(kPlaceholders);
}

/// Factory descriptions carry no host: "MT4129 ConnectX7   Mellanox Technologies".
inline bool is_factory_ca_desc(std::string_view d) {
    d = trim(d);
    return d.empty() || d.find("Mellanox Technologies") != std::string_view::npos ||
           (d.size() > 2 && d.starts_with("MT") &&
            std::isdigit(static_cast<unsigned char>(d[2])) != 0);
}

/// The count a design gives every member of a set (cables per group pair, per leaf-spine
/// pair), judged from the set itself: the largest count that many members have, the K-th
/// largest with K = 5 % of the members (at least 2). The most common count is not the design
/// once damage is common: with a tenth of 8 cables per pair pulled, most pairs have 7.
struct Design {
    std::uint32_t count = 0;  ///< what each member should have
    std::size_t having = 0;   ///< members with at least that many
    std::size_t of = 0;       ///< members judged
    bool given = false;       ///< count from --expect-cabling, not judged
    /// The count given instead of the judged one (members having it recounted).
    void expect(std::uint32_t n, const std::vector<std::uint32_t>& counts);
};
/// `counts` holds the members that have some; `members` counts those with none as well.
Design design_of(std::vector<std::uint32_t> counts, std::size_t members);

/// Cables per (leaf, upper switch) pair, sorted by the pair (a std::map of them cost 10 % of
/// classify at 800k HCAs).
using UplinkCounts = std::vector<std::pair<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t>>;

class Classifier {
public:
    Classifier(const FabricGraph& g, const ClassifyOptions& opt, Classification& out)
        : g_(g), opt_(opt), map_(out.map), stats_(out.stats) {}

    void run();

private:
    const FabricGraph& g_;
    const ClassifyOptions& opt_;
    FabricMap& map_;
    ClassifyStats& stats_;
    std::vector<std::uint32_t> tier_;          // per graph node
    std::vector<std::uint32_t> switch_index_;  // graph node → map switch

    void anomaly(std::string kind, std::string detail);

    bool is_compute_hca(const std::string& hca, HostScan& scan) const;

    /// "0x… (on 'leaf desc' port N)" so an admin can find the cable.
    [[nodiscard]] std::string where(NodeIndex ca) const;

    [[nodiscard]] const GuidEntry* lookup(NodeIndex ca) const;

    /// Host and HCA of a CA, or nullopt (and an anomaly) when it is not a usable compute HCA.
    std::optional<std::pair<std::string, std::string>> identify(NodeIndex ca, HostScan& scan) const;

    /// Host names become Slurm node names and map-file words: refuse anything else.
    std::optional<std::pair<std::string, std::string>> checked(
        NodeIndex ca, std::optional<std::pair<std::string, std::string>> id, HostScan& scan) const;

    /// The hosts of the CAs in [begin, end).
    void scan_hosts(NodeIndex begin, NodeIndex end, HostScan& scan) const;

    HostTable find_hosts();

    /// Two CAs claiming the same host and HCA name: the first in the dump stays.
    void drop_duplicate_hcas(const std::string& host, std::vector<RawRail>& rails);

    bool add_rails(HostScan& scan,
                   NodeIndex ca,
                   const std::pair<std::string, std::string>& id) const;

    /// A switch that serves hosts is a leaf, unless it is a spine that also carries a few
    /// hosts (storage, UFM, login servers cabled straight into it): one cabled to at least two
    /// other host-serving switches, and to more of them than it serves hosts. Such spines go to
    /// spines_with_hosts_, and compute_tiers() starts from the other switches, so the tiers come
    /// from the switch graph. Leaves cabled to one another (stacked edge switches) stay leaves.
    void find_spines_with_hosts(const HostTable& hosts);
    std::set<NodeIndex> spines_with_hosts_;

    /// The hosts on those spines, once the tiers are known. A compute host (one --expect-hosts
    /// names, else one named like the hosts on leaves: gpu0129 among gpu[0001-0128]) cabled
    /// only into tier-2 switches keeps its rails and becomes an SU of its own. Anything else
    /// (storage, UFM, login servers; a core switch's hosts; a spine cable of a host that also
    /// reaches leaves) is left out. Each is reported (host-on-spine), naming the host and spine.
    void settle_spine_hosts(HostTable& hosts);

    /// A host that reaches at most half the leaves the hosts beside it reach, and is not named
    /// like them (or, with --expect-hosts, not named there): a UFM, subnet manager or storage
    /// host among compute hosts. Left out as an other CA, each reported (other-ca-host).
    void settle_management_hosts(HostTable& hosts);

    /// A switch the tiers put above the spines that is cabled only to spines some leaf uses,
    /// and serves no host: an empty rack's leaf. Kept at tier 1, reported (empty-leaf).
    void settle_empty_leaves();
    std::set<NodeIndex> spine_sus_;  ///< spines whose compute hosts form an SU

    /// A switch's name for messages before the switches are named: its description's name part.
    [[nodiscard]] std::string switch_name(NodeIndex sw) const;

    void compute_tiers(const HostTable& hosts);

    /// A director's line card that serves no host and is cabled only to its own chassis' spine
    /// cards: an empty slot's ASIC, not a tier above the spine cards.
    [[nodiscard]] bool idle_line_card(NodeIndex sw) const;

    /// Every switch, named, sorted by tier (unreachable last) then name.
    void build_switches();

    void build_hosts_and_sus(const HostTable& hosts);

    std::unordered_map<std::string, std::uint32_t> isolated_hcas_;  // host → HCAs without cable

    /// Rails come from cabling, not from HCA names ("HCA-2" on one server and "mlx5_1" on its
    /// neighbour are the same rail when both reach the same leaf). A rail of an SU is a leaf
    /// that most of its hosts reach; a multi-HCA host that does not reach one is missing that
    /// rail, named by its leaf. A host with one HCA in the whole dump where its peers have
    /// several (a storage or management server) is reported as such, not as missing rails.
    void report_missing_rails();

    void build_groups();

    /// Each switch's uplinks and each group's global cables (MapSwitch::uplinks, MapGroup::global).
    void count_links(const std::vector<std::uint32_t>& group_of_switch);

    /// Cabling validation, as UFM's topology compare does: within each group, an upper switch
    /// that most of the group's leaves reach is one every leaf should reach; each leaf that has
    /// no cable to it is reported, both ends named.
    void report_missing_uplinks(const UplinkCounts& uplinks);

    /// Dragonfly+: global cables judged against the design (design_of): per group pair, and,
    /// where the cabling has a pattern (spine k of one group to spine k of the other in every
    /// pair), per spine pair, so each absent cable is named by its two switches.
    void report_global_cables(const std::vector<std::uint32_t>& group_of_switch);

    /// Cables per (leaf, upper switch) pair against its group's design (design_of): a bundle
    /// with fewer than its siblings is an anomaly. Sets uplink_design_ per group.
    void report_uplinks(const UplinkCounts& uplinks);
    std::vector<Design> uplink_design_;  ///< per group

    [[nodiscard]] NodeIndex leaf_node(std::uint32_t map_switch) const;
    mutable std::vector<NodeIndex> node_of_switch_;

    /// Several groups: Dragonfly+ when tier-2 switches of different groups are cabled to each
    /// other (global links); a 3-level fat tree when a higher tier joins them; else islands.
    [[nodiscard]] FabricKind fabric_kind(const std::vector<std::uint32_t>& group_of_switch) const;
};

}  // namespace switchyard::discover::detail
