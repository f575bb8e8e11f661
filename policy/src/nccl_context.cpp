// SPDX-License-Identifier: Apache-2.0
// File edges of the NCCL rules: policy, fabric map, node facts.
#include "switchyard/policy/nccl_context.hpp"

#include "switchyard/common/file.hpp"
#include "switchyard/topology/node_readers.hpp"

namespace switchyard::policy {

Result<Policy> load_policy_file(const std::string& path) {
    auto text = read_text_file(path, kPolicyInput);
    if (!text) {
        return fail(text.error());
    }
    auto loaded = load_policy(*text, path);
    if (!loaded.policy) {
        std::string all;
        for (const auto& p : loaded.problems) {
            all += (all.empty() ? "" : "\n") + p.to_string();
        }
        return fail(Error::invalid_argument(all));
    }
    return std::move(*loaded.policy);
}

Result<topology::FabricMap> load_fabric_map_file(const std::string& path,
                                                 const std::vector<std::string>* hosts) {
    auto text = read_text_file(path, kFabricInput);
    if (!text) {
        return fail(text.error());
    }
    return hosts != nullptr ? topology::read_fabric_map_for(*text, path, *hosts)
                            : topology::read_fabric_map(*text, path);
}

Result<topology::NodeTopology> load_node(const Policy& policy, const NodeSources& s) {
    const auto xml = !s.hwloc_xml.empty() ? s.hwloc_xml : policy.hwloc_xml;
    const auto root = topology::expand_sysfs_root(
        !s.sysfs_root.empty() ? s.sysfs_root : policy.sysfs_root, s.node_name);
    if (xml.empty()) {
        return topology::read_sysfs_node(root);
    }
    const auto path = topology::expand_sysfs_root(xml, s.node_name).string();
    auto text = read_text_file(path, kFabricInput);
    if (!text) {
        return fail(text.error());
    }
    auto node = topology::read_hwloc_xml(*text, path);
    if (node) {
        topology::attach_rdma_sysfs(*node, root);
    }
    return node;
}

}  // namespace switchyard::policy
