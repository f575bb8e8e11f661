// SPDX-License-Identifier: Apache-2.0
// Advice before waiting: does a job's unit request fit the usable nodes, and what would.
#include "switchyard/placement/advice.hpp"

#include <algorithm>

#include "switchyard/common/strings.hpp"

namespace switchyard::placement {
namespace {

using Kind = Advice::Kind;

/// Usable nodes counted by unit and by group (a node the map does not place counts in the
/// total only).
struct Free {
    std::map<std::string, unsigned> by_unit;
    std::map<std::string, unsigned> by_group;
    unsigned total = 0;
};

Free count_free(const AdviceUnits& units, const std::vector<std::string>& usable) {
    Free f;
    for (const auto& n : usable) {
        ++f.total;
        if (const auto u = units.unit_of.find(n); u != units.unit_of.end()) {
            ++f.by_unit[u->second];
        }
        if (const auto g = units.group_of.find(n); g != units.group_of.end()) {
            ++f.by_group[g->second];
        }
    }
    return f;
}

/// Counts, largest first (ties by name).
std::vector<std::pair<std::string, unsigned>> largest_first(
    const std::map<std::string, unsigned>& counts) {
    std::vector<std::pair<std::string, unsigned>> v(counts.begin(), counts.end());
    std::stable_sort(v.begin(), v.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    return v;
}

/// "b1 4, b2 3, ... and 5 more": the units with the most usable nodes.
std::string shown_counts(const std::map<std::string, unsigned>& counts) {
    constexpr std::size_t kShown = 6;
    const auto v = largest_first(counts);
    std::string out;
    for (std::size_t i = 0; i < v.size() && i < kShown; ++i) {
        out += (i == 0 ? "" : ", ") + v[i].first + " " + std::to_string(v[i].second);
    }
    if (v.size() > kShown) {
        out += " and " + std::to_string(v.size() - kShown) + " more";
    }
    return out.empty() ? "none" : out;
}

/// What of the request fits now: segments (block), nodes in the best `switches` SUs (tree) or
/// in the best group. nullopt when the request asks no unit.
std::optional<unsigned> fitting(const AdviceRequest& r, const Free& f) {
    if (r.block && r.segment > 0) {
        unsigned segments = 0;
        for (const auto& [u, n] : f.by_unit) {
            segments += r.spread ? (n >= r.segment ? 1U : 0U) : n / r.segment;
        }
        return segments;
    }
    if (!r.block && r.switches > 0) {
        const auto v = largest_first(f.by_unit);
        unsigned nodes = 0;
        for (std::size_t i = 0; i < v.size() && i < r.switches; ++i) {
            nodes += v[i].second;
        }
        return nodes;
    }
    if (!r.block && r.one_group) {
        unsigned best = 0;
        for (const auto& [g, n] : f.by_group) {
            best = std::max(best, n);
        }
        return best;
    }
    return std::nullopt;
}

bool fits(const AdviceRequest& r, const Free& f) {
    const auto fit = fitting(r, f);
    if (!fit) {
        return f.total >= r.nodes;
    }
    return r.block && r.segment > 0 ? *fit * r.segment >= r.nodes : *fit >= r.nodes;
}

/// The request with `nodes` and `stages` changed, as the filters would ask it: a segment of
/// one stage follows the stage, another segment stays when it still makes whole stages; a
/// switch count follows the stages. nullopt when the filters would refuse it.
std::optional<AdviceRequest> reshaped(const AdviceRequest& r, unsigned nodes, unsigned stages) {
    if (stages == 0 || nodes == 0 || nodes % stages != 0) {
        return std::nullopt;
    }
    AdviceRequest out = r;
    out.nodes = nodes;
    out.stages = stages;
    const unsigned per_stage = nodes / stages;
    if (r.segment > 0) {
        if (r.segment == r.nodes / r.stages) {
            out.segment = per_stage;
        } else if (per_stage % r.segment != 0) {
            return std::nullopt;
        }
    }
    if (r.switches > 0 && r.switches == r.stages) {
        out.switches = stages;
    }
    return out;
}

/// What would start now, the first of each kind: more (smaller) stages, fewer nodes, a wider
/// scope.
std::vector<std::string> alternatives(const AdviceRequest& r,
                                      const AdviceUnits& units,
                                      const Free& f) {
    std::vector<std::string> out;
    if (!r.one_group) {
        for (unsigned s = r.stages + 1; s <= r.nodes; ++s) {
            const auto alt = reshaped(r, r.nodes, s);
            if (alt && fits(*alt, f)) {
                out.push_back("--pipeline-stages=" + std::to_string(s) + " (stages of " +
                              std::to_string(r.nodes / s) + " nodes)");
                break;
            }
        }
    }
    for (unsigned n = r.nodes - 1; n >= r.stages && n > 0; --n) {
        const auto alt = reshaped(r, n, r.stages);
        if (alt && fits(*alt, f)) {
            out.push_back("-N" + std::to_string(n));
            break;
        }
    }
    if (r.scope != StageScope::Any) {
        // On a tree the wider scope asks no unit: any usable nodes.
        bool starts = f.total >= r.nodes;
        if (r.block) {
            // Without --stage-scope=leaf a job of one group block gets no segments: the block
            // plugin keeps it inside one group.
            starts = units.group_block > 0 && r.nodes <= units.group_block &&
                     std::any_of(f.by_group.begin(), f.by_group.end(),
                                 [&](const auto& g) { return g.second >= r.nodes; });
        }
        if (starts) {
            out.emplace_back("--stage-scope=any");
        }
    }
    return out;
}

std::string what_is_asked(const AdviceRequest& r) {
    const auto per_stage = std::to_string(r.nodes / std::max(1U, r.stages));
    if (r.block && r.segment > 0) {
        return std::to_string(r.nodes / r.segment) + " segments of " + std::to_string(r.segment) +
               " nodes, each inside " + (r.spread ? "a block of its own" : "one block") +
               " (--segment=" + std::to_string(r.segment) + (r.spread ? " --spread-segments" : "") +
               ")";
    }
    if (!r.block && r.switches > 0) {
        return std::to_string(r.stages) + " stages of " + per_stage + " nodes within " +
               std::to_string(r.switches) + " SUs (--switches=" + std::to_string(r.switches) + ")";
    }
    return "all " + std::to_string(r.nodes) + " nodes inside one group";
}

std::string why_not(const AdviceRequest& r, const Free& f, unsigned fit) {
    if (r.block && r.segment > 0) {
        return "the usable nodes make " + std::to_string(fit) + " such segment" +
               (fit == 1 ? "" : "s") + " (usable per block: " + shown_counts(f.by_unit) + ")";
    }
    if (!r.block && r.switches > 0) {
        std::string s = "the " + std::to_string(r.switches) +
                        " SUs with the most usable nodes hold " + std::to_string(fit) + " (" +
                        shown_counts(f.by_unit) + ")";
        if (r.switch_wait_s > 0) {
            s += "; Slurm waits up to " + short_number(r.switch_wait_s) +
                 " s for them, then places the job across more SUs";
        }
        return s;
    }
    return "the group with the most usable nodes has " + std::to_string(fit) + " (" +
           shown_counts(f.by_group) + ")";
}

}  // namespace

Advice advise(const AdviceRequest& req,
              const AdviceUnits& units,
              const std::vector<std::string>& usable) {
    Advice a;
    const Free f = count_free(units, usable);
    a.usable = f.total;
    if (req.nodes == 0 || req.stages == 0) {
        a.sentence = "no node count to judge";
        return a;
    }
    const auto fit = fitting(req, f);
    if (f.total < req.nodes) {
        a.kind = Kind::WaitsForNodes;
        a.units_that_fit = fit.value_or(0);
        a.sentence = std::to_string(req.nodes) + " nodes asked, " + std::to_string(f.total) +
                     " usable in the partition: the job waits for nodes, whatever its layout";
        return a;
    }
    if (!fit) {
        a.kind = Kind::NothingAsked;
        a.sentence = "no unit is asked for: the job starts on any " + std::to_string(req.nodes) +
                     " usable nodes (" + std::to_string(f.total) + " now)";
        return a;
    }
    a.units_that_fit = *fit;
    if (fits(req, f)) {
        a.kind = Kind::StartsNow;
        a.sentence = what_is_asked(req) + " fit the usable nodes now (" + std::to_string(f.total) +
                     " usable)";
        return a;
    }
    a.kind = Kind::WaitsForLayout;
    a.instead = alternatives(req, units, f);
    a.sentence = what_is_asked(req) + " cannot start now: " + why_not(req, f, *fit) + "; " +
                 (a.instead.empty() ? "nothing smaller starts now either"
                                    : "would start now: " + join(a.instead, ", or "));
    return a;
}

}  // namespace switchyard::placement
