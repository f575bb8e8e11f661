// SPDX-License-Identifier: Apache-2.0
// Loads the built spank_switchyard.so with dlopen(RTLD_NOW) into a host that provides the spank_*
// and slurm_* functions Slurm's processes provide, and drives its real extern "C" hooks, which
// load switchyard_step.so from the same directory.
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"
#include "fake_slurm_host.hpp"

using dlopen_host::g_host;
using dlopen_host::Host;

namespace {
using HookFn = int (*)(spank_t, int, char**);

struct Plugin {
    void* handle = nullptr;
    explicit Plugin(const std::string& path = SWITCHYARD_PLUGIN_PATH) {
        handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            FAIL("dlopen " << path << ": " << dlerror());
        }
    }
    ~Plugin() {
        if (handle != nullptr) {
            // As Slurm does before unloading: the plugin frees what it kept.
            if (auto* exit_hook = reinterpret_cast<int (*)(spank_t, int, char**)>(
                    dlsym(handle, "slurm_spank_exit"))) {
                exit_hook(nullptr, 0, nullptr);
            }
            dlclose(handle);
        }
    }
    template <typename T>
    T sym(const char* name) const {
        void* p = dlsym(handle, name);
        if (p == nullptr) {
            FAIL("missing symbol " << name);
        }
        return reinterpret_cast<T>(p);
    }
};

int call(const Plugin& p, const char* hook, const std::vector<std::string>& words) {
    // Slurm keeps a plugin's words for the life of the stack (option callbacks read them later).
    g_host.words = words;
    g_host.av.clear();
    for (auto& w : g_host.words) {
        g_host.av.push_back(w.data());
    }
    return p.sym<HookFn>(hook)(nullptr, static_cast<int>(g_host.av.size()), g_host.av.data());
}
}  // namespace

TEST_CASE("dlopen: the plugin loads with RTLD_NOW and names itself", "[dlopen]") {
    Plugin p;
    CHECK(std::string(p.sym<const char*>("plugin_name")) == "switchyard");
    CHECK(std::string(p.sym<const char*>("plugin_type")) == "spank");
    CHECK(*p.sym<const unsigned*>("plugin_version") == SLURM_VERSION_NUMBER);
    CHECK(*p.sym<const unsigned*>("spank_plugin_version") == 1U);
    CHECK(dlsym(p.handle,
                "_ZN10switchyard7policy21parse_pipeline_stagesESt17basic_string_viewIcSt11char_"
                "traitsIcEE") == nullptr);
}

TEST_CASE("dlopen: init registers the options with working callbacks", "[dlopen]") {
    g_host = Host{};
    Plugin p;
    REQUIRE(call(p, "slurm_spank_init", {"config=/etc/slurm/switchyard.yaml"}) == 0);
    REQUIRE(g_host.registered.size() == 7);
    auto* nvl = g_host.registered[5];
    CHECK(std::string(nvl->name) == "nvl-group");
    CHECK(nvl->cb(nvl->val, "18", 0) == 0);
    CHECK(nvl->cb(nvl->val, "0", 0) == -1);
    auto* stages = g_host.registered[0];
    CHECK(std::string(stages->name) == "pipeline-stages");
    CHECK(stages->has_arg == 1);
    CHECK(stages->cb(stages->val, "4", 0) == 0);
    CHECK(stages->cb(stages->val, "abc", 0) == -1);
    REQUIRE_FALSE(g_host.errors.empty());
    CHECK(g_host.errors.back() ==
          "switchyard: --pipeline-stages: expected a whole number of stages from 1 to 1024, got "
          "'abc'");
    // --preflight's value is optional (SPANK has_arg 2): alone it is quick.
    auto* preflight = g_host.registered[6];
    CHECK(std::string(preflight->name) == "preflight");
    CHECK(preflight->has_arg == 2);
    CHECK(preflight->cb(preflight->val, nullptr, 0) == 0);
    CHECK(preflight->cb(preflight->val, "full", 0) == 0);
    CHECK(preflight->cb(preflight->val, "always", 0) == -1);
    CHECK(g_host.errors.back() ==
          "switchyard: --preflight: expected quick, full or off, got 'always'");
}

TEST_CASE("dlopen: a throw inside a hook becomes -1 and a log line", "[dlopen][guard]") {
    g_host = Host{};
    g_host.ctx = S_CTX_REMOTE;
    Plugin p;
    REQUIRE(call(p, "slurm_spank_init", {}) == 0);
    g_host.errors.clear();
    g_host.throw_in_getopt = true;
    CHECK(call(p, "slurm_spank_user_init", {}) == -1);
    REQUIRE(g_host.errors.size() == 1);
    CHECK(g_host.errors[0] == "switchyard: user_init: internal error: injected by the test host");
}

TEST_CASE("dlopen: a refused option registration fails the client, never slurmd", "[dlopen]") {
    g_host = Host{};
    g_host.register_rc = static_cast<spank_err_t>(ESPANK_ERROR);
    Plugin p;
    CHECK(call(p, "slurm_spank_init", {}) == -1);
    REQUIRE(g_host.errors.size() == 1);
    CHECK(g_host.errors[0] == "switchyard: --pipeline-stages: spank_option_register: stub error");
    g_host.errors.clear();
    g_host.ctx = S_CTX_SLURMD;
    CHECK(call(p, "slurm_spank_init", {}) == 0);
    CHECK(g_host.errors.size() == 1);
}

TEST_CASE("dlopen: unknown plugstack key fails the step's init, a client's option", "[dlopen]") {
    g_host = Host{};
    {
        // slurmstepd: the step module runs its init in init_post_opt (after the options).
        g_host.ctx = S_CTX_REMOTE;
        Plugin p;
        CHECK(call(p, "slurm_spank_init", {"colour=blue"}) == 0);
        CHECK(call(p, "slurm_spank_init_post_opt", {"colour=blue"}) == -1);
        REQUIRE(g_host.errors.size() == 1);
        CHECK_THAT(g_host.errors[0], Catch::Contains("unknown key 'colour'"));
    }
    g_host = Host{};
    Plugin p;
    // A client without switchyard options reads nothing more; with one, the words are checked.
    REQUIRE(call(p, "slurm_spank_init", {"colour=blue"}) == 0);
    CHECK(g_host.errors.empty());
    REQUIRE(g_host.registered.size() == 7);
    auto* stages = g_host.registered[0];
    CHECK(stages->cb(stages->val, "4", 0) == -1);
    REQUIRE(g_host.errors.size() == 1);
    CHECK_THAT(g_host.errors[0], Catch::Contains("unknown key 'colour'"));
}

TEST_CASE("dlopen: the front loads a step module only if no one else can change it", "[dlopen]") {
    // A copy of both modules in a directory of our own, as a package installs them.
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("switchyard-dlopen-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directory(dir);
    fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
    const auto front = dir / "spank_switchyard.so";
    const auto step = dir / "switchyard_step.so";
    fs::copy_file(SWITCHYARD_PLUGIN_PATH, front);
    const auto remote_init = [&](const char* why) {
        INFO(why);
        g_host = Host{};
        g_host.ctx = S_CTX_REMOTE;
        Plugin p(front.string());
        REQUIRE(call(p, "slurm_spank_init", {}) == 0);
        return call(p, "slurm_spank_init_post_opt", {});
    };
    CHECK(remote_init("no step module") == -1);
    CHECK_THAT(g_host.errors.at(0), Catch::Contains(step.string() + " not loaded"));

    fs::copy_file(fs::path(SWITCHYARD_PLUGIN_PATH).parent_path() / "switchyard_step.so", step);
    fs::permissions(step, fs::perms::owner_all | fs::perms::group_all);
    CHECK(remote_init("group-writable step module") == -1);
    CHECK_THAT(g_host.errors.at(0), Catch::Contains("neither writable by group or others") &&
                                        Catch::Contains(step.string()));

    fs::permissions(step, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(dir, fs::perms::others_write, fs::perm_options::add);
    CHECK(remote_init("world-writable directory") == -1);
    fs::permissions(dir, fs::perms::others_write, fs::perm_options::remove);

    CHECK(remote_init("trusted") == 0);
    CHECK(g_host.errors.empty());

    // A step module of another build (a partial upgrade) is refused by its version. Its own
    // directory: the trusted one stays loaded (the front never unloads it), so no file of
    // that name may be rewritten in place.
    const fs::path other = dir / "other";
    fs::create_directory(other);
    fs::permissions(other, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
    fs::copy_file(SWITCHYARD_PLUGIN_PATH, other / "spank_switchyard.so");
    fs::copy_file(SWITCHYARD_OTHER_STEP_PATH, other / "switchyard_step.so");
    g_host = Host{};
    g_host.ctx = S_CTX_REMOTE;
    {
        Plugin p((other / "spank_switchyard.so").string());
        CHECK(call(p, "slurm_spank_init", {}) == 0);
        CHECK(call(p, "slurm_spank_init_post_opt", {}) == -1);
    }
    CHECK_THAT(g_host.errors.at(0),
               Catch::Contains((other / "switchyard_step.so").string() +
                               " is not from this build of spank_switchyard.so"));
    fs::remove_all(dir);
}

TEST_CASE("dlopen: user_init exports through spank_setenv without overwriting", "[dlopen]") {
    g_host = Host{};
    g_host.ctx = S_CTX_REMOTE;
    g_host.options["pipeline-stages"] = "3";
    g_host.env["SWITCHYARD_VERSION"] = "user-set";
    Plugin p;
    REQUIRE(call(p, "slurm_spank_init", {}) == 0);
    REQUIRE(call(p, "slurm_spank_user_init", {}) == 0);
    CHECK(g_host.env.at("SWITCHYARD_STAGES") == "3");
    CHECK(g_host.env.at("SWITCHYARD_VERSION") == "user-set");
}

namespace {
/// One step as slurmstepd runs the hooks: init, init_post_opt, user_init, task_init, and exit
/// when the module is unloaded. \return user_init's code; the job's variables are g_host.env.
int run_step(const std::vector<std::string>& words, void (*before_user_init)() = nullptr) {
    g_host.infos.clear();
    g_host.errors.clear();
    g_host.ctx = S_CTX_REMOTE;
    Plugin p;
    REQUIRE(call(p, "slurm_spank_init", words) == 0);
    REQUIRE(call(p, "slurm_spank_init_post_opt", words) == 0);
    if (before_user_init != nullptr) {
        before_user_init();  // what a plugin listed before this one does in its user_init
    }
    const int rc = call(p, "slurm_spank_user_init", words);
    CHECK(call(p, "slurm_spank_task_init", words) == 0);
    return rc;
}

bool from_cache() {
    return std::any_of(g_host.infos.begin(), g_host.infos.end(), [](const std::string& line) {
        return line.find("variables from the step cache") != std::string::npos;
    });
}
}  // namespace

TEST_CASE("dlopen: a step like an earlier one is set up from the step cache alone",
          "[dlopen][step-cache]") {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("switchyard-step-cache-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "sys/class/infiniband/mlx5_0/ports/1");
    const auto port = dir / "sys/class/infiniband/mlx5_0/ports/1";
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::string>>{{"state", "4: ACTIVE"},
                                                          {"phys_state", "5: LinkUp"},
                                                          {"rate", "400 Gb/sec (4X NDR)"},
                                                          {"link_layer", "InfiniBand"},
                                                          {"lid", "0x10"}}) {
        std::ofstream(port / name) << value << "\n";
    }
    const auto policy = dir / "switchyard.yaml";
    std::ofstream(policy) << "version: 1\nnode:\n  sysfs_root: " << (dir / "sys").string()
                          << "\n  cache: off\nnccl:\n  compute_hca: \"mlx5_0\"\n";
    const auto cache = dir / "state" / "step-cache.node001";
    const std::vector<std::string> words = {
        "config=" + policy.string(), "step_cache=" + (dir / "state").string() + "/step-cache.%n"};
    setenv("SLURMD_NODENAME", "node001", 1);
    g_host = Host{};
    g_host.env["SLURM_STEP_NODELIST"] = "node001";

    // The first step: decided by the step module, kept at exit (root's file, 0600).
    REQUIRE(run_step(words) == 0);
    CHECK_FALSE(from_cache());
    const auto first = g_host.env;
    CHECK(first.at("NCCL_IB_HCA") == "=mlx5_0:1");
    REQUIRE(fs::exists(cache));
    CHECK((fs::status(cache).permissions() & fs::perms::all) ==
          (fs::perms::owner_read | fs::perms::owner_write));

    // The same step again: the same variables, from the cache.
    g_host.env = {{"SLURM_STEP_NODELIST", "node001"}};
    REQUIRE(run_step(words) == 0);
    CHECK(from_cache());
    CHECK(g_host.env == first);

    // Another job's node list is another key; a user's own value sends the step to the module,
    // which says the value is kept.
    g_host.env = {{"SLURM_STEP_NODELIST", "node[001-002]"}};
    REQUIRE(run_step(words) == 0);
    CHECK_FALSE(from_cache());
    g_host.env = {{"SLURM_STEP_NODELIST", "node001"}, {"NCCL_IB_HCA", "mine"}};
    REQUIRE(run_step(words) == 0);
    CHECK_FALSE(from_cache());
    CHECK(g_host.env.at("NCCL_IB_HCA") == "mine");
    CHECK(std::any_of(g_host.infos.begin(), g_host.infos.end(), [](const std::string& l) {
        return l.find("NCCL_IB_HCA: your value is kept") != std::string::npos;
    }));

    // A plugin before this one sets NCCL_IB_HCA in its user_init, after the lookup: its value
    // is kept, the user is told, and SWITCHYARD_NCCL_SET does not claim it.
    g_host.env = {{"SLURM_STEP_NODELIST", "node001"}};
    REQUIRE(run_step(words, [] { g_host.env["NCCL_IB_HCA"] = "theirs"; }) == 0);
    CHECK(from_cache());
    CHECK(g_host.env.at("NCCL_IB_HCA") == "theirs");
    CHECK_THAT(g_host.env.at("SWITCHYARD_NCCL_SET"), !Catch::Contains("NCCL_IB_HCA"));
    CHECK_FALSE(g_host.env.at("SWITCHYARD_NCCL_SET").empty());
    CHECK(std::any_of(g_host.infos.begin(), g_host.infos.end(), [](const std::string& l) {
        return l.find("NCCL_IB_HCA: your value is kept; switchyard would set '=mlx5_0:1'") !=
               std::string::npos;
    }));

    // A port that goes down: decided again, and right; its warning is for every step, so
    // such a step is never kept.
    std::ofstream(port / "state") << "1: DOWN\n";
    for (int i = 0; i < 2; ++i) {
        g_host.env = {{"SLURM_STEP_NODELIST", "node001"}};
        REQUIRE(run_step(words) == 0);
        CHECK_FALSE(from_cache());
        CHECK(g_host.env.count("NCCL_IB_HCA") == 0);
    }
    // Up again, and the policy edited: decided again, then kept.
    std::ofstream(port / "state") << "4: ACTIVE\n";
    std::ofstream(policy, std::ios::app) << "# edited\n";
    for (const bool cached : {false, true}) {
        g_host.env = {{"SLURM_STEP_NODELIST", "node001"}};
        REQUIRE(run_step(words) == 0);
        CHECK(from_cache() == cached);
        CHECK(g_host.env == first);
    }

    // A cache file someone else could have written is not read, and is replaced.
    fs::permissions(cache, fs::perms::others_write, fs::perm_options::add);
    g_host.env = {{"SLURM_STEP_NODELIST", "node001"}};
    REQUIRE(run_step(words) == 0);
    CHECK_FALSE(from_cache());
    CHECK(std::any_of(g_host.infos.begin(), g_host.infos.end(), [&](const std::string& l) {
        return l.find("step cache not used: " + cache.string()) != std::string::npos;
    }));
    CHECK((fs::status(cache).permissions() & fs::perms::others_write) == fs::perms::none);

    // step_cache=off: neither read nor written.
    fs::remove(cache);
    g_host.env = {{"SLURM_STEP_NODELIST", "node001"}};
    REQUIRE(run_step({words[0], "step_cache=off"}) == 0);
    CHECK_FALSE(fs::exists(cache));
    unsetenv("SLURMD_NODENAME");
    fs::remove_all(dir);
}

namespace {
/// One row of the return-code table: a hook called in a context with the user's options.
struct RcCase {
    const char* what;
    spank_context_t ctx;
    std::map<std::string, std::string> options;
    std::vector<std::string> extra_words;  // beyond config=
    int user_init;                         // what user_init must return (remote only)
};
}  // namespace

// Slurm 25.05 and later fail a step, a job or the node on any non-zero return of a hook (24.11
// failed only on negative ones): every hook must return exactly 0, or -1 where it means to fail.
TEST_CASE("dlopen: every hook returns exactly 0, or -1 where it fails the step", "[dlopen][rc]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("switchyard-rc-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const auto policy = dir / "switchyard.yaml";
    std::ofstream(policy) << "version: 1\n";
    const std::string config = "config=" + policy.string();
    setenv("SLURMD_NODENAME", "node001", 1);
    const std::map<std::string, std::string> pipeline = {{"pipeline-stages", "1"},
                                                         {"nccl-env", "off"}};
    const std::map<std::string, std::string> refused = {{"pipeline-stages", "abc"},
                                                        {"nccl-env", "off"}};
    const std::vector<RcCase> cases = {
        {"no option", S_CTX_REMOTE, {{"nccl-env", "off"}}, {}, 0},
        {"a pipeline step", S_CTX_REMOTE, pipeline, {}, 0},
        {"a refused option value", S_CTX_REMOTE, refused, {}, -1},
        {"a refused option value, on_error=warn", S_CTX_REMOTE, refused, {"on_error=warn"}, 0},
        {"an unknown plugstack word", S_CTX_REMOTE, pipeline, {"colour=blue"}, -1},
        {"srun", S_CTX_LOCAL, pipeline, {}, 0},
        {"salloc", S_CTX_ALLOCATOR, pipeline, {}, 0},
        {"slurmd", S_CTX_SLURMD, {}, {}, 0},
        {"slurmd, an unknown plugstack word", S_CTX_SLURMD, {}, {"colour=blue"}, 0},
        {"the job prolog's slurmstepd", S_CTX_JOB_SCRIPT, {}, {}, 0},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        g_host = Host{};
        g_host.ctx = c.ctx;
        g_host.options = c.options;
        g_host.tasks = 1;
        g_host.env["SLURM_STEP_NODELIST"] = "node001";
        std::vector<std::string> words = {config};
        words.insert(words.end(), c.extra_words.begin(), c.extra_words.end());
        Plugin p;
        const bool remote = c.ctx == S_CTX_REMOTE;
        const bool bad_words = !c.extra_words.empty() && c.extra_words[0] == "colour=blue";
        // slurmd must never stop on a plugin's mistake; a client reads its words only when an
        // option is given; slurmstepd reads them in init_post_opt.
        CHECK(call(p, "slurm_spank_init", words) == 0);
        // The option callbacks, as Slurm calls them for each option given.
        for (const auto& [name, value] : c.options) {
            const auto it = std::find_if(g_host.registered.begin(), g_host.registered.end(),
                                         [&](const spank_option* o) { return name == o->name; });
            REQUIRE(it != g_host.registered.end());
            const bool good = value != "abc" && !bad_words;
            CHECK((*it)->cb((*it)->val, value.c_str(), remote ? 1 : 0) == (good ? 0 : -1));
        }
        CHECK(call(p, "slurm_spank_init_post_opt", words) == (remote && bad_words ? -1 : 0));
        CHECK(call(p, "slurm_spank_user_init", words) == (remote ? c.user_init : 0));
        if (!remote || c.user_init == 0) {  // Slurm starts no task after a failed user_init
            CHECK(call(p, "slurm_spank_task_init", words) == 0);
        }
        CHECK(call(p, "slurm_spank_exit", words) == 0);
    }
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
    {
        // A failed init fails the job (ESPANK_JOB_FAILURE) rather than draining the node.
        Plugin p;
        CHECK(*p.sym<const int*>("slurm_spank_init_failure_mode") == ESPANK_JOB_FAILURE);
    }
#endif
#ifdef SWITCHYARD_GATE_PATH
    // The gate: fail-open on its own mistakes (never drains by accident), 0 when the policy
    // gates nothing; its -1 after a drain is health_gate_test's.
    for (const auto& extra : {std::string(), std::string("colour=blue")}) {
        INFO("gate, words: " << config << " " << extra);
        g_host = Host{};
        g_host.ctx = S_CTX_JOB_SCRIPT;
        Plugin gate(SWITCHYARD_GATE_PATH);
        std::vector<std::string> words = {config};
        if (!extra.empty()) {
            words.push_back(extra);
        }
        CHECK(call(gate, "slurm_spank_job_prolog", words) == 0);
    }
#endif
    unsetenv("SLURMD_NODENAME");
    fs::remove_all(dir);
}
