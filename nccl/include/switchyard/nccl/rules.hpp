// SPDX-License-Identifier: Apache-2.0
// NCCL environment rules: facts of the node, the fabric and the job → variables, each with the
// rule and the facts behind it (reference/nccl.md section 2). Pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "switchyard/common/job_options.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/nccl/nccl_policy.hpp"
#include "switchyard/node/node_topology.hpp"

namespace switchyard::nccl {

/// What Slurm says about the step, as far as NCCL rules care.
struct JobFacts {
    std::string this_host;           ///< SLURMD_NODENAME
    std::vector<std::string> hosts;  ///< the step's nodes
    bool exclusive = true;           ///< the node is not shared with other jobs
    unsigned tasks_per_node = 1;
    /// GPUs the job holds on this node (Slurm's SLURM_JOB_GPUS), when Slurm says: fewer than
    /// the node has means other jobs may hold the rest, i.e. a shared node.
    std::optional<unsigned> gpus_allocated;
    /// Whether this node has the IMEX channel device (nccl.imex_channel): what multi-node
    /// NVLink memory sharing needs. nullopt: not looked at.
    std::optional<bool> imex_channel;
    std::string imex_channel_path;  ///< the path looked at (nccl.imex_channel with %n expanded)
    /// What the prolog's `nvlink` health check found on this node when it did not pass (its
    /// GPUs' fabric health mask not clean, NVML not answering, ...); "" when it passed or is
    /// not known.
    std::string nvlink_problem;
    /// --nvl-group: nodes per NVLink group (tensor/expert parallel) the job asked for.
    std::optional<unsigned> nvl_group;
    std::string partition;  ///< the job's partition(s), a comma list (SLURM_JOB_PARTITION)
    std::string job_id;     ///< "" when unknown
};

/// Whether other jobs may run on this node beside the step's: not exclusive, or the job holds
/// fewer of its GPUs than it has.
[[nodiscard]] bool node_shared(const node::NodeTopology& node, const JobFacts& job);

/// Whether R19 (NCCL_RAS_ADDR per job) needs the job's id: a shared node and ports configured.
[[nodiscard]] bool wants_job_id(const NcclPolicy& policy,
                                const node::NodeTopology& node,
                                const JobFacts& job);

/// One variable to set, with why.
struct EnvChoice {
    std::string name;
    std::string value;
    std::string rule;      ///< "R1 compute ports", "profile debug", ...
    std::string why;       ///< the facts
    bool enforce = false;  ///< overwrite a user's value (enforcing profiles only)
};

struct NcclDecision {
    std::vector<EnvChoice> set;
    std::vector<std::string> unset;     ///< "NCCL_CROSS_NIC: not set: no fabric map" ...
    std::vector<std::string> warnings;  ///< shown to the user (task stderr) and in --explain
    bool read_gids = false;             ///< a rule read the ports' GID tables (RoCE, NCCL < 2.21)
};

/// The node-wide variables for a step (rules R1–R10, R13, R17 multi-node NVLink, profiles, R16
/// checks on `user_env`).
/// `choice` Off yields nothing; a profile that is unknown or not user-selectable yields a warning.
[[nodiscard]] NcclDecision decide_node_env(const NcclPolicy& policy,
                                           const node::NodeTopology& node,
                                           const fabric::FabricMap* map,
                                           const JobFacts& job,
                                           const NcclEnvChoice& choice,
                                           const std::map<std::string, std::string>& user_env);

/// R11, per task: NCCL_IGNORE_CPU_AFFINITY=1 when none of the task's CPUs is on a NUMA node of
/// its GPUs (`gpus` = indices into node.gpus; empty: all GPUs of the node).
[[nodiscard]] std::optional<EnvChoice> decide_cpu_affinity(const node::NodeTopology& node,
                                                           const std::vector<int>& task_cpus,
                                                           const std::vector<int>& gpus);

/// What R11 sets (the step cache replays it in the front, which cannot call decide_cpu_affinity).
[[nodiscard]] EnvChoice cpu_affinity_choice();

/// Expands a CPU list "0-5,48-53" into numbers (bad parts are skipped).
[[nodiscard]] std::vector<int> parse_cpu_list(std::string_view list);

/// An NCCL profile refused at submit time: nullopt when `name` is allowed, else the message
/// "--nccl-env: unknown profile 'x'; allowed: debug, ..." (or "not user-selectable").
[[nodiscard]] std::optional<std::string> check_user_profile(const NcclPolicy& policy,
                                                            std::string_view name);

}  // namespace switchyard::nccl
