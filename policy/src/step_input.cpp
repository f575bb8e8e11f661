// SPDX-License-Identifier: Apache-2.0
// The one loader of a step's inputs (policy/step_input.hpp).
#include "switchyard/policy/step_input.hpp"

#include <filesystem>
#include <system_error>

#include "switchyard/node/node_readers.hpp"
#include "switchyard/policy/loaders.hpp"

namespace switchyard::policy {

ImexProbe probe_imex(const Policy& policy,
                     const fabric::FabricMap* map,
                     const std::string& this_host) {
    ImexProbe probe;
    if (policy.nccl.imex_channel.empty() || map == nullptr || map->domains.empty()) {
        return probe;
    }
    const auto channel = node::expand_node_path(policy.nccl.imex_channel, this_host);
    std::error_code ec;
    probe.present = std::filesystem::exists(channel, ec);
    probe.path = channel.string();
    return probe;
}

StepInput load_step_input(const Policy& policy, const StepInputRequest& request) {
    StepInput in;
    if (!request.map_path.empty()) {
        auto m = load_fabric_map_file(request.map_path, request.step ? &request.hosts : nullptr,
                                      &in.map_notes);
        if (m) {
            in.map = std::move(*m);
        } else {
            in.map_error = m.error();
        }
    }
    if (request.node) {
        auto n =
            load_node(policy, {request.this_host, request.hwloc_xml, request.sysfs_root,
                               request.step ? NodeCache::Read : NodeCache::None, &in.node_notes});
        if (n) {
            in.node = std::move(*n);
        } else {
            in.node_error = n.error();
        }
    }
    in.imex = probe_imex(policy, in.map ? &*in.map : nullptr, request.this_host);
    if (in.map && !in.map->domains.empty()) {
        in.nvlink_problem = read_nvlink_state(nvlink_state_path(policy, request.this_host));
    }
    return in;
}

}  // namespace switchyard::policy
