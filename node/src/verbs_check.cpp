// SPDX-License-Identifier: Apache-2.0
// Optional cross-check of sysfs port facts against libibverbs, loaded at run time with dlopen:
// nodes without verbs (or without RDMA) lose nothing, and no build of Switchyard needs it at run.
#include <dlfcn.h>
#include <infiniband/verbs.h>

#include <memory>

#include "switchyard/node/node_readers.hpp"

namespace switchyard::node {
namespace {

struct Verbs {
    using GetList = ibv_device** (*)(int*);
    using FreeList = void (*)(ibv_device**);
    using Name = const char* (*)(ibv_device*);
    using Open = ibv_context* (*)(ibv_device*);
    using Close = int (*)(ibv_context*);
    // The exported compat symbol; its port_attr is a prefix of struct ibv_port_attr.
    using QueryPort = int (*)(ibv_context*, std::uint8_t, ibv_port_attr*);

    void* handle = nullptr;
    GetList get_list = nullptr;
    FreeList free_list = nullptr;
    Name name = nullptr;
    Open open = nullptr;
    Close close = nullptr;
    QueryPort query_port = nullptr;

    ~Verbs() {
        if (handle != nullptr) {
            dlclose(handle);
        }
    }
    template <typename F>
    bool sym(F& f, const char* n) {
        f = reinterpret_cast<F>(dlsym(handle, n));
        return f != nullptr;
    }
    std::string load() {
        handle = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* e = dlerror();
            return e != nullptr ? e : "dlopen failed";
        }
        if (!sym(get_list, "ibv_get_device_list") || !sym(free_list, "ibv_free_device_list") ||
            !sym(name, "ibv_get_device_name") || !sym(open, "ibv_open_device") ||
            !sym(close, "ibv_close_device") || !sym(query_port, "ibv_query_port")) {
            return "libibverbs.so.1 lacks a needed symbol";
        }
        return {};
    }
};

const char* state_name(int s) {
    switch (s) {
        case IBV_PORT_DOWN:
            return "DOWN";
        case IBV_PORT_INIT:
            return "INIT";
        case IBV_PORT_ARMED:
            return "ARMED";
        case IBV_PORT_ACTIVE:
            return "ACTIVE";
        case IBV_PORT_ACTIVE_DEFER:
            return "ACTIVE_DEFER";
        default:
            return "NOP";
    }
}

}  // namespace

std::string cross_check_verbs(NodeTopology& node) {
    Verbs v;
    if (const auto why = v.load(); !why.empty()) {
        return "verbs: not available (" + why + ")";
    }
    int count = 0;
    ibv_device** list = v.get_list(&count);
    if (list == nullptr || count == 0) {
        if (list != nullptr) {
            v.free_list(list);
        }
        return "verbs: no RDMA devices";
    }
    std::size_t checked = 0;
    for (int i = 0; i < count; ++i) {
        Nic* nic = node.find_nic(v.name(list[i]));
        ibv_context* ctx = nic != nullptr ? v.open(list[i]) : nullptr;
        if (ctx == nullptr) {
            continue;
        }
        for (auto& port : nic->ports) {
            ibv_port_attr attr{};
            if (port.port > 255 ||
                v.query_port(ctx, static_cast<std::uint8_t>(port.port), &attr) != 0) {
                continue;
            }
            ++checked;
            if (static_cast<int>(attr.state) != port.state_code || attr.lid != port.lid) {
                node.warnings.push_back(
                    {"verbs-mismatch", SourceLoc{nic->name + ":" + std::to_string(port.port), 0, 0},
                     std::string("ibv_query_port says ") + state_name(attr.state) + " lid " +
                         std::to_string(attr.lid) + ", sysfs says " + port.state + " lid " +
                         std::to_string(port.lid)});
            }
        }
        v.close(ctx);
    }
    v.free_list(list);
    return "verbs: " + std::to_string(checked) + " ports cross-checked";
}

}  // namespace switchyard::node
