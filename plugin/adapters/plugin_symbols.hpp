// SPDX-License-Identifier: Apache-2.0
// Slurm's four plugin symbols, for the modules Slurm loads (spank_switchyard.so, the gate).
#pragma once

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
