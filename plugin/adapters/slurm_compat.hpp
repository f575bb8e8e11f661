// SPDX-License-Identifier: Apache-2.0
// The one place that includes <slurm/slurm.h>, and the shims over what changed in its C API
// between the releases the plugin builds for (22.05 and later; reference/slurm-24.md).
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
}

static_assert(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 5, 0),
              "switchyard's plugin builds for Slurm 22.05 and later");

namespace switchyard::spank::slurm_compat {

/// `hostlist_t` was a pointer typedef until 23.02 (`typedef struct hostlist *hostlist_t`) and is
/// the opaque struct since 23.11 (`hostlist_t *` everywhere). The handle is whatever
/// slurm_hostlist_create returns, owned here and destroyed once.
using HostlistHandle = decltype(slurm_hostlist_create(nullptr));
static_assert(std::is_pointer_v<HostlistHandle>);

struct HostlistDeleter {
    void operator()(HostlistHandle hl) const noexcept { slurm_hostlist_destroy(hl); }
};
using Hostlist = std::unique_ptr<std::remove_pointer_t<HostlistHandle>, HostlistDeleter>;

/// A hostlist from Slurm's own range syntax; empty when Slurm cannot parse it.
inline Hostlist hostlist_create(const char* ranged) {
    return Hostlist(slurm_hostlist_create(ranged));
}

/// Whether `host` is one of the hosts of a ranged list, as Slurm itself reads the list.
inline bool hostlist_contains(const char* ranged, const char* host) {
    const auto hl = hostlist_create(ranged);
    return hl != nullptr && slurm_hostlist_find(hl.get(), host) >= 0;
}

/// Readies libslurm's API in the process the plugin runs in, once. Slurm 24.11's SPANK prolog
/// process (`slurmstepd spank prolog`) has not loaded the hash and auth plugins, and the first
/// RPC there ends the process with fatal("No hash plugins loaded. Was slurm_init() called...?"):
/// the prolog dies before the gate can drain with its own reason. slurm_init exists since 22.05;
/// where the configuration and plugins are loaded already it only confirms them.
inline void ensure_api() {
    static const bool done = [] {
        slurm_init(nullptr);
        return true;
    }();
    (void)done;
}

/// Marks a node update as made by `uid` where Slurm still takes it: `update_node_msg_t` had a
/// `reason_uid` up to 25.11; 26.05 removed it (slurmctld records the uid the request was
/// authenticated as, which is the same for a root prolog). A template, so the field is looked up
/// only in the release that has it.
template <typename UpdateNodeMsg>
void set_reason_uid(UpdateNodeMsg& msg, std::uint32_t uid) {
    if constexpr (requires { msg.reason_uid; }) {
        msg.reason_uid = uid;
    } else {
        (void)msg;
        (void)uid;
    }
}

/// The release series this build is for ("24.11"), from the headers it was compiled against.
inline constexpr unsigned kMajor = SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER);
inline constexpr unsigned kMinor = SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER);

}  // namespace switchyard::spank::slurm_compat
