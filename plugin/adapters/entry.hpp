// SPDX-License-Identifier: Apache-2.0
// What the step and gate modules' extern "C" surfaces share: the plugstack words of a hook, and
// running one hook with the real API and logger behind guard() so no exception reaches Slurm.
#pragma once

#include "guard.hpp"
#include "hooks.hpp"
#include "plugin_symbols.hpp"
#include "slurm_spank_api.hpp"

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
