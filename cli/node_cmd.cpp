// SPDX-License-Identifier: Apache-2.0
// `switchyard node`: this node's GPUs, NICs, ports and GPU×NIC paths, from hwloc and sysfs, its
// RDMA ports' LLDP neighbours and its NVLink domain from NVML.
#include <unistd.h>

#include <iomanip>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "switchyard/common/process.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/discover/lldp.hpp"
#include "switchyard/discover/node_json.hpp"
#include "switchyard/node/node_readers.hpp"
#include "switchyard/node/nvlink.hpp"
#include "switchyard/ops/inputs.hpp"

namespace switchyard::cli {

using ops::load_fabric_map;
using ops::read_json_dir;
using ops::short_hostname;
namespace {

using discover::LldpView;
using discover::NvlinkView;

struct NodeArgs {
    std::string hwloc_xml;
    std::string sysfs_root;
    std::string lldp;  ///< a file of lldpctl output, "lldpcli", "off" or "" (lldpcli when live)
    std::string lldpd_socket;
    std::string nvml;  ///< libnvidia-ml to ask, "off", or "" (the driver's when live)
    bool nvlink_only = false;
    bool line = false;
    std::string host;
    bool json = false;
};

/// NVML is asked with a deadline: a hung driver must not hang `switchyard node`.
constexpr double kNvmlSeconds = 5.0;

NvlinkView read_nvlink_view(const NodeArgs& a) {
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

LldpView read_lldp_view(const NodeArgs& a, const node::NodeTopology& node) {
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
    v.ports = discover::rdma_port_neighbors(node, *file);
    return v;
}

/// "su01-rail0 swp12" (the neighbour's name and port, its chassis id when it sent no name).
std::string describe(const discover::LldpNeighbor& n) {
    std::string who = n.chassis.name.empty() ? n.chassis.id : n.chassis.name;
    return who + " " +
           (n.port_id_type == "ifname" || n.port_descr.empty() ? n.port_id : n.port_descr);
}

void print_nvlink(const NvlinkView& v) {
    if (!v.asked) {
        return;
    }
    if (!v.note.empty()) {
        std::cout << "nvlink: " << v.note << "\n";
        return;
    }
    if (!v.node.multi_node) {
        std::cout << "nvlink: no multi-node NVLink fabric on this node's " << v.facts.gpus.size()
                  << " GPU(s)\n";
        return;
    }
    std::cout << "nvlink domain: " << (v.node.domain.empty() ? "(none agreed)" : v.node.domain)
              << ", " << node::to_string(v.node.state) << ", "
              << (v.node.healthy ? "healthy" : "NOT healthy") << "\n";
    for (const auto& g : v.facts.gpus) {
        std::cout << "  gpu " << g.index << " " << (g.uuid.empty() ? "?" : g.uuid) << ": "
                  << (!g.error.empty() ? g.error
                      : g.fabric       ? describe(*g.fabric)
                                       : std::string("no fabric information"))
                  << "\n";
    }
    for (const auto& p : v.node.problems) {
        std::cout << "  problem: " << p << "\n";
    }
}

void print_text(const node::NodeTopology& n,
                const std::string& verbs,
                const LldpView& lldp,
                const NvlinkView& nvlink) {
    std::cout << "shape: " << n.shape << "\n";
    for (const auto& m : n.numa) {
        std::cout << "numa " << m.os_index << ": cpus " << m.cpus << "\n";
    }
    for (const auto& g : n.gpus) {
        std::cout << "gpu " << g.index << ": " << g.place.busid << " " << g.vendor << " " << g.model
                  << ", numa " << g.place.numa;
        for (const auto& o : g.osdevs) {
            std::cout << " " << o;
        }
        std::cout << "\n";
    }
    for (const auto& c : n.nics) {
        std::cout << "nic " << c.name << ": " << c.place.busid << " " << c.kind << ", numa "
                  << c.place.numa;
        for (const auto& d : c.netdevs) {
            std::cout << " " << d;
        }
        std::cout << "\n";
        for (const auto& p : c.ports) {
            // Words only for what is known: hwloc XML records no rate or physical state.
            std::cout << "  port " << p.port << ": " << p.state;
            if (!p.phys_state.empty()) {
                std::cout << " " << p.phys_state;
            }
            if (p.rate_gbps > 0) {
                std::cout << " " << p.rate_gbps << " Gb/s";
            }
            if (!p.link_layer.empty()) {
                std::cout << " " << p.link_layer;
            }
            std::cout << " lid " << p.lid << ", " << p.gids.size() << " GIDs\n";
            for (const auto& pn : lldp.ports) {
                if (pn.nic == c.name && pn.port == p.port) {
                    std::cout << "    lldp " << pn.netdev << ": " << describe(pn.seen) << "\n";
                }
            }
        }
    }
    if (!n.gpus.empty() && !n.nics.empty()) {
        std::cout << "paths (GPU x NIC):\n      ";
        for (const auto& c : n.nics) {
            std::cout << std::setw(12) << c.name;
        }
        std::cout << "\n";
        for (const auto& g : n.gpus) {
            std::cout << "  gpu" << std::left << std::setw(2) << g.index << std::right;
            for (const auto& p : n.paths) {
                if (p.gpu == g.index) {
                    std::cout << std::setw(12) << node::to_string(p.type);
                }
            }
            std::cout << "\n";
        }
    }
    if (!verbs.empty()) {
        std::cout << verbs << "\n";
    }
    if (!lldp.note.empty()) {
        std::cout << "lldp: " << lldp.note << "\n";
    }
    print_nvlink(nvlink);
    for (const auto& w : n.warnings) {
        std::cout << "warning: " << w.kind << ": "
                  << (w.where.source.empty() ? "" : w.where.source + ": ") << w.message << "\n";
    }
}

/// --nvlink-only: NVML alone, no hwloc, sysfs or lldpd: the facts discover needs of an NVL72
/// node, small and fast to gather and to read at 100k hosts.
int run_nvlink_only(const NodeArgs& a) {
    NodeArgs asked = a;
    if (asked.nvml.empty()) {
        asked.nvml = node::kNvmlLibrary;
    }
    const NvlinkView nvlink = read_nvlink_view(asked);
    if (a.line) {
        // One compact line per node, named: what `srun ... > facts.jsonl` gathers for discover.
        std::cout << discover::nvlink_line(a.host.empty() ? short_hostname() : a.host, nvlink)
                  << "\n";
    } else if (a.json) {
        std::cout << discover::nvlink_json(nvlink) << "\n";
    } else {
        print_nvlink(nvlink);
    }
    return kExitOk;
}

int run_node(const NodeArgs& a) {
    if (a.nvlink_only) {
        return run_nvlink_only(a);
    }
    Result<node::NodeTopology> node = fail(Error::internal("unset"));
    std::string verbs;
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
            node::attach_rdma_sysfs(*node, "/sys");
            verbs = node::cross_check_verbs(*node);
        }
    }
    if (!node) {
        std::cerr << "switchyard node: " << node.error().to_string() << "\n";
        return kExitProblem;
    }
    const LldpView lldp = read_lldp_view(a, *node);
    if (lldp.bad_file) {
        std::cerr << "switchyard node: --lldp: " << lldp.note << "\n";
        return kExitProblem;
    }
    const NvlinkView nvlink = read_nvlink_view(a);
    if (a.json) {
        std::cout << discover::node_json(*node, verbs, lldp, nvlink) << "\n";
    } else {
        print_text(*node, verbs, lldp, nvlink);
    }
    return kExitOk;
}

}  // namespace

void setup_node(CLI::App& cmd, Runner& run) {
    auto args = std::make_shared<NodeArgs>();
    cmd.footer(
        "\nWithout options: this machine (hwloc + /sys, cross-checked with libibverbs when "
        "present).\n"
        "Examples:\n  switchyard node\n  switchyard node --hwloc-xml node.xml --json\n"
        "  switchyard node --sysfs-root /tmp/fake-sys   # a node described only by a sysfs tree\n"
        "  switchyard node --lldp off                   # without asking lldpd for neighbours\n"
        "  switchyard node --nvml off                   # without asking NVML for the NVLink "
        "domain\n"
        "  switchyard node --nvlink-only --json         # the facts discover needs of an NVL72 "
        "node\n");
    cmd.add_option("--hwloc-xml", args->hwloc_xml,
                   "hwloc XML export (lstopo --of xml) instead of this machine");
    cmd.add_option("--sysfs-root", args->sysfs_root,
                   "directory that stands for /sys (RDMA ports; alone: GPUs and NICs too)");
    cmd.add_option("--lldp", args->lldp,
                   "each RDMA port's LLDP neighbour from: lldpcli (ask lldpd; the default for this "
                   "machine), off, or a file of lldpctl output (json, json0 or keyvalue)");
    cmd.add_option("--lldpd-socket", args->lldpd_socket,
                   "lldpd's control socket, when not the default (lldpcli -u)");
    cmd.add_option("--nvml", args->nvml,
                   "each GPU's multi-node NVLink fabric (cluster UUID, clique, state, health) "
                   "and the node's NVLink domain from: libnvidia-ml.so.1 (the default for this "
                   "machine), off, or a path to an NVML library (5 s deadline)");
    cmd.add_flag("--nvlink-only", args->nvlink_only,
                 "only the NVLink part (NVML; no hwloc, sysfs or lldpd): what discover "
                 "--node-facts needs of an NVL72 node on InfiniBand");
    cmd.add_flag("--line", args->line,
                 "with --nvlink-only: one compact JSON line naming the host, for discover "
                 "--node-facts FILE (srun -N... switchyard node --nvlink-only --line > "
                 "facts.jsonl)")
        ->needs("--nvlink-only");
    cmd.add_option("--host", args->host, "with --line: the host's name (default: the host name)");
    cmd.add_flag("--json", args->json,
                 "JSON: gpus, nics with ports (and their lldp neighbours), paths, nvlink, shape, "
                 "warnings");
    cmd.callback([&run, args] { run = [args] { return run_node(*args); }; });
}

}  // namespace switchyard::cli
