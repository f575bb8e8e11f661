// SPDX-License-Identifier: Apache-2.0
// The policy loader's sections, each in its own file (internal to the policy library).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "yaml_reader.hpp"

namespace switchyard::policy {

/// `before`, the check keys (read by the health section, allowed in it and in each set), then
/// `after`.
[[nodiscard]] std::vector<std::string_view> health_keys(
    std::vector<std::string_view> before, std::initializer_list<std::string_view> after);

void read_health_section(const std::string& source,
                         std::vector<ConfigProblem>& problems,
                         const YAML::Node& n,
                         health::HealthPolicy& out);

void read_preflight_section(const std::string& source,
                            std::vector<ConfigProblem>& problems,
                            const YAML::Node& n,
                            preflight::PreflightPolicy& out);

void read_nccl_section(const std::string& source,
                       std::vector<ConfigProblem>& problems,
                       const YAML::Node& n,
                       nccl::NcclPolicy& out);

}  // namespace switchyard::policy
