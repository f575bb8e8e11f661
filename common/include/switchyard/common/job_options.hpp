// SPDX-License-Identifier: Apache-2.0
// The seven per-job options users give to srun/sbatch/salloc, their table and their validation.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "switchyard/common/result.hpp"

namespace switchyard {

/// Where a pipeline stage must fit.
enum class StageScope {
    Leaf,   ///< one scalable unit (leaf group), else the job is not placed as asked
    Group,  ///< one Dragonfly+ group or fat-tree pod
    Any,    ///< anywhere; the planner packs stages into SUs and groups, or stripes them
            ///< when its model finds that clearly faster (placement.stripe_stages)
};

/// Who numbers the ranks.
enum class RankOrder {
    Topology,  ///< Switchyard exports RANK/WORLD_SIZE/... in plan order
    Slurm,     ///< Slurm's SLURM_PROCID order is kept; only SWITCHYARD_* variables are set
};

/// --nccl-env value: automatic rules, nothing, or a named profile of the policy.
struct NcclEnvChoice {
    enum class Kind { Auto, Off, Profile };
    Kind kind = Kind::Auto;
    std::string profile;  ///< only for Kind::Profile
    bool operator==(const NcclEnvChoice&) const = default;
};

/// Largest accepted --pipeline-stages (each stage needs at least one node).
inline constexpr unsigned kMaxPipelineStages = 1024;

/// Largest accepted --nvl-group (nodes of one multi-node NVLink domain).
inline constexpr unsigned kMaxNvlGroup = 4096;

/// What a user asked for; unset options stay nullopt so defaults can be layered under them.
struct JobOptions {
    std::optional<unsigned> pipeline_stages;
    std::optional<StageScope> stage_scope;
    std::optional<RankOrder> rank_order;
    std::optional<NcclEnvChoice> nccl_env;
    bool topo_report = false;
    std::optional<unsigned> nvl_group;  ///< nodes per NVLink group (tensor/expert parallel)
    /// --preflight: "quick", "full" or "off" (the gate's prolog measures the job's nodes).
    std::optional<std::string> preflight;
};

/// Identifies an option in the table; the values are the SPANK `val` numbers (stable).
enum class OptionId : int {
    PipelineStages = 1,
    StageScope = 2,
    RankOrder = 3,
    NcclEnv = 4,
    TopoReport = 5,
    NvlGroup = 6,
    Preflight = 7,
};

/// One user-facing option as registered with SPANK and shown by `srun --help`.
struct OptionSpec {
    OptionId id;
    std::string_view name;     ///< without leading dashes
    std::string_view arginfo;  ///< empty for flags
    std::string_view usage;
    bool has_arg;
    bool arg_optional = false;  ///< `--name` alone is allowed (SPANK has_arg 2)
};

/// The options, in --help order.
inline constexpr std::array<OptionSpec, 7> kJobOptions{{
    {OptionId::PipelineStages, "pipeline-stages", "N",
     "Switchyard: split the nodes into N pipeline-parallel stages placed by fabric topology", true},
    {OptionId::StageScope, "stage-scope", "leaf|group|any",
     "Switchyard: each stage inside one leaf group (SU), one group/pod, or anywhere", true},
    {OptionId::RankOrder, "rank-order", "topology|slurm",
     "Switchyard: export RANK/WORLD_SIZE/... in fabric order, or keep Slurm's order", true},
    {OptionId::NcclEnv, "nccl-env", "auto|off|PROFILE",
     "Switchyard: NCCL variables from node and fabric facts (auto), none, or a policy profile",
     true},
    {OptionId::TopoReport, "topo-report", "",
     "Switchyard: print the stage plan (nodes, SUs, groups, cost) once per step", false},
    {OptionId::NvlGroup, "nvl-group", "N",
     "Switchyard: keep each group of N nodes (tensor/expert parallel) inside one NVLink domain",
     true},
    {OptionId::Preflight, "preflight", "quick|full|off",
     "Switchyard: measure the paths between the job's nodes before it starts (default quick)", true,
     true},
}};

/// The spec of `id`.
[[nodiscard]] const OptionSpec& option_spec(OptionId id);

/// Finds an option by its SPANK `val`; nullopt for an unknown number.
[[nodiscard]] std::optional<OptionId> option_from_val(int val);

/// Parses a --pipeline-stages value: a decimal 1..kMaxPipelineStages.
/// \return Error::invalid_argument "--pipeline-stages: expected ..., got '<value>'" otherwise.
[[nodiscard]] Result<unsigned> parse_pipeline_stages(std::string_view value);

/// Parses a --nvl-group value: a decimal 1..kMaxNvlGroup.
[[nodiscard]] Result<unsigned> parse_nvl_group(std::string_view value);

/// Parses a --preflight value: quick (also a bare --preflight: "" or, as Slurm hands it on,
/// "(null)"), full or off.
[[nodiscard]] Result<std::string> parse_preflight(std::string_view value);
/// Parses a --stage-scope value; an unknown word yields an error listing leaf, group, any.
[[nodiscard]] Result<StageScope> parse_stage_scope(std::string_view value);

/// Parses a --rank-order value; an unknown word yields an error listing topology, slurm.
[[nodiscard]] Result<RankOrder> parse_rank_order(std::string_view value);

/// Parses a --nccl-env value: auto, off, or a profile name ([a-z0-9][a-z0-9_.-]*, ≤ 64 chars).
/// Whether the profile exists and is user-selectable is the policy's decision, not checked here.
[[nodiscard]] Result<NcclEnvChoice> parse_nccl_env(std::string_view value);

/// Validates `value` for option `id` and stores it in `opts`. Flags ignore the value.
/// \return the parse error of the option, whose message names the option and the value.
[[nodiscard]] Result<void> apply_option(JobOptions& opts, OptionId id, std::string_view value);

[[nodiscard]] std::string_view to_string(StageScope s);
[[nodiscard]] std::string_view to_string(RankOrder r);
[[nodiscard]] std::string to_string(const NcclEnvChoice& c);

}  // namespace switchyard
