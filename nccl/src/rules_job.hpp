// SPDX-License-Identifier: Apache-2.0
// NCCL rules that follow the job rather than the node or the fabric: R18 NCCL Inspector for the
// partitions that opted in, R19 a RAS port per job on shared nodes (internal to the NCCL
// library; rules.cpp runs them).
#pragma once

#include "switchyard/nccl/rules.hpp"

namespace switchyard::nccl {

/// R18: NCCL_PROFILER_PLUGIN, NCCL_INSPECTOR_ENABLE and NCCL_INSPECTOR_DUMP_DIR (%j, %n
/// expanded) for a job of a partition in nccl.inspector; why not for a job of another.
void decide_inspector(const NcclPolicy& policy, const JobFacts& job, NcclDecision& out);

/// R19: NCCL_RAS_ADDR=localhost:P on a shared node, P from nccl.ras_ports by the job's id;
/// nothing on an exclusive node; why not when the id or the range is missing.
void decide_ras_addr(const NcclPolicy& policy,
                     const node::NodeTopology& node,
                     const JobFacts& job,
                     NcclDecision& out);

}  // namespace switchyard::nccl
