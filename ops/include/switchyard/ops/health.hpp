// SPDX-License-Identifier: Apache-2.0
// `switchyard health`: the prolog gate's checks on this node, and with `resume` (slurmd's
// HealthCheckProgram) a node switchyard drained put back in service once it passes, through
// the Slurm client. The report has a printer per form (line, JSON, node_exporter).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "switchyard/health/health.hpp"
#include "switchyard/ops/deps.hpp"

namespace switchyard::ops {

struct HealthRequest {
    std::string policy = "/etc/slurm/switchyard.yaml";
    std::string sysfs_root;
    std::string hwloc_xml;
    std::string host;
    std::string partition;
    std::string prometheus;
    bool json = false;
    bool resume = false;
};

struct HealthReport {
    int rc = 0;
    std::string host;
    std::string set;  ///< the policy's check set that was run
    health::HealthReport checks;
    std::vector<std::string> notes;  ///< standard error, whole lines, in order
    bool ran = false;                ///< false: it could not run (notes say why)
};

[[nodiscard]] HealthReport run_health(const HealthRequest& request, Deps& deps);

/// The notes to `err`; the verdict to `out` (NHC's one line, or JSON with `json`).
void print_health(const HealthReport& report, bool json, std::ostream& out, std::ostream& err);

/// The report as node_exporter textfile metrics.
[[nodiscard]] std::string health_metrics(const HealthReport& report);

}  // namespace switchyard::ops
