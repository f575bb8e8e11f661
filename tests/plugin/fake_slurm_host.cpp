// SPDX-License-Identifier: Apache-2.0
// The host side of the SPANK ABI for dlopen_test (fake_slurm_host.hpp), exported from the test
// program as libslurmfull exports it from srun and slurmstepd.
#include "fake_slurm_host.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace dlopen_host {

Host g_host;

std::string format(const char* fmt, va_list ap) {
    char buf[1024];
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    return buf;
}

}  // namespace dlopen_host

using dlopen_host::format;
using dlopen_host::g_host;

// The host side of the SPANK ABI, as exported by libslurmfull in srun/slurmstepd.
extern "C" {
spank_context_t spank_context(void) {
    return g_host.ctx;
}
spank_err_t spank_option_register(spank_t, struct spank_option* opt) {
    if (g_host.register_rc != static_cast<spank_err_t>(ESPANK_SUCCESS)) {
        return g_host.register_rc;
    }
    g_host.registered.push_back(opt);
    return static_cast<spank_err_t>(ESPANK_SUCCESS);
}
spank_err_t spank_option_getopt(spank_t, struct spank_option* opt, char** value) {
    if (g_host.throw_in_getopt) {  // reaches the step module's hooks, never the front
        throw std::runtime_error("injected by the test host");
    }
    // Slurm answers for the entries the front registered, by address.
    if (std::find(g_host.registered.begin(), g_host.registered.end(), opt) ==
        g_host.registered.end()) {
        return static_cast<spank_err_t>(ESPANK_BAD_ARG);
    }
    auto it = g_host.options.find(opt->name);
    if (it == g_host.options.end()) {
        return static_cast<spank_err_t>(ESPANK_ERROR);
    }
    *value = it->second.data();
    return static_cast<spank_err_t>(ESPANK_SUCCESS);
}
spank_err_t spank_get_item(spank_t, spank_item_t item, ...) {
    va_list ap;
    va_start(ap, item);
    spank_err_t rc = static_cast<spank_err_t>(ESPANK_SUCCESS);
    switch (item) {
        case S_JOB_STEPID:
        case S_JOB_ID:
        case S_JOB_NODEID:
            *va_arg(ap, uint32_t*) = 0;
            break;
        case S_JOB_LOCAL_TASK_COUNT:
        case S_JOB_TOTAL_TASK_COUNT:  // a one-node step of g_host.tasks tasks
            *va_arg(ap, uint32_t*) = g_host.tasks;
            break;
        case S_TASK_GLOBAL_ID:
            *va_arg(ap, uint32_t*) = static_cast<uint32_t>(g_host.task);
            break;
        case S_TASK_ID:
            *va_arg(ap, int*) = g_host.task;
            break;
        default:
            rc = static_cast<spank_err_t>(ESPANK_BAD_ARG);
    }
    va_end(ap);
    return rc;
}
spank_err_t spank_getenv(spank_t, const char* var, char* buf, int len) {
    auto it = g_host.env.find(var);
    if (it == g_host.env.end()) {
        return static_cast<spank_err_t>(ESPANK_ENV_NOEXIST);
    }
    std::snprintf(buf, static_cast<size_t>(len), "%s", it->second.c_str());
    return static_cast<spank_err_t>(ESPANK_SUCCESS);
}
spank_err_t spank_setenv(spank_t, const char* var, const char* val, int overwrite) {
    if (g_host.env.count(var) != 0 && overwrite == 0) {
        return static_cast<spank_err_t>(ESPANK_ENV_EXISTS);
    }
    g_host.env[var] = val;
    return static_cast<spank_err_t>(ESPANK_SUCCESS);
}
// Node RPCs the health gate uses (not exercised here: the gate has its own tests).
int slurm_load_node_single(node_info_msg_t** resp, char*, uint16_t) {
    *resp = nullptr;
    return -1;
}
int slurm_load_node(time_t, node_info_msg_t** resp, uint16_t) {
    *resp = nullptr;
    return -1;
}
void slurm_free_node_info_msg(node_info_msg_t*) {}
int slurm_load_partitions(time_t, partition_info_msg_t** resp, uint16_t) {
    *resp = nullptr;
    return -1;
}
void slurm_free_partition_info_msg(partition_info_msg_t*) {}
// The handle type differs between releases (slurm_compat.hpp): declared as the headers say.
using HostlistHandle = switchyard::spank::slurm_compat::HostlistHandle;
HostlistHandle slurm_hostlist_create(const char*) {
    return nullptr;
}
int slurm_hostlist_find(HostlistHandle, const char*) {
    return -1;
}
void slurm_hostlist_destroy(HostlistHandle) {}
void slurm_init(const char*) {}
void slurm_init_update_node_msg(update_node_msg_t* msg) {
    std::memset(msg, 0, sizeof *msg);
}
int slurm_update_node(update_node_msg_t*) {
    return -1;
}
char* slurm_strerror(int) {
    static char msg[] = "stub";
    return msg;
}
const char* spank_strerror(spank_err_t) {
    return "stub error";
}
void slurm_error(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    g_host.errors.push_back(format(fmt, ap));
    va_end(ap);
}
void slurm_info(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    g_host.infos.push_back(format(fmt, ap));
    va_end(ap);
}
void slurm_verbose(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    g_host.infos.push_back(format(fmt, ap));
    va_end(ap);
}
void slurm_debug(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    g_host.infos.push_back(format(fmt, ap));
    va_end(ap);
}
void slurm_spank_log(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    g_host.infos.push_back(format(fmt, ap));
    va_end(ap);
}
}
