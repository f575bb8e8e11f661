// SPDX-License-Identifier: Apache-2.0
// Files without their own chassis (plain `lldpctl -f json`, neighbours only) named from their
// cables: through the named systems' views of their ports, or, when every file is plain, from
// each other's records of the same cables.
#include <unordered_map>
#include <unordered_set>

#include "lldp_builder.hpp"

namespace switchyard::discover::lldp_detail {
namespace {

/// Unnamed files with one pair of port names beyond which the pair tells nothing (every host's
/// eth0 on the swp1 of every leaf; every pod's spine 1 on port swp1 of its leaf 1): their
/// guesses are not counted, and each round costs one pass over the records. The names given
/// in a round then tell those files apart in the next (a leaf by its named spines).
constexpr std::size_t kMaxGuessBucket = 64;
/// Rounds of naming: each names at least one file or ends it.
constexpr int kMaxRounds = 64;
constexpr std::uint32_t kNone = ~std::uint32_t{0};

/// The name with the most votes in `votes` (other than `except`), its count, and whether
/// another name has as many.
struct Top {
    std::uint32_t name = kNone;
    std::uint32_t count = 0;
    bool tie = false;
};
Top top_of(const std::unordered_map<std::uint32_t, std::uint32_t>& votes,
           std::uint32_t except = kNone) {
    Top t;
    for (const auto& [name, count] : votes) {
        if (name == except) {
            continue;
        }
        if (count > t.count) {
            t = {name, count, false};
        } else if (count == t.count) {
            t.tie = true;
        }
    }
    return t;
}

}  // namespace

void LldpFabricBuilder::name_pending() {
    std::vector<bool> done(pending_.size(), false);
    // 1. Through the named systems' cables, as long as a round names a file (a file named in
    // one round may name the next).
    for (int round = 0; round < kMaxRounds; ++round) {
        bool named = false;
        for (std::size_t i = 0; i < pending_.size(); ++i) {
            if (done[i]) {
                continue;
            }
            const auto& [f, file] = pending_[i];
            std::map<std::string, std::uint32_t> seen_as;  // what the far ends see on its ports
            for (const auto& nb : file.neighbors) {
                const auto sys = by_name_.find(nb.chassis.name, SystemNames{systems_});
                const auto p = port_ids_.find(port_name(nb), ports_);
                if (sys == kNoSystem || p == kNoSystem) {
                    continue;
                }
                if (const auto* far = find(end_of(sys, p)); far != nullptr) {
                    ++seen_as[systems_[system_of(far->far)].name];
                }
            }
            if (seen_as.empty()) {
                continue;
            }
            const auto best =
                std::max_element(seen_as.begin(), seen_as.end(),
                                 [](const auto& x, const auto& y) { return x.second < y.second; });
            if (seen_as.size() > 1) {
                // Precision first: a name the far ends do not all give is no name.
                const auto second = std::max_element(
                    seen_as.begin(), seen_as.end(), [&](const auto& x, const auto& y) {
                        return std::pair(x.first != best->first, x.second) <
                               std::pair(y.first != best->first, y.second);
                    });
                unclear({f, 0}, "the far ends' files see", best->first, best->second, second->first,
                        second->second, "ports");
                done[i] = true;
                continue;
            }
            const auto s = system(best->first, LldpChassis{}, {f, 0});
            if (s == kNoSystem || systems_[s].file != kNoSystem) {
                continue;  // reported with the files left at the end
            }
            read_cables(s, f, file);
            put_views();  // the next pending file may be named through these cables
            done[i] = true;
            named = true;
        }
        if (!named) {
            break;
        }
    }
    // 2. The files no named system sees: from each other's records of the same cables.
    std::vector<std::pair<std::uint32_t, LldpFile>> rest;
    for (std::size_t i = 0; i < pending_.size(); ++i) {
        if (!done[i]) {
            rest.push_back(std::move(pending_[i]));
        }
    }
    pending_.clear();
    const auto names = name_by_mutual_cables(rest);
    for (std::size_t k = 0; k < rest.size(); ++k) {
        const auto& [f, file] = rest[k];
        const auto& n = names[k];
        if (n.name.empty() && !n.refused.empty() && n.against > 0) {
            unclear({f, 0}, "the far ends' records name", n.other, n.against, n.refused, n.votes,
                    "cables");
            continue;
        }
        const auto s = n.name.empty() ? kNoSystem : system(n.name, LldpChassis{}, {f, 0});
        if (s == kNoSystem || systems_[s].file != kNoSystem) {
            warn("lldp-unknown-system", loc({f, 0}),
                 n.refused.empty()
                     ? "the file does not say which system it is from (gather 'lldpcli -f json "
                       "show chassis' with 'lldpctl -f json'), no named system's file sees its "
                       "ports, and its cables do not match one other file's records of them "
                       "unambiguously: left out"
                     : "the file does not say which system it is from (gather 'lldpcli -f json "
                       "show chassis' with 'lldpctl -f json'), and no record of its far ends "
                       "names it: its cables fit '" +
                           n.refused +
                           "' by port names alone, which the far ends' records do not "
                           "confirm: left out");
            continue;
        }
        read_cables(s, f, file);
    }
    put_views();  // all at once: the switches' views first
}

void LldpFabricBuilder::unclear(Where where,
                                const std::string& says,
                                const std::string& a,
                                std::uint32_t na,
                                const std::string& b,
                                std::uint32_t nb,
                                const char* what) {
    const bool swap = nb > na;
    warn("lldp-name-disagrees", loc(where),
         says + " '" + (swap ? b : a) + "' on " + std::to_string(swap ? nb : na) + " of its " +
             what + " and '" + (swap ? a : b) + "' on " + std::to_string(swap ? na : nb) +
             " (a moved cable, a stale neighbour, or a copied file): which system it is from is "
             "not clear, left out");
}

std::vector<LldpFabricBuilder::Naming> LldpFabricBuilder::name_by_mutual_cables(
    const std::vector<std::pair<std::uint32_t, LldpFile>>& files) {
    std::vector<Naming> out(files.size());
    if (files.size() < 2) {
        return out;
    }
    // Names and port names as numbers.
    std::unordered_map<std::string, std::uint32_t> ids;
    std::vector<const std::string*> text;
    const auto id = [&](const std::string& s) {
        const auto [it, fresh] = ids.try_emplace(s, static_cast<std::uint32_t>(ids.size()));
        if (fresh) {
            text.push_back(&it->first);
        }
        return it->second;
    };
    struct Rec {
        std::uint32_t file, local, far, far_port;
    };
    std::vector<Rec> recs;
    for (std::uint32_t k = 0; k < files.size(); ++k) {
        const auto& [f, file] = files[k];
        for (const auto& nb : file.neighbors) {
            if (const auto* name = name_of(nb.chassis, {f, nb.line}); name != nullptr) {
                recs.push_back({k, id(nb.local_port), id(*name), id(port_name(nb))});
            }
        }
    }
    const auto key = [](std::uint32_t local, std::uint32_t far_port) {
        return (std::uint64_t{local} << 32U) | far_port;
    };
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> by_ports;
    for (std::uint32_t r = 0; r < recs.size(); ++r) {
        by_ports[key(recs[r].local, recs[r].far_port)].push_back(r);
    }
    // A name a file with its own chassis holds is not free for a plain file.
    std::vector<char> held(text.size(), 0);
    for (std::uint32_t n = 0; n < text.size(); ++n) {
        const auto s = by_name_.find(*text[n], SystemNames{systems_});
        held[n] = s != kNoSystem && systems_[s].file != kNoSystem ? 1 : 0;
    }
    std::vector<std::uint32_t> given(files.size(), kNone);
    std::unordered_map<std::uint32_t, std::uint32_t> owner;  // name → file given it
    std::vector<std::unordered_map<std::uint32_t, std::uint32_t>> votes(files.size());
    // Each file's record on each of its ports, for the pairs whose one end is named.
    std::unordered_map<std::uint64_t, std::uint32_t> on_port;  // (file, port) → record
    for (std::uint32_t r = 0; r < recs.size(); ++r) {
        on_port.try_emplace(key(recs[r].file, recs[r].local), r);
    }
    // The votes: for each pair of records that can be the two ends of one cable, r's file is
    // x's far end. When r's far end is named, only its file's record on that port can be; else
    // any unnamed file's with the same two ports, unless so many have them that they tell
    // nothing (kMaxGuessBucket). With `anchored`, only pairs whose other end is named.
    const auto vote = [&](const Rec& r, const Rec& x) {
        if (held[x.far] == 0) {
            ++votes[r.file][x.far];
        }
    };
    const auto tally = [&](bool anchored) {
        for (auto& v : votes) {
            v.clear();
        }
        for (const auto& r : recs) {
            if (held[r.far] != 0) {
                continue;  // its far end has a file of its own: not this way
            }
            if (const auto o = owner.find(r.far); o != owner.end()) {
                const auto at = on_port.find(key(o->second, r.far_port));
                if (at != on_port.end() && recs[at->second].far_port == r.local &&
                    o->second != r.file) {
                    vote(r, recs[at->second]);
                }
                continue;
            }
            const auto bucket = by_ports.find(key(r.far_port, r.local));
            if (anchored || bucket == by_ports.end() || bucket->second.size() > kMaxGuessBucket) {
                continue;
            }
            for (const auto xi : bucket->second) {
                const auto& x = recs[xi];
                if (x.file != r.file && given[x.file] == kNone) {
                    vote(r, x);
                }
            }
        }
    };
    std::unordered_set<std::uint64_t> banned;  // (file, name) taken back
    std::vector<std::uint32_t> refused(files.size(), kNone);
    // The rounds; then each name given is checked against the named far ends' records, and
    // a name they do not confirm is taken back and the rounds run again.
    for (int pass = 0, round = 0; pass < kMaxRounds && round < kMaxRounds; ++pass) {
        for (; round < kMaxRounds; ++round) {
            tally(false);
            // Each file without a name takes its clear winner, if no other file wants it more.
            std::unordered_map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> wanted;
            for (std::uint32_t k = 0; k < files.size(); ++k) {
                if (given[k] != kNone) {
                    continue;
                }
                std::erase_if(votes[k],
                              [&](const auto& v) { return banned.contains(key(k, v.first)); });
                const auto t = top_of(votes[k]);
                if (t.name == kNone || t.tie || owner.contains(t.name)) {
                    continue;
                }
                const auto lead = t.count - top_of(votes[k], t.name).count;
                const auto [it, fresh] = wanted.try_emplace(t.name, k, lead);
                if (!fresh) {
                    if (lead > it->second.second) {
                        it->second = {k, lead};
                    } else if (lead == it->second.second) {
                        it->second = {kNone, lead};  // two files want it as much: neither, yet
                    }
                }
            }
            bool named = false;
            for (const auto& [name, who] : wanted) {
                if (who.first != kNone) {
                    given[who.first] = name;
                    owner[name] = who.first;
                    named = true;
                }
            }
            if (!named) {
                break;
            }
        }
        tally(true);  // what the named files' records say of each other
        std::vector<std::uint32_t> unconfirmed;
        std::vector<std::uint32_t> disputed;
        for (std::uint32_t k = 0; k < files.size(); ++k) {
            if (given[k] == kNone) {
                continue;
            }
            auto& n = out[k];
            const auto it = votes[k].find(given[k]);
            n.votes = it == votes[k].end() ? 0 : it->second;
            n.against = 0;
            n.other.clear();
            for (const auto& [name, count] : votes[k]) {
                if (name != given[k]) {
                    n.against += count;
                }
            }
            if (const auto other = top_of(votes[k], given[k]); other.name != kNone) {
                n.other = *text[other.name];
            }
            if (n.votes == 0) {
                unconfirmed.push_back(k);
            } else if (n.against > 0) {
                disputed.push_back(k);
            }
        }
        // The names nothing confirms first: a wrong one makes its far ends' look disputed.
        const bool last = pass + 1 == kMaxRounds || round == kMaxRounds;
        if (last) {
            unconfirmed.insert(unconfirmed.end(), disputed.begin(), disputed.end());
        }
        const auto& back = unconfirmed.empty() ? disputed : unconfirmed;
        if (back.empty()) {
            break;
        }
        for (const auto k : back) {
            banned.insert(key(k, given[k]));
            refused[k] = given[k];
            owner.erase(given[k]);
            given[k] = kNone;
        }
    }
    for (std::uint32_t k = 0; k < files.size(); ++k) {
        if (given[k] != kNone) {
            out[k].name = *text[given[k]];
        } else if (refused[k] != kNone) {
            out[k].refused = *text[refused[k]];
        }
    }
    return out;
}

}  // namespace switchyard::discover::lldp_detail
