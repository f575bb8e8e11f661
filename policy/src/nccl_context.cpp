// SPDX-License-Identifier: Apache-2.0
// File edges of the NCCL rules: policy, fabric map, node facts.
#include "switchyard/policy/nccl_context.hpp"

#include <sys/stat.h>

#include "switchyard/common/file.hpp"
#include "switchyard/topology/fabric_index.hpp"
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

namespace {

/// The step's hosts from the map's index, when there is one made from `map`.
std::optional<topology::FabricMap> from_index(const InputFile& map,
                                              const std::vector<std::string>& hosts,
                                              std::vector<std::string>* notes) {
    const auto head = map.read_at(0, 64);
    const auto digest =
        head ? topology::fabric_map_digest(std::string_view(*head).substr(0, head->find('\n')))
             : std::nullopt;
    const auto path = map.name() + std::string(topology::kFabricIndexSuffix);
    struct stat st {};
    if (!digest || lstat(path.c_str(), &st) != 0) {
        return std::nullopt;  // a version 2 map, or no index: the map is read
    }
    auto note = [&](const Error& e) {
        if (notes != nullptr) {
            notes->push_back("index not used, the map is read instead: " + e.to_string());
        }
        return std::nullopt;
    };
    auto index = InputFile::open(path, kFabricInput);
    if (!index) {
        return note(index.error());
    }
    auto m = topology::read_fabric_index_for(*index, {*digest, map.size()}, hosts);
    if (!m) {
        return note(m.error());
    }
    return std::move(*m);
}

}  // namespace

Result<topology::FabricMap> load_fabric_map_file(const std::string& path,
                                                 const std::vector<std::string>* hosts,
                                                 std::vector<std::string>* notes) {
    auto file = InputFile::open(path, kFabricInput);
    if (!file) {
        return fail(file.error());
    }
    if (hosts != nullptr) {
        if (auto m = from_index(*file, *hosts, notes)) {
            return std::move(*m);
        }
    }
    auto text = file->read_all();
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
