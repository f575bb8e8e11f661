// SPDX-License-Identifier: Apache-2.0
// `switchyard why`: can a pipeline job's placement request start on the nodes usable now, and
// if not, what would? Before submission (cli_filter.lua passes the request it made) or for a
// pending job (its request read back from squeue). One bounded sinfo through the client; the
// judgement is placement/advice.hpp's.
#pragma once

#include <iosfwd>
#include <string>

#include "switchyard/ops/deps.hpp"

namespace switchyard::ops {

struct WhyRequest {
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

struct WhyReport {
    int rc = 0;         ///< kExitOk, kExitUsage or kExitProblem
    std::string said;   ///< the sentence for standard output ("" with --quiet and nothing to say)
    std::string error;  ///< why it could not tell (rc 1 or 2)
};

[[nodiscard]] WhyReport run_why(const WhyRequest& request, Deps& deps);

/// The sentence to `out`, or the problem to `err`.
void print_why(const WhyReport& report, std::ostream& out, std::ostream& err);

}  // namespace switchyard::ops
