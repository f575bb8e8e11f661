// SPDX-License-Identifier: Apache-2.0
#include "switchyard/preflight/locate.hpp"

#include <algorithm>
#include <unordered_map>

namespace switchyard::preflight {

bool Blame::drain(const Model& m) const {
    if (!m.parts[part].node_fault()) {
        return false;
    }
    return std::all_of(alternatives.begin(), alternatives.end(), [&](std::uint32_t a) {
        return m.parts[a].node_fault() && m.parts[a].host == m.parts[part].host;
    });
}

namespace {

enum class State : std::uint8_t { Unmeasured, Good, Slow, Failed };

/// Among parts the pairs cannot tell apart, the kind to name first: a host's port or cable, then
/// cables above the leaf, then switches, then what a whole plane shares. Cables and optics fail
/// more often than switches.
int likelier(PartKind k) {
    switch (k) {
        case PartKind::Port:
            return 0;
        case PartKind::NvlinkPort:
            return 1;
        case PartKind::Uplink:
            return 2;
        case PartKind::Global:
            return 3;
        case PartKind::Uplinks:
            return 4;
        case PartKind::Globals:
            return 5;
        case PartKind::Leaf:
            return 6;
        case PartKind::Spine:
            return 7;
        case PartKind::Spines:
            return 8;
        case PartKind::Domain:
            return 9;
        case PartKind::Rail:
            return 10;
    }
    return 11;
}

}  // namespace

Location locate(const Model& m, std::span<const Probe> probes, std::span<const Verdict> verdicts) {
    Location loc;
    const auto n = probes.size();
    std::vector<State> state(n, State::Unmeasured);
    for (const auto& v : verdicts) {
        if (v.probe >= n) {
            continue;
        }
        auto& s = state[v.probe];
        switch (v.outcome) {
            case Outcome::Ok:
                s = State::Good;
                break;
            case Outcome::Slow:
                if (s != State::Good) {
                    s = State::Slow;
                }
                break;
            case Outcome::ProbeFailed:
                if (s == State::Unmeasured) {
                    s = State::Failed;
                }
                break;
        }
    }

    // Paths, flattened; through-counts; what the good pairs clear.
    std::vector<std::uint32_t> offset(n + 1, 0);
    std::vector<std::uint32_t> flat;
    flat.reserve(n * 10);
    std::vector<std::uint32_t> path;
    std::vector<std::uint32_t> through(m.parts.size(), 0);
    std::vector<std::uint32_t> slow_through(m.parts.size(), 0);
    std::vector<char> cleared(m.parts.size(), 0);
    for (std::size_t i = 0; i < n; ++i) {
        offset[i] = static_cast<std::uint32_t>(flat.size());
        if (state[i] == State::Unmeasured || state[i] == State::Failed) {
            if (state[i] == State::Failed) {
                loc.probe_failures.push_back(static_cast<std::uint32_t>(i));
            }
            continue;
        }
        ++loc.measured;
        path_of(m, probes[i], path);
        for (auto part : path) {
            ++through[part];
            if (state[i] == State::Good && m.parts[part].clearable()) {
                cleared[part] = 1;
            }
            if (state[i] == State::Slow) {
                ++slow_through[part];
            }
        }
        if (state[i] == State::Slow) {
            ++loc.slow;
            flat.insert(flat.end(), path.begin(), path.end());
        }
    }
    offset[n] = static_cast<std::uint32_t>(flat.size());

    // Candidates of each slow pair: the parts of its path nothing cleared.
    std::vector<std::uint32_t> open;  // slow probes not yet explained
    for (std::uint32_t i = 0; i < n; ++i) {
        if (state[i] != State::Slow) {
            continue;
        }
        bool any = false;
        for (auto k = offset[i]; k < offset[i + 1]; ++k) {
            any = any || cleared[flat[k]] == 0;
        }
        if (any) {
            open.push_back(i);
        } else {
            loc.unexplained.push_back(i);
        }
    }
    std::vector<char> explained(n, 0);
    std::unordered_map<std::uint32_t, std::uint32_t> cover;
    while (true) {
        cover.clear();
        for (auto i : open) {
            if (explained[i] != 0) {
                continue;
            }
            for (auto k = offset[i]; k < offset[i + 1]; ++k) {
                if (cleared[flat[k]] == 0) {
                    ++cover[flat[k]];
                }
            }
        }
        if (cover.empty()) {
            break;
        }
        // Likelihood of a part's slow share: 1 when it slows as many of its pairs as a fault in
        // one of its members would (all of them for a part crossed whole), less when fewer.
        auto plausible = [&](std::uint32_t part) {
            const double expected = static_cast<double>(through[part]) /
                                    std::max<std::uint32_t>(1, m.parts[part].members);
            return std::min(1.0, static_cast<double>(slow_through[part]) / std::max(1.0, expected));
        };
        // The slow pairs a part explains, weighed by how plausibly: a spine layer that would
        // have slowed a hundred pairs does not win over a leaf's uplinks on the ten it shares
        // with them plus one slow moment elsewhere.
        auto better = [&](std::uint32_t a, std::uint32_t b) {
            const double sa = cover[a] * plausible(a);
            const double sb = cover[b] * plausible(b);
            if (sa != sb) {
                return sa > sb;
            }
            if (cover[a] != cover[b]) {
                return cover[a] > cover[b];
            }
            if (through[a] != through[b]) {
                return through[a] < through[b];
            }
            if (likelier(m.parts[a].kind) != likelier(m.parts[b].kind)) {
                return likelier(m.parts[a].kind) < likelier(m.parts[b].kind);
            }
            return a < b;
        };
        std::uint32_t best = cover.begin()->first;
        for (const auto& [part, c] : cover) {
            if (better(part, best)) {
                best = part;
            }
        }
        Blame b;
        b.part = best;
        b.through = through[best];
        // Alternatives: on the same slow pairs, about as plausible.
        const double pbest = plausible(best);
        for (const auto& [part, c] : cover) {
            if (part != best && c == cover[best] && plausible(part) >= 0.5 * pbest) {
                b.alternatives.push_back(part);
            }
        }
        std::sort(b.alternatives.begin(), b.alternatives.end(),
                  [&](std::uint32_t x, std::uint32_t y) { return better(x, y); });
        for (auto i : open) {
            if (explained[i] != 0) {
                continue;
            }
            for (auto k = offset[i]; k < offset[i + 1]; ++k) {
                if (flat[k] == best) {
                    explained[i] = 1;
                    b.slow.push_back(i);
                    break;
                }
            }
        }
        // A set blamed for one slow pair is a slow moment as likely as a fault: one pair of
        // the set's many, once, is not evidence enough.
        if (!m.parts[best].clearable() && b.slow.size() < 2) {
            loc.unexplained.insert(loc.unexplained.end(), b.slow.begin(), b.slow.end());
            continue;
        }
        // The alternatives must explain exactly these pairs to be alternatives.
        std::erase_if(b.alternatives, [&](std::uint32_t alt) {
            for (auto i : b.slow) {
                bool on = false;
                for (auto k = offset[i]; k < offset[i + 1]; ++k) {
                    on = on || flat[k] == alt;
                }
                if (!on) {
                    return true;
                }
            }
            return false;
        });
        loc.faults.push_back(std::move(b));
    }
    return loc;
}

}  // namespace switchyard::preflight

namespace switchyard::preflight {

Measured measured(const Model& m, std::span<const PairResult> results, const Limits& limits) {
    Measured out;
    std::unordered_map<std::string, std::uint32_t> att;  // "host\nplane" -> attachment
    att.reserve(m.attachments.size());
    for (std::uint32_t i = 0; i < m.attachments.size(); ++i) {
        const auto& a = m.attachments[i];
        att.emplace(m.hosts[a.host] + '\n' + m.planes[a.plane].name, i);
    }
    std::unordered_map<std::uint64_t, std::uint32_t> probe_of;
    std::size_t left_out = 0;
    std::string first;
    for (const auto& r : results) {
        const auto a = att.find(r.client + '\n' + r.rail);
        const auto b = att.find(r.server + '\n' + r.rail);
        if (a == att.end() || b == att.end() || a->second == b->second) {
            if (left_out++ == 0) {
                first = "line " + std::to_string(r.line) + ": " + r.client + " -> " + r.server +
                        " on " + r.rail;
            }
            continue;
        }
        const std::uint64_t key = (std::uint64_t{a->second} << 32) | b->second;
        auto [it, fresh] = probe_of.emplace(key, static_cast<std::uint32_t>(out.probes.size()));
        if (fresh) {
            out.probes.push_back(Probe{a->second, b->second, 0});
        }
        if (!r.error.empty()) {
            Verdict v;
            v.probe = it->second;
            v.outcome = Outcome::ProbeFailed;
            v.detail = r.error;
            out.verdicts.push_back(std::move(v));
        } else {
            out.verdicts.push_back(judge(it->second, r.latency_us, r.bandwidth_gbps, limits));
        }
    }
    if (left_out != 0) {
        out.notes.push_back(std::to_string(left_out) +
                            " result(s) name a host or rail of no job host on the map, left "
                            "out (first: " +
                            first + ")");
    }
    return out;
}

}  // namespace switchyard::preflight
