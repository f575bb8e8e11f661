// SPDX-License-Identifier: Apache-2.0
// NVML's view of the GPUs: libnvidia-ml is dlopen()ed at run time (no header, no build
// dependency); the few entry points used are declared here with NVML's C ABI. This file only
// reads; the health checks and nvlink.cpp judge.
#include <dlfcn.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "switchyard/common/file.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/node/nvml.hpp"

namespace switchyard::node {
namespace {

// NVML's ABI: nvmlReturn_t is an int, nvmlDevice_t an opaque pointer.
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlNotSupported = 3;
constexpr int kNvmlInsufficientSize = 7;
constexpr int kCauseMultipleSbe = 0;  // NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS
constexpr int kCauseDbe = 1;          // NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
constexpr int kUncorrected = 1;       // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int kVolatile = 0;          // NVML_VOLATILE_ECC
constexpr unsigned kMaxNvLinks = 18;  // NVML_NVLINK_MAX_LINKS
constexpr int kNvmlVersionMismatch = 25;  // NVML_ERROR_ARGUMENT_VERSION_MISMATCH

/// nvmlGpuFabricInfo_v2_t (nvml.h, R550 on): the version word, then the fields of the older
/// nvmlGpuFabricInfo_t, then the health mask.
struct FabricInfoV2 {
    unsigned version;
    unsigned char cluster_uuid[16];
    int status;
    unsigned clique;
    unsigned char state;
    unsigned health_mask;
};
/// nvmlGpuFabricInfo_t (R535 on): no version word, no health mask.
struct FabricInfoV1 {
    unsigned char cluster_uuid[16];
    int status;
    unsigned clique;
    unsigned char state;
};
/// NVML_STRUCT_VERSION(GpuFabricInfo, 2): the structure's size with the version in the top byte.
constexpr unsigned kFabricInfoV2 = static_cast<unsigned>(sizeof(FabricInfoV2)) | (2U << 24U);

struct Nvml {
    int (*init)();
    int (*shutdown)();
    const char* (*error_string)(int);
    int (*count)(unsigned*);
    int (*handle)(unsigned, NvmlDevice*);
    int (*uuid)(NvmlDevice, char*, unsigned);
    int (*retired_pages)(NvmlDevice, int, unsigned*, unsigned long long*);
    int (*retired_pending)(NvmlDevice, int*);
    int (*remapped_rows)(NvmlDevice, unsigned*, unsigned*, unsigned*, unsigned*);
    int (*ecc_total)(NvmlDevice, int, int, unsigned long long*);
    int (*nvlink_state)(NvmlDevice, unsigned, int*);
    int (*fabric_v)(NvmlDevice, FabricInfoV2*);
    int (*fabric_v1)(NvmlDevice, FabricInfoV1*);
    int (*clock_events)(NvmlDevice, unsigned long long*);
    int (*persistence)(NvmlDevice, int*);
};

template <typename F>
bool bind(void* lib, const char* name, F& fn) {
    fn = reinterpret_cast<F>(dlsym(lib, name));
    return fn != nullptr;
}

/// Loads the library once per path; never unloaded (a hung call may still be inside it).
std::optional<Nvml> load(const std::string& path, std::string& why) {
    // A path (not a bare name the loader finds in the system's directories) is checked like
    // the policy that names it: root loads no library another user could have written.
    if (path.find('/') != std::string::npos) {
        if (auto t = check_trusted_when_root(path); !t) {
            why = t.error().message();
            return std::nullopt;
        }
    }
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
        const char* e = dlerror();
        why = e != nullptr ? e : path + ": cannot open";
        return std::nullopt;
    }
    Nvml n{};
    // Required entry points; the per-feature ones may be missing in old drivers.
    if (!bind(lib, "nvmlInit_v2", n.init) || !bind(lib, "nvmlShutdown", n.shutdown) ||
        !bind(lib, "nvmlErrorString", n.error_string) ||
        !bind(lib, "nvmlDeviceGetCount_v2", n.count) ||
        !bind(lib, "nvmlDeviceGetHandleByIndex_v2", n.handle)) {
        why = path + ": not an NVML library (nvmlInit_v2/nvmlDeviceGetCount_v2 missing)";
        return std::nullopt;
    }
    bind(lib, "nvmlDeviceGetUUID", n.uuid);
    bind(lib, "nvmlDeviceGetRetiredPages", n.retired_pages);
    bind(lib, "nvmlDeviceGetRetiredPagesPendingStatus", n.retired_pending);
    bind(lib, "nvmlDeviceGetRemappedRows", n.remapped_rows);
    bind(lib, "nvmlDeviceGetTotalEccErrors", n.ecc_total);
    bind(lib, "nvmlDeviceGetNvLinkState", n.nvlink_state);
    bind(lib, "nvmlDeviceGetPersistenceMode", n.persistence);
    bind(lib, "nvmlDeviceGetGpuFabricInfoV", n.fabric_v);
    bind(lib, "nvmlDeviceGetGpuFabricInfo", n.fabric_v1);
    if (!bind(lib, "nvmlDeviceGetCurrentClocksEventReasons", n.clock_events)) {
        bind(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", n.clock_events);  // before R535
    }
    return n;
}

std::string nvml_error(const Nvml& n, int rc) {
    const char* s = n.error_string(rc);
    return s != nullptr ? std::string(s) : "NVML error " + std::to_string(rc);
}

/// "8c6f0a52-1f3e-4c1b-9d7a-0e2f4b6c8d10" from NVML's 16 bytes; "" when all are zero.
std::string uuid_text(const unsigned char (&b)[16]) {
    std::string out;
    bool any = false;
    for (std::size_t i = 0; i < 16; ++i) {
        any = any || b[i] != 0;
        out += hex_digits(b[i], 2);
        if (i == 3 || i == 5 || i == 7 || i == 9) {
            out += '-';
        }
    }
    return any ? out : std::string();
}

GpuFabricState fabric_state(unsigned char s) {
    switch (s) {
        case 0:
            return GpuFabricState::NotSupported;
        case 1:
            return GpuFabricState::NotStarted;
        case 2:
            return GpuFabricState::InProgress;
        case 3:
            return GpuFabricState::Completed;
        default:
            return GpuFabricState::Unknown;
    }
}

/// The GPU's fabric information: version 2 (with the health mask) where the driver has it,
/// else the older call; nullopt when neither answers (a GPU without a fabric answers
/// NOT_SUPPORTED, which is a state, not an error).
std::optional<GpuFabric> read_fabric(const Nvml& n, NvmlDevice d) {
    if (n.fabric_v != nullptr) {
        FabricInfoV2 v2{};
        v2.version = kFabricInfoV2;
        const int rc = n.fabric_v(d, &v2);
        if (rc == kNvmlSuccess) {
            return GpuFabric{uuid_text(v2.cluster_uuid), v2.clique, fabric_state(v2.state),
                             v2.status, v2.health_mask};
        }
        if (rc == kNvmlNotSupported) {
            return GpuFabric{};
        }
        if (rc != kNvmlVersionMismatch) {
            return std::nullopt;
        }
    }
    if (n.fabric_v1 != nullptr) {
        FabricInfoV1 v1{};
        const int rc = n.fabric_v1(d, &v1);
        if (rc == kNvmlSuccess) {
            return GpuFabric{uuid_text(v1.cluster_uuid), v1.clique, fabric_state(v1.state),
                             v1.status, std::nullopt};
        }
        if (rc == kNvmlNotSupported) {
            return GpuFabric{};
        }
    }
    return std::nullopt;
}

/// What NVML gives of one GPU.
NvmlGpu read_gpu(const Nvml& n, NvmlDevice d, unsigned index, bool nvlinks) {
    NvmlGpu g;
    g.index = index;
    if (char uuid[96] = {}; n.uuid != nullptr && n.uuid(d, uuid, sizeof uuid) == kNvmlSuccess) {
        g.uuid = uuid;
    }
    if (n.retired_pages != nullptr) {
        unsigned sbe = 0;
        unsigned dbe = 0;
        auto count_pages = [&](int cause, unsigned& pages) {
            const int rc = n.retired_pages(d, cause, &pages, nullptr);
            return rc == kNvmlSuccess || rc == kNvmlInsufficientSize;
        };
        if (count_pages(kCauseMultipleSbe, sbe) && count_pages(kCauseDbe, dbe)) {
            g.retired_sbe = sbe;
            g.retired_dbe = dbe;
        }
    }
    if (int pending = 0; n.retired_pending != nullptr &&
                         n.retired_pending(d, &pending) == kNvmlSuccess && pending != 0) {
        g.retirement_pending = true;
    }
    if (n.remapped_rows != nullptr) {
        unsigned corr = 0;
        unsigned unc = 0;
        unsigned pending = 0;
        unsigned failed = 0;
        if (n.remapped_rows(d, &corr, &unc, &pending, &failed) == kNvmlSuccess) {
            g.remap_failed = failed != 0;
            g.remap_pending = pending != 0;
            g.uncorrectable_rows = unc;
        }
    }
    if (unsigned long long ecc = 0;
        n.ecc_total != nullptr && n.ecc_total(d, kUncorrected, kVolatile, &ecc) == kNvmlSuccess) {
        g.uncorrected_ecc = ecc;
    }
    if (nvlinks && n.nvlink_state != nullptr) {
        unsigned active = 0;
        for (unsigned link = 0; link < kMaxNvLinks; ++link) {
            int on = 0;
            const int rc = n.nvlink_state(d, link, &on);
            if (rc == kNvmlSuccess && on != 0) {
                ++active;
            } else if (rc != kNvmlSuccess && rc != kNvmlNotSupported) {
                break;  // past the GPU's last link
            }
        }
        g.nvlinks_active = active;
    }
    g.fabric = read_fabric(n, d);
    if (unsigned long long reasons = 0;
        n.clock_events != nullptr && n.clock_events(d, &reasons) == kNvmlSuccess) {
        g.clock_events = reasons;
    }
    if (int mode = 0; n.persistence != nullptr && n.persistence(d, &mode) == kNvmlSuccess) {
        g.persistence = mode != 0;  // NVML_FEATURE_ENABLED is 1
    }
    return g;
}

/// Keeps the module holding this code loaded for the rest of the process (RTLD_NODELETE): a
/// thread left running in it must never find its code unmapped.
void pin_this_module() {
    static const int anchor = 0;
    Dl_info self{};
    if (dladdr(&anchor, &self) != 0 && self.dli_fname != nullptr) {
        (void)dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    }
}

NvmlFacts query(const std::string& library, bool nvlinks) {
    NvmlFacts f;
    const auto n = load(library, f.why);
    if (!n) {
        return f;
    }
    f.state = NvmlFacts::State::Failed;
    if (const int rc = n->init(); rc != kNvmlSuccess) {
        f.why = "nvmlInit: " + nvml_error(*n, rc);
        return f;
    }
    unsigned count = 0;
    if (const int rc = n->count(&count); rc != kNvmlSuccess) {
        n->shutdown();
        f.why = "nvmlDeviceGetCount: " + nvml_error(*n, rc);
        return f;
    }
    for (unsigned i = 0; i < count; ++i) {
        NvmlDevice d = nullptr;
        if (const int rc = n->handle(i, &d); rc != kNvmlSuccess) {
            NvmlGpu g;
            g.index = i;
            g.error = nvml_error(*n, rc);
            f.gpus.push_back(std::move(g));
            continue;
        }
        f.gpus.push_back(read_gpu(*n, d, i, nvlinks));
    }
    n->shutdown();
    f.state = NvmlFacts::State::Read;
    return f;
}

}  // namespace

NvmlFacts read_nvml(const std::string& library, bool nvlinks, double timeout_s) {
    struct Shared {
        std::mutex m;
        std::condition_variable cv;
        std::optional<NvmlFacts> facts;
    };
    auto shared = std::make_shared<Shared>();
    auto failed = [](std::string why) {
        NvmlFacts f;
        f.state = NvmlFacts::State::Failed;
        f.why = std::move(why);
        return f;
    };
    std::thread worker;
    try {
        worker = std::thread([shared, library, nvlinks, failed] {
            NvmlFacts f;
            try {
                f = query(library, nvlinks);
            } catch (const std::exception& e) {
                f = failed(std::string("internal error: ") + e.what());
            }
            const std::lock_guard lock(shared->m);
            shared->facts = std::move(f);
            shared->cv.notify_all();
        });
    } catch (const std::system_error& e) {
        return failed(std::string("cannot start a thread: ") + e.what());
    }
    std::unique_lock lock(shared->m);
    if (!shared->cv.wait_for(lock, std::chrono::duration<double>(timeout_s),
                             [&] { return shared->facts.has_value(); })) {
        // A hung driver: the thread is left behind, never joined. Neither NVML nor this
        // module may be unloaded under it (slurmstepd unloads the module after the hook): the
        // module is pinned, so the thread can finish whenever NVML does.
        lock.unlock();
        pin_this_module();
        worker.detach();
        NvmlFacts f;
        f.state = NvmlFacts::State::TimedOut;
        std::ostringstream d;
        d << "NVML did not answer within " << timeout_s << " s (driver or GPU hung)";
        f.why = d.str();
        return f;
    }
    auto facts = std::move(*shared->facts);
    lock.unlock();
    // It answered: wait for the thread to end. A thread left running its last instructions
    // while the caller returns can still be inside this library's code when the host unloads
    // it: slurmstepd's prolog does, right after the hook (seen as a SIGSEGV in the prolog of a
    // few nodes of 72 on Slurm 24.11 and 26.05).
    worker.join();
    return facts;
}

}  // namespace switchyard::node
