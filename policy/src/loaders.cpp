// SPDX-License-Identifier: Apache-2.0
// Loading the policy, the fabric map (or its index) and the node (or its cached facts).
#include "switchyard/policy/loaders.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include "switchyard/common/file.hpp"
#include "switchyard/common/state_file.hpp"
#include "switchyard/fabric/fabric_index.hpp"
#include "switchyard/node/node_facts.hpp"
#include "switchyard/node/node_readers.hpp"

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
std::optional<fabric::FabricMap> from_index(const InputFile& map,
                                            const std::vector<std::string>& hosts,
                                            std::vector<std::string>* notes) {
    const auto head = map.read_at(0, 64);
    const auto digest =
        head ? fabric::fabric_map_digest(std::string_view(*head).substr(0, head->find('\n')))
             : std::nullopt;
    const auto path = map.name() + std::string(fabric::kFabricIndexSuffix);
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
    auto m = fabric::read_fabric_index_for(*index, {*digest, map.size()}, hosts);
    if (!m) {
        return note(m.error());
    }
    return std::move(*m);
}

}  // namespace

Result<fabric::FabricMap> load_fabric_map_file(const std::string& path,
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
    return hosts != nullptr ? fabric::read_fabric_map_for(*text, path, *hosts)
                            : fabric::read_fabric_map(*text, path);
}

namespace {

void add_note(std::vector<std::string>* notes, const std::string& note) {
    if (notes != nullptr) {
        notes->push_back(note);
    }
}

/// The facts the prolog cached at `path`, when they are root's (the real uid's: a step's user_init
/// runs with the user's effective uid) and fresh; nullopt otherwise.
std::optional<node::NodeTopology> cached_node(const std::string& path,
                                              const std::filesystem::path& root,
                                              std::vector<std::string>* notes) {
    auto text = read_file_owned_by(path, getuid());
    if (text && text->empty()) {
        return std::nullopt;  // none yet (or the cache directory does not exist)
    }
    auto dir = text ? check_owned_dir(parent_directory(path), getuid()) : Result<void>{};
    auto node = text && dir ? node::read_node_facts(*text, path, node::node_device_key(root))
                            : Result<node::NodeTopology>(fail(Error::internal("")));
    if (!node) {
        const auto& e = !text ? text.error() : !dir ? dir.error() : node.error();
        add_note(notes, "node cache not used, the node is read instead: " + e.to_string());
        return std::nullopt;
    }
    node::refresh_rdma_ports(*node, root, node::PortDetail::Step);
    return std::move(*node);
}

/// `text` at `path` (0644: steps read it with the user's ids) for the job's steps, when the
/// cache directory exists and is ours alone, and only when it changed; `what` names it in notes.
void write_for_steps(const std::string& path,
                     const std::string& text,
                     const std::string& what,
                     std::vector<std::string>* notes) {
    const auto dir = parent_directory(path);
    struct stat st {};
    if (lstat(dir.c_str(), &st) != 0 && errno == ENOENT) {
        return;  // no cache on this node
    }
    if (auto d = check_owned_dir(dir, geteuid()); !d) {
        add_note(notes, what + " not written: " + d.error().message());
        return;
    }
    if (auto old = read_owned_file(path); old && *old == text) {
        return;
    }
    if (auto w = replace_file(path, text, 0644); !w) {
        add_note(notes, what + " not written: " + w.error().message());
    }
}

/// The node's static facts for the steps.
void write_cache(const std::string& path,
                 const node::NodeTopology& node,
                 std::uint64_t key,
                 std::vector<std::string>* notes) {
    write_for_steps(path, node::write_node_facts(node, key), "node cache", notes);
}

}  // namespace

void refresh_node_cache(const Policy& policy,
                        const std::string& node_name,
                        std::vector<std::string>* notes) {
    if (policy.node_cache.empty() || !policy.hwloc_xml.empty()) {
        return;
    }
    const auto path = node::expand_node_path(policy.node_cache, node_name).string();
    struct stat st {};
    if (lstat(parent_directory(path).c_str(), &st) != 0 && errno == ENOENT) {
        return;  // no cache on this node
    }
    const auto root = node::expand_node_path(policy.sysfs_root, node_name);
    const auto key = node::node_device_key(root);
    // Fresh already (same boot, same devices): a few directory reads, no walk of the PCI tree.
    const auto empty = node::write_node_facts({}, key);
    const auto header = empty.substr(0, empty.find('\n', empty.find("\nkey ") + 1) + 1);
    if (auto old = read_owned_file(path); old && old->starts_with(header)) {
        return;
    }
    if (auto node = node::read_sysfs_node(root, node::PortDetail::Step)) {
        write_cache(path, *node, key, notes);
    }
}

Result<node::NodeTopology> load_node(const Policy& policy, const NodeSources& s) {
    const auto xml = !s.hwloc_xml.empty() ? s.hwloc_xml : policy.hwloc_xml;
    const auto root = node::expand_node_path(
        !s.sysfs_root.empty() ? s.sysfs_root : policy.sysfs_root, s.node_name);
    const auto detail =
        s.cache == NodeCache::Read ? node::PortDetail::Step : node::PortDetail::Full;
    if (xml.empty()) {
        const auto cache = s.cache == NodeCache::None || policy.node_cache.empty()
                               ? std::string()
                               : node::expand_node_path(policy.node_cache, s.node_name).string();
        if (!cache.empty() && s.cache == NodeCache::Read) {
            if (auto node = cached_node(cache, root, s.notes)) {
                return std::move(*node);
            }
        }
        auto node = node::read_sysfs_node(root, detail);
        if (node && !cache.empty() && s.cache == NodeCache::Write) {
            write_cache(cache, *node, node::node_device_key(root), s.notes);
        }
        return node;
    }
    const auto path = node::expand_node_path(xml, s.node_name).string();
    auto text = read_text_file(path, kFabricInput);
    if (!text) {
        return fail(text.error());
    }
    auto node = node::read_hwloc_xml(*text, path);
    if (node) {
        node::attach_rdma_sysfs(*node, root, detail);
    }
    return node;
}

namespace {
constexpr std::string_view kNvlinkHeader = "switchyard-nvlink 1 ";
constexpr std::size_t kNvlinkDetail = 400;  ///< what a failed check said, at most
}  // namespace

std::string nvlink_state_path(const Policy& policy, const std::string& node_name) {
    if (policy.node_cache.empty()) {
        return {};
    }
    return node::expand_node_path(policy.node_cache, node_name).string() + ".nvlink";
}

void record_nvlink_state(const Policy& policy,
                         const std::string& node_name,
                         const std::vector<health::CheckResult>& checks,
                         std::vector<std::string>* notes) {
    const auto path = nvlink_state_path(policy, node_name);
    const auto check = std::find_if(checks.begin(), checks.end(), [](const health::CheckResult& c) {
        return c.name == "nvlink";
    });
    if (path.empty() || check == checks.end()) {
        return;
    }
    std::string text(kNvlinkHeader);
    if (check->status == health::HealthStatus::Pass) {
        text += "clean";
    } else {
        auto detail = check->detail.substr(0, kNvlinkDetail);
        std::replace_if(
            detail.begin(), detail.end(),
            [](char c) { return static_cast<unsigned char>(c) < ' ' || c == 0x7f; }, ' ');
        text += "unclean " + detail;
    }
    text += '\n';
    write_for_steps(path, text, "NVLink state", notes);
}

std::optional<std::string> read_nvlink_state(const std::string& path) {
    if (path.empty()) {
        return std::nullopt;
    }
    // Root's (the real uid's: a step's user_init runs with the user's effective uid), in a
    // directory of root's alone.
    auto text = read_file_owned_by(path, getuid());
    if (!text || text->empty() || text->size() > kNvlinkHeader.size() + kNvlinkDetail + 16 ||
        !check_owned_dir(parent_directory(path), getuid()) || !text->starts_with(kNvlinkHeader) ||
        text->back() != '\n') {
        return std::nullopt;
    }
    const auto body = std::string_view(*text).substr(kNvlinkHeader.size(),
                                                     text->size() - kNvlinkHeader.size() - 1);
    if (body == "clean") {
        return std::string();
    }
    if (body.starts_with("unclean ") && body.size() > 8) {
        return std::string(body.substr(8));
    }
    return std::nullopt;
}

health::HealthChecks node_checks(const Policy& policy,
                                 const health::HealthChecks& chosen,
                                 const std::string& node_name,
                                 std::vector<std::string>* notes) {
    auto checks = health::with_node_paths(chosen, node_name);
    if (!checks.nvlink || policy.fabric_map.empty()) {
        return checks;
    }
    const std::vector<std::string> hosts{node_name};
    auto map = load_fabric_map_file(policy.fabric_map, &hosts, notes);
    if (!map) {
        if (notes != nullptr) {
            notes->push_back("nvlink check: the fabric map's domain of " + node_name +
                             " not compared: " + map.error().to_string());
        }
        return checks;
    }
    return health::with_fabric(std::move(checks), &*map, node_name);
}

}  // namespace switchyard::policy
