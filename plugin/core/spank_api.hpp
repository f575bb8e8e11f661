// SPDX-License-Identifier: Apache-2.0
// SpankApi: the plugin's view of spank_t, so hook logic runs in tests without Slurm.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/job_options.hpp"
#include "switchyard/common/log.hpp"
#include "switchyard/common/result.hpp"

namespace switchyard::spank {

/// spank_context() values.
enum class Context { Error, Local, Remote, Allocator, Slurmd, JobScript };

[[nodiscard]] std::string_view to_string(Context c);

/// Outcome of a non-overwriting setenv.
enum class SetEnv { Set, KeptExisting };

/// The subset of the SPANK API the hooks use. The real implementation wraps spank_t; tests use a
/// recording fake.
class SpankApi {
public:
    virtual ~SpankApi() = default;
    [[nodiscard]] virtual Context context() const = 0;
    /// The step id (S_JOB_STEPID); nullopt where Slurm does not provide it.
    [[nodiscard]] virtual std::optional<std::uint32_t> step_id() = 0;
    /// The option's value if the user gave it (flags yield ""), from the command line or
    /// Slurm's environment fallback; nullopt when not given.
    [[nodiscard]] virtual std::optional<std::string> get_option(const OptionSpec& spec) = 0;
    /// A variable of the job's environment (remote context).
    [[nodiscard]] virtual std::optional<std::string> getenv(std::string_view name) = 0;
    /// This node's Slurm name: SLURMD_NODENAME of the slurmstepd or prolog process itself (never
    /// the job's environment, which an srun inside a batch job inherits from the batch host).
    [[nodiscard]] virtual std::string node_name() = 0;
    /// The job's partition(s) in the job prolog: SLURM_JOB_PARTITION of the prolog process
    /// (spank_getenv answers in remote context only); "" when unknown.
    [[nodiscard]] virtual std::string job_partition() = 0;
    /// A variable of the prolog process's own environment, which slurmd sets for the job
    /// (SLURM_NODELIST, SLURM_CONF, the options as SPANK__SLURM_SPANK_OPTION_<plugin>_<name>).
    [[nodiscard]] virtual std::optional<std::string> prolog_env(std::string_view name) = 0;
    /// Tasks of this step on this node (S_JOB_LOCAL_TASK_COUNT); 0 when unknown.
    [[nodiscard]] virtual std::uint32_t local_task_count() = 0;
    /// The job id (S_JOB_ID) and this node's index in the step (S_JOB_NODEID); 0 when unknown.
    [[nodiscard]] virtual std::uint32_t job_id() = 0;
    [[nodiscard]] virtual std::uint32_t node_index() = 0;
    /// The calling task's index on this node (S_TASK_ID); nullopt outside a task.
    [[nodiscard]] virtual std::optional<std::uint32_t> local_task_id() = 0;
    /// The calling task's rank in the whole step (S_TASK_GLOBAL_ID, SLURM_PROCID's value);
    /// nullopt outside a task. Slurm 26.05 numbers tasks in topology order, not node order.
    [[nodiscard]] virtual std::optional<std::uint32_t> task_global_id() = 0;
    /// Tasks of the whole step (S_JOB_TOTAL_TASK_COUNT); 0 when unknown.
    [[nodiscard]] virtual std::uint32_t total_task_count() = 0;
    /// CPUs the calling task may run on (task context).
    [[nodiscard]] virtual std::vector<int> task_cpus() = 0;
    /// Whether the health gate's module (spank_switchyard_gate.so) is loaded in this process:
    /// slurmd loads every plugin of plugstack.conf when it starts.
    [[nodiscard]] virtual bool gate_loaded() = 0;
    /// Sets a variable in the job's environment; with overwrite=false a present value is kept.
    [[nodiscard]] virtual Result<SetEnv> setenv(std::string_view name,
                                                std::string_view value,
                                                bool overwrite) = 0;
};

}  // namespace switchyard::spank
