// SPDX-License-Identifier: Apache-2.0
// NVML's view of a node's GPUs (libnvidia-ml, loaded at run time): what the health checks judge
// (retired pages, row remapping, ECC, NVLinks) and each GPU's multi-node NVLink fabric (cluster
// UUID, clique, state, health), from which the node's NVLink domain is named (nvlink.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace switchyard::node {

/// nvmlGpuFabricState_t: where the GPU's registration with the NVLink fabric manager stands.
enum class GpuFabricState {
    NotSupported,  ///< no multi-node NVLink (a PCIe or single-node NVLink GPU)
    NotStarted,
    InProgress,
    Completed,  ///< registered: the cluster UUID and clique are valid
    Unknown,    ///< a value NVML did not define when this was written
};

/// One GPU's fabric information (nvmlDeviceGetGpuFabricInfoV, version 2; or the older
/// nvmlDeviceGetGpuFabricInfo without a health mask).
struct GpuFabric {
    std::string cluster_uuid;  ///< "8c6f0a52-...", "" when all zero (not registered)
    std::uint32_t clique = 0;
    GpuFabricState state = GpuFabricState::NotSupported;
    int status = 0;                            ///< nvmlReturn_t of the registration (0: success)
    std::optional<std::uint32_t> health_mask;  ///< nullopt: the driver has no health mask
};

/// What NVML says of one GPU. A value NVML cannot give (an old driver, a feature the GPU lacks)
/// is nullopt and not judged.
struct NvmlGpu {
    unsigned index = 0;
    std::string uuid;                     ///< "" when unknown
    std::string error;                    ///< the handle could not be had: nothing else is known
    std::optional<unsigned> retired_sbe;  ///< pages retired for multiple single-bit errors
    std::optional<unsigned> retired_dbe;  ///< pages retired for double-bit errors
    bool retirement_pending = false;
    bool remap_failed = false;
    bool remap_pending = false;
    unsigned uncorrectable_rows = 0;
    std::optional<std::uint64_t> uncorrected_ecc;  ///< volatile, since the driver loaded
    std::optional<unsigned> nvlinks_active;        ///< when asked for
    std::optional<GpuFabric> fabric;               ///< nullopt: the driver has no fabric query
    /// nvmlDeviceGetCurrentClocksEventReasons (or the older ...ThrottleReasons): why the clocks
    /// are held down now (bit mask); nullopt when NVML cannot say.
    std::optional<std::uint64_t> clock_events;
    /// nvmlDeviceGetPersistenceMode: the driver kept loaded between jobs (nvidia-persistenced);
    /// nullopt when NVML cannot say.
    std::optional<bool> persistence;
};

/// NVML's answer, or why there is none.
struct NvmlFacts {
    enum class State {
        Unavailable,  ///< the library could not be loaded (no driver): `why`
        Failed,       ///< nvmlInit or the device count failed: `why` ("nvmlInit: ...")
        TimedOut,     ///< no answer within the timeout (a hung driver or GPU)
        Read,
    };
    State state = State::Unavailable;
    std::string why;
    std::vector<NvmlGpu> gpus;
};

/// NVML's view of the GPUs, read in a thread of its own, joined once NVML answered: when it
/// does not answer within `timeout_s` the facts say TimedOut and the thread is left behind
/// (never joined, the library never unloaded). With `nvlinks`, each GPU's active NVLinks are
/// counted. Each GPU's fabric information is read when the driver has the entry point. A `library`
/// path (not a bare name) is loaded only when check_trusted_when_root accepts it.
[[nodiscard]] NvmlFacts read_nvml(const std::string& library, bool nvlinks, double timeout_s);

/// The library name the loader finds on a node with NVIDIA's driver.
inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

}  // namespace switchyard::node
