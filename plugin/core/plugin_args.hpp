// SPDX-License-Identifier: Apache-2.0
// plugstack.conf arguments of spank_switchyard.so: strict key=value parsing, no Slurm types.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/job_options.hpp"
#include "switchyard/common/on_error.hpp"
#include "switchyard/common/result.hpp"

namespace switchyard::spank {

/// The admin's plugstack.conf words after the plugin path.
struct PluginArgs {
    std::string config = "/etc/slurm/switchyard.yaml";  ///< policy file
    bool config_given = false;         ///< config= was in plugstack.conf (then the file must exist)
    JobOptions defaults;               ///< admin defaults under the user's options
    OnError on_error = OnError::Fail;  ///< a step whose setup fails does not run
    /// The step cache file (%n: the node's name), read and written by the front; "off": none.
    std::string step_cache = "/var/lib/switchyard/step-cache.%n";
};

/// The accepted keys, for messages: "config, stage_scope, rank_order, nccl_env, on_error,
/// step_cache".
[[nodiscard]] std::string_view plugin_arg_keys();

/// Parses `key=value` words. Keys: config=ABSOLUTE_PATH, stage_scope=, rank_order=, nccl_env=
/// (same values as the user options), on_error=fail|warn, step_cache=ABSOLUTE_PATH|off.
/// \return Error::invalid_argument naming the word for a word without '=', an unknown key (the
///         message lists the valid keys), a repeated key, or a bad value (named with the choices).
[[nodiscard]] Result<PluginArgs> parse_plugin_args(const std::vector<std::string_view>& words);

}  // namespace switchyard::spank
