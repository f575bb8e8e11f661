// SPDX-License-Identifier: Apache-2.0
// The real SpankApi over spank_t and the Slurm log sink.
#include "slurm_spank_api.hpp"

#include <link.h>
#include <sched.h>

#include <climits>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hooks.hpp"

namespace switchyard::spank {
namespace {

// The entries the front registered (bind_registered_options).
struct spank_option* g_registered = nullptr;
int g_registered_count = 0;

struct spank_option* option_entry(const OptionSpec& spec) {
    for (int i = 0; i < g_registered_count; ++i) {
        if (g_registered[i].val == static_cast<int>(spec.id)) {
            return &g_registered[i];
        }
    }
    return nullptr;
}

Failure spank_failure(const char* call, spank_err_t rc) {
    return fail(Error::internal(std::string(call) + ": " + spank_strerror(rc)));
}

}  // namespace

Context SlurmSpankApi::context() const {
    switch (spank_context()) {
        case S_CTX_LOCAL:
            return Context::Local;
        case S_CTX_REMOTE:
            return Context::Remote;
        case S_CTX_ALLOCATOR:
            return Context::Allocator;
        case S_CTX_SLURMD:
            return Context::Slurmd;
        case S_CTX_JOB_SCRIPT:
            return Context::JobScript;
        case S_CTX_ERROR:
            break;
    }
    return Context::Error;
}

std::optional<std::uint32_t> SlurmSpankApi::step_id() {
    std::uint32_t id = 0;
    if (spank_get_item(sp_, S_JOB_STEPID, &id) != ESPANK_SUCCESS) {
        return std::nullopt;
    }
    return id;
}

std::optional<std::string> SlurmSpankApi::get_option(const OptionSpec& spec) {
    auto* entry = option_entry(spec);
    char* optarg = nullptr;
    if (entry == nullptr || spank_option_getopt(sp_, entry, &optarg) != ESPANK_SUCCESS) {
        return std::nullopt;
    }
    return std::string(optarg != nullptr ? optarg : "");
}

std::optional<std::string> SlurmSpankApi::getenv(std::string_view name) {
    const std::string key(name);
    std::string buf(256, '\0');
    while (true) {
        const auto rc = spank_getenv(sp_, key.c_str(), buf.data(), static_cast<int>(buf.size()));
        if (rc == ESPANK_SUCCESS) {
            buf.resize(buf.find('\0'));
            return buf;
        }
        if (rc != ESPANK_NOSPACE || buf.size() >= (1U << 20)) {
            return std::nullopt;
        }
        buf.assign(buf.size() * 4, '\0');
    }
}

std::string SlurmSpankApi::node_name() {
    const char* n = ::getenv("SLURMD_NODENAME");  // the daemon's own environment (slurm.md 2.6)
    return n != nullptr ? n : "";
}

bool SlurmSpankApi::gate_loaded() {
    // Every object the process has loaded, by file name (plugins are dlopen()ed by path).
    bool found = false;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            const std::string_view path = info->dlpi_name != nullptr ? info->dlpi_name : "";
            const auto base = path.substr(path.rfind('/') + 1);
            if (base == "spank_switchyard_gate.so") {
                *static_cast<bool*>(data) = true;
                return 1;
            }
            return 0;
        },
        &found);
    return found;
}

std::string SlurmSpankApi::job_partition() {
    const char* p = ::getenv("SLURM_JOB_PARTITION");  // set by slurmd for the prolog
    return p != nullptr ? p : "";
}

std::optional<std::string> SlurmSpankApi::prolog_env(std::string_view name) {
    const char* v = ::getenv(std::string(name).c_str());  // slurmd's environment for the prolog
    if (v == nullptr) {
        return std::nullopt;
    }
    return std::string(v);
}

std::uint32_t SlurmSpankApi::local_task_count() {
    std::uint32_t n = 0;
    return spank_get_item(sp_, S_JOB_LOCAL_TASK_COUNT, &n) == ESPANK_SUCCESS ? n : 0;
}

std::uint32_t SlurmSpankApi::job_id() {
    std::uint32_t v = 0;
    return spank_get_item(sp_, S_JOB_ID, &v) == ESPANK_SUCCESS ? v : 0;
}

std::uint32_t SlurmSpankApi::node_index() {
    std::uint32_t v = 0;
    return spank_get_item(sp_, S_JOB_NODEID, &v) == ESPANK_SUCCESS ? v : 0;
}

std::optional<std::uint32_t> SlurmSpankApi::local_task_id() {
    int v = 0;
    if (spank_get_item(sp_, S_TASK_ID, &v) != ESPANK_SUCCESS || v < 0) {
        return std::nullopt;
    }
    return static_cast<std::uint32_t>(v);
}

std::optional<std::uint32_t> SlurmSpankApi::task_global_id() {
    std::uint32_t v = 0;
    if (spank_get_item(sp_, S_TASK_GLOBAL_ID, &v) != ESPANK_SUCCESS) {
        return std::nullopt;
    }
    return v;
}

std::uint32_t SlurmSpankApi::total_task_count() {
    std::uint32_t n = 0;
    return spank_get_item(sp_, S_JOB_TOTAL_TASK_COUNT, &n) == ESPANK_SUCCESS ? n : 0;
}

std::vector<int> SlurmSpankApi::task_cpus() {
    std::vector<int> cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (std::size_t c = 0; c < CPU_SETSIZE; ++c) {
            if (CPU_ISSET(c, &set)) {
                cpus.push_back(static_cast<int>(c));
            }
        }
    }
    return cpus;
}

Result<SetEnv> SlurmSpankApi::setenv(std::string_view name,
                                     std::string_view value,
                                     bool overwrite) {
    const std::string k(name);
    const std::string v(value);
    const auto rc = spank_setenv(sp_, k.c_str(), v.c_str(), overwrite ? 1 : 0);
    if (rc == ESPANK_SUCCESS) {
        return SetEnv::Set;
    }
    if (rc == ESPANK_ENV_EXISTS) {
        return SetEnv::KeptExisting;
    }
    return spank_failure(("spank_setenv " + k).c_str(), rc);
}

void SlurmLogger::log(Level level, Component, std::string_view message) noexcept {
    const int len = message.size() > INT_MAX ? INT_MAX : static_cast<int>(message.size());
    switch (level) {
        case Level::Error:
            slurm_error("switchyard: %.*s", len, message.data());
            break;
        case Level::Warning:
            slurm_spank_log("switchyard: warning: %.*s", len, message.data());
            break;
        case Level::Notice:
            slurm_spank_log("switchyard: %.*s", len, message.data());
            break;
        case Level::Info:
            slurm_info("switchyard: %.*s", len, message.data());
            break;
        case Level::Verbose:
            slurm_verbose("switchyard: %.*s", len, message.data());
            break;
        case Level::Debug:
            slurm_debug("switchyard: %.*s", len, message.data());
            break;
    }
}

void slurm_error_sink(const char* line) noexcept {
    slurm_error("%s", line);
}

void bind_registered_options(struct spank_option* options, int count) noexcept {
    g_registered = options;
    g_registered_count = options != nullptr && count > 0 ? count : 0;
}

}  // namespace switchyard::spank
