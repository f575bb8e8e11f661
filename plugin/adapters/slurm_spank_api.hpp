// SPDX-License-Identifier: Apache-2.0
// The real SpankApi over spank_t, and the Logger that writes through Slurm's log functions.
#pragma once

#include "spank_api.hpp"
#include "spank_compat.hpp"

namespace switchyard::spank {

/// SpankApi backed by a live spank_t handle.
class SlurmSpankApi final : public SpankApi {
public:
    explicit SlurmSpankApi(spank_t sp) : sp_(sp) {}
    [[nodiscard]] Context context() const override;
    [[nodiscard]] std::optional<std::uint32_t> step_id() override;
    [[nodiscard]] std::optional<std::string> get_option(const OptionSpec& spec) override;
    [[nodiscard]] std::optional<std::string> getenv(std::string_view name) override;
    [[nodiscard]] std::string node_name() override;
    [[nodiscard]] std::string job_partition() override;
    [[nodiscard]] std::optional<std::string> prolog_env(std::string_view name) override;
    [[nodiscard]] std::uint32_t local_task_count() override;
    [[nodiscard]] std::vector<int> task_cpus() override;
    [[nodiscard]] std::uint32_t job_id() override;
    [[nodiscard]] std::uint32_t node_index() override;
    [[nodiscard]] std::optional<std::uint32_t> local_task_id() override;
    [[nodiscard]] std::optional<std::uint32_t> task_global_id() override;
    [[nodiscard]] std::uint32_t total_task_count() override;
    [[nodiscard]] bool gate_loaded() override;
    [[nodiscard]] Result<SetEnv> setenv(std::string_view name,
                                        std::string_view value,
                                        bool overwrite) override;

private:
    spank_t sp_;
};

/// Logger writing "switchyard: <message>" through slurm_error/slurm_info/... (never using the
/// message as a format string). Warnings use slurm_spank_log so srun users see them.
class SlurmLogger final : public Logger {
public:
    void log(Level level, Component component, std::string_view message) noexcept override;
};

/// GuardSink writing through slurm_error.
void slurm_error_sink(const char* line) noexcept;

/// Keeps the option entries spank_switchyard.so registered with Slurm (front_entry.cpp):
/// Slurm answers spank_option_getopt for those entries, so get_option reads through them.
void bind_registered_options(struct spank_option* options, int count) noexcept;

}  // namespace switchyard::spank
