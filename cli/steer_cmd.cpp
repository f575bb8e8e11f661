// SPDX-License-Identifier: Apache-2.0
// `switchyard steer`: the fabric's degraded places (an SU short of uplinks, a Dragonfly+ group
// short of global cables) and nodes whose passing health checks came near their limits (link
// errors growing) become higher node Weights in Slurm, so the scheduler fills healthy nodes
// first; weights an admin set are never changed (policy/steer.hpp).
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <memory>

#include "commands.hpp"
#include "io.hpp"
#include "render_input.hpp"
#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/state_file.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/health/drain.hpp"
#include "switchyard/placement/steer.hpp"
#include "switchyard/slurmconf/scontrol.hpp"

namespace switchyard::cli {
namespace {

struct SteerArgs {
    std::string map;
    std::string state = "/var/lib/switchyard/steer.state";
    std::string health;            ///< a directory of `switchyard health --json` outputs
    double soft_weight = 0.5;      ///< a check at its limit counts as half an SU's uplinks gone
    double flap_window_s = 86400;  ///< a node drained and put back counts this long
    placement::SteerPolicy policy;
    bool apply = false;
};

/// The health gate's soft signals from a directory of `switchyard health --json` outputs.
Result<void> add_health_signals(const SteerArgs& a,
                                const fabric::FabricMap& map,
                                std::map<std::string, placement::Degradation>& degraded) {
    auto files = read_json_dir(a.health, "--health");
    if (!files) {
        return fail(files.error());
    }
    for (const auto& [path, text] : *files) {
        auto v = read_health_verdict(text, path);
        if (!v) {
            return fail(v.error());
        }
        if (map.find_host(v->node) != nullptr && !v->failed) {  // a failed one is drained
            placement::add_soft_signal(degraded, v->node, v->soft, a.soft_weight, v->soft_reason);
        }
    }
    return {};
}

/// One line per place: its nodes as a host list, the score, the weight and why.
void print_places(const SteerArgs& a,
                  const std::map<std::string, placement::Degradation>& degraded) {
    std::map<std::pair<std::string, double>, std::vector<std::string>> places;
    for (const auto& [node, d] : degraded) {
        places[{d.why, d.score}].push_back(node);
    }
    for (const auto& [place, nodes] : places) {
        char score[16];
        std::snprintf(score, sizeof score, "%.2f", place.second);
        std::cout << compress_hostlist(nodes) << ": score " << score << ", weight "
                  << placement::wanted_weight(a.policy, place.second) << ": " << place.first
                  << "\n";
    }
    if (degraded.empty()) {
        std::cout << "no degraded place in the fabric\n";
    }
}

int run_steer(const SteerArgs& a) {
    auto map = load_fabric_map(a.map);
    if (!map) {
        std::cerr << "switchyard steer: " << map.error().to_string() << "\n";
        return kExitProblem;
    }
    if (!map->link_counts) {
        std::cerr << "switchyard steer: " << a.map
                  << ": the map has no cable counts (written before version 4); re-run "
                     "'switchyard discover'\n";
        return kExitProblem;
    }
    auto degraded = placement::fabric_degradation(*map);
    if (!a.health.empty()) {
        if (auto r = add_health_signals(a, *map, degraded); !r) {
            std::cerr << "switchyard steer: " << r.error().message() << "\n";
            return kExitProblem;
        }
    }
    if (!a.apply) {
        print_places(a, degraded);
        return kExitOk;
    }
    const auto dir = a.state.substr(0, a.state.rfind('/') + 1);
    if (auto d = ensure_private_dir(dir.empty() ? "." : dir); !d) {
        std::cerr << "switchyard steer: --state: " << d.error().message() << "\n";
        return kExitProblem;
    }
    auto text = read_owned_file(a.state);
    if (!text) {
        std::cerr << "switchyard steer: " << text.error().message() << "; ignored and replaced\n";
        text = std::string();
    }
    auto record = placement::WeightRecord::parse(*text);
    auto history = placement::DrainHistory::parse(*text);
    auto nodes = slurm_nodes("");
    if (!nodes) {
        std::cerr << "switchyard steer: " << nodes.error().message() << "\n";
        return kExitProblem;
    }
    const double now = static_cast<double>(std::time(nullptr));
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
    print_places(a, degraded);
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
                    std::cout << d.message << "\n";
                }
                break;
            case placement::WeightDecision::Action::TooSoon:
                std::cout << d.message << "\n";
                break;
            case placement::WeightDecision::Action::Keep:
                break;
        }
    }
    int rc = kExitOk;
    for (const auto& [weight, names] : to_set) {
        const auto list = compress_hostlist(names);
        const auto r = run_process(
            {"scontrol", "update", "NodeName=" + list, "Weight=" + std::to_string(weight)}, 30);
        if (r.exit_code != 0) {
            std::cerr << "switchyard steer: scontrol update NodeName=" << list
                      << " Weight=" << weight << ": " << slurmconf::slurm_problem(r, "scontrol")
                      << "\n";
            rc = kExitProblem;
            continue;
        }
        for (const auto& n : names) {
            if (weight == a.policy.base_weight) {
                record.erase(n);  // back to the base: nothing of ours remains
            } else {
                record.set(n, weight, now);
            }
        }
        std::cout << "set Weight=" << weight << " on " << list << "\n";
    }
    if (auto w = replace_owned_file(a.state, record.text() + history.text()); !w) {
        std::cerr << "switchyard steer: " << w.error().message() << "\n";
        return kExitProblem;
    }
    return rc;
}

}  // namespace

void setup_steer(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<SteerArgs>();
    cmd.footer(
        "\nPrints each degraded node's score, the Weight it should have and why. With --apply\n"
        "(as root or SlurmUser, e.g. from a timer after discover) sets those weights with\n"
        "scontrol and records them in --state; a node whose weight someone else set (not the\n"
        "base, not switchyard's last) is never changed, and a node that heals gets the base back.\n"
        "\nExamples:\n  switchyard steer --map /etc/slurm/switchyard/fabric.map\n"
        "  switchyard steer --map /etc/slurm/switchyard/fabric.map --apply\n");
    cmd.add_option("--map", a->map, "fabric map written by 'switchyard discover'")->required();
    cmd.add_flag("--apply", a->apply, "set the weights in Slurm (scontrol update)");
    cmd.add_option("--state", a->state,
                   "the weights switchyard set (a file in a directory only you can write)")
        ->capture_default_str();
    cmd.add_option("--health", a->health,
                   "a directory of `switchyard health --json` outputs: passing checks near "
                   "their limit (growing link errors) count too");
    cmd.add_option("--soft-weight", a->soft_weight,
                   "what a check at its limit counts for, against a place with no uplink left")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1.0));
    cmd.add_option("--flap-window", a->flap_window_s,
                   "seconds a node switchyard drained counts as degraded after it is back "
                   "(seen by successive --apply runs)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 86400.0 * 365));
    cmd.add_option("--base-weight", a->policy.base_weight,
                   "the weight of nodes nobody customised (slurm.conf's default is 1)")
        ->capture_default_str()
        ->check(CLI::Range(0U, 1000000U));
    cmd.add_option("--max-penalty", a->policy.max_penalty, "weight added for the worst place")
        ->capture_default_str()
        ->check(CLI::Range(1U, 1000000U));
    cmd.add_option("--min-interval", a->policy.min_interval_s,
                   "seconds between two changes of one node's weight")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 86400.0 * 30));
    cmd.callback([&run, a] { run = [a] { return run_steer(*a); }; });
}

}  // namespace switchyard::cli
