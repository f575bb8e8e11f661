// SPDX-License-Identifier: Apache-2.0
// NCCL rules R18 (Inspector per partition) and R19 (a RAS port per job on shared nodes).
#include "rules_job.hpp"

#include <algorithm>
#include <string>

#include "switchyard/common/strings.hpp"

namespace switchyard::nccl {

namespace {

void set(NcclDecision& d, std::string name, std::string value, std::string rule, std::string why) {
    d.set.push_back({std::move(name), std::move(value), std::move(rule), std::move(why), false});
}

void unset(NcclDecision& d, const std::string& name, const std::string& why) {
    d.unset.push_back(name + ": not set: " + why);
}

}  // namespace

bool node_shared(const node::NodeTopology& node, const JobFacts& job) {
    return !job.exclusive || (job.gpus_allocated && *job.gpus_allocated < node.gpus.size());
}

bool wants_job_id(const NcclPolicy& policy, const node::NodeTopology& node, const JobFacts& job) {
    return policy.enabled && policy.ras_port_first != 0 && node_shared(node, job);
}

void decide_inspector(const NcclPolicy& policy, const JobFacts& job, NcclDecision& out) {
    const auto& in = policy.inspector;
    if (in.partitions.empty() || in.plugin.empty()) {
        return;
    }
    std::string which;
    for (auto p : split(job.partition, ',')) {
        if (std::find(in.partitions.begin(), in.partitions.end(), trim(p)) != in.partitions.end()) {
            which = std::string(trim(p));
            break;
        }
    }
    if (which.empty()) {
        unset(out, "NCCL_PROFILER_PLUGIN",
              "Inspector is on for " + join(in.partitions, ", ") + " only, not partition '" +
                  job.partition + "'");
        return;
    }
    const auto why = "partition " + which +
                     " opted in to NCCL Inspector (nccl.inspector): per-rank collective "
                     "timings for `switchyard locate`";
    set(out, "NCCL_PROFILER_PLUGIN", in.plugin, "R18 inspector", why);
    set(out, "NCCL_INSPECTOR_ENABLE", "1", "R18 inspector", why);
    if (!in.dump_dir.empty()) {
        std::string dir;
        for (std::size_t i = 0; i < in.dump_dir.size(); ++i) {
            if (in.dump_dir[i] == '%' && i + 1 < in.dump_dir.size() &&
                (in.dump_dir[i + 1] == 'j' || in.dump_dir[i + 1] == 'n')) {
                dir += in.dump_dir[i + 1] == 'j' ? (job.job_id.empty() ? "nojob" : job.job_id)
                                                 : job.this_host;
                ++i;
            } else {
                dir += in.dump_dir[i];
            }
        }
        set(out, "NCCL_INSPECTOR_DUMP_DIR", dir, "R18 inspector", why);
    }
}

/// NCCL's RAS (2.24 and later) listens for its clients on localhost:28028 by default. On a
/// shared node a second job's NCCL cannot bind that port when another user holds it, or answers
/// for both jobs when the same user does: each job gets its own port (NCCL_RAS_ADDR, NCCL's
/// env.rst).
void decide_ras_addr(const NcclPolicy& policy,
                     const node::NodeTopology& node,
                     const JobFacts& job,
                     NcclDecision& out) {
    if (!node_shared(node, job)) {
        return;
    }
    if (policy.ras_port_first == 0) {
        unset(out, "NCCL_RAS_ADDR", "the node is shared, but nccl.ras_ports is ''");
        return;
    }
    const auto id = parse_uint(job.job_id);
    if (!id) {
        unset(out, "NCCL_RAS_ADDR", "the node is shared, but the job's id is not known");
        return;
    }
    const auto span = policy.ras_port_last - policy.ras_port_first + 1;
    const auto port = policy.ras_port_first + static_cast<unsigned>(*id % span);
    set(out, "NCCL_RAS_ADDR", "localhost:" + std::to_string(port), "R19 RAS port",
        "the node is shared: job " + job.job_id + "'s own RAS port (nccl.ras_ports " +
            std::to_string(policy.ras_port_first) + "-" + std::to_string(policy.ras_port_last) +
            ") instead of 28028, which another job's NCCL on this node may hold");
}

}  // namespace switchyard::nccl
