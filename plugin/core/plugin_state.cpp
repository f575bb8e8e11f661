// SPDX-License-Identifier: Apache-2.0
// The plugin's per-process state, heap-allocated so the .so has no static destructor.
#include "plugin_state.hpp"

namespace switchyard::spank {
namespace {
PluginState* g_state = nullptr;  // NOLINT: one per process by design (SPANK has no user data)
}  // namespace

PluginState& plugin_state() {
    if (g_state == nullptr) {
        g_state = new PluginState();  // NOLINT: owned here, freed by release_plugin_state
    }
    return *g_state;
}

const PluginState* plugin_state_if_any() noexcept {
    return g_state;
}

void release_plugin_state() noexcept {
    delete g_state;  // NOLINT: see plugin_state
    g_state = nullptr;
}

}  // namespace switchyard::spank
