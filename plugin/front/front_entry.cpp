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
#include <sched.h>
#include <sys/stat.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "plugin_symbols.hpp"
#include "step_abi.hpp"
#include "step_cache.hpp"
#include "switchyard/common/job_options.hpp"

namespace {

using switchyard::kJobOptions;

constexpr int kOptionCount = static_cast<int>(kJobOptions.size());

int forward_option(int val, const char* optarg, int remote);

/// Slurm keeps the address of every registered entry: static, filled from the option table.
struct spank_option g_options[kJobOptions.size()];

// The plugstack words: Slurm keeps them for the life of the stack; option callbacks get none.
int g_ac = 0;
char** g_av = nullptr;

const switchyard_step_hooks* g_step = nullptr;
bool g_step_tried = false;
int g_step_init_rc = 1;  // the step module's init: 1 not run yet (slurmstepd: init_post_opt)

void fill_options() {
    int i = 0;
    for (const auto& spec : kJobOptions) {
        // The names are literals (NUL-terminated); spank.h wants char*. A flag has no arginfo,
        // else --help shows "--topo-report=".
        g_options[i] = {const_cast<char*>(spec.name.data()),
                        spec.has_arg ? const_cast<char*>(spec.arginfo.data()) : nullptr,
                        const_cast<char*>(spec.usage.data()),
                        spec.arg_optional ? 2 : (spec.has_arg ? 1 : 0),
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

/// The step module with its init run, or null when either failed (slurmstepd runs the init in
/// init_post_opt; a host that calls a step hook without it gets it first).
const switchyard_step_hooks* initialised_step(spank_t sp, int ac, char** av) {
    const auto* step = step_module();
    if (step == nullptr) {
        return nullptr;
    }
    if (g_step_init_rc == 1) {
        g_step_init_rc = step->init(sp, ac, av) == 0 ? 0 : -1;
    }
    return g_step_init_rc == 0 ? step : nullptr;
}

/// A step hook: slurmstepd only (Slurm calls user_init and task_init in no other context).
int forward_remote(switchyard_hook_fn switchyard_step_hooks::*hook, spank_t sp, int ac, char** av) {
    if (spank_context() != S_CTX_REMOTE) {
        return 0;
    }
    const auto* step = initialised_step(sp, ac, av);
    return step != nullptr ? (step->*hook)(sp, ac, av) : -1;
}

// ---- The step cache (step_cache.hpp): a step whose inputs match an earlier step's decision on
// this node is set up here, without the step module. Read in init_post_opt (root), applied in
// user_init and task_init, written at exit (root) after a step the step module decided.

namespace sc = switchyard::spank::step_cache;

constexpr char kCacheHeader[] = "switchyard-step-cache 1 " SWITCHYARD_STEP_BUILD;
constexpr char kDefaultCache[] = "/var/lib/switchyard/step-cache.%n";
using sc::kEnvNcclSet;

char g_cache_path[4096];          // this node's cache file; "" when off
char g_cache_text[sc::kMaxFile];  // the file as read, then the file to write
char g_old_text[sc::kMaxFile];    // at exit: the file before
sc::Span g_hit;                   // the outputs of the entry that held (data: null on a miss)
char g_value[64 * 1024];          // a job variable's value
char g_line[3 * sizeof g_value + 256];

/// The value of plugstack word `key=`, or null.
const char* word_value(const char* key) {
    const std::size_t n = std::strlen(key);
    for (int i = 0; i < g_ac; ++i) {
        if (g_av[i] != nullptr && std::strncmp(g_av[i], key, n) == 0 && g_av[i][n] == '=') {
            return g_av[i] + n + 1;
        }
    }
    return nullptr;
}

/// The failure a step hook returns: on_error=warn lets the step run.
int step_failure() {
    const char* v = word_value("on_error");
    return v != nullptr && std::strcmp(v, "warn") == 0 ? 0 : -1;
}

/// Sets g_cache_path from step_cache= (default kDefaultCache) and this node's name.
bool cache_path() {
    g_cache_path[0] = '\0';
    const char* pattern = word_value("step_cache");
    pattern = pattern != nullptr ? pattern : kDefaultCache;
    const char* node = std::getenv("SLURMD_NODENAME");  // the daemon's, never the job's
    if (pattern[0] != '/' || node == nullptr || node[0] == '\0') {
        return false;  // "off" (or a word the step module refuses)
    }
    sc::Out o(g_cache_path, sizeof g_cache_path);
    if (!sc::expand_node(o, pattern, node)) {
        g_cache_path[0] = '\0';
        return false;
    }
    return true;
}

/// A job variable as the step module reads it: true with g_value set, false when absent (or
/// unreadable, as the step module's SpankApi::getenv has it); *fits false when too long here.
bool job_variable(spank_t sp, const char* name, bool* fits) {
    *fits = true;
    const spank_err_t rc = spank_getenv(sp, name, g_value, static_cast<int>(sizeof g_value));
    *fits = rc != ESPANK_NOSPACE;
    return rc == ESPANK_SUCCESS;
}

/// Whether a job line of an entry's key (words, node, tasks, env) holds for this step.
bool job_line_holds(void* ctx, const char* line, std::size_t len) {
    auto* sp = static_cast<spank_t>(ctx);
    sc::Span f[2];
    if (sc::split_fields(line, len, f, 2) < 1) {
        return false;
    }
    sc::Out now(g_line, sizeof g_line);
    const auto kind = [&](const char* word) {
        return f[0].len == std::strlen(word) && std::memcmp(f[0].data, word, f[0].len) == 0;
    };
    if (kind("words")) {
        now.str("words");
        for (int i = 0; i < g_ac; ++i) {
            if (g_av[i] != nullptr) {
                now.str(" ").esc(g_av[i]);
            }
        }
    } else if (kind("node")) {
        const char* node = std::getenv("SLURMD_NODENAME");
        now.str("node ").esc(node != nullptr ? node : "");
    } else if (kind("tasks")) {
        std::uint32_t n = 0;
        if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &n) != ESPANK_SUCCESS) {
            n = 0;
        }
        now.str("tasks ").num(n);
    } else if (kind("env")) {
        char name[256];
        bool fits = true;
        if (f[1].len == 0 || sc::unescape(f[1].data, f[1].len, name, sizeof name) == SIZE_MAX) {
            return false;
        }
        const bool set = job_variable(sp, name, &fits);
        if (!fits) {
            return false;
        }
        now.str("env ").esc(name).str(set ? " =" : " -");
        if (set) {
            now.esc(g_value);
        }
    } else {
        return false;
    }
    now.str("\n");
    return now.ok && now.len == len + 1 && std::memcmp(now.data, line, len) == 0;
}

/// init_post_opt in slurmstepd: whether this step's decision is in the cache (g_hit).
bool cache_lookup(spank_t sp) {
    g_hit = {};
    std::uint32_t step = 0;
    if (g_step != nullptr ||  // an option was given: its callback loaded the step module
        spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS ||
        step >= sc::kFirstSpecialStepId || !cache_path()) {
        return false;
    }
    char why_text[512];
    sc::Out why(why_text, sizeof why_text);
    std::size_t len = 0;
    const int rc = sc::read_file(g_cache_path, g_cache_text, sizeof g_cache_text, &len, why);
    if (rc < 0) {
        slurm_info("switchyard: step cache not used: %s", why_text);
    }
    if (rc <= 0) {
        return false;
    }
    g_hit = sc::find_entry(g_cache_text, len, kCacheHeader, job_line_holds, sp);
    return g_hit.data != nullptr;
}

/// The fields of the output lines of the hit, one line at a time: \return the count (0 at the end).
int next_output(const char** at, sc::Span* f, int max) {
    const char* end = g_hit.data + g_hit.len;
    if (*at >= end) {
        return 0;
    }
    const auto* nl =
        static_cast<const char*>(std::memchr(*at, '\n', static_cast<std::size_t>(end - *at)));
    const char* stop = nl != nullptr ? nl : end;
    const int n = sc::split_fields(*at, static_cast<std::size_t>(stop - *at), f, max);
    *at = nl != nullptr ? nl + 1 : end;
    return n > 0 ? n : -1;
}

bool field_is(const sc::Span& f, const char* word) {
    return f.len == std::strlen(word) && std::memcmp(f.data, word, f.len) == 0;
}

/// user_init on a hit: the recorded variables, set as the step module set them.
/// `list` ("A,B,C") without the names in `kept` (",A,C,"), into g_line.
const char* without_kept(const char* list, const char* kept) {
    sc::Out out(g_line, sizeof g_line);
    char item[260];
    for (const char* p = list; *p != '\0';) {
        const char* comma = std::strchr(p, ',');
        const std::size_t n =
            comma != nullptr ? static_cast<std::size_t>(comma - p) : std::strlen(p);
        if (n > 0 && n < 256) {
            item[0] = ',';
            std::memcpy(item + 1, p, n);
            item[n + 1] = ',';
            item[n + 2] = '\0';
            if (std::strstr(kept, item) == nullptr) {
                out.raw(",", out.len > 0 ? 1 : 0).raw(p, n);
            }
        }
        p += comma != nullptr ? n + 1 : n;
    }
    return out.ok ? g_line : list;
}

int cache_apply(spank_t sp) {
    sc::Span f[4];
    char name[256];
    char kept_text[1024];
    sc::Out kept(kept_text, sizeof kept_text);
    kept.str(",");
    int count = 0;
    const char* at = g_hit.data;
    for (int n = next_output(&at, f, 4); n != 0; n = next_output(&at, f, 4)) {
        if (n != 4 || !field_is(f[0], "set")) {
            continue;
        }
        // f[3] is "=<value>"
        if (sc::unescape(f[2].data, f[2].len, name, sizeof name) == SIZE_MAX || f[3].len == 0 ||
            sc::unescape(f[3].data + 1, f[3].len - 1, g_value, sizeof g_value) == SIZE_MAX) {
            slurm_error("switchyard: step cache %s: a line cannot be read", g_cache_path);
            return step_failure();
        }
        // SWITCHYARD_NCCL_SET (set last) names only what this step set.
        const char* value = std::strcmp(name, kEnvNcclSet) == 0 && kept.len > 1
                                ? without_kept(g_value, kept.data)
                                : g_value;
        const spank_err_t rc = spank_setenv(sp, name, value, field_is(f[1], "1") ? 1 : 0);
        if (rc == ESPANK_ENV_EXISTS) {  // set since init_post_opt, by a plugin before this one
            slurm_spank_log(
                "switchyard: warning: %s: your value is kept; switchyard would set '%s'", name,
                value);
            kept.str(name).str(",");
        } else if (rc != ESPANK_SUCCESS) {
            slurm_error("switchyard: spank_setenv %s: %s", name, spank_strerror(rc));
            return step_failure();
        }
        ++count;
    }
    slurm_verbose("switchyard: %d variables from the step cache %s", count, g_cache_path);
    return 0;
}

/// Adds the CPUs of cpu list `list` ("0-23,48-71") to `set`.
void add_cpus(const char* list, cpu_set_t* set) {
    for (const char* p = list; *p != '\0';) {
        char* end = nullptr;
        const long a = std::strtol(p, &end, 10);
        long b = a;
        if (end != p && *end == '-') {
            const char* q = end + 1;
            b = std::strtol(q, &end, 10);
            b = end != q ? b : a;
        }
        for (long c = a; end != p && c >= 0 && c <= b && c < CPU_SETSIZE; ++c) {
            CPU_SET(static_cast<std::size_t>(c), set);
        }
        const char* comma = std::strchr(p, ',');
        p = comma != nullptr ? comma + 1 : p + std::strlen(p);
    }
}

/// Whether GPU `index` is one of CUDA_VISIBLE_DEVICES' whole numbers (all GPUs when it lists
/// none), as the step module's task_init reads it.
bool gpu_visible(const char* visible, long index) {
    bool any = false;
    for (const char* p = visible; p != nullptr && *p != '\0';) {
        while (*p == ' ' || *p == '\t') {
            ++p;
        }
        char* end = nullptr;
        const long v = *p >= '0' && *p <= '9' ? std::strtol(p, &end, 10) : -1;
        const char* rest = end != nullptr ? end : p;
        while (*rest == ' ' || *rest == '\t') {
            ++rest;
        }
        if (v >= 0 && (*rest == ',' || *rest == '\0')) {
            any = true;
            if (v == index) {
                return true;
            }
        }
        const char* comma = std::strchr(p, ',');
        p = comma != nullptr ? comma + 1 : nullptr;
    }
    return !any;
}

/// task_init on a hit: the CPU affinity rule (NCCL_IGNORE_CPU_AFFINITY when none of the task's
/// CPUs is on a NUMA node of its GPUs), from the entry's gpu and affinity lines.
int cache_task_init(spank_t sp) {
    bool fits = true;
    // g_value holds it until the loop below is done
    const char* visible = job_variable(sp, "CUDA_VISIBLE_DEVICES", &fits) ? g_value : "";
    cpu_set_t local;
    CPU_ZERO(&local);
    bool any_gpu = false;
    sc::Span f[4];
    sc::Span affinity[4];
    bool rule = false;
    char cpus[4096];
    const char* at = g_hit.data;
    for (int n = next_output(&at, f, 4); n != 0; n = next_output(&at, f, 4)) {
        if (n == 3 && field_is(f[0], "gpu") && f[2].len > 0 &&
            sc::unescape(f[2].data + 1, f[2].len - 1, cpus, sizeof cpus) != SIZE_MAX &&
            gpu_visible(visible, std::strtol(f[1].data, nullptr, 10))) {
            any_gpu = true;
            add_cpus(cpus, &local);
        } else if (n == 4 && field_is(f[0], "affinity")) {
            rule = true;
            std::memcpy(affinity, f, sizeof affinity);
        }
    }
    cpu_set_t task;
    CPU_ZERO(&task);
    if (!any_gpu || !rule || sched_getaffinity(0, sizeof task, &task) != 0 ||
        CPU_COUNT(&task) == 0) {
        return 0;
    }
    cpu_set_t both;
    CPU_AND(&both, &task, &local);
    if (CPU_COUNT(&both) > 0) {
        return 0;
    }
    char name[256];
    char value[256];
    char why[1024];
    if (sc::unescape(affinity[1].data, affinity[1].len, name, sizeof name) == SIZE_MAX ||
        sc::unescape(affinity[2].data, affinity[2].len, value, sizeof value) == SIZE_MAX ||
        sc::unescape(affinity[3].data, affinity[3].len, why, sizeof why) == SIZE_MAX) {
        return 0;
    }
    spank_err_t rc = spank_setenv(sp, name, value, 0);
    if (rc == ESPANK_SUCCESS) {
        sc::Out set(g_line, sizeof g_line);
        if (job_variable(sp, kEnvNcclSet, &fits) && g_value[0] != '\0') {
            set.str(g_value).str(",");
        }
        set.str(name);
        rc = spank_setenv(sp, kEnvNcclSet, set.data, 1);
        slurm_spank_log("switchyard: warning: %s", why);
    }
    if (rc != ESPANK_SUCCESS && rc != ESPANK_ENV_EXISTS) {
        slurm_error("switchyard: spank_setenv %s: %s", name, spank_strerror(rc));
        return step_failure();
    }
    return 0;
}

/// exit in slurmstepd (root): keeps the step module's decision, newest first.
void cache_store() {
    const char* entry =
        g_step != nullptr && g_step->cache_entry != nullptr ? g_step->cache_entry() : nullptr;
    if (entry == nullptr || !cache_path()) {
        return;
    }
    std::size_t len = 0;
    char why_text[512];
    sc::Out why(why_text, sizeof why_text);
    if (sc::read_file(g_cache_path, g_old_text, sizeof g_old_text, &len, why) < 0) {
        slurm_info("switchyard: step cache replaced: %s", why_text);
        len = 0;
    }
    sc::Out text(g_cache_text, sizeof g_cache_text);
    why = sc::Out(why_text, sizeof why_text);
    if (!sc::merge(text, kCacheHeader, g_old_text, len, entry, std::strlen(entry)) ||
        !sc::write_file(g_cache_path, text.data, text.len, why)) {
        slurm_info("switchyard: step cache not written: %s", why.len > 0 ? why_text : "too large");
    }
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
    if (context != S_CTX_SLURMD) {
        // A client: the step module only when an option is given. slurmstepd: in init_post_opt,
        // unless the step cache holds this step's decision.
        return 0;
    }
    const auto* step = step_module();
    return step != nullptr ? step->init(sp, ac, av) : error_rc;
}

// slurmstepd, still root, after the options' callbacks (which load the step module).
SWITCHYARD_EXPORT int slurm_spank_init_post_opt(spank_t sp, int ac, char** av) {
    if (spank_context() != S_CTX_REMOTE || cache_lookup(sp)) {
        return 0;
    }
    return initialised_step(sp, ac, av) != nullptr ? 0 : -1;
}

SWITCHYARD_EXPORT int slurm_spank_user_init(spank_t sp, int ac, char** av) {
    if (g_hit.data != nullptr && spank_context() == S_CTX_REMOTE) {
        return cache_apply(sp);
    }
    return forward_remote(&switchyard_step_hooks::user_init, sp, ac, av);
}

SWITCHYARD_EXPORT int slurm_spank_task_init(spank_t sp, int ac, char** av) {
    if (g_hit.data != nullptr && spank_context() == S_CTX_REMOTE) {
        return cache_task_init(sp);
    }
    return forward_remote(&switchyard_step_hooks::task_init, sp, ac, av);
}

SWITCHYARD_EXPORT int slurm_spank_exit(spank_t sp, int ac, char** av) {
    if (g_step == nullptr) {
        return 0;
    }
    if (spank_context() == S_CTX_REMOTE) {
        cache_store();
    }
    return g_step->exit(sp, ac, av);
}

}  // extern "C"
