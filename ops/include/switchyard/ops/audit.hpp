// SPDX-License-Identifier: Apache-2.0
// `switchyard audit`: is placement working? slurmctld's own topology against the installed
// fabric map, and each running (or, with `since`, ended) job's allocation against the map and
// what the job asked. Slurm is read through the client (slurm/client), the judgement is
// placement/audit.hpp's; the report has a printer per form (text, JSON, node_exporter).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "switchyard/ops/deps.hpp"
#include "switchyard/placement/audit.hpp"

namespace switchyard::ops {

struct AuditRequest {
    std::string map;
    std::string policy = "/etc/slurm/switchyard.yaml";
    std::string jobs;  ///< job ids, comma-separated ("" all running)
    std::string metrics;
    std::string since;  ///< also jobs that ended since this time (sacct); "" none
    bool json = false;
    bool no_topology = false;
    bool no_jobs = false;
    /// Seconds each Slurm command may take; after one goes unanswered, none more is run.
    double timeout_s = 10;
};

/// One topology of slurmctld compared with the installed map.
struct TopologyAudit {
    std::string name;
    std::string kind;
    std::size_t units = 0;
    std::vector<std::string> disagreements;
};

struct AuditReport {
    int rc = 0;         ///< kExitOk, kExitMisplaced, kExitUsage or kExitProblem
    std::string error;  ///< why the audit could not run (rc 1 or 2)
    std::vector<TopologyAudit> topologies;
    std::vector<placement::JobAudit> jobs;
    std::vector<std::string> problems;  ///< jobs left out, with why
    std::optional<std::string> since;   ///< --since: ended jobs are in `jobs` too
    double when = 0;                    ///< the clock when the audit ran
};

/// Runs the audit: the map (the request's, else the policy's), slurmctld's topologies and the
/// jobs, all read through `deps.slurm`. rc is kExitMisplaced when a job was placed worse than
/// its request promised or a topology disagrees with the map.
[[nodiscard]] AuditReport run_audit(const AuditRequest& request, Deps& deps);

/// The report as text, one block per topology and job, then a summary line.
void print_audit_text(const AuditReport& report, std::ostream& out);
/// The report as JSON (one document).
void print_audit_json(const AuditReport& report, std::ostream& out);
/// The report as node_exporter textfile metrics.
[[nodiscard]] std::string audit_metrics(const AuditReport& report);

}  // namespace switchyard::ops
