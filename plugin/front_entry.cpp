// SPDX-License-Identifier: Apache-2.0
// spank_switchyard.so, the module plugstack.conf lists and every srun, sbatch, salloc, slurmd
// and slurmstepd loads. It registers the job options from a plain table and needs no C++
// runtime, so a client given none of the options loads nothing more (loading the C++ runtime,
// yaml-cpp and hwloc took 0.9 ms of every srun). Everything else is switchyard_step.so, loaded
// from this module's directory when first needed: in slurmd and slurmstepd at init, in a client
// when one of the options is given (to check its value where the user reads the message).
//
// No C++ library is used here (no allocation, no exception): CMake links this module as C,
// and plugin:front-needs-no-cxx-runtime checks that it needs no libstdc++.
#include <dlfcn.h>
#include <sys/stat.h>

#include <climits>
#include <cstdio>
#include <cstring>

#include "plugin_symbols.hpp"
#include "step_abi.hpp"
#include "switchyard/policy/job_options.hpp"

namespace {

using switchyard::policy::kJobOptions;

constexpr int kOptionCount = static_cast<int>(kJobOptions.size());

int forward_option(int val, const char* optarg, int remote);

/// Slurm keeps the address of every registered entry: static, filled from the option table.
struct spank_option g_options[kJobOptions.size()];

// The plugstack words: Slurm keeps them for the life of the stack; option callbacks get none.
int g_ac = 0;
char** g_av = nullptr;

const switchyard_step_hooks* g_step = nullptr;
bool g_step_tried = false;

void fill_options() {
    int i = 0;
    for (const auto& spec : kJobOptions) {
        // The names are literals (NUL-terminated); spank.h wants char*. A flag has no arginfo,
        // else --help shows "--topo-report=".
        g_options[i] = {const_cast<char*>(spec.name.data()),
                        spec.has_arg ? const_cast<char*>(spec.arginfo.data()) : nullptr,
                        const_cast<char*>(spec.usage.data()),
                        spec.has_arg ? 1 : 0,
                        static_cast<int>(spec.id),
                        forward_option};
        ++i;
    }
}

/// Whether `path` is a regular file (or directory) that only `uid` may change.
bool owned_by(const char* path, uid_t uid, bool directory) {
    struct stat st {};
    return stat(path, &st) == 0 && st.st_uid == uid && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0 &&
           (directory ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

/// switchyard_step.so from this module's directory, loaded once. It is trusted as this module
/// is: it must belong to this module's owner, in a directory of that owner, and neither may be
/// writable by anyone else (slurmstepd loads it as root).
const switchyard_step_hooks* step_module() {
    if (g_step_tried) {
        return g_step;
    }
    g_step_tried = true;
    Dl_info self{};
    struct stat own {};
    if (dladdr(reinterpret_cast<void*>(&step_module), &self) == 0 || self.dli_fname == nullptr ||
        stat(self.dli_fname, &own) != 0) {
        slurm_error("switchyard: cannot tell where spank_switchyard.so was loaded from");
        return nullptr;
    }
    const char* slash = std::strrchr(self.dli_fname, '/');
    const int dir_len = slash != nullptr ? static_cast<int>(slash - self.dli_fname) : 1;
    const char* dir_text = slash != nullptr ? self.dli_fname : ".";
    char dir[PATH_MAX];
    char path[PATH_MAX];
    if (std::snprintf(dir, sizeof dir, "%.*s", dir_len, dir_text) >= static_cast<int>(sizeof dir) ||
        std::snprintf(path, sizeof path, "%s/%s", dir, SWITCHYARD_STEP_MODULE) >=
            static_cast<int>(sizeof path)) {
        slurm_error("switchyard: the path of %s is too long", SWITCHYARD_STEP_MODULE);
        return nullptr;
    }
    if (!owned_by(dir, own.st_uid, true) || !owned_by(path, own.st_uid, false)) {
        slurm_error(
            "switchyard: %s not loaded: it must be a regular file owned by uid %u (as "
            "spank_switchyard.so is), in a directory of that owner, neither writable "
            "by group or others",
            path, static_cast<unsigned>(own.st_uid));
        return nullptr;
    }
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        slurm_error("switchyard: cannot load %s: %s", path, dlerror());
        return nullptr;
    }
    auto entry = reinterpret_cast<switchyard_step_entry_fn>(dlsym(handle, SWITCHYARD_STEP_SYMBOL));
    const switchyard_step_hooks* step = entry != nullptr ? entry(g_options, kOptionCount) : nullptr;
    if (step == nullptr || step->abi != SWITCHYARD_STEP_ABI || step->build == nullptr ||
        std::strcmp(step->build, SWITCHYARD_STEP_BUILD) != 0) {
        slurm_error(
            "switchyard: %s is not from this build of spank_switchyard.so (%s): install both "
            "from one package",
            path, SWITCHYARD_STEP_BUILD);
        dlclose(handle);
        return nullptr;
    }
    g_step = step;
    return g_step;
}

int forward_option(int val, const char* optarg, int remote) {
    const auto* step = step_module();
    return step != nullptr ? step->option(val, optarg, remote, g_ac, g_av) : -1;
}

/// A step hook: slurmstepd only (Slurm calls user_init and task_init in no other context).
int forward_remote(switchyard_hook_fn switchyard_step_hooks::*hook, spank_t sp, int ac, char** av) {
    if (spank_context() != S_CTX_REMOTE) {
        return 0;
    }
    const auto* step = step_module();
    return step != nullptr ? (step->*hook)(sp, ac, av) : -1;
}

}  // namespace

extern "C" {

SWITCHYARD_SPANK_PLUGIN("switchyard")

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
// 25.05+: how Slurm treats a failed slurm_spank_init. The default (ESPANK_NODE_FAILURE) drains the
// node; a switchyard init failure is a plugstack or policy mistake that every node shares, so it
// fails the job instead and never drains the cluster. The health gate drains on purpose, with
// its own reason, from the job prolog.
SWITCHYARD_EXPORT extern int slurm_spank_init_failure_mode;
int slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE;
#endif

SWITCHYARD_EXPORT int slurm_spank_init(spank_t sp, int ac, char** av) {
    const spank_context_t context = spank_context();
    // In slurmd an error return stops the daemon: a broken plugin must not take the node down.
    const int error_rc = context == S_CTX_SLURMD ? 0 : -1;
    g_ac = ac;
    g_av = av;
    fill_options();
    for (auto& option : g_options) {
        if (const spank_err_t rc = spank_option_register(sp, &option); rc != ESPANK_SUCCESS) {
            slurm_error("switchyard: --%s: spank_option_register: %s", option.name,
                        spank_strerror(rc));
            return error_rc;
        }
    }
    if (context != S_CTX_REMOTE && context != S_CTX_SLURMD) {
        return 0;  // a client: the step module only when an option is given
    }
    const auto* step = step_module();
    return step != nullptr ? step->init(sp, ac, av) : error_rc;
}

SWITCHYARD_EXPORT int slurm_spank_user_init(spank_t sp, int ac, char** av) {
    return forward_remote(&switchyard_step_hooks::user_init, sp, ac, av);
}

SWITCHYARD_EXPORT int slurm_spank_task_init(spank_t sp, int ac, char** av) {
    return forward_remote(&switchyard_step_hooks::task_init, sp, ac, av);
}

SWITCHYARD_EXPORT int slurm_spank_exit(spank_t sp, int ac, char** av) {
    return g_step != nullptr ? g_step->exit(sp, ac, av) : 0;
}

}  // extern "C"
