// SPDX-License-Identifier: Apache-2.0
// `switchyard nccl-env`: the NCCL variables this node would get for a job, and why: the step's
// inputs loaded as the plugin loads them (policy/step_input.hpp), the NCCL rules' decision, and
// a printer per form (lines, --explain, --json).
#pragma once

#include <iosfwd>
#include <string>

#include "switchyard/nccl/rules.hpp"
#include "switchyard/ops/deps.hpp"

namespace switchyard::ops {

struct NcclEnvRequest {
    std::string hwloc_xml;
    std::string sysfs_root;
    std::string map;
    std::string policy;
    std::string nodes;
    std::string host;
    std::string choice = "auto";
    unsigned tasks_per_node = 1;
    unsigned nvl_group = 0;
    std::string partition;  ///< the job's partition (nccl.inspector)
    std::string job;        ///< the job's id (%j of nccl.inspector.dump_dir)
    bool shared = false;
    bool explain = false;
    bool json = false;
};

struct NcclEnvReport {
    int rc = 0;
    std::string error;  ///< why no decision was made (rc 1 or 2)
    std::string host;
    std::string shape;
    nccl::NcclDecision decision;
};

[[nodiscard]] NcclEnvReport run_nccl_env(const NcclEnvRequest& request, Deps& deps);

/// The variables to `out` (NAME=value lines, with `explain` their rules, or JSON); the error
/// and the rules' warnings to `err`.
void print_nccl_env(const NcclEnvRequest& request,
                    const NcclEnvReport& report,
                    std::ostream& out,
                    std::ostream& err);

}  // namespace switchyard::ops
