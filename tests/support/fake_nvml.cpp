// SPDX-License-Identifier: Apache-2.0
// A small stand-in for libnvidia-ml (no GPU here): the NVML entry points the health check uses,
// answering from a text file named by $SWITCHYARD_FAKE_NVML, one GPU per line:
//   gpu uuid=GPU-1 sbe=60 dbe=5 pending=1 remap_unc=0 remap_pending=0 remap_failed=0 ecc_unc=0
//       nvlinks=12 remap=unsupported
//       fabric=completed cluster=8c6f0a52-1f3e-4c1b-9d7a-0e2f4b6c8d10 clique=32766 health=0x155
//       fabric_status=0 fabric_rc=<nvmlReturn_t> fabric_api=v1 clocks=0x88
// and optional lines `init=<nvmlReturn_t>` (nvmlInit fails with it) and `hang=<seconds>`
// (nvmlInit sleeps that long: a stuck driver). `fabric` is not-supported, not-started,
// in-progress, completed or a number; without it the GPU has no multi-node fabric (the query
// answers NOT_SUPPORTED). `fabric_api=v1` answers the V2 query with a version mismatch, as a
// driver before R550 does; `fabric_rc` makes the query fail. The file may name the node:
// $SWITCHYARD_FAKE_NVML's "%n" is replaced by $SWITCHYARD_FAKE_NODE (one file per emulated node).
// Without $SWITCHYARD_FAKE_NVML the file is nvml.conf beside the library itself: a copy of the
// library per emulated node, in that node's directory, answers for that node wherever it is
// loaded (slurmstepd's prolog on a multi-slurmd test cluster, where no variable tells the node).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
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
        return it == v.end() ? 0U : static_cast<unsigned>(std::stoul(it->second, nullptr, 0));
    }
    [[nodiscard]] std::string text(const std::string& k) const {
        const auto it = v.find(k);
        return it == v.end() ? std::string() : it->second;
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
    std::string file = path != nullptr ? path : "";
    if (file.empty()) {
        static const int anchor = 0;  // an object of this library: dladdr names its file
        Dl_info self{};
        if (dladdr(&anchor, &self) != 0 && self.dli_fname != nullptr) {
            file = self.dli_fname;
            file = file.substr(0, file.rfind('/') + 1) + "nvml.conf";
        }
    }
    const char* node = std::getenv("SWITCHYARD_FAKE_NODE");
    if (const auto at = file.find("%n"); at != std::string::npos && node != nullptr) {
        file.replace(at, 2, node);
    }
    std::ifstream in(file);
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
constexpr int kVersionMismatch = 25;

/// nvmlGpuFabricInfo_v2_t and nvmlGpuFabricInfo_t, as nvml.h lays them out.
struct FabricInfoV2 {
    unsigned version;
    unsigned char cluster_uuid[16];
    int status;
    unsigned clique;
    unsigned char state;
    unsigned health_mask;
};
struct FabricInfoV1 {
    unsigned char cluster_uuid[16];
    int status;
    unsigned clique;
    unsigned char state;
};

/// The fabric fields of a GPU line; false with `rc` set when the query is to fail.
bool fabric_of(const Gpu& g,
               unsigned char (&uuid)[16],
               int& status,
               unsigned& clique,
               unsigned char& state,
               int& rc) {
    const auto f = g.text("fabric");
    if (!g.text("fabric_rc").empty()) {
        rc = static_cast<int>(g.num("fabric_rc"));
        return false;
    }
    if (f.empty()) {
        rc = kNotSupported;
        return false;
    }
    const std::pair<const char*, unsigned char> kStates[] = {
        {"not-supported", 0}, {"not-started", 1}, {"in-progress", 2}, {"completed", 3}};
    state = static_cast<unsigned char>(std::strtoul(f.c_str(), nullptr, 0));
    for (const auto& [name, value] : kStates) {
        if (f == name) {
            state = value;
        }
    }
    // "8c6f0a52-1f3e-..." → 16 bytes, dashes skipped; a short or missing UUID leaves zeros.
    const auto text = g.text("cluster");
    std::size_t byte = 0;
    for (std::size_t i = 0; i + 1 < text.size() && byte < 16; ++i) {
        if (text[i] == '-') {
            continue;
        }
        uuid[byte++] = static_cast<unsigned char>(std::stoul(text.substr(i, 2), nullptr, 16));
        ++i;
    }
    status = static_cast<int>(g.num("fabric_status"));
    clique = g.num("clique");
    rc = kSuccess;
    return true;
}

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

// persistence=0|1 (default 1), or "unsupported".
int nvmlDeviceGetPersistenceMode(void* device, int* mode) {
    const auto* g = gpu(device);
    if (g == nullptr) {
        return kInvalidArgument;
    }
    if (g->text("persistence") == "unsupported") {
        return kNotSupported;
    }
    *mode = g->v.contains("persistence") ? static_cast<int>(g->num("persistence")) : 1;
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

int nvmlDeviceGetCurrentClocksEventReasons(void* device, unsigned long long* reasons) {
    const auto* g = gpu(device);
    if (g == nullptr || reasons == nullptr) {
        return kInvalidArgument;
    }
    *reasons = g->num("clocks");
    return kSuccess;
}

int nvmlDeviceGetGpuFabricInfoV(void* device, FabricInfoV2* info) {
    const auto* g = gpu(device);
    if (g == nullptr || info == nullptr) {
        return kInvalidArgument;
    }
    if (g->text("fabric_api") == "v1") {
        return kVersionMismatch;
    }
    if (info->version != (static_cast<unsigned>(sizeof(FabricInfoV2)) | (2U << 24U))) {
        return kVersionMismatch;
    }
    int rc = kSuccess;
    std::memset(info->cluster_uuid, 0, sizeof info->cluster_uuid);
    if (!fabric_of(*g, info->cluster_uuid, info->status, info->clique, info->state, rc)) {
        return rc;
    }
    info->health_mask = g->num("health");
    return kSuccess;
}

int nvmlDeviceGetGpuFabricInfo(void* device, FabricInfoV1* info) {
    const auto* g = gpu(device);
    if (g == nullptr || info == nullptr) {
        return kInvalidArgument;
    }
    int rc = kSuccess;
    std::memset(info->cluster_uuid, 0, sizeof info->cluster_uuid);
    if (!fabric_of(*g, info->cluster_uuid, info->status, info->clique, info->state, rc)) {
        return rc;
    }
    return kSuccess;
}

}  // extern "C"
