// SPDX-License-Identifier: Apache-2.0
// `switchyard audit` (ops/audit.hpp): slurmctld's topologies and the jobs, read through the
// client, judged by placement/audit.hpp.
#include "switchyard/ops/audit.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sstream>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/job_options.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/policy/loaders.hpp"
#include "switchyard/slurm/client/scontrol.hpp"
#include "switchyard/slurm/client/sinfo.hpp"
#include "switchyard/slurm/client/slurm_jobs.hpp"
#include "switchyard/slurm/files/slurm_writers.hpp"

namespace switchyard::ops {
namespace {

using placement::RequestCheck;

Result<void> audit_topologies(slurm::Client& client,
                              const fabric::FabricMap& map,
                              const slurm::TopologyConfig& config,
                              const std::set<std::string>& slurm_nodes,
                              AuditReport& report) {
    for (const auto& [name, kind] : config.topologies) {
        if (kind != "tree" && kind != "block") {
            continue;  // flat and others have no units of the fabric's
        }
        auto text = slurm::show_topology(client, name);
        if (!text) {
            return fail(text.error());
        }
        auto shown = slurm::parse_shown_topology(text->first, text->second);
        if (!shown) {
            return fail(shown.error());
        }
        const auto expected = slurm::expected_units(map, kind);
        report.topologies.push_back({name, kind, shown->size(),
                                     slurm::topology_disagreements(expected, *shown, slurm_nodes,
                                                                   name == "default" ? "" : name)});
    }
    return {};
}

/// The audit's view of one job Slurm described.
placement::AuditedJob audited(const slurm::SlurmJob& j, std::string topology) {
    placement::AuditedJob job;
    job.id = j.id;
    job.partition = j.partition;
    job.topology = std::move(topology);
    job.nodes = j.nodes;
    job.stages = j.stages;
    if (!j.scope.empty()) {
        if (auto s = parse_stage_scope(j.scope)) {
            job.scope = *s;
        }
    }
    job.nvl_group = j.nvl_group;
    job.segment = j.segment;
    job.switches = j.switches;
    job.switch_wait_s = j.switch_wait_s;
    if (j.submit_time && j.start_time) {
        job.waited_s = static_cast<double>(*j.start_time - *j.submit_time);
    }
    job.start_time = j.start_time;
    job.finished = j.end_time.has_value() && j.state != "RUNNING";
    job.features = j.features;
    job.prefer = j.prefer;
    job.reservation = j.reservation;
    return job;
}

/// A time as sacct's --starttime takes it ("now-1day", "2026-12-01T08:00", "today").
bool valid_since(std::string_view s) {
    return !s.empty() && s.size() <= 32 &&
           s.find_first_not_of(
               "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-:+T") ==
               std::string_view::npos;
}

/// The jobs that held nodes from `since` on (sacct: running and ended), each a holding; the
/// ended ones wanted (all, or those of `ids`) go to `ended`, every job's reservation to
/// `reservation_of`. Node events and reservations are holdings too.
Result<std::vector<placement::Holding>> read_accounting(
    slurm::Client& client,
    const std::string& since,
    const std::set<std::string>& ids,
    std::vector<slurm::SlurmJob>& ended,
    std::map<std::string, std::string>& reservation_of,
    std::vector<std::string>& problems) {
    auto jobs = slurm::accounted_jobs(client, since, problems);
    if (!jobs) {
        return fail(jobs.error());
    }
    std::vector<placement::Holding> holdings;
    for (auto& j : *jobs) {
        holdings.push_back(
            {j.id, j.nodes, *j.start_time, j.state == "RUNNING" ? std::nullopt : j.end_time, {}});
        if (!j.reservation.empty()) {
            reservation_of[j.id] = j.reservation;
        }
        if (j.end_time && j.state != "RUNNING" && (ids.empty() || ids.contains(j.id))) {
            ended.push_back(std::move(j));
        }
    }
    // Reserved nodes were not free to the jobs that did not run in the reservation.
    auto resvs = slurm::reservations(client, since, problems);
    if (resvs) {
        for (auto& r : *resvs) {
            holdings.push_back(
                {"reservation " + r.name, std::move(r.nodes), r.start, r.end, r.name});
        }
    } else {
        problems.push_back(resvs.error().message() +
                           "; reserved nodes count as free at a job's start");
    }
    // Nodes drained, down or failing then were not free either: accounting's node events.
    auto events = slurm::node_events(client, since, problems);
    if (!events) {
        problems.push_back(events.error().message() +
                           "; nodes drained or down count as free at a job's start");
        return holdings;
    }
    for (auto& e : *events) {
        holdings.push_back({"node event " + e.state, std::move(e.nodes), e.start, e.end, {}});
    }
    return holdings;
}

Result<void> audit_jobs(slurm::Client& client,
                        const AuditRequest& a,
                        const slurm::TopologyConfig& config,
                        placement::AuditContext& ctx,
                        AuditReport& report) {
    const bool segment = slurm::squeue_has_segment(client);
    // With --since the ids may name ended jobs squeue no longer knows: filtered below instead.
    auto jobs = slurm::running_jobs(client, a.since.empty() ? a.jobs : std::string(), segment,
                                    report.problems);
    if (!jobs) {
        return fail(a.since.empty() && !a.jobs.empty()
                        ? Error::io("job " + a.jobs + ": " + jobs.error().message())
                        : jobs.error());
    }
    // Which topology each partition runs decides which requests mean something there.
    std::map<std::string, std::string> kind_of;
    std::string default_kind = "flat";
    if (auto lines = slurm::partitions_from_slurm(client)) {
        if (const auto topo = slurm::slurm_topologies(*lines, config)) {
            default_kind = topo->default_kind;
            for (const auto& [p, k] : topo->partitions) {
                kind_of[p] = k;
            }
        }
    }
    std::vector<slurm::SlurmJob> ended;
    std::vector<placement::Holding> holdings;
    std::set<std::string> ids;
    for (const auto id : split(a.jobs, ',')) {
        if (!id.empty()) {
            ids.emplace(id);
        }
    }
    if (!a.since.empty()) {
        std::map<std::string, std::string> reservation_of;
        auto h = read_accounting(client, a.since, ids, ended, reservation_of, report.problems);
        if (!h) {
            return fail(h.error());
        }
        for (auto& j : *jobs) {  // squeue's running jobs: their reservation from sacct
            if (const auto r = reservation_of.find(j.id); r != reservation_of.end()) {
                j.reservation = r->second;
            }
        }
        holdings = std::move(*h);
        ctx.holdings = &holdings;
        if (auto parts = slurm::partition_nodes(client)) {
            ctx.partition_nodes = std::move(*parts);
        }
    }
    std::optional<placement::HoldingIndex> index;
    if (ctx.holdings != nullptr && ctx.map != nullptr) {
        index = placement::index_holdings(holdings, ctx.partition_nodes, *ctx.map);
        ctx.holding_index = &*index;
    }
    const auto kind = [&](const std::string& partition) {
        const auto k = kind_of.find(partition);
        return k == kind_of.end() ? default_kind : k->second;
    };
    for (const auto* list : {&*jobs, &ended}) {
        for (const auto& j : *list) {
            if (!a.since.empty() && !a.jobs.empty() && !ids.contains(j.id)) {
                continue;
            }
            report.jobs.push_back(placement::audit_job(audited(j, kind(j.partition)), ctx));
        }
    }
    ctx.holdings = nullptr;
    ctx.holding_index = nullptr;
    return {};
}

std::string stage_line(const placement::StageSpan& s) {
    return "  stage " + std::to_string(s.index) + ": " + compress_hostlist(s.nodes) + "  SU " +
           join(s.sus, ",") + "  group " + join(s.groups, ",") +
           (s.domains.size() == 1 && s.domains[0] == "-" ? "" : "  NVLink " + join(s.domains, ","));
}

void audit_text(const AuditReport& r, std::ostream& out) {
    for (const auto& t : r.topologies) {
        out << "slurmctld's topology " << (t.name == "default" ? "" : t.name + " ") << "(" << t.kind
            << ", " << t.units << " units): ";
        if (t.disagreements.empty()) {
            out << "agrees with the installed map\n";
            continue;
        }
        out << t.disagreements.size() << " disagreement(s) with the installed map\n";
        for (const auto& d : t.disagreements) {
            out << "  " << d << "\n";
        }
    }
    std::vector<std::string> broken;
    std::vector<std::string> relaxed;
    unsigned pipeline[2] = {0, 0};  // running, ended
    unsigned one_su[2] = {0, 0};
    unsigned count[2] = {0, 0};
    for (const auto& j : r.jobs) {
        const auto e = j.finished ? 1U : 0U;
        ++count[e];
        out << "job " << j.id << " (" << j.partition << (j.finished ? ", ended" : "") << "): ";
        if (j.stages.empty()) {
            out << "no pipeline stages; " << j.sus << " SU(s), fewest " << j.fewest_sus;
        } else {
            ++pipeline[e];
            one_su[e] += j.stages_in_one_su == j.stages.size() ? 1U : 0U;
            out << j.stages_in_one_su << " of " << j.stages.size()
                << " stage(s) in one SU (best for its nodes " << j.best_stages_in_one_su
                << (j.striped ? "; striped by the plan" : "") << "); " << j.sus << " SU(s), fewest "
                << j.fewest_sus;
        }
        if (j.at_start) {
            out << "; the free nodes at its start (" << j.at_start->free_nodes << ") allowed "
                << j.at_start->fewest_sus << " SU(s)";
            if (!j.stages.empty()) {
                out << " and " << j.at_start->stages_in_one_su << " stage(s) in one SU";
            }
        }
        out << "\n";
        for (const auto& s : j.stages) {
            out << stage_line(s) << "\n";
        }
        if (!j.unmapped.empty()) {
            out << "  not in the installed map: " << compress_hostlist(j.unmapped) << "\n";
        }
        for (const auto& c : j.checks) {
            out << "  " << c.request << ": " << placement::to_string(c.verdict)
                << (c.detail.empty() ? "" : " (" + c.detail + ")") << "\n";
        }
        if (j.broken()) {
            broken.push_back(j.id);
        } else if (j.relaxed()) {
            relaxed.push_back(j.id);
        }
    }
    for (const auto& p : r.problems) {
        out << "left out: " << p << "\n";
    }
    out << count[0] << " running job(s), " << pipeline[0] << " with pipeline stages, " << one_su[0]
        << " of them with every stage in one SU; ";
    if (r.since) {
        out << count[1] << " ended since " << *r.since << ", " << pipeline[1]
            << " with pipeline stages, " << one_su[1] << " of them with every stage in one SU; ";
    }
    if (broken.empty()) {
        out << "every request honoured" << (relaxed.empty() ? "" : " or relaxed as Slurm may")
            << "\n";
    } else {
        out << broken.size() << " placed worse than their request promised: " << join(broken, " ")
            << "\n";
    }
    if (!relaxed.empty()) {
        out << relaxed.size()
            << " relaxed by Slurm as documented (a preference, or a switch count after its "
               "--switches wait): "
            << join(relaxed, " ") << "\n";
    }
}

}  // namespace

void print_audit_text(const AuditReport& r, std::ostream& out) {
    // Job names, partitions and reasons come from squeue and sacct: each line printable.
    std::ostringstream text;
    audit_text(r, text);
    out << printable_lines(text.str());
}

namespace {

nlohmann::json to_json(const AuditReport& r) {
    nlohmann::json out;
    auto& topos = out["topologies"] = nlohmann::json::array();
    for (const auto& t : r.topologies) {
        topos.push_back({{"name", t.name},
                         {"kind", t.kind},
                         {"units", t.units},
                         {"disagreements", t.disagreements}});
    }
    auto& jobs = out["jobs"] = nlohmann::json::array();
    for (const auto& j : r.jobs) {
        nlohmann::json stages = nlohmann::json::array();
        for (const auto& s : j.stages) {
            stages.push_back({{"stage", s.index},
                              {"nodes", s.nodes},
                              {"sus", s.sus},
                              {"groups", s.groups},
                              {"nvlink_domains", s.domains}});
        }
        nlohmann::json checks = nlohmann::json::array();
        for (const auto& c : j.checks) {
            checks.push_back({{"request", c.request},
                              {"verdict", placement::to_string(c.verdict)},
                              {"detail", c.detail}});
        }
        jobs.push_back(
            {{"job", j.id},
             {"partition", j.partition},
             {"stages", stages},
             {"stages_in_one_su", j.stages_in_one_su},
             {"best_stages_in_one_su", j.best_stages_in_one_su},
             {"striped", j.striped},
             {"sus", j.sus},
             {"fewest_sus", j.fewest_sus},
             {"unmapped", j.unmapped},
             {"ended", j.finished},
             {"at_start", j.at_start
                              ? nlohmann::json{{"free_nodes", j.at_start->free_nodes},
                                               {"fewest_sus", j.at_start->fewest_sus},
                                               {"stages_in_one_su", j.at_start->stages_in_one_su}}
                              : nlohmann::json(nullptr)},
             {"checks", checks},
             {"not_honoured", j.broken()},
             {"relaxed", j.relaxed()}});
    }
    out["left_out"] = r.problems;
    out["since"] = r.since ? nlohmann::json(*r.since) : nlohmann::json(nullptr);
    return out;
}

}  // namespace

void print_audit_json(const AuditReport& r, std::ostream& out) {
    out << to_json(r).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

std::string audit_metrics(const AuditReport& r) {
    std::ostringstream o;
    const auto gauge = [&](const std::string& name, const std::string& help) {
        o << "# HELP " << name << " " << help << "\n# TYPE " << name << " gauge\n";
    };
    // The running jobs, then (with --since) the ended ones under names of their own.
    for (const bool ended : {false, true}) {
        if (ended && !r.since) {
            break;
        }
        const std::string pre = ended ? "switchyard_audit_ended_" : "switchyard_audit_";
        const std::string which = ended ? "Jobs ended in the audited window" : "Running jobs";
        std::map<std::string, std::array<unsigned, 3>> by_partition;  // pipeline, one SU, striped
        for (const auto& j : r.jobs) {
            if (j.finished == ended && !j.stages.empty()) {
                auto& p = by_partition[j.partition];
                ++p[0];
                p[1] += j.stages_in_one_su == j.stages.size() ? 1U : 0U;
                p[2] += j.striped ? 1U : 0U;
            }
        }
        gauge((pre + "pipeline_jobs"), (which + " with pipeline stages, by partition."));
        for (const auto& [p, n] : by_partition) {
            o << pre << "pipeline_jobs{partition=\"" << prometheus_label(p) << "\"} " << n[0]
              << "\n";
        }
        gauge((pre + "pipeline_jobs_one_su_ratio"),
              "Share of them with every stage inside one SU, by partition.");
        for (const auto& [p, n] : by_partition) {
            o << pre << "pipeline_jobs_one_su_ratio{partition=\"" << prometheus_label(p) << "\"} "
              << short_number(static_cast<double>(n[1]) / n[0]) << "\n";
        }
        gauge((pre + "pipeline_jobs_striped"),
              "Of them, those whose plan striped the stages over SUs (placement.stripe_stages).");
        for (const auto& [p, n] : by_partition) {
            o << pre << "pipeline_jobs_striped{partition=\"" << prometheus_label(p) << "\"} "
              << n[2] << "\n";
        }
        gauge((pre + "request_not_honoured"),
              "1 for each request of such a job that was not honoured.");
        unsigned broken = 0;
        unsigned relaxed = 0;
        for (const auto& j : r.jobs) {
            if (j.finished != ended) {
                continue;
            }
            broken += j.broken() ? 1U : 0U;
            relaxed += j.relaxed() ? 1U : 0U;
            for (const auto& c : j.checks) {
                if (c.verdict == RequestCheck::Verdict::Broken) {
                    o << pre << "request_not_honoured{job=\"" << prometheus_label(j.id)
                      << "\",partition=\"" << prometheus_label(j.partition) << "\",request=\""
                      << prometheus_label(c.request) << "\"} 1\n";
                }
            }
        }
        gauge((pre + "jobs_not_honoured"), (which + " placed worse than their request promised."));
        o << pre << "jobs_not_honoured " << broken << "\n";
        gauge((pre + "jobs_relaxed"),
              (which + " whose requests Slurm relaxed as documented (a preference, a switch "
                       "count after its wait), none broken."));
        o << pre << "jobs_relaxed " << relaxed << "\n";
    }
    gauge("switchyard_audit_topology_disagreements",
          "Where slurmctld's topology and the installed fabric map disagree.");
    for (const auto& t : r.topologies) {
        o << "switchyard_audit_topology_disagreements{topology=\"" << prometheus_label(t.name)
          << "\"} " << t.disagreements.size() << "\n";
    }
    gauge("switchyard_audit_last_run_timestamp_seconds", "When the audit last ran.");
    o << "switchyard_audit_last_run_timestamp_seconds " << static_cast<long long>(r.when) << "\n";
    return o.str();
}

namespace {

AuditReport audit_all(const AuditRequest& a, Deps& deps) {
    AuditReport report;
    report.when = deps.clock.now();
    const auto stop = [&](int rc, std::string why) {
        report.rc = rc;
        report.error = std::move(why);
        return std::move(report);
    };
    if (a.jobs.find_first_not_of("0123456789_+,") != std::string::npos) {
        return stop(kExitUsage,
                    "--jobs '" + printable(a.jobs) + "': expected job ids separated by commas");
    }
    if (!a.since.empty() && !valid_since(a.since)) {
        return stop(kExitUsage,
                    "--since '" + printable(a.since) +
                        "': expected a time as sacct takes it (2026-12-01T08:00, now-1day, today)");
    }
    std::string map_path = a.map;
    placement::AuditContext ctx;
    if (map_path.empty() || !a.policy.empty()) {
        if (auto pol = policy::load_policy_file(a.policy)) {
            ctx.params = placement::cost_params(pol->placement);
            map_path = map_path.empty() ? pol->fabric_map : map_path;
        } else if (map_path.empty()) {
            return stop(kExitProblem, pol.error().message());
        }
    }
    auto map = policy::load_fabric_map_file(map_path);
    if (!map) {
        return stop(kExitProblem, map.error().to_string());
    }
    ctx.map = &*map;
    auto config = slurm::topology_config_from_slurm(deps.slurm);
    auto features =
        config ? slurm::node_features(deps.slurm)
               : Result<std::map<std::string, std::set<std::string>>>(fail(config.error()));
    if (!features) {
        return stop(kExitProblem, features.error().message());
    }
    ctx.features = std::move(*features);
    std::set<std::string> slurm_nodes;
    for (const auto& [n, f] : ctx.features) {
        slurm_nodes.insert(n);
    }
    for (const auto& [n, block] : slurm::leaf_unit_of(slurm::expected_units(*map, "block"))) {
        ctx.block_of.emplace(n, block);
    }
    if (!a.since.empty()) {
        report.since = a.since;
    }
    if (!a.no_topology) {
        if (auto t = audit_topologies(deps.slurm, *map, *config, slurm_nodes, report); !t) {
            return stop(kExitProblem, t.error().message());
        }
    }
    if (!a.no_jobs) {
        if (auto j = audit_jobs(deps.slurm, a, *config, ctx, report); !j) {
            return stop(kExitProblem, j.error().message());
        }
    }
    const bool wrong = std::any_of(report.jobs.begin(), report.jobs.end(),
                                   [](const placement::JobAudit& j) { return j.broken(); }) ||
                       std::any_of(report.topologies.begin(), report.topologies.end(),
                                   [](const TopologyAudit& t) { return !t.disagreements.empty(); });
    report.rc = wrong ? kExitMisplaced : kExitOk;
    return report;
}

}  // namespace

AuditReport run_audit(const AuditRequest& a, Deps& deps) {
    // Each Slurm command bounded, and none started once one went unanswered: with slurmctld
    // stopped the audit (and a refresh round waiting for it) ends in one timeout.
    slurm::BoundedClient client(deps.slurm, a.timeout_s);
    Deps bounded{client, deps.clock, deps.root, deps.out, deps.err};
    return audit_all(a, bounded);
}

}  // namespace switchyard::ops
