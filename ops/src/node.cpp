// SPDX-License-Identifier: Apache-2.0
// `switchyard node` (ops/node.hpp).
#include "switchyard/ops/node.hpp"

#include <unistd.h>

#include <iomanip>
#include <ostream>
#include <sstream>

#include "switchyard/common/input.hpp"
#include "switchyard/common/process.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/discover/lldp/lldp.hpp"
#include "switchyard/node/node_readers.hpp"
#include "switchyard/node/nvlink.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/ops/inputs.hpp"

namespace switchyard::ops {
namespace {

using node::LldpView;
using node::NvlinkView;

/// NVML is asked with a deadline: a hung driver must not hang `switchyard node`.
constexpr double kNvmlSeconds = 5.0;

NvlinkView read_nvlink_view(const NodeRequest& a) {
    NvlinkView v;
    const bool live = a.hwloc_xml.empty() && a.sysfs_root.empty();
    const std::string library = a.nvml.empty() ? (live ? node::kNvmlLibrary : "off") : a.nvml;
    if (library == "off") {
        return v;
    }
    v.asked = true;
    v.facts = node::read_nvml(library, false, kNvmlSeconds);
    if (v.facts.state != node::NvmlFacts::State::Read) {
        v.note = v.facts.state == node::NvmlFacts::State::Unavailable
                     ? "NVML not available (" + v.facts.why + ")"
                     : "NVML: " + v.facts.why;
        // Not known is not healthy: a tray whose driver hangs or is missing cannot show its
        // fabric clean. discover keeps it in its rack's domain (from --previous-map), degraded.
        v.node.healthy = false;
        v.node.problems = {v.note};
        return v;
    }
    v.node = node::node_nvlink(v.facts.gpus);
    return v;
}

/// "completed, health ok", "in-progress", "completed, bandwidth degraded; route unhealthy".
std::string describe(const node::GpuFabric& f) {
    std::string out(node::to_string(f.state));
    if (f.state == node::GpuFabricState::NotSupported) {
        return out;
    }
    if (!f.cluster_uuid.empty()) {
        out += " " + node::nvlink_domain_key(f.cluster_uuid, f.clique);
    }
    if (f.health_mask) {
        const auto p = node::fabric_health_problems(*f.health_mask);
        out += p.empty() ? ", health ok" : ", " + join(p, "; ");
    }
    return out;
}

/// lldpd's client, run by absolute path with a clean environment and a deadline: root runs
/// switchyard node too, and must not run whatever a PATH names or wait on a stuck daemon.
constexpr const char* kLldpcli = "/usr/sbin/lldpcli";
constexpr double kLldpcliSeconds = 5.0;

LldpView read_lldp_view(const NodeRequest& a, const node::NodeTopology& node) {
    LldpView v;
    const bool live = a.hwloc_xml.empty() && a.sysfs_root.empty();
    std::string source =
        a.lldp.empty() ? (live || !a.lldpd_socket.empty() ? "lldpcli" : "off") : a.lldp;
    if (source == "off") {
        return v;
    }
    v.asked = true;
    Result<discover::LldpFile> file = fail(Error::internal("unset"));
    if (source == "lldpcli") {
        if (::access(kLldpcli, X_OK) != 0) {
            v.note = std::string(kLldpcli) + " is not installed (Debian: apt install lldpd)";
            return v;
        }
        std::vector<std::string> argv{kLldpcli, "-f", "json"};
        if (!a.lldpd_socket.empty()) {
            argv.insert(argv.end(), {"-u", a.lldpd_socket});
        }
        argv.insert(argv.end(), {"show", "neighbors"});
        auto r =
            run_process(argv, kLldpcliSeconds, &clean_environment(), discover::kMaxLldpFileBytes);
        if (r.timed_out || r.exit_code != 0 || r.truncated) {
            auto first = r.output.substr(0, r.output.find('\n'));
            v.note = std::string(kLldpcli) + " show neighbors: " +
                     (r.timed_out   ? "no answer within 5 s"
                      : r.truncated ? "more output than an lldpctl file may hold"
                                    : "exit " + std::to_string(r.exit_code) +
                                          (first.empty() ? "" : ": " + first)) +
                     " (is lldpd running?)";
            return v;
        }
        file = discover::parse_lldp(r.output, "lldpcli show neighbors");
    } else {
        // Shown, never acted on: any owner's file will do.
        auto text = read_input(source, ReadRules{discover::kMaxLldpFileBytes, false});
        file = text ? discover::parse_lldp(*text, source)
                    : Result<discover::LldpFile>(fail(text.error()));
    }
    if (!file) {
        v.note = file.error().to_string();
        v.bad_file = source != "lldpcli";
        return v;
    }
    for (auto& pn : discover::rdma_port_neighbors(node, *file)) {
        v.ports.push_back({pn.nic, pn.port, pn.netdev, pn.seen.chassis.name, pn.seen.chassis.id,
                           pn.seen.port_id, pn.seen.port_id_type, pn.seen.port_descr});
    }
    return v;
}

/// "su01-rail0 swp12" (the neighbour's name and port, its chassis id when it sent no name).
std::string describe(const node::PortLldp& n) {
    std::string who = n.system.empty() ? n.chassis_id : n.system;
    return who + " " +
           (n.port_id_type == "ifname" || n.port_descr.empty() ? n.port_id : n.port_descr);
}

void print_nvlink(const NvlinkView& v, std::ostream& out) {
    if (!v.asked) {
        return;
    }
    if (!v.note.empty()) {
        out << "nvlink: " << v.note << "\n";
        return;
    }
    if (!v.node.multi_node) {
        out << "nvlink: no multi-node NVLink fabric on this node's " << v.facts.gpus.size()
            << " GPU(s)\n";
        return;
    }
    out << "nvlink domain: " << (v.node.domain.empty() ? "(none agreed)" : v.node.domain) << ", "
        << node::to_string(v.node.state) << ", " << (v.node.healthy ? "healthy" : "NOT healthy")
        << "\n";
    for (const auto& g : v.facts.gpus) {
        out << "  gpu " << g.index << " " << (g.uuid.empty() ? "?" : g.uuid) << ": "
            << (!g.error.empty() ? g.error
                : g.fabric       ? describe(*g.fabric)
                                 : std::string("no fabric information"))
            << "\n";
    }
    for (const auto& p : v.node.problems) {
        out << "  problem: " << p << "\n";
    }
}

void print_text(const node::NodeTopology& n,
                const std::string& verbs,
                const LldpView& lldp,
                const NvlinkView& nvlink,
                std::ostream& out) {
    out << "shape: " << n.shape << "\n";
    for (const auto& m : n.numa) {
        out << "numa " << m.os_index << ": cpus " << m.cpus << "\n";
    }
    for (const auto& g : n.gpus) {
        out << "gpu " << g.index << ": " << g.place.busid << " " << g.vendor << " " << g.model
            << ", numa " << g.place.numa;
        for (const auto& o : g.osdevs) {
            out << " " << o;
        }
        out << "\n";
    }
    for (const auto& c : n.nics) {
        out << "nic " << c.name << ": " << c.place.busid << " " << c.kind << ", numa "
            << c.place.numa;
        for (const auto& d : c.netdevs) {
            out << " " << d;
        }
        out << "\n";
        for (const auto& p : c.ports) {
            // Words only for what is known: hwloc XML records no rate or physical state.
            out << "  port " << p.port << ": " << p.state;
            if (!p.phys_state.empty()) {
                out << " " << p.phys_state;
            }
            if (p.rate_gbps > 0) {
                out << " " << p.rate_gbps << " Gb/s";
            }
            if (!p.link_layer.empty()) {
                out << " " << p.link_layer;
            }
            out << " lid " << p.lid << ", " << p.gids.size() << " GIDs\n";
            for (const auto& pn : lldp.ports) {
                if (pn.nic == c.name && pn.port == p.port) {
                    out << "    lldp " << pn.netdev << ": " << describe(pn) << "\n";
                }
            }
        }
    }
    if (!n.gpus.empty() && !n.nics.empty()) {
        out << "paths (GPU x NIC):\n      ";
        for (const auto& c : n.nics) {
            out << std::setw(12) << c.name;
        }
        out << "\n";
        for (const auto& g : n.gpus) {
            out << "  gpu" << std::left << std::setw(2) << g.index << std::right;
            for (const auto& p : n.paths) {
                if (p.gpu == g.index) {
                    out << std::setw(12) << node::to_string(p.type);
                }
            }
            out << "\n";
        }
    }
    if (!verbs.empty()) {
        out << verbs << "\n";
    }
    if (!lldp.note.empty()) {
        out << "lldp: " << lldp.note << "\n";
    }
    print_nvlink(nvlink, out);
    for (const auto& w : n.warnings) {
        out << "warning: " << w.kind << ": "
            << (w.where.source.empty() ? "" : w.where.source + ": ") << w.message << "\n";
    }
}

}  // namespace

NodeReport run_node(const NodeRequest& a, Deps& deps) {
    NodeReport r;
    if (a.nvlink_only) {
        // NVML alone, no hwloc, sysfs or lldpd: the facts discover needs of an NVL72 node,
        // small and fast to gather and to read at 100k hosts.
        NodeRequest asked = a;
        if (asked.nvml.empty()) {
            asked.nvml = node::kNvmlLibrary;
        }
        r.nvlink = read_nvlink_view(asked);
        r.host = a.host.empty() ? short_hostname() : a.host;
        return r;
    }
    Result<node::NodeTopology> node = fail(Error::internal("unset"));
    if (!a.hwloc_xml.empty()) {
        auto xml = read_input(a.hwloc_xml, kFabricInput);
        node = xml ? node::read_hwloc_xml(*xml, a.hwloc_xml)
                   : Result<node::NodeTopology>(fail(xml.error()));
        if (node && !a.sysfs_root.empty()) {
            node::attach_rdma_sysfs(*node, a.sysfs_root);
        }
    } else if (!a.sysfs_root.empty()) {
        node = node::read_sysfs_node(a.sysfs_root);
    } else {
        node = node::read_hwloc_live();
        if (node) {
            node::attach_rdma_sysfs(*node, deps.root + "/sys");
            r.verbs = node::cross_check_verbs(*node);
        }
    }
    if (!node) {
        r.rc = kExitProblem;
        r.error = node.error().to_string();
        return r;
    }
    r.lldp = read_lldp_view(a, *node);
    if (r.lldp.bad_file) {
        r.rc = kExitProblem;
        r.error = "--lldp: " + r.lldp.note;
        return r;
    }
    r.nvlink = read_nvlink_view(a);
    r.topology = std::move(*node);
    return r;
}

void print_node(const NodeRequest& a, const NodeReport& r, std::ostream& out, std::ostream& err) {
    if (!r.error.empty()) {
        err << "switchyard node: " << printable(r.error) << "\n";
        return;
    }
    // Text carries strings from sysfs, NVML and LLDP neighbours (a switch names itself): each
    // line printable, no terminal escape. JSON escapes them itself.
    std::ostringstream text;
    if (a.nvlink_only) {
        if (a.line) {
            // One compact line per node, named: what `srun ... > facts.jsonl` gathers.
            out << node::nvlink_line(r.host, r.nvlink) << "\n";
        } else if (a.json) {
            out << node::nvlink_json(r.nvlink) << "\n";
        } else {
            print_nvlink(r.nvlink, text);
        }
    } else if (a.json) {
        out << node::node_json(*r.topology, r.verbs, r.lldp, r.nvlink) << "\n";
    } else {
        print_text(*r.topology, r.verbs, r.lldp, r.nvlink, text);
    }
    out << printable_lines(text.str());
}

}  // namespace switchyard::ops
