// SPDX-License-Identifier: Apache-2.0
// Hook logic of spank_switchyard.so: argument checks, option validation, variable export.
#include "hooks.hpp"

#include <string>

#include "plugin_args.hpp"

namespace switchyard::spank {
namespace {

/// Parses the plugstack words; logs a failure naming plugstack.conf.
std::optional<PluginArgs> load_args(Logger& log, const PluginWords& words) {
    auto args = parse_plugin_args(words);
    if (!args) {
        log.error(Component::Plugin, args.error().message());
        return std::nullopt;
    }
    return std::move(*args);
}

/// The user's options over the admin's defaults.
Result<policy::JobOptions> resolve_options(SpankApi& api, const PluginArgs& args) {
    policy::JobOptions opts = args.defaults;
    for (const auto& spec : policy::kJobOptions) {
        const auto value = api.get_option(spec);
        if (!value) {
            continue;
        }
        if (auto r = policy::apply_option(opts, spec.id, *value); !r) {
            return fail(r.error());
        }
    }
    return opts;
}

/// setenv without overwrite; a kept user value is reported, a failure returned.
Result<void> export_var(SpankApi& api,
                        Logger& log,
                        std::string_view name,
                        const std::string& value) {
    auto r = api.setenv(name, value, /*overwrite=*/false);
    if (!r) {
        return fail(r.error());
    }
    if (*r == SetEnv::KeptExisting) {
        log.verbose(Component::Env, std::string(name) + ": kept the value set by the user (" +
                                        "switchyard would set '" + value + "')");
    }
    return {};
}

}  // namespace

std::string_view to_string(Context c) {
    switch (c) {
        case Context::Error:
            return "error";
        case Context::Local:
            return "local";
        case Context::Remote:
            return "remote";
        case Context::Allocator:
            return "allocator";
        case Context::Slurmd:
            return "slurmd";
        case Context::JobScript:
            return "job_script";
    }
    return "?";
}

namespace hooks {

int init(SpankApi& api, Logger& log, const PluginWords& words) {
    const bool daemon = api.context() == Context::Slurmd;
    const int failure = daemon ? 0 : -1;
    if (!load_args(log, words)) {
        return failure;
    }
    for (const auto& spec : policy::kJobOptions) {
        if (auto r = api.register_option(spec); !r) {
            log.error(Component::Plugin,
                      "--" + std::string(spec.name) + ": " + r.error().message());
            return failure;
        }
    }
    return 0;
}

int user_init(SpankApi& api, Logger& log, const PluginWords& words) {
    if (api.context() != Context::Remote) {
        return 0;
    }
    const auto args = load_args(log, words);
    if (!args) {
        return -1;
    }
    const int failure = args->on_error == OnError::Warn ? 0 : -1;
    const auto step = api.step_id();
    if (step && *step >= kFirstSpecialStepId) {
        return 0;
    }
    auto opts = resolve_options(api, *args);
    if (!opts) {
        log.error(Component::Plugin, opts.error().message());
        return failure;
    }
    auto r = export_var(api, log, kEnvVersion, SWITCHYARD_VERSION_STRING);
    if (r && opts->pipeline_stages) {
        r = export_var(api, log, kEnvStages, std::to_string(*opts->pipeline_stages));
    }
    if (!r) {
        log.error(Component::Env, r.error().message());
        return failure;
    }
    return 0;
}

int option(int val, const char* optarg, int remote, Logger& log) {
    const auto id = policy::option_from_val(val);
    if (!id) {
        log.error(Component::Plugin,
                  "option callback for unknown option number " + std::to_string(val));
        return -1;
    }
    const auto& spec = policy::option_spec(*id);
    if (spec.has_arg && optarg == nullptr) {
        log.error(Component::Plugin, "--" + std::string(spec.name) + ": a value is required");
        return -1;
    }
    policy::JobOptions scratch;
    if (auto r = policy::apply_option(scratch, *id, optarg != nullptr ? optarg : ""); !r) {
        // In the client this is what the user reads; Slurm adds "Invalid --<name> argument".
        log.error(Component::Plugin, r.error().message());
        return -1;
    }
    (void)remote;  // validated the same way in srun/sbatch/salloc and in slurmstepd
    return 0;
}

}  // namespace hooks
}  // namespace switchyard::spank
