// SPDX-License-Identifier: Apache-2.0
// What a step's user_init read and set, as a step cache entry (step_record.hpp).
#include "step_record.hpp"

#include <algorithm>

#include "step_cache.hpp"
#include "switchyard/fabric/fabric_index.hpp"
#include "switchyard/nccl/rules.hpp"
#include "switchyard/node/node_readers.hpp"
#include "switchyard/policy/loaders.hpp"

namespace switchyard::spank {
namespace {

namespace sc = step_cache;

/// Runs `make(out)` on a buffer of `cap` bytes; \return its text, or "" when it failed.
template <typename Make>
std::string made(std::size_t cap, Make make) {
    std::string buf(cap, '\0');
    sc::Out out(buf.data(), buf.size());
    if (!make(out) || !out.ok) {
        return {};
    }
    buf.resize(out.len);
    return buf;
}

std::string escaped(std::string_view s) {
    return made(s.size() * 3 + 1, [&](sc::Out& o) { return o.esc(s.data(), s.size()).ok; });
}

}  // namespace

std::optional<std::string> RecordingApi::get_option(const OptionSpec& spec) {
    auto v = inner_.get_option(spec);
    if (v) {
        repeatable_ = false;  // the front looks no entry up for a step given an option
    }
    return v;
}

void RecordingApi::note_env(std::string_view name, const std::optional<std::string>& value) {
    if (std::find(env_names_.begin(), env_names_.end(), name) != env_names_.end()) {
        return;
    }
    env_names_.emplace_back(name);
    job_ += "env " + escaped(name) + (value ? " =" + escaped(*value) : std::string(" -")) + "\n";
}

std::optional<std::string> RecordingApi::getenv(std::string_view name) {
    auto v = inner_.getenv(name);
    note_env(name, v);
    return v;
}

std::string RecordingApi::node_name() {
    auto n = inner_.node_name();
    if (node_.empty() || node_ != n) {
        job_ += "node " + escaped(n) + "\n";
        node_ = n;
    }
    return n;
}

std::uint32_t RecordingApi::local_task_count() {
    const auto n = inner_.local_task_count();
    job_ += "tasks " + std::to_string(n) + "\n";
    return n;
}

Result<SetEnv> RecordingApi::setenv(std::string_view name, std::string_view value, bool overwrite) {
    auto r = inner_.setenv(name, value, overwrite);
    if (!r || *r != SetEnv::Set) {
        repeatable_ = false;  // a value of the user's kept (and said so), or a failure
        return r;
    }
    if (!overwrite) {
        note_env(name, std::nullopt);  // set because it was not there
    }
    set_ += std::string("set ") + (overwrite ? "1 " : "0 ") + escaped(name) + " =" +
            escaped(value) + "\n";
    return r;
}

void RecordingLogger::log(Level level, Component component, std::string_view message) noexcept {
    if (level != Level::Verbose && level != Level::Debug) {
        quiet_ = false;
    }
    inner_.log(level, component, message);
}

std::string words_line(const std::vector<std::string_view>& words) {
    std::string line = "words";
    for (const auto& w : words) {
        line += " " + escaped(w);
    }
    return line + "\n";
}

std::string file_input_lines(const std::string& config,
                             const policy::Policy& pol,
                             const node::NodeTopology* node,
                             const std::string& node_name) {
    std::string lines;
    bool good = true;
    auto add = [&](bool (*line)(sc::Out&, const char*), const std::string& path) {
        const auto text = made(8192, [&](sc::Out& o) { return line(o, path.c_str()); });
        good = good && !text.empty();
        lines += text;
    };
    add(sc::stat_line, config);
    if (!pol.fabric_map.empty()) {
        add(sc::stat_line, pol.fabric_map);
        add(sc::stat_line, pol.fabric_map + std::string(fabric::kFabricIndexSuffix));
        if (!pol.nccl.imex_channel.empty()) {  // R17 reads it when the map has NVLink domains
            add(sc::stat_line, node::expand_node_path(pol.nccl.imex_channel, node_name).string());
        }
        if (const auto nvlink = policy::nvlink_state_path(pol, node_name); !nvlink.empty()) {
            add(sc::stat_line, nvlink);  // and the prolog's nvlink state, when it has domains
        }
    }
    if (node != nullptr) {
        if (!pol.hwloc_xml.empty()) {
            return {};  // its RDMA devices are read whole from sysfs at each step
        }
        if (!pol.node_cache.empty()) {
            add(sc::stat_line, node::expand_node_path(pol.node_cache, node_name).string());
        }
        const auto root = node::expand_node_path(pol.sysfs_root, node_name);
        add(sc::text_line, "/proc/sys/kernel/random/boot_id");
        for (const auto dir : node::kDeviceKeyDirs) {
            add(sc::list_line, (root / dir).string());
        }
        for (const auto& nic : node->nics) {  // a port comes or goes with its device
            const auto ports = root / "class" / "infiniband" / nic.name / "ports";
            for (const auto& p : nic.ports) {
                for (const auto file : node::kRulePortFiles) {
                    add(sc::text_line, (ports / std::to_string(p.port) / file).string());
                }
            }
        }
    }
    return good ? lines : std::string();
}

std::string affinity_lines(const node::NodeTopology& node) {
    std::string lines;
    for (const auto& g : node.gpus) {
        if (g.place.numa < 0) {
            continue;
        }
        std::string cpus;  // none when the node lists no such NUMA node
        for (const auto& n : node.numa) {
            if (n.os_index == g.place.numa) {
                cpus += (cpus.empty() ? "" : ",") + n.cpus;
            }
        }
        lines += "gpu " + std::to_string(g.index) + " =" + escaped(cpus) + "\n";
    }
    const auto choice = nccl::cpu_affinity_choice();
    return lines + "affinity " + escaped(choice.name) + " " + escaped(choice.value) + " " +
           escaped(choice.name + "=" + choice.value + ": " + choice.why) + "\n";
}

}  // namespace switchyard::spank
