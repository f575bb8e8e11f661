// SPDX-License-Identifier: Apache-2.0
// Classification, first step: the hosts (named by their CA descriptions or the GUID map), their
// rails and the leaves they reach; spines that carry a few hosts are found and set apart.
#include <array>
#include <map>
#include <set>
#include <span>
#include <unordered_map>

#include "classifier.hpp"
#include "switchyard/fabric/guid.hpp"

namespace switchyard::discover::detail {

using fabric::format_guid;

void Classifier::anomaly(std::string kind, std::string detail) {
    map_.anomalies.push_back({std::move(kind), std::move(detail)});
}

void HostScan::join(HostScan& later) {
    for (auto& [host, rails] : later.hosts.hosts) {
        auto& mine = hosts.rails_of(host);
        mine.insert(mine.end(), std::make_move_iterator(rails.begin()),
                    std::make_move_iterator(rails.end()));
    }
    anomalies.insert(anomalies.end(), std::make_move_iterator(later.anomalies.begin()),
                     std::make_move_iterator(later.anomalies.end()));
    for (const auto& [hca, count] : later.non_compute) {
        non_compute[hca] += count;
    }
    for (const auto& [host, count] : later.isolated) {
        isolated[host] += count;
    }
    compute_hcas += later.compute_hcas;
    excluded_hcas += later.excluded_hcas;
}

bool Classifier::is_compute_hca(const std::string& hca, HostScan& scan) const {
    if (!opt_.compute_hca || hca == "unknown") {
        return true;
    }
    auto [it, inserted] = scan.compute_cache.try_emplace(hca, false);
    if (inserted) {
        it->second = opt_.compute_hca(hca);
    }
    return it->second;
}

/// "0x… (on 'leaf desc' port N)" so an admin can find the cable.
std::string Classifier::where(NodeIndex ca) const {
    std::string s = format_guid(g_.nodes[ca].guid);
    for (const auto& p : g_.nodes[ca].ports) {
        if (p.remote != kNoNode) {
            return s + " (on '" + g_.nodes[p.remote].desc + "' port " +
                   std::to_string(p.remote_port) + ")";
        }
    }
    return s;
}

const GuidEntry* Classifier::lookup(NodeIndex ca) const {
    if (opt_.guid_map == nullptr) {
        return nullptr;
    }
    const auto& node = g_.nodes[ca];
    auto find = [&](std::uint64_t guid) -> const GuidEntry* {
        const auto it = opt_.guid_map->find(guid);
        return it == opt_.guid_map->end() ? nullptr : &it->second;
    };
    if (const auto* e = find(node.guid)) {
        return e;
    }
    // Real CX-7: port GUID = node GUID; ibsim: node GUID + port. In -p output a CA is known
    // only by its port GUID, so the node GUID is that minus the port there.
    for (const auto& p : node.ports) {
        for (const auto guid : {p.port_guid, node.guid + p.port, node.guid - p.port}) {
            if (const auto* e = guid != 0 ? find(guid) : nullptr) {
                return e;
            }
        }
    }
    return nullptr;
}

/// Host and HCA of a CA, or nullopt (and an anomaly) when it is not a usable compute HCA.
std::optional<std::pair<std::string, std::string>> Classifier::identify(NodeIndex ca,
                                                                        HostScan& scan) const {
    const auto& node = g_.nodes[ca];
    if (node.devid == kSharpDevid || node.desc.find("Aggregation Node") != std::string::npos) {
        scan.anomaly("sharp-node", where(ca) + ": SHARP aggregation node, not a host");
        return std::nullopt;
    }
    const auto desc = trim(node.desc);
    const auto blank = desc.find_first_of(" \t");
    const auto host = desc.substr(0, blank);
    const auto hca =
        blank == std::string_view::npos ? std::string_view{} : trim(desc.substr(blank));
    const bool factory = is_factory_ca_desc(desc);
    if (const auto* e = lookup(ca)) {
        std::string h =
            e->hca.empty() ? (factory || hca.empty() ? "unknown" : std::string(hca)) : e->hca;
        if (factory || is_placeholder_host(host)) {
            scan.anomaly("resolved-by-guid-map",
                         where(ca) + ": description '" + node.desc + "' names no host; the GUID " +
                             "map names it " + e->host +
                             (h == "unknown" ? " (HCA unknown)" : ", HCA " + h));
        }
        return std::pair(e->host, std::move(h));
    }
    if (factory) {
        scan.anomaly("unnamed-hca", where(ca) + ": description '" + node.desc +
                                        "' names no host, and no GUID-map entry");
        return std::nullopt;
    }
    if (is_placeholder_host(host)) {
        scan.anomaly("placeholder-host",
                     where(ca) + ": description '" + node.desc +
                         "' has a placeholder host name, and no GUID-map entry");
        return std::nullopt;
    }
    return std::pair(std::string(host), hca.empty() ? std::string("unknown") : sanitize_name(hca));
}

/// Host names become Slurm node names and map-file words: refuse anything else.
std::optional<std::pair<std::string, std::string>> Classifier::checked(
    NodeIndex ca, std::optional<std::pair<std::string, std::string>> id, HostScan& scan) const {
    if (id && !is_valid_name(id->first)) {
        scan.anomaly("invalid-host-name", where(ca) + ": host name '" + id->first +
                                              "' has characters outside [A-Za-z0-9._-]");
        return std::nullopt;
    }
    if (id) {
        id->second = sanitize_name(id->second);
    }
    return id;
}

void Classifier::scan_hosts(NodeIndex begin, NodeIndex end, HostScan& scan) const {
    for (NodeIndex i = begin; i < end; ++i) {
        if (g_.nodes[i].kind != NodeKind::Ca) {
            continue;
        }
        auto id = checked(i, identify(i, scan), scan);
        if (id && !is_compute_hca(id->second, scan)) {
            ++scan.non_compute[id->second];
            id.reset();
        }
        if (!id || !add_rails(scan, i, *id)) {
            ++scan.excluded_hcas;
            continue;
        }
        ++scan.compute_hcas;
    }
}

HostTable Classifier::find_hosts() {
    const auto n = static_cast<NodeIndex>(g_.nodes.size());
    HostScan scan;
    HostScan later;
    if (n < opt_.two_threads_from ||
        !both_at_once([&] { scan_hosts(0, n / 2, scan); }, [&] { scan_hosts(n / 2, n, later); })) {
        scan_hosts(0, n, scan);
    } else {
        scan.join(later);
    }
    map_.anomalies.insert(map_.anomalies.end(), std::make_move_iterator(scan.anomalies.begin()),
                          std::make_move_iterator(scan.anomalies.end()));
    for (const auto& [hca, count] : scan.non_compute) {
        anomaly("non-compute-hca", std::to_string(count) + " HCA(s) named '" + hca +
                                       "' left out by the compute-HCA selector");
    }
    stats_.compute_hcas += scan.compute_hcas;
    stats_.excluded_hcas += scan.excluded_hcas;
    isolated_hcas_ = std::move(scan.isolated);
    auto hosts = std::move(scan.hosts);
    hosts.sort_by_name();
    for (auto& [host, rails] : hosts.hosts) {
        drop_duplicate_hcas(host, rails);
    }
    return hosts;
}

/// Two CAs claiming the same host and HCA name: the first in the dump stays.
void Classifier::drop_duplicate_hcas(const std::string& host, std::vector<RawRail>& rails) {
    // By name, then by CA: CAs are numbered in dump order, so the first in the dump comes first
    // (a stable sort by name, without its buffer per host).
    std::sort(rails.begin(), rails.end(), [](const RawRail& a, const RawRail& b) {
        return a.hca != b.hca ? a.hca < b.hca : a.ca < b.ca;
    });
    for (std::size_t i = 1; i < rails.size();) {
        if (rails[i].hca == rails[i - 1].hca && rails[i].hca != "unknown" &&
            rails[i].ca != rails[i - 1].ca) {
            anomaly("duplicate-hca", where(rails[i].ca) + ": '" + host + " " + rails[i].hca +
                                         "' is already " +
                                         format_guid(g_.nodes[rails[i - 1].ca].guid));
            ++stats_.excluded_hcas;
            --stats_.compute_hcas;
            rails.erase(rails.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
            ++i;
        }
    }
}

bool Classifier::add_rails(HostScan& scan,
                           NodeIndex ca,
                           const std::pair<std::string, std::string>& id) const {
    // (leaf, cables), in the order the ports reach them: an HCA has a port or two, so they
    // are kept on the stack; past four leaves (a CA that claims more ports), all in `more`.
    std::array<std::pair<NodeIndex, std::uint32_t>, 4> few{};
    std::size_t nfew = 0;
    std::vector<std::pair<NodeIndex, std::uint32_t>> more;
    for (const auto& p : g_.nodes[ca].ports) {
        if (p.remote == kNoNode || g_.nodes[p.remote].kind != NodeKind::Switch) {
            continue;
        }
        const std::span<std::pair<NodeIndex, std::uint32_t>> seen =
            more.empty() ? std::span(few.data(), nfew) : std::span(more);
        const auto it = std::find_if(seen.begin(), seen.end(),
                                     [&](const auto& e) { return e.first == p.remote; });
        if (it != seen.end()) {
            ++it->second;
        } else if (more.empty() && nfew < few.size()) {
            few[nfew++] = {p.remote, 1};
        } else {
            if (more.empty()) {
                more.assign(few.begin(), few.end());
            }
            more.emplace_back(p.remote, 1);
        }
    }
    const std::span<const std::pair<NodeIndex, std::uint32_t>> by_leaf =
        more.empty() ? std::span<const std::pair<NodeIndex, std::uint32_t>>(few.data(), nfew)
                     : std::span<const std::pair<NodeIndex, std::uint32_t>>(more);
    if (by_leaf.empty()) {
        ++scan.isolated[id.first];
        scan.anomaly("isolated-hca",
                     where(ca) + ": " + id.first + " " + id.second + " has no cable to a switch");
        return false;
    }
    auto& rails = scan.hosts.rails_of(id.first);
    for (const auto& [leaf, cables] : by_leaf) {  // a dual-homed HCA gives one rail per leaf
        rails.push_back({by_leaf.size() == 1 ? id.second : id.second + "@" + g_.nodes[leaf].id,
                         leaf, cables, ca});
    }
    return true;
}

/// A switch that serves hosts is a leaf, unless it is a spine that also carries a few
/// hosts: one cabled to at least two other host-serving switches, and to more of them than it
/// serves hosts. Leaves cabled to one another (stacked edge switches) stay leaves.
void Classifier::find_spines_with_hosts(const HostTable& hosts) {
    // Hosts per switch (distinct: a host's rails are adjacent), by graph node.
    std::vector<std::uint32_t> on_switch(g_.nodes.size(), 0);
    std::vector<std::uint32_t> last_host(g_.nodes.size(), kNone);
    for (std::uint32_t hi = 0; hi < hosts.hosts.size(); ++hi) {
        for (const auto& r : hosts.hosts[hi].second) {
            if (last_host[r.leaf] != hi) {
                last_host[r.leaf] = hi;
                ++on_switch[r.leaf];
            }
        }
    }
    std::vector<NodeIndex> neighbours;
    for (NodeIndex sw = 0; sw < g_.nodes.size(); ++sw) {
        if (on_switch[sw] == 0) {
            continue;
        }
        neighbours.clear();
        for (const auto& p : g_.nodes[sw].ports) {
            if (p.remote != kNoNode && p.remote != sw && on_switch[p.remote] != 0 &&
                g_.nodes[p.remote].kind == NodeKind::Switch) {
                neighbours.push_back(p.remote);
            }
        }
        std::sort(neighbours.begin(), neighbours.end());
        const auto distinct = static_cast<std::size_t>(
            std::unique(neighbours.begin(), neighbours.end()) - neighbours.begin());
        if (distinct >= 2 && on_switch[sw] < distinct) {
            spines_with_hosts_.insert(sw);
        }
    }
}

namespace {

/// A host name without its trailing number: "gpu" for gpu0129, "storage" for storage01.
std::string_view name_stem(std::string_view host) {
    while (!host.empty() && std::isdigit(static_cast<unsigned char>(host.back())) != 0) {
        host.remove_suffix(1);
    }
    return host;
}

}  // namespace

void Classifier::settle_spine_hosts(HostTable& hosts) {
    if (spines_with_hosts_.empty()) {
        return;
    }
    const auto on_spine = [&](const RawRail& r) { return spines_with_hosts_.count(r.leaf) != 0; };
    std::set<std::string_view> leaf_stems;  // of the hosts on leaves
    std::set<std::string_view> expected;
    if (opt_.expected_hosts != nullptr) {
        expected.insert(opt_.expected_hosts->begin(), opt_.expected_hosts->end());
    }
    for (const auto& [host, rails] : hosts.hosts) {
        if (!std::all_of(rails.begin(), rails.end(), on_spine)) {
            leaf_stems.insert(name_stem(host));
        }
    }
    for (auto& [host, rails] : hosts.hosts) {
        if (std::none_of(rails.begin(), rails.end(), on_spine)) {
            continue;
        }
        const bool on_leaf = !std::all_of(rails.begin(), rails.end(), on_spine);
        const bool compute = opt_.expected_hosts != nullptr
                                 ? expected.count(host) != 0
                                 : leaf_stems.count(name_stem(host)) != 0;
        for (auto it = rails.begin(); it != rails.end();) {
            if (!on_spine(*it)) {
                ++it;
                continue;
            }
            const auto head = host + " " + it->hca + " is cabled to '" + switch_name(it->leaf) +
                              "', a spine (it joins other leaves)";
            std::string why;
            if (on_leaf) {
                why = ", and its other HCAs reach leaves: this HCA is left out of placement";
            } else if (!compute) {
                why = opt_.expected_hosts != nullptr
                          ? "; not an expected host (--expect-hosts): left out of placement"
                          : "; not named like the compute hosts: left out of placement";
            } else if (tier_[it->leaf] != 2) {
                why = "; it is tier " + std::to_string(tier_[it->leaf]) +
                      ", above the spines: left out of placement";
            }
            if (why.empty()) {
                anomaly("host-on-spine", head + ": a compute host, in an SU of its own there");
                spine_sus_.insert(it->leaf);
                ++it;
                continue;
            }
            anomaly("host-on-spine", head + why);
            ++stats_.excluded_hcas;
            --stats_.compute_hcas;
            it = rails.erase(it);
        }
    }
    std::erase_if(hosts.hosts, [](const auto& h) { return h.second.empty(); });
}

void Classifier::settle_management_hosts(HostTable& hosts) {
    // The leaves each host reaches, the hosts on each leaf, and on each leaf the host counts'
    // most common value (the larger on a tie): what the hosts beside a host reach.
    const auto n = hosts.hosts.size();
    std::vector<std::vector<NodeIndex>> leaves(n);
    std::unordered_map<NodeIndex, std::vector<std::uint32_t>> on_leaf;
    for (std::uint32_t i = 0; i < n; ++i) {
        auto& mine = leaves[i];
        for (const auto& r : hosts.hosts[i].second) {
            mine.push_back(r.leaf);
        }
        std::sort(mine.begin(), mine.end());
        mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
        for (const auto leaf : mine) {
            on_leaf[leaf].push_back(i);
        }
    }
    std::unordered_map<NodeIndex, std::uint32_t> usual;
    for (const auto& [leaf, on] : on_leaf) {
        std::map<std::size_t, std::uint32_t> by_count;
        for (const auto i : on) {
            ++by_count[leaves[i].size()];
        }
        std::pair<std::uint32_t, std::size_t> best{0, 0};  // (hosts, count)
        for (const auto& [count, with] : by_count) {
            best = std::max(best, std::pair(with, count));
        }
        usual[leaf] = static_cast<std::uint32_t>(best.second);
    }
    std::set<std::string_view> expected;
    if (opt_.expected_hosts != nullptr) {
        expected.insert(opt_.expected_hosts->begin(), opt_.expected_hosts->end());
    }
    std::vector<char> drop(n, 0);
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint32_t peers = 0;
        for (const auto leaf : leaves[i]) {
            peers = std::max(peers, usual[leaf]);
        }
        if (peers < 2 || 2 * leaves[i].size() > peers) {
            continue;
        }
        const auto& host = hosts.hosts[i].first;
        std::map<std::string_view, std::uint32_t> stems;  // of the hosts on its leaves
        for (const auto leaf : leaves[i]) {
            for (const auto j : on_leaf[leaf]) {
                stems[name_stem(hosts.hosts[j].first)] += j != i ? 1U : 0U;
            }
        }
        const auto common =
            std::max_element(stems.begin(), stems.end(),
                             [](const auto& x, const auto& y) { return x.second < y.second; });
        const bool other =
            opt_.expected_hosts != nullptr
                ? !expected.contains(host)
                : common != stems.end() && common->second > 0 && common->first != name_stem(host);
        if (!other) {
            continue;  // a compute host short of rails: missing-rail, reported with its SU
        }
        drop[i] = 1;
        anomaly("other-ca-host",
                host + " reaches " + std::to_string(leaves[i].size()) +
                    " leaf switch(es) where the hosts beside it reach " + std::to_string(peers) +
                    ", and is " +
                    (opt_.expected_hosts != nullptr
                         ? std::string("not an expected host (--expect-hosts)")
                         : "not named like them ('" + std::string(common->first) + "...')") +
                    ": a UFM, subnet manager or storage host, left out as an other CA");
        stats_.excluded_hcas += hosts.hosts[i].second.size();
        stats_.compute_hcas -= hosts.hosts[i].second.size();
    }
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (drop[i] == 0) {
            if (k != i) {
                hosts.hosts[k] = std::move(hosts.hosts[i]);
            }
            ++k;
        }
    }
    if (k != n) {
        hosts.hosts.resize(k);
        hosts.index.clear();
        for (std::uint32_t i = 0; i < k; ++i) {
            hosts.index.emplace(hosts.hosts[i].first, i);
        }
    }
}

}  // namespace switchyard::discover::detail
