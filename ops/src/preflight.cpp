// SPDX-License-Identifier: Apache-2.0
#include "switchyard/ops/preflight.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "preflight_text.hpp"
#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/input.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/health/drain.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/ops/inputs.hpp"
#include "switchyard/policy/loaders.hpp"
#include "switchyard/slurm/client/scontrol.hpp"
#include "switchyard/slurm/client/sinfo.hpp"

namespace switchyard::ops {

using preflight_text::num;
using preflight_text::worst_slow;

namespace {

constexpr const char* kDefaultPolicy = "/etc/slurm/switchyard.yaml";

/// The policy: the one named, else the default file when it exists, else the defaults.
Result<policy::Policy> policy_of(const std::string& path) {
    const bool named = !path.empty();
    const std::string p = named ? path : kDefaultPolicy;
    if (named || std::filesystem::exists(p)) {
        return policy::load_policy_file(p);
    }
    return policy::Policy{};
}

/// `v` with `decimals` places ("%.*f"), or as %g with a negative `decimals`.
std::vector<std::string> hosts_behind(const fabric::FabricMap& map,
                                      const preflight::Model& m,
                                      const preflight::Blame& b) {
    std::vector<std::string> out;
    const auto& part = m.parts[b.part];
    if (part.kind == preflight::PartKind::Domain) {
        for (const auto& d : map.domains) {
            if (d.name == part.name) {
                out = d.members;
            }
        }
        return out;
    }
    if (part.kind != preflight::PartKind::Leaf && part.kind != preflight::PartKind::Uplinks) {
        return out;
    }
    std::uint32_t sw = preflight::kNone;
    for (const auto& l : m.leaves) {
        if (l.part == b.part || l.uplinks == b.part) {
            sw = l.switch_index;
        }
    }
    for (const auto& h : map.hosts) {
        for (const auto& rail : map.rails_of(h)) {
            if (rail.leaf == sw) {
                out.push_back(h.name);
                break;
            }
        }
    }
    return out;
}

/// --act --job: the job goes back to the queue when a node of it was drained (it cannot land
/// there again), or, under on_link_fault: requeue, when a cable or switch is at fault, then
/// with the hosts behind the part excluded (requeuehold, ExcNodeList, release: the job cannot
/// start between the two).
void requeue(const PreflightRequest& a,
             const preflight::Location& loc,
             Deps& deps,
             PreflightReport& r) {
    bool drained = false;
    for (const auto& x : r.actions) {
        drained = drained || x.what == "drained";
    }
    std::vector<std::string> avoid;
    if (r.policy.on_link_fault == preflight::OnLinkFault::Requeue) {
        for (std::size_t i = 0; i < loc.faults.size() && i < r.behind.size(); ++i) {
            avoid.insert(avoid.end(), r.behind[i].begin(), r.behind[i].end());
        }
    }
    if (!drained && avoid.empty()) {
        return;
    }
    PreflightAction act;
    act.what = "requeued";
    // Said before it is done: the requeue ends this job, and with it this process when it runs
    // inside the job.
    deps.err << "switchyard preflight: requeuing job " << a.job
             << (avoid.empty() ? std::string(" (its node at fault is drained)")
                               : " away from " + compress_hostlist(avoid))
             << '\n'
             << std::flush;
    Result<void> done;
    if (avoid.empty()) {
        done = slurm::requeue_job(deps.slurm, a.job, false);
    } else {
        act.reason = compress_hostlist(avoid);
        // The job's own exclusions stay: ExcNodeList is replaced whole.
        if (auto had = slurm::excluded_nodes(deps.slurm, a.job); had && !had->empty()) {
            if (auto names = expand_hostlist(*had)) {
                avoid.insert(avoid.end(), names->begin(), names->end());
            }
        }
        const auto list = compress_hostlist(avoid);
        done = slurm::requeue_job(deps.slurm, a.job, true);
        if (done) {
            done = slurm::exclude_nodes(deps.slurm, a.job, list);
            // Released even when the exclusion failed: a held job helps nobody.
            if (auto rel = slurm::release_job(deps.slurm, a.job); done && !rel) {
                done = rel;
            }
        }
    }
    if (!done) {
        act.what = "requeue failed";
        act.message = "switchyard preflight: job " + a.job + ": " + done.error().message();
        r.rc = kExitProblem;
    } else {
        act.message = "switchyard preflight: requeued job " + a.job +
                      (avoid.empty() ? std::string(" (its node at fault is drained)")
                                     : " away from " + act.reason);
    }
    r.actions.push_back(std::move(act));
}

}  // namespace

std::string preflight_reason(const preflight::Model& m,
                             const preflight::Blame& b,
                             const preflight::Measured& ms,
                             const preflight::Limits& limits) {
    const auto worst = worst_slow(ms);
    double lat = -1;
    double bw = -1;
    std::set<std::uint32_t> peers;
    const auto host = m.parts[b.part].host;
    for (auto i : b.slow) {
        const auto& p = ms.probes[i];
        const auto other = m.attachments[p.a].host == host ? p.b : p.a;
        peers.insert(m.attachments[other].host);
        if (worst[i] != nullptr) {
            lat = std::max(lat, worst[i]->latency_us);
            if (worst[i]->bandwidth_gbps >= 0 && (bw < 0 || worst[i]->bandwidth_gbps < bw)) {
                bw = worst[i]->bandwidth_gbps;
            }
        }
    }
    // The rail's name: the part is "<host> <rail>" (or "<host> NVLink").
    const auto& name = m.parts[b.part].name;
    const auto rail = name.substr(std::min(name.size(), m.hosts[host].size() + 1));
    std::string r = "switchyard: preflight: " + rail + ": ";
    const auto n = std::to_string(peers.size()) + (peers.size() == 1 ? " peer" : " peers");
    if (lat > limits.max_latency_us) {
        r += num(lat, 1) + " us to " + n + " (limit " + short_number(limits.max_latency_us) + ")";
    } else if (bw >= 0) {
        r += num(bw, 0) + " Gb/s to " + n + " (limit " +
             num(limits.link_rate_gbps * limits.min_bandwidth_share, 0) + ")";
    } else {
        r += "slow to " + n;
    }
    return r;
}

PreflightReport run_preflight(const PreflightRequest& a, Deps& deps) {
    PreflightReport r;
    auto stop = [&](int rc, std::string why) {
        r.rc = rc;
        r.error = std::move(why);
        return std::move(r);
    };
    auto pol = policy_of(a.policy);
    if (!pol) {
        return stop(kExitProblem, pol.error().to_string());
    }
    r.policy = pol->preflight;
    const std::string map_path = !a.map.empty() ? a.map : pol->fabric_map;
    if (map_path.empty()) {
        return stop(kExitUsage, "no fabric map: give --map or set fabric.map in the policy");
    }
    auto map = load_fabric_map(map_path);
    if (!map) {
        return stop(kExitProblem, map.error().to_string());
    }
    if (a.hosts.empty()) {
        return stop(kExitUsage, "--hosts: the job's nodes are needed (a Slurm host list)");
    }
    auto hosts = expand_hostlist(a.hosts);
    if (!hosts) {
        return stop(kExitUsage, "--hosts: " + hosts.error().message());
    }
    preflight::ModelOptions mo;
    mo.rails = a.rails;
    auto model = preflight::build_model(*map, *hosts, mo);
    if (!model) {
        return stop(kExitUsage, "--hosts: " + model.error().message());
    }
    r.model = std::move(*model);
    r.notes = r.model.notes;
    if (a.results.empty() && !a.results_text) {
        r.schedule = preflight::plan_pairs(r.model);
        r.notes.insert(r.notes.end(), r.schedule.notes.begin(), r.schedule.notes.end());
        return r;
    }
    Result<std::string> text =
        a.results_text ? Result<std::string>(*a.results_text)
                       : read_input(a.results, ReadRules{std::size_t{256} << 20, false, true});
    if (!text) {
        return stop(kExitProblem, "--results: " + text.error().message());
    }
    auto results =
        preflight::parse_pair_results(*text, a.results_text ? "the job's nodes" : a.results);
    if (!results) {
        return stop(kExitProblem, results.error().to_string());
    }
    r.measured = preflight::measured(r.model, *results, r.policy.limits);
    r.notes.insert(r.notes.end(), r.measured->notes.begin(), r.measured->notes.end());
    r.location = preflight::locate(r.model, r.measured->probes, r.measured->verdicts);
    const auto& loc = *r.location;
    for (const auto& b : loc.faults) {
        r.behind.push_back(hosts_behind(*map, r.model, b));
    }
    r.rc = loc.faults.empty() ? kExitOk : kExitProblem;

    // Acting: a node at fault is drained with the owned reason, within the breaker's limit
    // (max_nodes per preflight) and never over a reason Switchyard does not own; a cable or
    // switch at fault drains nobody.
    const auto limit = pol->health.breaker.max_nodes;
    unsigned drained = 0;
    for (const auto& b : loc.faults) {
        const auto& part = r.model.parts[b.part];
        PreflightAction act;
        if (!b.drain(r.model)) {
            act.what =
                r.policy.on_link_fault == preflight::OnLinkFault::Requeue ? "requeue" : "warned";
            act.message = "switchyard preflight: " + part.name + " (" +
                          std::string(preflight::to_string(part.kind)) +
                          ") is at fault: no node drained" +
                          (b.alternatives.empty() ? "" : "; it may be another part, see above");
            r.actions.push_back(std::move(act));
            continue;
        }
        act.node = r.model.hosts[part.host];
        act.reason = preflight_reason(r.model, b, *r.measured, r.policy.limits);
        if (!a.act) {
            act.what = "would drain";
            act.message = "switchyard preflight: " + act.node + " would be drained: " + act.reason;
            r.actions.push_back(std::move(act));
            continue;
        }
        auto states = slurm::node_states(deps.slurm, act.node);
        std::string current;
        if (states) {
            if (auto it = states->find(act.node); it != states->end() && it->second.held) {
                current = it->second.reason;
            }
        } else {
            r.notes.push_back(states.error().message());
        }
        if (!current.empty() && !health::owned_reason(current)) {
            act.what = "held elsewhere";
            act.message =
                "switchyard preflight: " + act.node + " is held for '" + current + "': left alone";
        } else if (drained >= limit) {
            act.what = "breaker open";
            act.message =
                "switchyard preflight: " + act.node + " not drained: " + std::to_string(drained) +
                " drained already by this preflight (max_nodes " + std::to_string(limit) + ")";
        } else if (auto d = slurm::drain_node(deps.slurm, act.node, act.reason); !d) {
            act.what = "drain failed";
            act.message = "switchyard preflight: " + act.node + ": " + d.error().message();
            r.rc = kExitProblem;
        } else {
            ++drained;
            act.what = "drained";
            act.message = "switchyard preflight: drained " + act.node + ": " + act.reason;
        }
        r.actions.push_back(std::move(act));
    }
    return r;
}

bool requeue_after(const PreflightRequest& a, PreflightReport& r, Deps& deps) {
    if (!a.act || a.job.empty() || !r.location) {
        return false;
    }
    const auto before = r.actions.size();
    requeue(a, *r.location, deps, r);
    return r.actions.size() != before;
}

LocateReport run_locate(const LocateRequest& a, Deps& /*deps*/) {
    LocateReport r;
    auto stop = [&](int rc, std::string why) {
        r.rc = rc;
        r.error = std::move(why);
        return std::move(r);
    };
    if (a.inspector.empty()) {
        return stop(kExitUsage, "--inspector: NCCL Inspector's output directory is needed");
    }
    auto pol = policy_of(a.policy);
    if (!pol) {
        return stop(kExitProblem, pol.error().to_string());
    }
    std::vector<preflight::CollRecord> records;
    // Inspector writes one file per process, a record per collective: a long job's files pass
    // 64 MiB. Each is mapped (no copy), up to 1 GiB; the job's tasks wrote them, so a link is
    // refused, never followed.
    constexpr ReadRules kInspectorInput{kMaxInputFile, false, false};
    const auto paths = list_dir_files(a.inspector, "--inspector", "",
                                      "NCCL Inspector's output (one file per process)", 100'000);
    if (!paths) {
        return stop(kExitProblem, paths.error().to_string());
    }
    auto ok = [&]() -> Result<void> {
        for (const auto& path : *paths) {
            auto input = InputText::open(path, kInspectorInput);
            if (!input) {
                return fail(input.error());
            }
            const auto text = input->text();
            // A file that is no JSON (a README, a log of another tool) is named and skipped.
            const auto first = text.find_first_not_of(" \t\r\n");
            if (first == std::string_view::npos || text[first] != '{') {
                r.notes.push_back(path + ": not NCCL Inspector output (no JSON object), skipped");
                continue;
            }
            auto got = preflight::parse_inspector(text, path);
            if (!got) {
                return fail(got.error());
            }
            ++r.files;
            r.other += got->other;
            records.insert(records.end(), std::make_move_iterator(got->records.begin()),
                           std::make_move_iterator(got->records.end()));
        }
        return {};
    }();
    if (!ok) {
        return stop(kExitProblem, ok.error().to_string());
    }
    r.records = records.size();
    r.ranks = preflight::slow_ranks(records, a.threshold);
    std::vector<std::string> slow_hosts;
    std::set<std::string> job_hosts;
    for (const auto& rec : records) {
        job_hosts.insert(rec.host);
    }
    for (const auto& s : r.ranks.slow) {
        slow_hosts.push_back(s.host);
    }
    const std::string map_path = !a.map.empty() ? a.map : pol->fabric_map;
    if (!map_path.empty()) {
        auto map = load_fabric_map(map_path);
        if (!map) {
            return stop(kExitProblem, map.error().to_string());
        }
        std::vector<std::string> hosts(job_hosts.begin(), job_hosts.end());
        auto model = preflight::build_model(*map, hosts);
        if (!model) {
            return stop(kExitProblem, model.error().message());
        }
        r.model = std::move(*model);
        r.notes.insert(r.notes.end(), r.model.notes.begin(), r.model.notes.end());
    } else {
        r.notes.push_back("no fabric map: the slow hosts are not placed on the fabric");
    }
    r.placed = preflight::place_slow_hosts(r.model, slow_hosts);
    r.rc = r.ranks.slow.empty() ? kExitOk : kExitProblem;
    return r;
}

}  // namespace switchyard::ops
