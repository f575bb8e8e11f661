// SPDX-License-Identifier: Apache-2.0
// What both modules' extern "C" surfaces share: the plugstack words of a hook, and running one
// hook with the real API and logger behind guard() so no exception reaches Slurm.
#pragma once

#include "guard.hpp"
#include "hooks.hpp"
#include "slurm_spank_api.hpp"
#include "spank_compat.hpp"

/// Slurm's four plugin symbols, by hand: SPANK_PLUGIN() would give them internal linkage in C++
/// (reference/slurm.md). Used once per module, inside its extern "C" block.
#define SWITCHYARD_SPANK_PLUGIN(name)                                 \
    SWITCHYARD_EXPORT extern const char plugin_name[];                \
    SWITCHYARD_EXPORT extern const char plugin_type[];                \
    SWITCHYARD_EXPORT extern const unsigned int plugin_version;       \
    SWITCHYARD_EXPORT extern const unsigned int spank_plugin_version; \
    const char plugin_name[] = name;                                  \
    const char plugin_type[] = "spank";                               \
    const unsigned int plugin_version = SLURM_VERSION_NUMBER;         \
    const unsigned int spank_plugin_version = 1;

namespace switchyard::spank::entry {

inline PluginWords words(int ac, char** av) {
    PluginWords out;
    for (int i = 0; i < ac; ++i) {
        if (av[i] != nullptr) {
            out.emplace_back(av[i]);
        }
    }
    return out;
}

template <typename Hook>
int run(const char* name, int error_rc, spank_t sp, int ac, char** av, Hook hook) noexcept {
    return guard(name, slurm_error_sink, error_rc, [&] {
        SlurmSpankApi api(sp);
        SlurmLogger log;
        return hook(api, log, words(ac, av));
    });
}

}  // namespace switchyard::spank::entry
