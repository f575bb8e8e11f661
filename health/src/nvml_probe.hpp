// SPDX-License-Identifier: Apache-2.0
// Reading NVML for SystemProbe (internal to the health library).
#pragma once

#include <string>

#include "switchyard/health/node_probe.hpp"

namespace switchyard::health {

/// NVML's view of the GPUs, read in a thread of its own: when NVML does not answer within
/// `timeout_s` the facts say TimedOut and the thread is left behind (never joined, the library
/// never unloaded). With `nvlinks`, each GPU's active NVLinks are counted.
[[nodiscard]] NvmlFacts read_nvml(const std::string& library, bool nvlinks, double timeout_s);

}  // namespace switchyard::health
