// SPDX-License-Identifier: Apache-2.0
// The NVLink level of the fabric map: hosts into their domains, domains under their SUs, in an
// order that keeps each block's place from one discover to the next.
#include "switchyard/discover/nvlink/nvlink_domains.hpp"

#include <algorithm>
#include <set>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"

namespace switchyard::discover {

using fabric::DomainState;
using fabric::FabricMap;
using fabric::kNoDomain;
using fabric::MapDomain;
using node::HostNvlinkMap;

namespace {

/// At most this many names in an anomaly's detail, then "... (N in all)".
constexpr std::size_t kListed = 8;

std::string listed(std::vector<std::string> names) {
    const auto all = names.size();
    if (all > kListed) {
        names.resize(kListed);
        return compress_hostlist(std::move(names)) + " ... (" + std::to_string(all) + " in all)";
    }
    return compress_hostlist(std::move(names));
}

std::string hex_of(std::string_view key) {
    std::string hex;
    for (const char c : key.substr(0, key.rfind('.'))) {
        if (c != '-') {
            hex += c;
        }
    }
    return hex;
}

/// Whether `key` is what NVML gives: "<cluster UUID>.<clique id>", the UUID hex digits and
/// dashes (at most 64), the clique a number. Anything else (a hand-made or damaged facts line)
/// would make a name the map cannot read back.
bool valid_domain_key(std::string_view key) {
    const auto dot = key.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || dot > 64 || dot + 1 == key.size() ||
        key.size() - dot - 1 > 10) {
        return false;
    }
    const auto uuid = key.substr(0, dot);
    const auto clique = key.substr(dot + 1);
    return uuid.find_first_not_of("0123456789abcdefABCDEF-") == std::string_view::npos &&
           uuid.find_first_not_of('-') != std::string_view::npos &&
           clique.find_first_not_of("0123456789") == std::string_view::npos;
}

/// Each key's name: short, unless two keys would share it; then the long form, and when even
/// that is shared (keys that differ only in their dashes or letter case) a "_2", "_3", ... in
/// key order after the first. Names are never shared: a map with two alike cannot be read.
std::map<std::string, std::string> name_domains(const std::set<std::string>& keys) {
    std::map<std::string, std::vector<std::string>> by_short;
    for (const auto& k : keys) {
        by_short[nvlink_domain_name(k)].push_back(k);
    }
    std::map<std::string, std::string> out;
    std::map<std::string, unsigned> taken;
    for (const auto& [name, list] : by_short) {
        for (const auto& k : list) {
            auto chosen = list.size() == 1 ? name : nvlink_domain_name(k, true);
            if (const auto n = ++taken[chosen]; n > 1) {
                chosen += "_" + std::to_string(n);
            }
            out[k] = chosen;
        }
    }
    return out;
}

}  // namespace

std::string nvlink_domain_name(std::string_view key, bool long_form) {
    const auto dot = key.rfind('.');
    const auto hex = hex_of(key);
    const auto clique = dot == std::string_view::npos ? std::string_view("0") : key.substr(dot + 1);
    return "nvl_" + (long_form ? hex : hex.substr(0, 8)) + "_" + std::string(clique);
}

void assign_nvlink_domains(FabricMap& map,
                           const HostNvlinkMap& facts,
                           const NvlinkDomainOptions& options) {
    const bool any =
        std::any_of(facts.begin(), facts.end(), [](const auto& f) { return f.second.multi_node; });
    // With no host in a fabric, the previous map's domains still keep their places (every
    // tray's NVML down at once, or facts gathered wrong): placeholders, not a renumbering.
    if (!any && (options.previous == nullptr || options.previous->domains.empty())) {
        return;
    }
    std::vector<std::string> no_facts;
    std::vector<std::string> not_in_domain;
    std::vector<std::string> unknown;
    std::map<std::string, std::vector<std::uint32_t>> hosts_of;  // key → host indices
    std::map<std::string, bool> degraded;
    for (std::uint32_t h = 0; h < map.hosts.size(); ++h) {
        const auto& name = map.hosts[h].name;
        const auto it = facts.find(name);
        if (it == facts.end()) {
            no_facts.push_back(name);
            continue;
        }
        const auto& f = it->second;
        if (!f.multi_node && !f.healthy) {
            // NVML did not answer (no driver, a hung GPU): the host's domain is not known now.
            // It keeps the previous map's (its rack's slot), degraded; else it is in none.
            const auto* before =
                options.previous != nullptr ? options.previous->find_host(name) : nullptr;
            const bool kept = before != nullptr && before->domain != kNoDomain;
            map.anomalies.push_back(
                {"nvl-host-unknown",
                 name + ": " +
                     (f.problems.empty() ? "NVML gave no fabric" : join(f.problems, "; ")) +
                     (kept ? "; kept in domain " + options.previous->domains[before->domain].name +
                                 " (previous map), degraded"
                           : "; the host is in no NVLink domain")});
            if (kept) {
                const auto& key = options.previous->domains[before->domain].key;
                hosts_of[key].push_back(h);
                degraded[key] = true;
            }
            continue;
        }
        if (!f.multi_node) {
            not_in_domain.push_back(name);
            continue;
        }
        if (!f.domain.empty() && !valid_domain_key(f.domain)) {
            map.anomalies.push_back(
                {"nvl-bad-domain-key", name + ": domain key '" + printable(f.domain.substr(0, 80)) +
                                           "' is not <cluster UUID>.<clique id>; the host is in "
                                           "no NVLink domain"});
            continue;
        }
        if (f.domain.empty()) {
            map.anomalies.push_back(
                {"nvl-gpus-disagree",
                 name + ": " + (f.problems.empty() ? "no domain agreed" : join(f.problems, "; ")) +
                     "; the host is in no NVLink domain"});
            continue;
        }
        if (!f.healthy) {
            map.anomalies.push_back({"nvl-host-unhealthy", name + ": " + join(f.problems, "; ")});
        }
        hosts_of[f.domain].push_back(h);
        degraded[f.domain] = degraded[f.domain] || !f.healthy;
    }
    for (const auto& [name, f] : facts) {
        if (map.find_host(name) == nullptr) {
            unknown.push_back(name);
        }
    }
    // The previous map's domains: their order, and the placeholders for those gone.
    std::map<std::string, std::size_t> previous_place;
    std::set<std::string> keys;
    for (const auto& [key, hosts] : hosts_of) {
        keys.insert(key);
    }
    std::vector<const MapDomain*> gone;
    if (options.previous != nullptr) {
        for (std::size_t i = 0; i < options.previous->domains.size(); ++i) {
            const auto& d = options.previous->domains[i];
            previous_place.emplace(d.key, i);
            if (hosts_of.count(d.key) == 0) {
                gone.push_back(&d);
                keys.insert(d.key);
            }
        }
    }
    const auto names = name_domains(keys);
    std::vector<MapDomain> domains;
    std::vector<std::pair<std::size_t, std::string>> order;  // (SU, sort key) per domain
    for (const auto& [key, hosts] : hosts_of) {
        MapDomain d;
        d.key = key;
        d.name = names.at(key);
        d.state = degraded[key] ? DomainState::Degraded : DomainState::Ok;
        std::map<std::uint32_t, std::size_t> per_su;
        for (const auto h : hosts) {
            d.members.push_back(map.hosts[h].name);
            ++per_su[map.hosts[h].su];
        }
        d.su = per_su.begin()->first;
        for (const auto& [su, n] : per_su) {
            if (n > per_su[d.su]) {
                d.su = su;
            }
        }
        if (per_su.size() > 1) {
            std::string where;
            std::size_t shown = 0;
            for (const auto& [su, n] : per_su) {
                if (shown++ == kListed) {
                    where += ", ... (" + std::to_string(per_su.size()) + " SUs in all)";
                    break;
                }
                where +=
                    (where.empty() ? "" : ", ") + std::to_string(n) + " in " + map.sus[su].name;
            }
            map.anomalies.push_back({"nvl-domain-spans-sus", d.name + " (" + key + "): " + where +
                                                                 "; its block is put "
                                                                 "under " +
                                                                 map.sus[d.su].name});
        }
        if (options.expect_size != 0 && d.members.size() != options.expect_size) {
            map.anomalies.push_back(
                {"nvl-domain-size", d.name + " (" + key + "): " + std::to_string(d.members.size()) +
                                        (d.members.size() == 1 ? " host" : " hosts") +
                                        ", expected " + std::to_string(options.expect_size) + ": " +
                                        listed(d.members)});
        }
        domains.push_back(std::move(d));
    }
    std::set<std::string> placed;
    for (const auto& d : domains) {
        placed.insert(d.members.begin(), d.members.end());
    }
    for (const auto* old : gone) {
        std::uint32_t su = 0;
        bool found = false;
        for (std::uint32_t s = 0; s < map.sus.size() && !found; ++s) {
            found = map.sus[s].name == options.previous->sus[old->su].name;
            su = found ? s : su;
        }
        if (!found) {
            map.anomalies.push_back({"nvl-domain-missing",
                                     old->name + " (" + old->key + "): gone with its SU " +
                                         options.previous->sus[old->su].name + "; no block kept"});
            continue;
        }
        MapDomain d;
        d.key = old->key;
        d.name = names.at(old->key);
        d.su = su;
        d.state = DomainState::Missing;
        for (const auto& m : old->members) {
            if (placed.count(m) == 0) {
                d.members.push_back(m);
            }
        }
        if (d.members.empty()) {
            continue;  // its hosts are all in other domains now: nothing to keep
        }
        map.anomalies.push_back(
            {"nvl-domain-missing", d.name + " (" + d.key + "): no host of it reported (" +
                                       listed(d.members) + "); its block keeps its place"});
        domains.push_back(std::move(d));
    }
    // SU by SU in map order; within one, the previous map's order, then new ones by name.
    std::vector<std::size_t> idx(domains.size());
    for (std::size_t i = 0; i < idx.size(); ++i) {
        idx[i] = i;
    }
    auto rank = [&](const MapDomain& d) {
        const auto it = previous_place.find(d.key);
        return std::make_tuple(d.su, it == previous_place.end() ? SIZE_MAX : it->second, d.name);
    };
    std::sort(idx.begin(), idx.end(),
              [&](std::size_t a, std::size_t b) { return rank(domains[a]) < rank(domains[b]); });
    map.domains.clear();
    for (const auto i : idx) {
        map.domains.push_back(std::move(domains[i]));
    }
    for (std::uint32_t d = 0; d < map.domains.size(); ++d) {
        for (const auto& m : map.domains[d].members) {
            if (const auto* h = map.find_host(m); h != nullptr) {
                map.hosts[static_cast<std::size_t>(h - map.hosts.data())].domain = d;
            }
        }
    }
    std::vector<std::string> still_no_facts;
    for (const auto& n : no_facts) {
        const auto* h = map.find_host(n);
        if (h->domain == kNoDomain) {
            still_no_facts.push_back(n);
        }
    }
    if (!still_no_facts.empty()) {
        map.anomalies.push_back({"nvl-no-facts", std::to_string(still_no_facts.size()) +
                                                     " host(s) without node facts, in no NVLink "
                                                     "domain: " +
                                                     listed(still_no_facts)});
    }
    if (!not_in_domain.empty()) {
        map.anomalies.push_back(
            {"nvl-not-in-domain", std::to_string(not_in_domain.size()) +
                                      " host(s) whose GPUs take part in no multi-node NVLink "
                                      "fabric: " +
                                      listed(not_in_domain)});
    }
    if (!unknown.empty()) {
        map.anomalies.push_back(
            {"nvl-facts-unknown-host",
             std::to_string(unknown.size()) +
                 " node facts file(s) of hosts not in the fabric: " + listed(unknown)});
    }
}

}  // namespace switchyard::discover
