// SPDX-License-Identifier: Apache-2.0
#include "switchyard/ops/preflight.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/input.hpp"
#include "switchyard/health/drain.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/ops/inputs.hpp"
#include "switchyard/policy/loaders.hpp"
#include "switchyard/slurm/client/scontrol.hpp"
#include "switchyard/slurm/client/sinfo.hpp"

namespace switchyard::ops {
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
std::string num(double v, int decimals) {
    char b[64];
    if (decimals < 0) {
        std::snprintf(b, sizeof b, "%g", v);
    } else {
        std::snprintf(b, sizeof b, "%.*f", decimals, v);
    }
    return b;
}

/// "client -> server on rail: detail" for a verdict of a probe.
std::string pair_text(const preflight::Model& m,
                      const preflight::Probe& p,
                      const preflight::Verdict* v) {
    const auto& a = m.attachments[p.a];
    const auto& b = m.attachments[p.b];
    std::string s = m.hosts[a.host] + " -> " + m.hosts[b.host] + " on " + m.planes[a.plane].name;
    if (v != nullptr && !v->detail.empty()) {
        s += ": " + v->detail;
    }
    return s;
}

/// The slow verdict of each probe (the worst: highest latency), for the evidence.
std::vector<const preflight::Verdict*> worst_slow(const preflight::Measured& ms) {
    std::vector<const preflight::Verdict*> w(ms.probes.size(), nullptr);
    for (const auto& v : ms.verdicts) {
        if (v.outcome != preflight::Outcome::Slow) {
            continue;
        }
        auto& cur = w[v.probe];
        if (cur == nullptr || v.latency_us > cur->latency_us) {
            cur = &v;
        }
    }
    return w;
}

std::vector<const preflight::Verdict*> failed_of(const preflight::Measured& ms) {
    std::vector<const preflight::Verdict*> w(ms.probes.size(), nullptr);
    for (const auto& v : ms.verdicts) {
        if (v.outcome == preflight::Outcome::ProbeFailed && w[v.probe] == nullptr) {
            w[v.probe] = &v;
        }
    }
    return w;
}

/// The map's hosts behind a link fault: every host with a rail on the leaf (for the leaf or its
/// uplinks), every member of an NVLink domain; none for a node's own fault or a part a group or
/// plane shares.
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
        r += num(lat, 1) + " us to " + n + " (limit " + num(limits.max_latency_us, -1) + ")";
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
    if (a.results.empty()) {
        r.schedule = preflight::plan_pairs(r.model);
        r.notes.insert(r.notes.end(), r.schedule.notes.begin(), r.schedule.notes.end());
        return r;
    }
    auto text = read_input(a.results, ReadRules{std::size_t{256} << 20, false, true});
    if (!text) {
        return stop(kExitProblem, "--results: " + text.error().message());
    }
    auto results = preflight::parse_pair_results(*text, a.results);
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
            r.notes.push_back("switchyard preflight: " + states.error().message());
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

void print_preflight(const PreflightReport& r,
                     PreflightFormat format,
                     std::ostream& out,
                     std::ostream& err) {
    for (const auto& n : r.notes) {
        err << "switchyard preflight: " << n << '\n';
    }
    if (!r.error.empty()) {
        err << "switchyard preflight: " << r.error << '\n';
        return;
    }
    const auto& m = r.model;
    if (!r.measured) {
        // The plan.
        if (format == PreflightFormat::Json) {
            nlohmann::ordered_json j;
            j["hosts"] = m.hosts.size();
            j["rounds"] = r.schedule.rounds;
            auto& pairs = j["pairs"] = nlohmann::ordered_json::array();
            for (const auto& p : r.schedule.probes) {
                pairs.push_back({{"round", p.round},
                                 {"client", m.hosts[m.attachments[p.a].host]},
                                 {"server", m.hosts[m.attachments[p.b].host]},
                                 {"rail", m.planes[m.attachments[p.a].plane].name}});
            }
            j["notes"] = r.schedule.notes;
            out << j.dump(1) << '\n';
            return;
        }
        out << "preflight plan: " << m.hosts.size() << " hosts, " << m.planes.size()
            << " plane(s), " << r.schedule.probes.size() << " pairs in " << r.schedule.rounds
            << " rounds\n";
        std::uint32_t round = UINT32_MAX;
        for (const auto& p : r.schedule.probes) {
            if (p.round != round) {
                round = p.round;
                out << "round " << round << ":\n";
            }
            out << "  " << pair_text(m, p, nullptr) << '\n';
        }
        return;
    }
    const auto& ms = *r.measured;
    const auto& loc = *r.location;
    const auto worst = worst_slow(ms);
    const auto failed = failed_of(ms);
    if (format == PreflightFormat::Json) {
        nlohmann::ordered_json j;
        j["hosts"] = m.hosts.size();
        j["pairs"] = ms.probes.size();
        j["measured"] = loc.measured;
        j["slow"] = loc.slow;
        auto& faults = j["faults"] = nlohmann::ordered_json::array();
        for (const auto& b : loc.faults) {
            const auto& part = m.parts[b.part];
            nlohmann::ordered_json f;
            f["part"] = part.name;
            f["kind"] = preflight::to_string(part.kind);
            f["node_fault"] = b.drain(m);
            if (part.host != preflight::kNone) {
                f["host"] = m.hosts[part.host];
            }
            auto& alts = f["alternatives"] = nlohmann::ordered_json::array();
            for (auto x : b.alternatives) {
                alts.push_back(
                    {{"part", m.parts[x].name}, {"kind", preflight::to_string(m.parts[x].kind)}});
            }
            f["pairs_through"] = b.through;
            const auto fi = static_cast<std::size_t>(&b - loc.faults.data());
            f["behind"] = fi < r.behind.size() ? r.behind[fi] : std::vector<std::string>{};
            auto& ev = f["slow_pairs"] = nlohmann::ordered_json::array();
            for (auto i : b.slow) {
                const auto& p = ms.probes[i];
                nlohmann::ordered_json e{{"client", m.hosts[m.attachments[p.a].host]},
                                         {"server", m.hosts[m.attachments[p.b].host]},
                                         {"rail", m.planes[m.attachments[p.a].plane].name}};
                if (worst[i] != nullptr) {
                    if (worst[i]->latency_us >= 0) {
                        e["latency_us"] = worst[i]->latency_us;
                    }
                    if (worst[i]->bandwidth_gbps >= 0) {
                        e["bandwidth_gbps"] = worst[i]->bandwidth_gbps;
                    }
                    e["detail"] = worst[i]->detail;
                }
                ev.push_back(std::move(e));
            }
            faults.push_back(std::move(f));
        }
        auto& pf = j["probe_failures"] = nlohmann::ordered_json::array();
        for (auto i : loc.probe_failures) {
            pf.push_back(pair_text(m, ms.probes[i], failed[i]));
        }
        auto& un = j["unexplained"] = nlohmann::ordered_json::array();
        for (auto i : loc.unexplained) {
            un.push_back(pair_text(m, ms.probes[i], worst[i]));
        }
        auto& acts = j["actions"] = nlohmann::ordered_json::array();
        for (const auto& x : r.actions) {
            acts.push_back({{"node", x.node}, {"what", x.what}, {"reason", x.reason}});
        }
        j["notes"] = r.notes;
        out << j.dump(1) << '\n';
        return;
    }
    if (format == PreflightFormat::Metrics) {
        out << "# HELP switchyard_preflight_pairs Pairs measured by the preflight, by outcome.\n"
               "# TYPE switchyard_preflight_pairs gauge\n";
        out << "switchyard_preflight_pairs{outcome=\"ok\"} " << loc.measured - loc.slow << '\n';
        out << "switchyard_preflight_pairs{outcome=\"slow\"} " << loc.slow << '\n';
        out << "switchyard_preflight_pairs{outcome=\"probe_failed\"} " << loc.probe_failures.size()
            << '\n';
        out << "# HELP switchyard_preflight_fault A part the preflight found at fault (its slow "
               "pairs).\n# TYPE switchyard_preflight_fault gauge\n";
        for (const auto& b : loc.faults) {
            const auto& part = m.parts[b.part];
            std::string name = part.name;
            std::replace(name.begin(), name.end(), '"', '\'');
            out << "switchyard_preflight_fault{kind=\"" << preflight::to_string(part.kind)
                << "\",part=\"" << name << "\",node_fault=\"" << (b.drain(m) ? "true" : "false")
                << "\",ambiguous=\"" << (b.alternatives.empty() ? "false" : "true") << "\"} "
                << b.slow.size() << '\n';
        }
        return;
    }
    out << "preflight: " << m.hosts.size() << " hosts, " << ms.probes.size() << " pairs, "
        << loc.slow << " slow, " << loc.probe_failures.size() << " probe(s) failed\n";
    for (const auto& b : loc.faults) {
        const auto& part = m.parts[b.part];
        out << "fault: " << part.name << " (" << preflight::to_string(part.kind) << ")";
        for (auto x : b.alternatives) {
            out << " or " << m.parts[x].name;
        }
        out << ": " << b.slow.size() << " slow pair(s) of " << b.through << " through it";
        if (!b.alternatives.empty()) {
            out << ", none of them tells " << (b.alternatives.size() == 1 ? "the two" : "these")
                << " apart in this job";
        }
        out << (b.drain(m) ? "; the node's own fault" : "; no node's fault") << '\n';
        for (auto i : b.slow) {
            out << "  " << pair_text(m, ms.probes[i], worst[i]) << '\n';
        }
    }
    for (auto i : loc.probe_failures) {
        out << "probe failed (nobody drained): " << pair_text(m, ms.probes[i], failed[i]) << '\n';
    }
    for (auto i : loc.unexplained) {
        out << "slow once, not placed: " << pair_text(m, ms.probes[i], worst[i]) << '\n';
    }
    if (loc.faults.empty()) {
        out << "no part at fault\n";
    }
    for (const auto& x : r.actions) {
        out << x.message << '\n';
    }
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
    auto ok = for_each_dir_file(
        a.inspector, "--inspector", "", "NCCL Inspector's output (one file per process)", 100'000,
        [&](const std::string& path, std::string&& text) -> Result<void> {
            // A file that is no JSON (a README, a log of another tool) is named and skipped.
            const auto first = text.find_first_not_of(" \t\r\n");
            if (first == std::string::npos || text[first] != '{') {
                r.notes.push_back(path + ": not NCCL Inspector output (no JSON object), skipped");
                return {};
            }
            auto got = preflight::parse_inspector(text, path);
            if (!got) {
                return fail(got.error());
            }
            ++r.files;
            r.other += got->other;
            records.insert(records.end(), std::make_move_iterator(got->records.begin()),
                           std::make_move_iterator(got->records.end()));
            return {};
        });
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

void print_locate(const LocateReport& r,
                  PreflightFormat format,
                  std::ostream& out,
                  std::ostream& err) {
    for (const auto& n : r.notes) {
        err << "switchyard locate: " << n << '\n';
    }
    if (!r.error.empty()) {
        err << "switchyard locate: " << r.error << '\n';
        return;
    }
    auto part_name = [&](const preflight::PlacedFault& f) {
        return f.part != preflight::kNone ? r.model.parts[f.part].name : f.host;
    };
    if (format == PreflightFormat::Json) {
        nlohmann::ordered_json j;
        j["files"] = r.files;
        j["records"] = r.records;
        j["collective"] = r.ranks.coll;
        j["bytes"] = r.ranks.bytes;
        j["ranks"] = r.ranks.ranks;
        j["median_busbw_gbs"] = r.ranks.median_gbs;
        auto& slow = j["slow_ranks"] = nlohmann::ordered_json::array();
        for (const auto& s : r.ranks.slow) {
            slow.push_back(
                {{"host", s.host}, {"rank", s.rank}, {"busbw_gbs", s.busbw_gbs}, {"z", s.z}});
        }
        auto& parts = j["located"] = nlohmann::ordered_json::array();
        for (const auto& f : r.placed) {
            parts.push_back({{"part", part_name(f)},
                             {"kind", f.part != preflight::kNone ? "leaf" : "node"},
                             {"hosts", f.hosts}});
        }
        out << j.dump(1) << '\n';
        return;
    }
    if (format == PreflightFormat::Metrics) {
        out << "# HELP switchyard_locate_slow_part A part of a running job's fabric whose ranks "
               "are slow against the job's median (its slow hosts).\n"
               "# TYPE switchyard_locate_slow_part gauge\n";
        for (const auto& f : r.placed) {
            out << "switchyard_locate_slow_part{kind=\""
                << (f.part != preflight::kNone ? "leaf" : "node") << "\",part=\"" << part_name(f)
                << "\"} " << f.hosts.size() << '\n';
        }
        return;
    }
    out << "locate: " << r.records << " records from " << r.files << " file(s); " << r.ranks.coll
        << " of " << r.ranks.bytes << " bytes over " << r.ranks.ranks << " ranks, median "
        << num(r.ranks.median_gbs, 1) << " GB/s\n";
    for (const auto& s : r.ranks.slow) {
        out << "slow rank " << s.rank << " on " << s.host << ": " << num(s.busbw_gbs, 1)
            << " GB/s (z " << num(s.z, 1) << ")\n";
    }
    for (const auto& f : r.placed) {
        out << "located: " << part_name(f) << " ("
            << (f.part != preflight::kNone ? "leaf: all of its job hosts are slow" : "node")
            << ")\n";
    }
    if (r.ranks.slow.empty()) {
        out << "no rank slow against the job's median\n";
    }
}

}  // namespace switchyard::ops
