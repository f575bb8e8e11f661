// SPDX-License-Identifier: Apache-2.0
// The step module's side of the step cache (step_cache.hpp): user_init runs through a
// RecordingApi and a RecordingLogger, which pass every call on and note what the decision read
// from the job (variables, task count, node name) and what it set; when the step was plain
// enough to repeat (no option, no plan, nothing logged above verbose, every variable set), the
// entry adds the files it read and is kept for the front to store at the step's exit.
#pragma once

#include <string>
#include <vector>

#include "spank_api.hpp"
#include "switchyard/node/node_topology.hpp"
#include "switchyard/policy/policy.hpp"

namespace switchyard::spank {

/// Passes every call to `inner`, noting the job inputs and the variables set.
class RecordingApi final : public SpankApi {
public:
    explicit RecordingApi(SpankApi& inner) : inner_(inner) {}

    [[nodiscard]] Context context() const override { return inner_.context(); }
    [[nodiscard]] std::optional<std::uint32_t> step_id() override { return inner_.step_id(); }
    [[nodiscard]] std::optional<std::string> get_option(const OptionSpec& spec) override;
    [[nodiscard]] std::optional<std::string> getenv(std::string_view name) override;
    [[nodiscard]] std::string node_name() override;
    [[nodiscard]] std::string job_partition() override { return refuse(inner_.job_partition()); }
    [[nodiscard]] std::optional<std::string> prolog_env(std::string_view name) override {
        return refuse(inner_.prolog_env(name));
    }
    [[nodiscard]] std::uint32_t local_task_count() override;
    [[nodiscard]] std::uint32_t job_id() override { return refuse(inner_.job_id()); }
    [[nodiscard]] std::uint32_t node_index() override { return refuse(inner_.node_index()); }
    [[nodiscard]] std::optional<std::uint32_t> local_task_id() override {
        return refuse(inner_.local_task_id());
    }
    [[nodiscard]] std::optional<std::uint32_t> task_global_id() override {
        return refuse(inner_.task_global_id());
    }
    [[nodiscard]] std::uint32_t total_task_count() override {
        return refuse(inner_.total_task_count());
    }
    [[nodiscard]] std::vector<int> task_cpus() override { return refuse(inner_.task_cpus()); }
    [[nodiscard]] bool gate_loaded() override { return inner_.gate_loaded(); }
    [[nodiscard]] Result<SetEnv> setenv(std::string_view name,
                                        std::string_view value,
                                        bool overwrite) override;

    /// Whether nothing seen so far keeps the decision from being repeated.
    [[nodiscard]] bool repeatable() const { return repeatable_; }
    void not_repeatable() { repeatable_ = false; }
    /// The job lines of the entry's key (node, tasks, env) and its `set` lines.
    [[nodiscard]] const std::string& job_lines() const { return job_; }
    [[nodiscard]] const std::string& set_lines() const { return set_; }
    /// The node name the decision asked for ("" when it asked none).
    [[nodiscard]] const std::string& recorded_node() const { return node_; }

private:
    template <typename T>
    T refuse(T v) {
        repeatable_ = false;  // an input the entry does not record
        return v;
    }
    void note_env(std::string_view name, const std::optional<std::string>& value);

    SpankApi& inner_;
    bool repeatable_ = true;
    std::vector<std::string> env_names_;
    std::string job_;
    std::string set_;
    std::string node_;
};

/// Passes every line to `inner`; anything above verbose makes the step not repeatable (a
/// warning the user must see again, a note for the admin).
class RecordingLogger final : public Logger {
public:
    explicit RecordingLogger(Logger& inner) : inner_(inner) {}
    void log(Level level, Component component, std::string_view message) noexcept override;
    [[nodiscard]] bool quiet() const { return quiet_; }

private:
    Logger& inner_;
    bool quiet_ = true;
};

/// The `words` line of an entry's key.
[[nodiscard]] std::string words_line(const std::vector<std::string_view>& words);

/// The files a step's decision read, as input lines: the policy, the fabric map and its index,
/// the node cache or hwloc XML, the boot id and the device directories the node cache's key
/// reads, and each RDMA port's kRulePortFiles. Empty (not repeatable) when a file cannot be
/// described or the node is described by hwloc XML (its RDMA devices are read whole each step).
[[nodiscard]] std::string file_input_lines(const std::string& config,
                                           const policy::Policy& pol,
                                           const node::NodeTopology* node,
                                           const std::string& node_name);

/// The `gpu` and `affinity` lines for the task's CPU affinity rule.
[[nodiscard]] std::string affinity_lines(const node::NodeTopology& node);

}  // namespace switchyard::spank
