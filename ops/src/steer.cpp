// SPDX-License-Identifier: Apache-2.0
// `switchyard steer` (ops/steer.hpp).
#include "switchyard/ops/steer.hpp"

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/input.hpp"
#include "switchyard/common/state_file.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/health/drain.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/ops/inputs.hpp"
#include "switchyard/render/render_input.hpp"
#include "switchyard/slurm/client/scontrol.hpp"
#include "switchyard/slurm/client/sinfo.hpp"

namespace switchyard::ops {
namespace {

/// The health gate's soft signals from a directory of `switchyard health --json` outputs.
Result<void> add_health_signals(const SteerRequest& a,
                                const fabric::FabricMap& map,
                                std::map<std::string, placement::Degradation>& degraded) {
    auto files = read_json_dir(a.health, "--health");
    if (!files) {
        return fail(files.error());
    }
    for (const auto& [path, text] : *files) {
        auto v = render::read_health_verdict(text, path);
        if (!v) {
            return fail(v.error());
        }
        if (map.find_host(v->node) != nullptr && !v->failed) {  // a failed one is drained
            placement::add_soft_signal(degraded, v->node, v->soft, a.soft_weight, v->soft_reason);
        }
    }
    return {};
}

/// The preflight's link faults from a directory of `switchyard preflight --json` outputs: the
/// hosts behind each (its "behind" list) count as degraded by `preflight_weight`.
Result<void> add_preflight_signals(const SteerRequest& a,
                                   const fabric::FabricMap& map,
                                   std::map<std::string, placement::Degradation>& degraded) {
    auto files = read_json_dir(a.preflight, "--preflight");
    if (!files) {
        return fail(files.error());
    }
    for (const auto& [path, text] : *files) {
        const auto doc = nlohmann::json::parse(text, nullptr, false);
        const auto faults = doc.is_object() ? doc.find("faults") : doc.end();
        if (doc.is_discarded() || !doc.is_object() || faults == doc.end() || !faults->is_array()) {
            return fail(Error::parse(SourceLoc{path, 0, 0},
                                     "not a `switchyard preflight --json` output (expected an "
                                     "object with a \"faults\" list)"));
        }
        for (const auto& f : *faults) {
            const auto part = f.is_object() ? f.find("part") : f.end();
            const auto node = f.is_object() ? f.find("node_fault") : f.end();
            const auto behind = f.is_object() ? f.find("behind") : f.end();
            if (!f.is_object() || part == f.end() || !part->is_string() || node == f.end() ||
                !node->is_boolean() || (behind != f.end() && !behind->is_array())) {
                return fail(Error::parse(SourceLoc{path, 0, 0},
                                         "a fault without \"part\", \"node_fault\" and a "
                                         "\"behind\" list"));
            }
            if (node->get<bool>() || behind == f.end()) {
                continue;  // a node at fault is drained, not steered around
            }
            const auto why = part->get<std::string>() + " at fault";
            for (const auto& h : *behind) {
                if (h.is_string() && map.find_host(h.get<std::string>()) != nullptr) {
                    placement::add_soft_signal(degraded, h.get<std::string>(), 1.0,
                                               a.preflight_weight, why, "preflight");
                }
            }
        }
    }
    return {};
}

/// One line per place: its nodes as a host list, the score, the weight and why.
void describe_places(const SteerRequest& a,
                     const std::map<std::string, placement::Degradation>& degraded,
                     SteerReport& r) {
    std::map<std::pair<std::string, double>, std::vector<std::string>> places;
    for (const auto& [node, d] : degraded) {
        places[{d.why, d.score}].push_back(node);
    }
    for (const auto& [place, nodes] : places) {
        char score[16];
        std::snprintf(score, sizeof score, "%.2f", place.second);
        r.lines.push_back(compress_hostlist(nodes) + ": score " + score + ", weight " +
                          std::to_string(placement::wanted_weight(a.policy, place.second)) + ": " +
                          place.first);
    }
    if (degraded.empty()) {
        r.lines.emplace_back("no degraded place in the fabric");
    }
}

}  // namespace

SteerReport run_steer(const SteerRequest& a, Deps& deps) {
    SteerReport r;
    const auto problem = [&](std::string why) {
        r.errors.push_back(std::move(why));
        r.rc = kExitProblem;
        return std::move(r);
    };
    auto map = load_fabric_map(a.map);
    if (!map) {
        return problem(map.error().to_string());
    }
    if (!map->link_counts) {
        return problem(a.map +
                       ": the map has no cable counts (written before version 4); re-run "
                       "'switchyard discover'");
    }
    auto degraded = placement::fabric_degradation(*map);
    if (!a.health.empty()) {
        if (auto s = add_health_signals(a, *map, degraded); !s) {
            return problem(s.error().message());
        }
    }
    if (!a.preflight.empty()) {
        if (auto s = add_preflight_signals(a, *map, degraded); !s) {
            return problem(s.error().to_string());
        }
    }
    if (!a.apply) {
        describe_places(a, degraded, r);
        return r;
    }
    const auto dir = a.state.substr(0, a.state.rfind('/') + 1);
    if (auto d = ensure_private_dir(dir.empty() ? "." : dir); !d) {
        return problem("--state: " + d.error().message());
    }
    auto text = read_owned_file(a.state);
    if (!text) {
        r.errors.push_back(text.error().message() + "; ignored and replaced");
        text = std::string();
    }
    auto record = placement::WeightRecord::parse(*text);
    auto history = placement::DrainHistory::parse(*text);
    auto nodes = slurm::node_states(deps.slurm, "");
    if (!nodes) {
        return problem(nodes.error().message());
    }
    const double now = deps.clock.now();
    // Nodes switchyard drained and Slurm put back lately are likely to fail again.
    for (const auto& h : map->hosts) {
        const auto n = nodes->find(h.name);
        if (n == nodes->end()) {
            continue;
        }
        history.observe(h.name, n->second.held && health::owned_reason(n->second.reason), now);
        if (const auto at = history.resumed_within(h.name, now, a.flap_window_s)) {
            placement::add_soft_signal(degraded, h.name, 1.0, a.soft_weight,
                                       "drained by switchyard, back in service for " +
                                           std::to_string(static_cast<long>(now - *at)) + " s");
        }
    }
    history.expire(now, a.flap_window_s);
    describe_places(a, degraded, r);
    std::map<unsigned, std::vector<std::string>> to_set;
    for (const auto& h : map->hosts) {
        const auto n = nodes->find(h.name);
        if (n == nodes->end()) {
            continue;  // in the fabric, not in this Slurm cluster
        }
        const auto it = degraded.find(h.name);
        const auto wanted =
            placement::wanted_weight(a.policy, it == degraded.end() ? 0 : it->second.score);
        const auto owned = record.find(h.name);
        const auto d =
            placement::decide_weight(h.name, n->second.weight, owned, wanted, a.policy, now);
        switch (d.action) {
            case placement::WeightDecision::Action::Set:
                to_set[d.weight].push_back(h.name);
                break;
            case placement::WeightDecision::Action::AdminOwned:
                if (owned) {
                    record.erase(h.name);  // someone changed our weight: it is theirs now
                }
                if (it != degraded.end() || owned) {
                    r.lines.push_back(d.message);
                }
                break;
            case placement::WeightDecision::Action::TooSoon:
                r.lines.push_back(d.message);
                break;
            case placement::WeightDecision::Action::Keep:
                break;
        }
    }
    for (const auto& [weight, names] : to_set) {
        const auto list = compress_hostlist(names);
        if (auto set = slurm::set_node_weight(deps.slurm, list, weight); !set) {
            r.errors.push_back(set.error().message());
            r.rc = kExitProblem;
            continue;
        }
        for (const auto& n : names) {
            if (weight == a.policy.base_weight) {
                record.erase(n);  // back to the base: nothing of ours remains
            } else {
                record.set(n, weight, now);
            }
        }
        r.lines.push_back("set Weight=" + std::to_string(weight) + " on " + list);
    }
    if (auto w = replace_owned_file(a.state, record.text() + history.text()); !w) {
        return problem(w.error().message());
    }
    return r;
}

void print_steer(const SteerReport& report, std::ostream& out, std::ostream& err) {
    for (const auto& l : report.lines) {
        out << l << "\n";
    }
    for (const auto& e : report.errors) {
        err << "switchyard steer: " << e << "\n";
    }
}

}  // namespace switchyard::ops
