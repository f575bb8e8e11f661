// SPDX-License-Identifier: Apache-2.0
// `switchyard audit`: is placement working? slurmctld's own topology against the installed
// fabric map, and each running job's allocation against the map and what the job asked
// (slurmconf/slurm_jobs.hpp reads Slurm's answers, placement/audit.hpp judges them).
#include <array>
#include <ctime>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "switchyard/common/file.hpp"
#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/placement/audit.hpp"
#include "switchyard/policy/loaders.hpp"
#include "switchyard/slurmconf/scontrol.hpp"
#include "switchyard/slurmconf/slurm_jobs.hpp"

namespace switchyard::cli {
namespace {

using placement::RequestCheck;

struct AuditArgs {
    std::string map;
    std::string policy = "/etc/slurm/switchyard.yaml";
    std::string jobs;  ///< job ids, comma-separated ("" all running)
    std::string metrics;
    std::string since;  ///< also jobs that ended since this time (sacct); "" none
    bool json = false;
    bool no_topology = false;
    bool no_jobs = false;
};

/// One topology of slurmctld compared with the installed map.
struct TopologyAudit {
    std::string name;
    std::string kind;
    std::size_t units = 0;
    std::vector<std::string> disagreements;
};

struct AuditReport {
    std::vector<TopologyAudit> topologies;
    std::vector<placement::JobAudit> jobs;
    std::vector<std::string> problems;  ///< jobs left out, with why
    std::optional<std::string> since;   ///< --since: ended jobs are in `jobs` too
};

/// squeue's release ("slurm 24.11.5") is at least 25.05: it prints SegmentSize.
bool squeue_has_segment() {
    const auto r = run_process({"squeue", "--version"}, 30);
    unsigned major = 0;
    unsigned minor = 0;
    return r.exit_code == 0 && std::sscanf(r.output.c_str(), "slurm %u.%u", &major, &minor) == 2 &&
           (major > 25 || (major == 25 && minor >= 5));
}

Result<void> audit_topologies(const fabric::FabricMap& map,
                              const slurmconf::TopologyConfig& config,
                              const std::set<std::string>& slurm_nodes,
                              AuditReport& report) {
    for (const auto& [name, kind] : config.topologies) {
        if (kind != "tree" && kind != "block") {
            continue;  // flat and others have no units of the fabric's
        }
        std::vector<std::string> argv = {"scontrol", "show", "topology"};
        if (name != "default") {
            argv.push_back(name);  // 25.05+: a bare word names a topology
        }
        auto text = slurmconf::slurm_command(argv);
        if (!text) {
            return fail(text.error());
        }
        auto shown = slurmconf::parse_shown_topology(*text, join(argv, " "));
        if (!shown) {
            return fail(shown.error());
        }
        const auto expected = slurmconf::expected_units(map, kind);
        report.topologies.push_back(
            {name, kind, shown->size(),
             slurmconf::topology_disagreements(expected, *shown, slurm_nodes,
                                               name == "default" ? "" : name)});
    }
    return {};
}

/// The audit's view of one job Slurm described.
placement::AuditedJob audited(const slurmconf::SlurmJob& j, std::string topology) {
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
    const std::string& since,
    const std::set<std::string>& ids,
    std::vector<slurmconf::SlurmJob>& ended,
    std::map<std::string, std::string>& reservation_of,
    std::vector<std::string>& problems) {
    const std::vector<std::string> argv = {"sacct",
                                           "--allusers",
                                           "--allocations",
                                           "--noheader",
                                           "--parsable2",
                                           "--delimiter=\t",
                                           "--starttime=" + since,
                                           "--endtime=now",
                                           "--format=" + std::string(slurmconf::kSacctJobFormat)};
    auto text = slurmconf::slurm_command(argv);
    if (!text) {
        return fail(text.error());
    }
    auto jobs = slurmconf::parse_sacct_jobs(*text, "sacct", problems);
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
    auto resv_text = slurmconf::slurm_command(
        {"sacctmgr", "--noheader", "--parsable2", "show", "reservation", "Start=" + since,
         "format=" + std::string(slurmconf::kSacctmgrReservationFormat)});
    auto resvs =
        resv_text ? slurmconf::parse_reservations(*resv_text, "sacctmgr show reservation", problems)
                  : Result<std::vector<slurmconf::Reservation>>(fail(resv_text.error()));
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
    auto events_text = slurmconf::slurm_command(
        {"sacctmgr", "--noheader", "--parsable2", "show", "event", "Event=Node", "Start=" + since,
         "format=" + std::string(slurmconf::kSacctmgrEventFormat)});
    auto events = events_text
                      ? slurmconf::parse_node_events(*events_text, "sacctmgr show event", problems)
                      : Result<std::vector<slurmconf::NodeEvent>>(fail(events_text.error()));
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

Result<void> audit_jobs(const AuditArgs& a,
                        const slurmconf::TopologyConfig& config,
                        placement::AuditContext& ctx,
                        AuditReport& report) {
    const bool segment = squeue_has_segment();
    std::vector<std::string> argv = {"squeue", "--noheader", "--states=RUNNING",
                                     "--Format=" + slurmconf::squeue_job_format(segment)};
    // With --since the ids may name ended jobs squeue no longer knows: filtered below instead.
    if (!a.jobs.empty() && a.since.empty()) {
        argv.push_back("--jobs=" + a.jobs);
    }
    auto text = slurmconf::slurm_command(argv);
    if (!text) {
        return fail(text.error());
    }
    auto jobs = slurmconf::parse_squeue_jobs(*text, "squeue", segment, report.problems);
    if (!jobs) {
        return fail(jobs.error());
    }
    argv[3] = "--Format=" + std::string(slurmconf::kSqueuePreferFormat);
    if (auto prefer = slurmconf::slurm_command(argv)) {
        slurmconf::read_squeue_prefer(*prefer, *jobs);
    } else {
        report.problems.push_back(prefer.error().message() + "; preferences not checked");
    }
    // Which topology each partition runs decides which requests mean something there.
    std::map<std::string, std::string> kind_of;
    std::string default_kind = "flat";
    if (auto parts = slurmconf::scontrol({"show", "partition", "--oneliner"})) {
        if (auto lines = slurmconf::parse_partitions(*parts, "scontrol show partition")) {
            if (const auto topo = slurmconf::slurm_topologies(*lines, config)) {
                default_kind = topo->default_kind;
                for (const auto& [p, k] : topo->partitions) {
                    kind_of[p] = k;
                }
            }
        }
    }
    std::vector<slurmconf::SlurmJob> ended;
    std::vector<placement::Holding> holdings;
    std::set<std::string> ids;
    for (const auto id : split(a.jobs, ',')) {
        if (!id.empty()) {
            ids.emplace(id);
        }
    }
    if (!a.since.empty()) {
        std::map<std::string, std::string> reservation_of;
        auto h = read_accounting(a.since, ids, ended, reservation_of, report.problems);
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
        if (auto parts = slurmconf::slurm_command(
                {"sinfo", "--noheader", "--Node",
                 "--format=" + std::string(slurmconf::kSinfoPartitionsFormat)})) {
            ctx.partition_nodes = slurmconf::parse_partition_nodes(*parts);
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

void print_text(const AuditReport& r) {
    for (const auto& t : r.topologies) {
        std::cout << "slurmctld's topology " << (t.name == "default" ? "" : t.name + " ") << "("
                  << t.kind << ", " << t.units << " units): ";
        if (t.disagreements.empty()) {
            std::cout << "agrees with the installed map\n";
            continue;
        }
        std::cout << t.disagreements.size() << " disagreement(s) with the installed map\n";
        for (const auto& d : t.disagreements) {
            std::cout << "  " << d << "\n";
        }
    }
    std::vector<std::string> broken;
    unsigned pipeline[2] = {0, 0};  // running, ended
    unsigned one_su[2] = {0, 0};
    unsigned count[2] = {0, 0};
    for (const auto& j : r.jobs) {
        const auto e = j.finished ? 1U : 0U;
        ++count[e];
        std::cout << "job " << j.id << " (" << j.partition << (j.finished ? ", ended" : "")
                  << "): ";
        if (j.stages.empty()) {
            std::cout << "no pipeline stages; " << j.sus << " SU(s), fewest " << j.fewest_sus;
        } else {
            ++pipeline[e];
            one_su[e] += j.stages_in_one_su == j.stages.size() ? 1U : 0U;
            std::cout << j.stages_in_one_su << " of " << j.stages.size()
                      << " stage(s) in one SU (best for its nodes " << j.best_stages_in_one_su
                      << (j.striped ? "; striped by the plan" : "") << "); " << j.sus
                      << " SU(s), fewest " << j.fewest_sus;
        }
        if (j.at_start) {
            std::cout << "; the free nodes at its start (" << j.at_start->free_nodes << ") allowed "
                      << j.at_start->fewest_sus << " SU(s)";
            if (!j.stages.empty()) {
                std::cout << " and " << j.at_start->stages_in_one_su << " stage(s) in one SU";
            }
        }
        std::cout << "\n";
        for (const auto& s : j.stages) {
            std::cout << stage_line(s) << "\n";
        }
        if (!j.unmapped.empty()) {
            std::cout << "  not in the installed map: " << compress_hostlist(j.unmapped) << "\n";
        }
        for (const auto& c : j.checks) {
            std::cout << "  " << c.request << ": " << placement::to_string(c.verdict)
                      << (c.detail.empty() ? "" : " (" + c.detail + ")") << "\n";
        }
        if (j.broken()) {
            broken.push_back(j.id);
        }
    }
    for (const auto& p : r.problems) {
        std::cout << "left out: " << p << "\n";
    }
    std::cout << count[0] << " running job(s), " << pipeline[0] << " with pipeline stages, "
              << one_su[0] << " of them with every stage in one SU; ";
    if (r.since) {
        std::cout << count[1] << " ended since " << *r.since << ", " << pipeline[1]
                  << " with pipeline stages, " << one_su[1]
                  << " of them with every stage in one SU; ";
    }
    if (broken.empty()) {
        std::cout << "every request honoured\n";
    } else {
        std::cout << broken.size()
                  << " placed worse than their request promised: " << join(broken, " ") << "\n";
    }
}

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
             {"not_honoured", j.broken()}});
    }
    out["left_out"] = r.problems;
    out["since"] = r.since ? nlohmann::json(*r.since) : nlohmann::json(nullptr);
    return out;
}

std::string metrics_text(const AuditReport& r) {
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
        for (const auto& j : r.jobs) {
            if (j.finished != ended) {
                continue;
            }
            broken += j.broken() ? 1U : 0U;
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
    }
    gauge("switchyard_audit_topology_disagreements",
          "Where slurmctld's topology and the installed fabric map disagree.");
    for (const auto& t : r.topologies) {
        o << "switchyard_audit_topology_disagreements{topology=\"" << prometheus_label(t.name)
          << "\"} " << t.disagreements.size() << "\n";
    }
    gauge("switchyard_audit_last_run_timestamp_seconds", "When the audit last ran.");
    o << "switchyard_audit_last_run_timestamp_seconds " << std::time(nullptr) << "\n";
    return o.str();
}

int run_audit(const AuditArgs& a) {
    if (a.jobs.find_first_not_of("0123456789_+,") != std::string::npos) {
        std::cerr << "switchyard audit: --jobs '" << printable(a.jobs)
                  << "': expected job ids separated by commas\n";
        return kExitUsage;
    }
    if (!a.since.empty() && !valid_since(a.since)) {
        std::cerr << "switchyard audit: --since '" << printable(a.since)
                  << "': expected a time as sacct takes it (2026-12-01T08:00, now-1day, today)\n";
        return kExitUsage;
    }
    std::string map_path = a.map;
    placement::AuditContext ctx;
    if (map_path.empty() || !a.policy.empty()) {
        if (auto pol = policy::load_policy_file(a.policy)) {
            ctx.params = placement::cost_params(pol->placement);
            map_path = map_path.empty() ? pol->fabric_map : map_path;
        } else if (map_path.empty()) {
            std::cerr << "switchyard audit: " << pol.error().message() << "\n";
            return kExitProblem;
        }
    }
    auto map = policy::load_fabric_map_file(map_path);
    if (!map) {
        std::cerr << "switchyard audit: " << map.error().to_string() << "\n";
        return kExitProblem;
    }
    ctx.map = &*map;
    auto config = slurmconf::topology_config_from_slurm();
    auto nodes_text =
        slurmconf::slurm_command({"sinfo", "--noheader", "--Node",
                                  "--format=" + std::string(slurmconf::kSinfoFeaturesFormat)});
    if (!config || !nodes_text) {
        std::cerr << "switchyard audit: "
                  << (!config ? config.error().message() : nodes_text.error().message()) << "\n";
        return kExitProblem;
    }
    ctx.features = slurmconf::parse_node_features(*nodes_text);
    std::set<std::string> slurm_nodes;
    for (const auto& [n, f] : ctx.features) {
        slurm_nodes.insert(n);
    }
    for (const auto& [n, block] :
         slurmconf::leaf_unit_of(slurmconf::expected_units(*map, "block"))) {
        ctx.block_of.emplace(n, block);
    }
    AuditReport report;
    if (!a.since.empty()) {
        report.since = a.since;
    }
    if (!a.no_topology) {
        if (auto t = audit_topologies(*map, *config, slurm_nodes, report); !t) {
            std::cerr << "switchyard audit: " << t.error().message() << "\n";
            return kExitProblem;
        }
    }
    if (!a.no_jobs) {
        if (auto j = audit_jobs(a, *config, ctx, report); !j) {
            std::cerr << "switchyard audit: " << j.error().message() << "\n";
            return kExitProblem;
        }
    }
    if (a.json) {
        std::cout << to_json(report).dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
    } else {
        print_text(report);
    }
    if (!a.metrics.empty()) {
        if (auto w = write_file_atomic(a.metrics, metrics_text(report)); !w) {
            std::cerr << "switchyard audit: --metrics: " << w.error().message() << "\n";
            return kExitProblem;
        }
    }
    const bool wrong = std::any_of(report.jobs.begin(), report.jobs.end(),
                                   [](const placement::JobAudit& j) { return j.broken(); }) ||
                       std::any_of(report.topologies.begin(), report.topologies.end(),
                                   [](const TopologyAudit& t) { return !t.disagreements.empty(); });
    return wrong ? kExitMisplaced : kExitOk;
}

}  // namespace

void setup_audit(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<AuditArgs>();
    cmd.footer(
        "\nChecks slurmctld's topology (scontrol show topology) against the installed fabric\n"
        "map, then every running job: its stages (the planner's order of its nodes, which its\n"
        "steps ran), the SUs, groups and NVLink domains each spans, and whether what it asked\n"
        "(--segment, --switches, its constraint and preference, --stage-scope, --nvl-group)\n"
        "was honoured. Exit 0: all well; 3: a job placed worse than its request promised, or\n"
        "slurmctld's topology disagrees with the map; 1: the audit could not run.\n"
        "\nExamples:\n  switchyard audit\n"
        "  switchyard audit --json --jobs 1234,1240\n"
        "  switchyard audit --since now-1day\n"
        "  switchyard audit --metrics /var/lib/node_exporter/switchyard-audit.prom\n");
    cmd.add_option("--map", a->map, "fabric map (default: the policy's fabric.map)");
    cmd.add_option("--policy", a->policy, "policy file whose fabric.map and costs to use")
        ->capture_default_str();
    cmd.add_option("--jobs", a->jobs, "only these running jobs (comma-separated ids)");
    cmd.add_option("--since", a->since,
                   "also the jobs that ended since TIME (sacct: slurmdbd), and for every job the "
                   "best the free nodes at its start allowed");
    cmd.add_option("--metrics", a->metrics, "also write node_exporter textfile metrics here");
    cmd.add_flag("--json", a->json, "JSON: topologies, jobs, their stages and checks");
    cmd.add_flag("--no-topology", a->no_topology, "leave slurmctld's topology out");
    cmd.add_flag("--no-jobs", a->no_jobs, "only slurmctld's topology");
    cmd.callback([&run, a] { run = [a] { return run_audit(*a); }; });
}

}  // namespace switchyard::cli
