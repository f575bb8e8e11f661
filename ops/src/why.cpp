// SPDX-License-Identifier: Apache-2.0
// `switchyard why` (ops/why.hpp).
#include "switchyard/ops/why.hpp"

#include <algorithm>
#include <optional>
#include <ostream>

#include "switchyard/common/job_options.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/placement/advice.hpp"
#include "switchyard/policy/loaders.hpp"
#include "switchyard/slurm/client/sinfo.hpp"
#include "switchyard/slurm/client/slurm_jobs.hpp"
#include "switchyard/slurm/files/slurm_writers.hpp"

namespace switchyard::ops {
namespace {

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
    u.group_block = static_cast<unsigned>(slurm::block_layout(map).group);
    if (block) {
        for (const auto& [n, b] : slurm::leaf_unit_of(slurm::expected_units(map, "block"))) {
            u.unit_of[n] = b;
        }
    }
    return u;
}

/// A pending job's request as squeue shows it, into `a`; nullopt when it is read.
std::optional<WhyReport> read_job(slurm::Client& client, WhyRequest& a) {
    std::vector<std::string> problems;
    auto jobs = slurm::job_request(client, a.job, a.timeout_s, problems);
    if (!jobs && jobs.error().code() == ErrorCode::Io) {
        return WhyReport{kExitProblem, "", "job " + a.job + ": " + jobs.error().message()};
    }
    if (!jobs || jobs->empty()) {
        return WhyReport{kExitProblem, "",
                         "job " + a.job + ": squeue does not show it" +
                             (problems.empty() ? "" : " (" + problems.front() + ")")};
    }
    const auto& j = jobs->front();
    if (j.state != "PENDING") {
        return WhyReport{kExitOk, "switchyard: job " + a.job + " is " + j.state + ", not pending",
                         ""};
    }
    if (j.node_count == 0) {
        return WhyReport{kExitProblem, "", "job " + a.job + ": squeue gives no node count"};
    }
    a.reason = j.reason;
    a.partition = j.partition;
    a.nodes = j.node_count;
    a.stages = std::max(1U, j.stages);
    a.scope = j.scope.empty() ? "any" : j.scope;
    a.switches = j.switches;
    a.switch_wait_s = j.switch_wait_s.value_or(0);
    // SegmentSize is read from 25.05 on; before, the record job_submit.lua wrote.
    if (const auto seg = slurm::job_segment_size(client, a.job, a.timeout_s); seg > 0) {
        a.segment = seg;
    }
    if (a.segment == 0) {
        a.segment = j.segment;
    }
    a.topology = a.segment > 0 ? "block" : "tree";
    a.one_group = a.scope == "group" && !j.features.empty() && a.switches == 0;
    return std::nullopt;
}

}  // namespace

WhyReport run_why(const WhyRequest& request, Deps& deps) {
    WhyRequest a = request;
    if (!a.job.empty()) {
        if (a.job.find_first_not_of("0123456789_") != std::string::npos || a.job.size() > 32) {
            return {kExitUsage, "", "'" + printable(a.job) + "': expected one job id"};
        }
        if (auto end = read_job(deps.slurm, a)) {
            return std::move(*end);
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
        return {kExitUsage, "",
                bad +
                    "; give a job id, or the job's --nodes, --stages, --scope and its "
                    "partition's --topology"};
    }
    std::string map_path = a.map;
    if (map_path.empty()) {
        auto pol = policy::load_policy_file(a.policy);
        if (!pol) {
            return {kExitProblem, "", pol.error().message()};
        }
        map_path = pol->fabric_map;
    }
    auto map = policy::load_fabric_map_file(map_path);
    if (!map) {
        return {kExitProblem, "", map.error().to_string()};
    }
    auto usable = slurm::usable_nodes(deps.slurm, a.partition, a.timeout_s);
    if (!usable) {
        return {kExitProblem, "", usable.error().message()};
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
    const auto advice = placement::advise(req, units_of(*map, req.block), *usable);
    if (a.quiet && advice.kind != placement::Advice::Kind::WaitsForLayout) {
        return {};
    }
    std::string said = "switchyard: ";
    if (!a.job.empty()) {
        // Right after submission squeue's reason is "None": the scheduler has not looked yet.
        const bool unseen = a.reason.empty() || a.reason == "None";
        said += "job " + a.job + " pends" +
                (unseen ? " (not yet scheduled: slurmctld has not tried to place it)"
                        : " (" + a.reason + ")");
    } else {
        said += "-N" + std::to_string(a.nodes) + " --pipeline-stages=" + std::to_string(a.stages);
    }
    said += (a.partition.empty() ? "" : " in partition " + a.partition) + ": " + advice.sentence;
    return {kExitOk, said, ""};
}

void print_why(const WhyReport& report, std::ostream& out, std::ostream& err) {
    if (!report.error.empty()) {
        err << "switchyard why: " << report.error << "\n";
    } else if (!report.said.empty()) {
        out << report.said << "\n";
    }
}

}  // namespace switchyard::ops
