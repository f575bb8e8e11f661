// SPDX-License-Identifier: Apache-2.0
// The preflight's and locate's reports as text, JSON and node_exporter metrics.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>

#include "preflight_text.hpp"
#include "switchyard/ops/preflight.hpp"

namespace switchyard::ops {
namespace preflight_text {

std::string num(double v, int decimals) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
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
}  // namespace preflight_text

using preflight_text::failed_of;
using preflight_text::num;
using preflight_text::pair_text;
using preflight_text::worst_slow;

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
