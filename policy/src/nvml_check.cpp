// SPDX-License-Identifier: Apache-2.0
// The NVML health check: libnvidia-ml is dlopen()ed at run time (no header, no build
// dependency); the few entry points used are declared here with NVML's C ABI.
#include <dlfcn.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "switchyard/common/file.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/policy/health.hpp"

namespace switchyard::policy {
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
    return n;
}

std::string nvml_error(const Nvml& n, int rc) {
    const char* s = n.error_string(rc);
    return s != nullptr ? std::string(s) : "NVML error " + std::to_string(rc);
}

/// Problems of one GPU, empty when healthy.
std::vector<std::string> gpu_problems(const Nvml& n, NvmlDevice d, const NvmlCheck& c) {
    std::vector<std::string> out;
    if (n.retired_pages != nullptr) {
        unsigned sbe = 0;
        unsigned dbe = 0;
        auto count_pages = [&](int cause, unsigned& pages) {
            const int rc = n.retired_pages(d, cause, &pages, nullptr);
            return rc == kNvmlSuccess || rc == kNvmlInsufficientSize;
        };
        if (count_pages(kCauseMultipleSbe, sbe) && count_pages(kCauseDbe, dbe) &&
            sbe + dbe > c.max_retired_pages) {
            out.push_back(std::to_string(sbe + dbe) + " retired pages (" + std::to_string(dbe) +
                          " double-bit) > " + std::to_string(c.max_retired_pages));
        }
    }
    if (int pending = 0; n.retired_pending != nullptr &&
                         n.retired_pending(d, &pending) == kNvmlSuccess && pending != 0) {
        out.emplace_back("page retirement pending (reset the GPU)");
    }
    if (n.remapped_rows != nullptr) {
        unsigned corr = 0;
        unsigned unc = 0;
        unsigned pending = 0;
        unsigned failed = 0;
        if (n.remapped_rows(d, &corr, &unc, &pending, &failed) == kNvmlSuccess) {
            if (failed != 0) {
                out.emplace_back("row remapping failed (" + std::to_string(unc) +
                                 " uncorrectable rows): replace the GPU");
            } else if (pending != 0) {
                out.emplace_back("row remapping pending (reset the GPU)");
            }
        }
    }
    if (unsigned long long ecc = 0; n.ecc_total != nullptr &&
                                    n.ecc_total(d, kUncorrected, kVolatile, &ecc) == kNvmlSuccess &&
                                    ecc > c.max_uncorrected_ecc) {
        out.push_back(std::to_string(ecc) + " uncorrected ECC errors since the driver loaded");
    }
    if (c.nvlinks && n.nvlink_state != nullptr) {
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
        if (active < *c.nvlinks) {
            out.push_back(std::to_string(active) + " of " + std::to_string(*c.nvlinks) +
                          " NVLinks active");
        }
    }
    return out;
}

CheckResult query(const NvmlCheck& c) {
    std::string why;
    const auto n = load(c.library, why);
    if (!n) {
        // Expecting GPUs that NVML cannot see (no driver) fails; otherwise only a warning.
        return {"nvml", c.gpus ? HealthStatus::Fail : HealthStatus::Warn,
                "NVML not available (" + why + "); GPU memory not checked", 0};
    }
    if (const int rc = n->init(); rc != kNvmlSuccess) {
        return {"nvml", HealthStatus::Fail, "nvmlInit: " + nvml_error(*n, rc), 0};
    }
    unsigned count = 0;
    if (const int rc = n->count(&count); rc != kNvmlSuccess) {
        n->shutdown();
        return {"nvml", HealthStatus::Fail, "nvmlDeviceGetCount: " + nvml_error(*n, rc), 0};
    }
    std::vector<std::string> bad;
    for (unsigned i = 0; i < count; ++i) {
        NvmlDevice d = nullptr;
        if (const int rc = n->handle(i, &d); rc != kNvmlSuccess) {
            bad.push_back("GPU " + std::to_string(i) + ": " + nvml_error(*n, rc));
            continue;
        }
        const auto problems = gpu_problems(*n, d, c);
        if (problems.empty()) {
            continue;
        }
        std::string id = "GPU " + std::to_string(i);
        if (char uuid[96] = {};
            n->uuid != nullptr && n->uuid(d, uuid, sizeof uuid) == kNvmlSuccess) {
            id += " (" + std::string(uuid) + ")";
        }
        bad.push_back(id + ": " + join(problems, ", "));
    }
    n->shutdown();
    if (c.gpus && count < *c.gpus) {
        bad.insert(bad.begin(), "NVML sees " + std::to_string(count) + " of " +
                                    std::to_string(*c.gpus) + " GPUs");
    }
    if (!bad.empty()) {
        return {"nvml", HealthStatus::Fail, join(bad, "; "), 0};
    }
    return {"nvml", HealthStatus::Pass, std::to_string(count) + " GPUs healthy", 0};
}

}  // namespace

CheckResult check_nvml(const NvmlCheck& c) {
    struct Shared {
        std::mutex m;
        std::condition_variable cv;
        std::optional<CheckResult> r;
    };
    auto shared = std::make_shared<Shared>();
    try {
        std::thread([shared, c] {
            CheckResult r;
            try {
                r = query(c);
            } catch (const std::exception& e) {
                r = {"nvml", HealthStatus::Fail, std::string("internal error: ") + e.what(), 0};
            }
            const std::lock_guard lock(shared->m);
            shared->r = std::move(r);
            shared->cv.notify_all();
        }).detach();
    } catch (const std::system_error& e) {
        return {"nvml", HealthStatus::Fail, std::string("cannot start a thread: ") + e.what(), 0};
    }
    std::unique_lock lock(shared->m);
    if (!shared->cv.wait_for(lock, std::chrono::duration<double>(c.timeout_s),
                             [&] { return shared->r.has_value(); })) {
        std::ostringstream d;
        d << "NVML did not answer within " << c.timeout_s << " s (driver or GPU hung)";
        return {"nvml", HealthStatus::Fail, d.str(), 0};
    }
    return *shared->r;
}

}  // namespace switchyard::policy
