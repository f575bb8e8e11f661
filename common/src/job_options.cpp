// SPDX-License-Identifier: Apache-2.0
// Validation of the per-job options; every message names the option, the value and the choices.
#include "switchyard/common/job_options.hpp"

#include <algorithm>

#include "switchyard/common/strings.hpp"

namespace switchyard {
namespace {

Failure bad_value(std::string_view option, std::string_view expected, std::string_view got) {
    return fail(Error::invalid_argument("--" + std::string(option) + ": expected " +
                                        std::string(expected) + ", got '" + std::string(got) +
                                        "'"));
}

bool is_profile_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

}  // namespace

const OptionSpec& option_spec(OptionId id) {
    for (const auto& spec : kJobOptions) {
        if (spec.id == id) {
            return spec;
        }
    }
    return kJobOptions.front();  // unreachable: every OptionId has a row
}

std::optional<OptionId> option_from_val(int val) {
    for (const auto& spec : kJobOptions) {
        if (static_cast<int>(spec.id) == val) {
            return spec.id;
        }
    }
    return std::nullopt;
}

Result<unsigned> parse_pipeline_stages(std::string_view value) {
    const auto n = parse_uint(value);
    if (!n || *n < 1 || *n > kMaxPipelineStages) {
        return bad_value("pipeline-stages",
                         "a whole number of stages from 1 to " + std::to_string(kMaxPipelineStages),
                         value);
    }
    return static_cast<unsigned>(*n);
}

Result<unsigned> parse_nvl_group(std::string_view value) {
    const auto n = parse_uint(value);
    if (!n || *n < 1 || *n > kMaxNvlGroup) {
        return bad_value("nvl-group",
                         "a whole number of nodes from 1 to " + std::to_string(kMaxNvlGroup),
                         value);
    }
    return static_cast<unsigned>(*n);
}

Result<StageScope> parse_stage_scope(std::string_view value) {
    if (value == "leaf") {
        return StageScope::Leaf;
    }
    if (value == "group") {
        return StageScope::Group;
    }
    if (value == "any") {
        return StageScope::Any;
    }
    return bad_value("stage-scope", "one of leaf, group, any", value);
}

Result<RankOrder> parse_rank_order(std::string_view value) {
    if (value == "topology") {
        return RankOrder::Topology;
    }
    if (value == "slurm") {
        return RankOrder::Slurm;
    }
    return bad_value("rank-order", "one of topology, slurm", value);
}

Result<NcclEnvChoice> parse_nccl_env(std::string_view value) {
    if (value == "auto") {
        return NcclEnvChoice{NcclEnvChoice::Kind::Auto, {}};
    }
    if (value == "off") {
        return NcclEnvChoice{NcclEnvChoice::Kind::Off, {}};
    }
    const bool well_formed = !value.empty() && value.size() <= 64 && value.front() != '-' &&
                             value.front() != '.' && value.front() != '_' &&
                             std::all_of(value.begin(), value.end(), is_profile_char);
    if (!well_formed) {
        return bad_value(
            "nccl-env", "auto, off, or a profile name of lower-case letters, digits, '_', '.', '-'",
            value);
    }
    return NcclEnvChoice{NcclEnvChoice::Kind::Profile, std::string(value)};
}

Result<std::string> parse_preflight(std::string_view value) {
    // A bare --preflight reaches slurmstepd and the prolog as "(null)": Slurm formats the
    // missing optional value with %s into SPANK__SLURM_SPANK_OPTION_<plugin>_<name> (measured
    // on 22.05).
    if (value.empty() || value == "quick" || value == "(null)") {
        return std::string("quick");
    }
    if (value == "full" || value == "off") {
        return std::string(value);
    }
    return bad_value("preflight", "quick, full or off", value);
}

Result<void> apply_option(JobOptions& opts, OptionId id, std::string_view value) {
    switch (id) {
        case OptionId::PipelineStages: {
            auto r = parse_pipeline_stages(value);
            if (!r) {
                return fail(r.error());
            }
            opts.pipeline_stages = *r;
            return {};
        }
        case OptionId::StageScope: {
            auto r = parse_stage_scope(value);
            if (!r) {
                return fail(r.error());
            }
            opts.stage_scope = *r;
            return {};
        }
        case OptionId::RankOrder: {
            auto r = parse_rank_order(value);
            if (!r) {
                return fail(r.error());
            }
            opts.rank_order = *r;
            return {};
        }
        case OptionId::NcclEnv: {
            auto r = parse_nccl_env(value);
            if (!r) {
                return fail(r.error());
            }
            opts.nccl_env = std::move(*r);
            return {};
        }
        case OptionId::TopoReport:
            opts.topo_report = true;
            return {};
        case OptionId::NvlGroup: {
            auto r = parse_nvl_group(value);
            if (!r) {
                return fail(r.error());
            }
            opts.nvl_group = *r;
            return {};
        }
        case OptionId::Preflight: {
            auto r = parse_preflight(value);
            if (!r) {
                return fail(r.error());
            }
            opts.preflight = std::move(*r);
            return {};
        }
    }
    return fail(Error::internal("unknown option id " + std::to_string(static_cast<int>(id))));
}

std::string_view to_string(StageScope s) {
    switch (s) {
        case StageScope::Leaf:
            return "leaf";
        case StageScope::Group:
            return "group";
        case StageScope::Any:
            return "any";
    }
    return "?";
}

std::string_view to_string(RankOrder r) {
    switch (r) {
        case RankOrder::Topology:
            return "topology";
        case RankOrder::Slurm:
            return "slurm";
    }
    return "?";
}

std::string to_string(const NcclEnvChoice& c) {
    switch (c.kind) {
        case NcclEnvChoice::Kind::Auto:
            return "auto";
        case NcclEnvChoice::Kind::Off:
            return "off";
        case NcclEnvChoice::Kind::Profile:
            return c.profile;
    }
    return "?";
}

}  // namespace switchyard
