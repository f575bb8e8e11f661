// SPDX-License-Identifier: Apache-2.0
// FakeSpankApi: a recording SpankApi for hook tests, with a job environment and user options.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "spank_api.hpp"

namespace switchyard::spank::test {

class FakeSpankApi final : public SpankApi {
public:
    Context ctx = Context::Remote;
    std::optional<std::uint32_t> step = 0;
    std::map<std::string, std::string> env;      ///< the job environment
    std::map<std::string, std::string> options;  ///< option name → value given by the user
    bool throw_on_get_option = false;            ///< makes get_option throw (guard tests)
    bool fail_setenv = false;
    std::string node = "node001";
    std::string partition;  ///< SLURM_JOB_PARTITION of the prolog
    std::uint32_t tasks = 1;
    std::vector<int> cpus{0, 1};
    std::uint32_t job = 1234;
    std::uint32_t node_idx = 0;
    std::optional<std::uint32_t> task_id = 0;
    std::optional<std::uint32_t> global_id;  ///< S_TASK_GLOBAL_ID; unset: node_idx*tasks+task_id
    std::uint32_t total_tasks = 0;           ///< S_JOB_TOTAL_TASK_COUNT (0: unknown)
    bool gate = false;                       ///< spank_switchyard_gate.so loaded in the process

    [[nodiscard]] Context context() const override { return ctx; }
    [[nodiscard]] std::optional<std::uint32_t> step_id() override { return step; }
    [[nodiscard]] std::optional<std::string> get_option(const OptionSpec& spec) override {
        if (throw_on_get_option) {
            throw std::runtime_error("injected failure in get_option");
        }
        const auto it = options.find(std::string(spec.name));
        if (it == options.end()) {
            return std::nullopt;
        }
        return it->second;
    }
    [[nodiscard]] std::optional<std::string> getenv(std::string_view name) override {
        const auto it = env.find(std::string(name));
        if (it == env.end()) {
            return std::nullopt;
        }
        return it->second;
    }
    [[nodiscard]] std::string node_name() override { return node; }
    [[nodiscard]] std::string job_partition() override { return partition; }
    std::map<std::string, std::string> prolog;  ///< the prolog process's environment
    [[nodiscard]] std::optional<std::string> prolog_env(std::string_view name) override {
        const auto it = prolog.find(std::string(name));
        if (it == prolog.end()) {
            return std::nullopt;
        }
        return it->second;
    }
    [[nodiscard]] std::uint32_t local_task_count() override { return tasks; }
    [[nodiscard]] std::vector<int> task_cpus() override { return cpus; }
    [[nodiscard]] std::uint32_t job_id() override { return job; }
    [[nodiscard]] std::uint32_t node_index() override { return node_idx; }
    [[nodiscard]] std::optional<std::uint32_t> local_task_id() override { return task_id; }
    [[nodiscard]] std::optional<std::uint32_t> task_global_id() override {
        if (global_id || !task_id) {
            return global_id;
        }
        return node_idx * tasks + *task_id;  // Slurm's block distribution in node order
    }
    [[nodiscard]] std::uint32_t total_task_count() override { return total_tasks; }
    [[nodiscard]] bool gate_loaded() override { return gate; }
    [[nodiscard]] Result<SetEnv> setenv(std::string_view name,
                                        std::string_view value,
                                        bool overwrite) override {
        if (fail_setenv) {
            return fail(Error::internal("spank_setenv: Not implemented"));
        }
        auto [it, inserted] = env.try_emplace(std::string(name), value);
        if (!inserted && !overwrite) {
            return SetEnv::KeptExisting;
        }
        it->second = std::string(value);
        return SetEnv::Set;
    }
};

}  // namespace switchyard::spank::test
