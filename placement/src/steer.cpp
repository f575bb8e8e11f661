// SPDX-License-Identifier: Apache-2.0
// Fabric degradation per node and the ownership rules of the node weights Switchyard sets.
#include "switchyard/placement/steer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "switchyard/common/strings.hpp"

namespace switchyard::placement {
namespace {

constexpr std::uint64_t kMaxEpoch = 1ULL << 52;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

namespace {

/// The NVLink part: hosts of a degraded domain score kDegradedDomain, those of a domain short
/// of hosts against the usual domain (a tray out) its shortfall; the worse of the two.
void nvlink_degradation(const fabric::FabricMap& map, std::map<std::string, Degradation>& out) {
    constexpr double kDegradedDomain = 0.5;
    std::vector<double> sizes;
    for (const auto& d : map.domains) {
        if (d.state != fabric::DomainState::Missing) {
            sizes.push_back(static_cast<double>(d.members.size()));
        }
    }
    const double usual = sizes.empty() ? 0 : median(sizes);
    for (const auto& d : map.domains) {
        Degradation deg;
        const auto n = static_cast<double>(d.members.size());
        if (d.state == fabric::DomainState::Degraded) {
            deg = {kDegradedDomain, "NVLink domain " + d.name +
                                        " is degraded (a tray's GPUs not registered or "
                                        "unhealthy)"};
        }
        if (d.state != fabric::DomainState::Missing && usual > 0 && n < usual &&
            1 - n / usual > deg.score) {
            deg = {1 - n / usual, "NVLink domain " + d.name + " has " + short_number(n) +
                                      " hosts, the usual domain " + short_number(usual)};
        }
        if (deg.score <= 0) {
            continue;
        }
        for (const auto& m : d.members) {
            if (map.find_host(m) == nullptr) {
                continue;
            }
            auto& cur = out[m];
            if (deg.score > cur.score) {
                cur = deg;
            }
        }
    }
}

}  // namespace

std::map<std::string, Degradation> fabric_degradation(const fabric::FabricMap& map) {
    std::map<std::string, Degradation> out;
    nvlink_degradation(map, out);
    if (!map.link_counts) {
        return out;
    }
    // Per SU: uplinks per rail, against the usual SU's. Cables, not the taper per host: an SU
    // with hosts missing from the capture (powered off) is not better cabled for it.
    // Hosts cabled into a spine have no uplink of their own: neither compared nor counted.
    std::vector<double> per_rail(map.sus.size(), 0);
    std::vector<double> leaf_sus;
    for (std::uint32_t s = 0; s < map.sus.size(); ++s) {
        per_rail[s] = map.su_uplinks_per_rail(s);
        if (!map.su_on_spine(s)) {
            leaf_sus.push_back(per_rail[s]);
        }
    }
    const double usual_su = leaf_sus.size() > 1 ? median(leaf_sus) : 0;
    std::vector<double> globals;
    for (const auto& g : map.groups) {
        globals.push_back(g.global);
    }
    const bool dragonfly = map.kind == fabric::FabricKind::DragonflyPlus;
    const double usual_global = dragonfly ? median(globals) : 0;
    for (const auto& h : map.hosts) {
        const auto& su = map.sus[h.su];
        Degradation d;
        if (usual_su > 0 && !map.su_on_spine(h.su) && per_rail[h.su] < usual_su) {
            d.score = 1 - per_rail[h.su] / usual_su;
            d.why = "SU " + su.name + " has " + short_number(per_rail[h.su]) +
                    " uplinks per rail, the usual SU " + short_number(usual_su);
        }
        const auto& g = map.groups[su.group];
        if (usual_global > 0 && g.global < usual_global && 1 - g.global / usual_global > d.score) {
            d.score = 1 - g.global / usual_global;
            d.why = "group " + g.name + " has " + std::to_string(g.global) +
                    " global cables to some group, the usual group " + short_number(usual_global);
        }
        if (auto it = out.find(h.name);
            d.score > 0 && (it == out.end() || d.score > it->second.score)) {
            out[h.name] = std::move(d);
        }
    }
    return out;
}

void add_soft_signal(std::map<std::string, Degradation>& scores,
                     const std::string& node,
                     double soft,
                     double weight,
                     const std::string& why,
                     const std::string& source) {
    const double score = std::clamp(soft, 0.0, 1.0) * std::clamp(weight, 0.0, 1.0);
    if (score <= 0) {
        return;
    }
    auto& d = scores[node];
    if (score > d.score) {
        d = {score, source + ": " + why};
    }
}

unsigned wanted_weight(const SteerPolicy& p, double score) {
    const double s = std::clamp(score, 0.0, 1.0);
    return p.base_weight + static_cast<unsigned>(std::lround(s * p.max_penalty));
}

WeightDecision decide_weight(const std::string& node,
                             unsigned current,
                             const std::optional<OwnedWeight>& owned,
                             unsigned wanted,
                             const SteerPolicy& p,
                             double now) {
    using A = WeightDecision::Action;
    const bool ours = owned.has_value() && owned->weight == current;
    if (!ours && current != p.base_weight) {
        return {A::AdminOwned, current,
                node + ": weight " + std::to_string(current) + " was not set by switchyard (base " +
                    std::to_string(p.base_weight) + "): left alone"};
    }
    if (current == wanted) {
        return {A::Keep, current, node + ": weight " + std::to_string(current) + " is right"};
    }
    if (ours && now - owned->at < p.min_interval_s) {
        return {A::TooSoon, current,
                node + ": weight " + std::to_string(current) + " set " +
                    short_number(std::round(now - owned->at)) + " s ago; " +
                    std::to_string(wanted) + " waits for the " + short_number(p.min_interval_s) +
                    " s interval"};
    }
    return {A::Set, wanted,
            node + ": weight " + std::to_string(current) + " -> " + std::to_string(wanted)};
}

DrainHistory DrainHistory::parse(std::string_view text) {
    DrainHistory h;
    for (const auto line : split(text, '\n')) {
        const auto f = split(trim(line), ' ');
        if (f.size() != 4 || f[0] != "flap" || f[1].empty()) {
            continue;
        }
        const auto drained = parse_number<std::uint64_t>(f[2]);
        const auto resumed = parse_number<std::uint64_t>(f[3]);
        if (drained && resumed && *drained <= kMaxEpoch && *resumed <= kMaxEpoch) {
            h.nodes_[std::string(f[1])] = {static_cast<double>(*drained),
                                           static_cast<double>(*resumed)};
        }
    }
    return h;
}

std::string DrainHistory::text() const {
    const auto epoch = [](double t) {
        return std::to_string(
            static_cast<std::uint64_t>(std::clamp(t, 0.0, static_cast<double>(kMaxEpoch))));
    };
    std::string out;
    for (const auto& [node, e] : nodes_) {
        out += "flap " + node + ' ' + epoch(e.drained) + ' ' + epoch(e.resumed) + '\n';
    }
    return out;
}

void DrainHistory::observe(const std::string& node, bool owned_drain, double now) {
    if (owned_drain) {
        auto& e = nodes_[node];
        if (e.drained == 0 || e.resumed != 0) {  // a new drain
            e = {now, 0};
        }
        return;
    }
    const auto it = nodes_.find(node);
    if (it != nodes_.end() && it->second.resumed == 0) {
        it->second.resumed = now;  // back in service since the last look
    }
}

std::optional<double> DrainHistory::resumed_within(const std::string& node,
                                                   double now,
                                                   double window_s) const {
    const auto it = nodes_.find(node);
    if (it == nodes_.end() || it->second.resumed == 0 || now - it->second.resumed >= window_s) {
        return std::nullopt;
    }
    return it->second.resumed;
}

void DrainHistory::expire(double now, double window_s) {
    std::erase_if(nodes_, [&](const auto& kv) {
        return kv.second.resumed != 0 && now - kv.second.resumed >= window_s;
    });
}

WeightRecord WeightRecord::parse(std::string_view text) {
    WeightRecord r;
    for (const auto line : split(text, '\n')) {
        const auto f = split(trim(line), ' ');
        if (f.size() != 3 || f[0].empty()) {
            continue;
        }
        const auto w = parse_number<unsigned>(f[1]);
        const auto at = parse_number<std::uint64_t>(f[2]);
        if (w && at && *at <= kMaxEpoch) {  // a time a double holds exactly
            r.owned_[std::string(f[0])] = {*w, static_cast<double>(*at)};
        }
    }
    return r;
}

std::string WeightRecord::text() const {
    std::string out;
    for (const auto& [node, o] : owned_) {
        const double at = std::clamp(o.at, 0.0, static_cast<double>(kMaxEpoch));
        out += node + ' ' + std::to_string(o.weight) + ' ' +
               std::to_string(static_cast<std::uint64_t>(at)) + '\n';
    }
    return out;
}

std::optional<OwnedWeight> WeightRecord::find(const std::string& node) const {
    const auto it = owned_.find(node);
    return it == owned_.end() ? std::nullopt : std::optional(it->second);
}

void WeightRecord::set(const std::string& node, unsigned weight, double at) {
    owned_[node] = {weight, at};
}

void WeightRecord::erase(const std::string& node) {
    owned_.erase(node);
}

}  // namespace switchyard::placement
