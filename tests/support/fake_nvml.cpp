// SPDX-License-Identifier: Apache-2.0
// A small stand-in for libnvidia-ml (no GPU here): the NVML entry points the health check uses,
// answering from a text file named by $SWITCHYARD_FAKE_NVML, one GPU per line:
//   gpu uuid=GPU-1 sbe=60 dbe=5 pending=1 remap_unc=0 remap_pending=0 remap_failed=0 ecc_unc=0
//       nvlinks=12 remap=unsupported
// and optional lines `init=<nvmlReturn_t>` (nvmlInit fails with it) and `hang=<seconds>`
// (nvmlInit sleeps that long: a stuck driver).
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Gpu {
    std::map<std::string, std::string> v;
    [[nodiscard]] unsigned num(const std::string& k) const {
        const auto it = v.find(k);
        return it == v.end() ? 0U : static_cast<unsigned>(std::stoul(it->second));
    }
};

struct State {
    std::vector<Gpu> gpus;
    int init_rc = 0;
    unsigned hang_s = 0;
};

State& state() {
    static State s;
    return s;
}

void load() {
    State s;
    const char* path = std::getenv("SWITCHYARD_FAKE_NVML");
    std::ifstream in(path != nullptr ? path : "");
    for (std::string line; std::getline(in, line);) {
        std::istringstream words(line);
        std::string first;
        words >> first;
        if (first.rfind("init=", 0) == 0) {
            s.init_rc = std::stoi(first.substr(5));
        } else if (first.rfind("hang=", 0) == 0) {
            s.hang_s = static_cast<unsigned>(std::stoul(first.substr(5)));
        } else if (first == "gpu") {
            Gpu g;
            for (std::string kv; words >> kv;) {
                const auto eq = kv.find('=');
                g.v[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
            }
            s.gpus.push_back(g);
        }
    }
    state() = s;
}

const Gpu* gpu(void* device) {
    const auto i = reinterpret_cast<std::size_t>(device) - 1;
    return i < state().gpus.size() ? &state().gpus[i] : nullptr;
}

constexpr int kSuccess = 0;
constexpr int kInvalidArgument = 2;
constexpr int kNotSupported = 3;

}  // namespace

extern "C" {

int nvmlInit_v2() {
    load();
    if (state().hang_s != 0) {
        sleep(state().hang_s);
    }
    return state().init_rc;
}

int nvmlShutdown() {
    return kSuccess;
}

const char* nvmlErrorString(int rc) {
    switch (rc) {
        case 9:
            return "Driver Not Loaded";
        case 12:
            return "Not Found";
        default:
            return "Unknown Error";
    }
}

int nvmlDeviceGetCount_v2(unsigned* count) {
    *count = static_cast<unsigned>(state().gpus.size());
    return kSuccess;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, void** device) {
    if (i >= state().gpus.size()) {
        return kInvalidArgument;
    }
    *device = reinterpret_cast<void*>(static_cast<std::size_t>(i) + 1);
    return kSuccess;
}

int nvmlDeviceGetUUID(void* device, char* out, unsigned len) {
    const auto* g = gpu(device);
    if (g == nullptr || len == 0) {
        return kInvalidArgument;
    }
    const auto it = g->v.find("uuid");
    const std::string u = it == g->v.end() ? "GPU-unknown" : it->second;
    const auto n = std::min<std::size_t>(u.size(), len - 1);
    u.copy(out, n);
    out[n] = '\0';
    return kSuccess;
}

int nvmlDeviceGetRetiredPages(void* device, int cause, unsigned* count, unsigned long long*) {
    const auto* g = gpu(device);
    if (g == nullptr) {
        return kInvalidArgument;
    }
    *count = g->num(cause == 0 ? "sbe" : "dbe");
    return kSuccess;
}

int nvmlDeviceGetRetiredPagesPendingStatus(void* device, int* pending) {
    const auto* g = gpu(device);
    if (g == nullptr) {
        return kInvalidArgument;
    }
    *pending = static_cast<int>(g->num("pending"));
    return kSuccess;
}

int nvmlDeviceGetRemappedRows(
    void* device, unsigned* corr, unsigned* unc, unsigned* pending, unsigned* failed) {
    const auto* g = gpu(device);
    if (g == nullptr) {
        return kInvalidArgument;
    }
    if (const auto it = g->v.find("remap"); it != g->v.end() && it->second == "unsupported") {
        return kNotSupported;  // pre-Ampere GPUs retire pages instead
    }
    *corr = 0;
    *unc = g->num("remap_unc");
    *pending = g->num("remap_pending");
    *failed = g->num("remap_failed");
    return kSuccess;
}

int nvmlDeviceGetTotalEccErrors(void* device, int, int, unsigned long long* count) {
    const auto* g = gpu(device);
    if (g == nullptr) {
        return kInvalidArgument;
    }
    *count = g->num("ecc_unc");
    return kSuccess;
}

int nvmlDeviceGetNvLinkState(void* device, unsigned link, int* active) {
    const auto* g = gpu(device);
    if (g == nullptr || link >= 18) {
        return kInvalidArgument;
    }
    *active = link < g->num("nvlinks") ? 1 : 0;
    return kSuccess;
}

}  // extern "C"
