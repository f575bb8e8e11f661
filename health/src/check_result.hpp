// SPDX-License-Identifier: Apache-2.0
// How a check says its result (internal to the health library).
#pragma once

#include <string>

#include "switchyard/health/health.hpp"

namespace switchyard::health {

inline CheckResult result(std::string name, HealthStatus s, std::string detail) {
    return {std::move(name), s, std::move(detail), 0};
}

}  // namespace switchyard::health
