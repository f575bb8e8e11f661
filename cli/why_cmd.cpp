// SPDX-License-Identifier: Apache-2.0
// `switchyard why`: can a pipeline job's placement request start on the nodes usable now, and
// if not, what would? Before submission (cli_filter.lua passes the request it made) or for a
// pending job (its request read back from squeue). One bounded sinfo; the judgement is
// placement/advice.hpp's.
#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/placement/advice.hpp"
#include "switchyard/policy/loaders.hpp"
#include "switchyard/slurmconf/scontrol.hpp"
#include "switchyard/slurmconf/slurm_jobs.hpp"
#include "switchyard/slurmconf/slurm_writers.hpp"

namespace switchyard::cli {
namespace {

struct WhyArgs {
    std::string job;  ///< a pending job's id ("" before submission)
    std::string map;
    std::string policy = "/etc/slurm/switchyard.yaml";
    std::string partition;
    std::string topology;  ///< tree or block: the partition's, as the filters decided
    std::string scope = "any";
    unsigned nodes = 0;
    unsigned stages = 1;
    unsigned segment = 0;
    bool spread = false;
    unsigned switches = 0;
    double switch_wait_s = 0;
    bool one_group = false;
    double timeout_s = 10;
    bool quiet = false;
    std::string reason;  ///< the pending job's reason
};

/// Largest node count `why` judges (Slurm's own limits are far above any cluster built).
constexpr unsigned kMaxNodes = 1U << 20;

/// Each node's leaf unit and group in the installed map: base blocks on a block partition,
/// SUs on a tree.
placement::AdviceUnits units_of(const fabric::FabricMap& map, bool block) {
    placement::AdviceUnits u;
    for (const auto& h : map.hosts) {
        const auto& su = map.sus[h.su];
        u.unit_of[h.name] = su.name;
        u.group_of[h.name] = map.groups[su.group].name;
    }
    u.group_block = static_cast<unsigned>(slurmconf::block_layout(map).group);
    if (block) {
        for (const auto& [n, b] :
             slurmconf::leaf_unit_of(slurmconf::expected_units(map, "block"))) {
            u.unit_of[n] = b;
        }
    }
    return u;
}

/// Why `why` ends early for a job: a sentence for stdout (rc 0) or a problem (rc 1).
struct JobEnd {
    int rc = kExitOk;
    std::string message;
};

/// A pending job's request as squeue shows it, into `a`; nullopt when it is read.
std::optional<JobEnd> read_job(WhyArgs& a) {
    std::vector<std::string> argv = {"squeue", "--noheader", "--jobs=" + a.job,
                                     "--Format=" + slurmconf::squeue_job_format(false)};
    auto text = slurmconf::slurm_command(argv, a.timeout_s);
    if (!text) {
        // The message starts with the whole command line, format and all: keep Slurm's words.
        auto m = text.error().message();
        const auto cmd = join(argv, " ") + ": ";
        m = m.rfind(cmd, 0) == 0 ? m.substr(cmd.size()) : m;
        return JobEnd{kExitProblem, "job " + a.job + ": squeue: " + m};
    }
    std::vector<std::string> problems;
    auto jobs = slurmconf::parse_squeue_jobs(*text, "squeue", false, problems);
    if (!jobs || jobs->empty()) {
        return JobEnd{kExitProblem, "job " + a.job + ": squeue does not show it" +
                                        (problems.empty() ? "" : " (" + problems.front() + ")")};
    }
    argv[3] = "--Format=" + std::string(slurmconf::kSqueueNodeCountFormat);
    if (auto counts = slurmconf::slurm_command(argv, a.timeout_s)) {
        slurmconf::read_squeue_node_counts(*counts, *jobs);
    }
    const auto& j = jobs->front();
    if (j.state != "PENDING") {
        return JobEnd{kExitOk, "job " + a.job + " is " + j.state + ", not pending"};
    }
    if (j.node_count == 0) {
        return JobEnd{kExitProblem, "job " + a.job + ": squeue gives no node count"};
    }
    a.reason = j.reason;
    a.partition = j.partition;
    a.nodes = j.node_count;
    a.stages = std::max(1U, j.stages);
    a.scope = j.scope.empty() ? "any" : j.scope;
    a.switches = j.switches;
    a.switch_wait_s = j.switch_wait_s.value_or(0);
    // SegmentSize is read from 25.05 on; before, the record job_submit.lua wrote.
    if (auto seg = slurmconf::slurm_command(
            {"squeue", "--noheader", "--jobs=" + a.job, "--Format=SegmentSize:"}, a.timeout_s)) {
        if (const auto n = parse_uint(trim(*seg)); n && *n > 0 && *n < kMaxNodes) {
            a.segment = static_cast<unsigned>(*n);
        }
    }
    if (a.segment == 0) {
        a.segment = j.segment;
    }
    a.topology = a.segment > 0 ? "block" : "tree";
    a.one_group = a.scope == "group" && !j.features.empty() && a.switches == 0;
    return std::nullopt;
}

int run_why(WhyArgs a) {
    if (!a.job.empty()) {
        if (a.job.find_first_not_of("0123456789_") != std::string::npos || a.job.size() > 32) {
            std::cerr << "switchyard why: '" << printable(a.job) << "': expected one job id\n";
            return kExitUsage;
        }
        if (const auto end = read_job(a)) {
            (end->rc == kExitOk ? std::cout : std::cerr)
                << (end->rc == kExitOk ? "switchyard: " : "switchyard why: ") << end->message
                << "\n";
            return end->rc;
        }
    }
    const auto scope = parse_stage_scope(a.scope);
    std::string bad;
    if (!scope) {
        bad = "--scope '" + printable(a.scope) + "': expected leaf, group or any";
    } else if (a.topology != "tree" && a.topology != "block") {
        bad = "--topology '" + printable(a.topology) + "': expected tree or block";
    } else if (a.nodes == 0 || a.nodes > kMaxNodes) {
        bad = "--nodes " + std::to_string(a.nodes) + ": expected 1 to " + std::to_string(kMaxNodes);
    } else if (a.stages == 0 || a.stages > a.nodes) {
        bad = "--stages " + std::to_string(a.stages) + ": expected 1 to --nodes (" +
              std::to_string(a.nodes) + ")";
    }
    if (!bad.empty()) {
        std::cerr << "switchyard why: " << bad
                  << "; give a job id, or the job's --nodes, --stages, "
                  << "--scope and its partition's --topology\n";
        return kExitUsage;
    }
    std::string map_path = a.map;
    if (map_path.empty()) {
        auto pol = policy::load_policy_file(a.policy);
        if (!pol) {
            std::cerr << "switchyard why: " << pol.error().message() << "\n";
            return kExitProblem;
        }
        map_path = pol->fabric_map;
    }
    auto map = policy::load_fabric_map_file(map_path);
    if (!map) {
        std::cerr << "switchyard why: " << map.error().to_string() << "\n";
        return kExitProblem;
    }
    std::vector<std::string> argv = {"sinfo", "--noheader", "--Node",
                                     "--format=" + std::string(slurmconf::kSinfoStatesFormat)};
    if (!a.partition.empty()) {
        argv.push_back("--partition=" + a.partition);
    }
    auto text = slurmconf::slurm_command(argv, a.timeout_s);
    if (!text) {
        std::cerr << "switchyard why: " << text.error().message() << "\n";
        return kExitProblem;
    }
    placement::AdviceRequest req;
    req.nodes = a.nodes;
    req.stages = a.stages;
    req.scope = *scope;
    req.block = a.topology == "block";
    req.segment = req.block ? a.segment : 0;
    req.spread = req.block && a.spread;
    req.switches = req.block ? 0 : a.switches;
    req.switch_wait_s = a.switch_wait_s;
    req.one_group = !req.block && a.one_group;
    const auto advice =
        placement::advise(req, units_of(*map, req.block), slurmconf::parse_usable_nodes(*text));
    if (a.quiet && advice.kind != placement::Advice::Kind::WaitsForLayout) {
        return kExitOk;
    }
    std::cout << "switchyard: ";
    if (!a.job.empty()) {
        std::cout << "job " << a.job << " pends" << (a.reason.empty() ? "" : " (" + a.reason + ")");
    } else {
        std::cout << "-N" << a.nodes << " --pipeline-stages=" << a.stages;
    }
    std::cout << (a.partition.empty() ? "" : " in partition " + a.partition) << ": "
              << advice.sentence << "\n";
    return kExitOk;
}

}  // namespace

void setup_why(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<WhyArgs>();
    cmd.footer(
        "\nSays whether a pipeline job's placement request (a segment per stage on a block\n"
        "partition, a switch count or one group on a tree) fits the nodes usable now (idle:\n"
        "not drained, down, reserved or allocated; one sinfo), and if not, what would start\n"
        "now: more, smaller stages, fewer nodes, a wider --stage-scope. For a pending job the\n"
        "request is read back from squeue (with Slurm 26.05's pending reasons such as\n"
        "No_suitable_topology_unit_found). cli_filter.lua runs it with --quiet before each\n"
        "pipeline submission. Exit 0 when it could tell, 1 when Slurm or the map could not\n"
        "be read.\n"
        "\nExamples:\n  switchyard why 1234\n"
        "  switchyard why --nodes 16 --stages 4 --topology block --segment 4 --partition gpu\n"
        "  switchyard why --nodes 16 --stages 4 --scope leaf --topology tree --switches 4\n");
    cmd.add_option("job", a->job, "a pending job's id");
    cmd.add_option("--nodes", a->nodes, "nodes the job asks (-N)");
    cmd.add_option("--stages", a->stages, "its pipeline stages")->capture_default_str();
    cmd.add_option("--scope", a->scope, "its --stage-scope: leaf, group or any")
        ->capture_default_str();
    cmd.add_option("--partition", a->partition, "its partition (default: every node)");
    cmd.add_option("--topology", a->topology, "the partition's topology: tree or block");
    cmd.add_option("--segment", a->segment, "block: nodes per segment asked");
    cmd.add_flag("--spread-segments", a->spread, "block: each segment in a block of its own");
    cmd.add_option("--switches", a->switches, "tree: leaf switches asked");
    cmd.add_option("--switch-wait", a->switch_wait_s, "tree: seconds Slurm waits for them");
    cmd.add_flag("--one-group", a->one_group, "tree: the job is constrained to one group");
    cmd.add_option("--map", a->map, "fabric map (default: the policy's fabric.map)");
    cmd.add_option("--policy", a->policy, "policy file whose fabric.map to use")
        ->capture_default_str();
    cmd.add_option("--timeout", a->timeout_s, "seconds each Slurm command may take")
        ->check(CLI::Range(0.1, 600.0))
        ->capture_default_str();
    cmd.add_flag("--quiet", a->quiet, "print only when the request cannot start now");
    cmd.callback([&run, a] { run = [a] { return run_why(*a); }; });
}

}  // namespace switchyard::cli
