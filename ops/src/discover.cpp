// SPDX-License-Identifier: Apache-2.0
// `switchyard discover` end to end: the fabric read (ibnetdiscover or LLDP), classified, the
// hosts' NVLink domains put in, the summary told, and every output file written.
#include "switchyard/ops/discover.hpp"

#include <filesystem>
#include <map>
#include <ostream>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/input.hpp"
#include "switchyard/common/pattern.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/discover/classify/classify.hpp"
#include "switchyard/discover/graph/reader.hpp"
#include "switchyard/discover/ib/ibnetdiscover.hpp"
#include "switchyard/discover/lldp/lldp.hpp"
#include "switchyard/discover/nvlink/nvlink_domains.hpp"
#include "switchyard/node/node_json.hpp"
#include "switchyard/slurm/client/scontrol.hpp"
#include "switchyard/slurm/files/discover_files.hpp"
#include "switchyard/slurm/files/slurm_nodes.hpp"
#include "switchyard/slurm/files/slurm_partitions.hpp"
#include "switchyard/slurm/files/slurm_writers.hpp"

namespace switchyard::ops {
namespace {

using namespace discover;  // NOLINT: the readers' own vocabulary

/// The topologies the hints tell the Lua filters: --topology-plugin, then slurmctld's answer
/// for --partition-topology slurm, then the PART=TOPO items and --default-partition.
Result<slurm::SlurmTopologies> hint_topologies(const DiscoverRequest& a,
                                               slurm::Client& client,
                                               std::ostream& err) {
    slurm::SlurmTopologies out;
    out.default_kind = a.topology_plugin;
    for (const auto& item : a.partition_topology) {
        if (trim(item) != "slurm") {
            continue;
        }
        auto asked = slurm::topologies_from_slurm(client);
        if (!asked) {
            return fail(Error::io("--partition-topology slurm: " + asked.error().to_string()));
        }
        if (a.topology_plugin_given && asked->default_kind != a.topology_plugin) {
            err << "switchyard discover: warning: --topology-plugin " << a.topology_plugin
                << ", but slurmctld's cluster default topology is " << asked->default_kind
                << "; the hints follow slurmctld\n";
        }
        out = std::move(*asked);
        break;
    }
    for (const auto& item : a.partition_topology) {
        if (trim(item) == "slurm") {
            continue;
        }
        if (auto r = slurm::add_partition_topologies(item, slurm::discover_topology_names(), out);
            !r) {
            return fail(r.error());
        }
    }
    if (!a.default_partition.empty()) {
        out.default_partition = a.default_partition;
    }
    return out;
}

/// Up to three details per anomaly kind, then "... and N more".
void print_anomalies(const std::vector<fabric::Anomaly>& anomalies, std::ostream& out) {
    std::map<std::string, std::vector<const fabric::Anomaly*>> by_kind;
    for (const auto& a : anomalies) {
        by_kind[a.kind].push_back(&a);
    }
    if (by_kind.empty()) {
        out << "anomalies: none\n";
        return;
    }
    out << "anomalies: " << anomalies.size() << "\n";
    for (const auto& [kind, list] : by_kind) {
        out << "  " << kind << ": " << list.size() << "\n";
        for (std::size_t i = 0; i < list.size() && i < 3; ++i) {
            out << "    " << list[i]->detail << "\n";
        }
        if (list.size() > 3) {
            out << "    ... and " << list.size() - 3 << " more (all listed in fabric.map)\n";
        }
    }
}

/// "nvlink domains: 4 (2 per SU), 18 hosts each; 1 degraded, 1 missing".
void print_nvlink_summary(const fabric::FabricMap& m, std::ostream& out) {
    if (m.domains.empty()) {
        return;
    }
    std::map<std::size_t, std::size_t> sizes;
    std::size_t degraded = 0;
    std::size_t missing = 0;
    for (const auto& d : m.domains) {
        ++sizes[d.members.size()];
        degraded += d.state == fabric::DomainState::Degraded ? 1 : 0;
        missing += d.state == fabric::DomainState::Missing ? 1 : 0;
    }
    out << "nvlink domains: " << m.domains.size() << ", hosts each:";
    for (const auto& [n, count] : sizes) {
        out << " " << n << " x " << count << ";";
    }
    out << " " << degraded << " degraded, " << missing << " missing (kept in place)\n";
}

void print_summary(const Classification& c, const std::string& source, std::ostream& out) {
    const auto& m = c.map;
    out << "fabric: " << fabric::to_string(m.kind) << ", " << m.tiers << " switch tier"
        << (m.tiers == 1 ? "" : "s") << ", " << m.hosts.size() << " hosts, " << c.stats.compute_hcas
        << " compute HCAs (" << c.stats.excluded_hcas << " other CAs left out) from " << source
        << "\n";
    std::vector<std::string> tiers;
    for (std::size_t t = 1; t < c.stats.switches_per_tier.size(); ++t) {
        tiers.push_back("tier " + std::to_string(t) + ": " +
                        std::to_string(c.stats.switches_per_tier[t]));
    }
    if (!c.stats.switches_per_tier.empty() && c.stats.switches_per_tier[0] > 0) {
        tiers.push_back("unreachable: " + std::to_string(c.stats.switches_per_tier[0]));
    }
    out << "switches: " << (tiers.empty() ? "none" : join(tiers, ", "));
    // Rails come from which leaf of its SU each HCA reaches; the names may differ by host.
    const bool by_names = c.stats.rails == 0 || c.stats.rails == m.hcas.size();
    out << "\nrails: " << (by_names ? m.hcas.size() : c.stats.rails)
        << (by_names ? " (" : ", from the leaves of each SU (HCA names: ");
    for (std::size_t i = 0; i < m.hcas.size(); ++i) {
        out << (i > 0 ? " " : "") << m.hcas[i];
    }
    out << ")\nscalable units: " << m.sus.size() << "\n";
    for (const auto& g : m.groups) {
        std::size_t hosts = 0;
        for (const auto s : g.sus) {
            hosts += m.sus[s].hosts.size();
        }
        out << "  group " << g.name << ": " << g.sus.size() << " SUs, " << hosts << " hosts\n";
    }
    out << "leaf uplinks (cables per leaf-switch pair):";
    for (const auto& [cables, pairs] : c.stats.uplink_cables) {
        out << " " << cables << " x " << pairs << " pairs;";
    }
    out << "\n";
    print_nvlink_summary(m, out);
    const auto blocks = slurm::block_layout(m);
    if (blocks.base == 0) {
        print_anomalies(m.anomalies, out);
        return;
    }
    out << "block topology: BlockSizes=";
    const auto sizes = slurm::layout_sizes(blocks);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        out << (i > 0 ? "," : "") << sizes[i];
    }
    const std::string base = m.domains.empty() ? "one SU" : "one NVLink domain";
    if (blocks.su > 0 && blocks.group > 0) {
        out << " (a base block is " << base << ", aggregated blocks one SU and one group)";
    } else if (blocks.su > 0) {
        out << " (a base block is " << base << ", an aggregated block one SU)";
    } else if (blocks.group > 0) {
        out << " (a base block is " << base << ", an aggregated block one group)";
    } else {
        out << " (a base block is " << base << ")";
    }
    out << "\n";
    for (const auto& note : blocks.notes) {
        out << "  note: " << note << "\n";
    }
    print_anomalies(m.anomalies, out);
}

}  // namespace

DiscoverResult run_discover(const DiscoverRequest& a, Deps& deps) {
    std::ostream& out = deps.out;
    std::ostream& err = deps.err;
    auto topologies = hint_topologies(a, deps.slurm, err);
    if (!topologies) {
        err << "switchyard discover: " << topologies.error().to_string() << "\n";
        return topologies.error().code() == ErrorCode::InvalidArgument ? DiscoverResult::Usage
                                                                       : DiscoverResult::Problem;
    }
    std::vector<std::string> expected;
    if (!a.expect_hosts.empty()) {
        auto names = expand_hostlist(a.expect_hosts);
        if (!names) {
            err << "switchyard discover: --expect-hosts: " << names.error().message() << "\n";
            return DiscoverResult::Usage;
        }
        expected = std::move(*names);
    }
    ClassifyOptions opt;
    GuidMap guid_map;
    std::map<std::string, std::string, std::less<>> lldp_names;
    if (!a.guid_map.empty()) {
        auto gm_text = read_input(a.guid_map, kSmallInput);
        auto gm =
            gm_text ? parse_guid_map(*gm_text, a.guid_map) : Result<GuidMap>(fail(gm_text.error()));
        if (!gm) {
            err << "switchyard discover: --guid-map: " << gm.error().to_string() << "\n";
            return DiscoverResult::Problem;
        }
        guid_map = std::move(*gm);
        // With --lldp the map names chassis (below), before the classifier sees the hosts: a
        // host port's MAC, one off another chassis' MAC, must not be renamed by it.
        opt.guid_map = a.lldp.empty() ? &guid_map : nullptr;
        for (const auto& [key, e] : guid_map) {
            if (key >> 48U == 0) {  // a MAC: an LLDP chassis id
                std::string mac;
                for (int shift = 40; shift >= 0; shift -= 8) {
                    mac += hex_digits((key >> static_cast<unsigned>(shift)) & 0xffU, 2);
                    mac += shift > 0 ? ":" : "";
                }
                lldp_names[mac] = e.host;
            }
        }
    }
    node::HostFacts facts;
    if (!a.node_facts.empty()) {
        auto f = node::read_facts(a.node_facts, !a.lldp.empty());
        if (!f) {
            err << "switchyard discover: --node-facts: " << f.error().to_string() << "\n";
            return DiscoverResult::Problem;
        }
        facts = std::move(*f);
    }
    fabric::FabricMap previous;
    if (!a.previous_map.empty()) {
        auto text = read_input(a.previous_map, kFabricInput);
        auto map = text ? fabric::read_fabric_map(*text, a.previous_map)
                        : Result<fabric::FabricMap>(fail(text.error()));
        if (!map) {
            err << "switchyard discover: --previous-map: " << map.error().to_string() << "\n";
            return DiscoverResult::Problem;
        }
        previous = std::move(*map);
    }
    LldpOptions lldp_options;
    lldp_options.names = &lldp_names;
    lldp_options.hosts = expected.empty() ? nullptr : &expected;
    lldp_options.rdma_devices = a.node_facts.empty() ? nullptr : &facts.devices;
    const auto reader =
        a.lldp.empty() ? ibnetdiscover_reader(a.input) : lldp_reader(a.lldp, lldp_options);
    const std::string source = reader->source();
    const std::string label = reader->label();
    auto graph = reader->read();
    if (!graph) {
        err << "switchyard discover: " << graph.error().to_string() << "\n";
        return DiscoverResult::Problem;
    }
    ExpectedCabling cabling;
    if (!a.expect_cabling.empty()) {
        auto text = read_input(a.expect_cabling, kSmallInput);
        auto parsed = text ? parse_expected_cabling(*text, a.expect_cabling)
                           : Result<ExpectedCabling>(fail(text.error()));
        if (!parsed) {
            err << "switchyard discover: --expect-cabling: " << parsed.error().to_string() << "\n";
            return DiscoverResult::Problem;
        }
        cabling = *parsed;
        opt.expected_cabling = &cabling;
    }
    if (!a.compute_hca.empty()) {
        auto pattern = Pattern::compile(a.compute_hca);
        if (!pattern) {
            err << "switchyard discover: --compute-hca: " << pattern.error().message() << "\n";
            return DiscoverResult::Usage;
        }
        opt.compute_hca = [p = std::move(*pattern)](std::string_view hca) {
            return p.matches(hca);
        };
    }
    if (!a.expect_hosts.empty()) {
        opt.expected_hosts = &expected;
    }
    auto c = classify(*graph, opt);
    if (opt.expected_hosts != nullptr) {
        (void)check_expected_hosts(c.map, expected);
    }
    if (!a.previous_map.empty()) {
        (void)check_previous_hosts(c.map, previous);
    }
    for (const auto& w : graph->warnings) {
        c.map.anomalies.push_back(
            {w.kind, w.where.source.empty() ? w.message : w.where.to_string() + ": " + w.message});
    }
    assign_nvlink_domains(c.map, facts.nvlink,
                          {a.expect_nvl_size, a.previous_map.empty() ? nullptr : &previous});
    // Anomalies quote what the inputs said (system names, descriptions, file names): printed,
    // written in the map and in JSON, so made printable here, once.
    for (auto& an : c.map.anomalies) {
        an.kind = printable(an.kind);
        an.detail = printable(an.detail);
    }
    print_summary(c, label, out);
    if (c.map.hosts.empty()) {
        err << "switchyard discover: no compute host is attached to a switch in " << source
            << "; nothing written\n";
        return DiscoverResult::Problem;
    }
    std::error_code ec;
    std::filesystem::create_directories(a.out_dir, ec);
    if (ec) {
        err << "switchyard discover: cannot create '" << a.out_dir << "': " << ec.message() << "\n";
        return DiscoverResult::Problem;
    }
    const std::string header = "Written by switchyard " SWITCHYARD_VERSION_STRING
                               " discover from " +
                               label + ".\nRegenerate instead of editing: switchyard discover.";
    out << "slurm topologies (for the Lua filters): cluster default " << topologies->default_kind;
    for (const auto& [name, kind] : topologies->partitions) {
        out << ", partition " << name << " " << kind;
    }
    if (!topologies->default_partition.empty()) {
        out << "; default partition " << topologies->default_partition;
    }
    out << "\n";
    auto files = slurm::write_discover_files(
        c.map, "written by switchyard " SWITCHYARD_VERSION_STRING " discover from " + label, header,
        *topologies);
    if (!files) {
        err << "switchyard discover: fabric.map.index: " << files.error().to_string() << "\n";
        return DiscoverResult::Problem;
    }
    if (!a.slurm_nodes.empty()) {
        auto site = read_input(a.slurm_nodes, kSmallInput);
        auto merged = site ? slurm::merge_node_features(*site, a.slurm_nodes, c.map, header)
                           : Result<slurm::NodesConf>(fail(site.error()));
        if (!merged) {
            err << "switchyard discover: --slurm-nodes: " << merged.error().to_string() << "\n";
            return DiscoverResult::Problem;
        }
        out << "nodes.conf: " << merged->site_lines << " NodeName lines of " << a.slurm_nodes
            << " -> " << merged->lines << ", " << merged->hosts << " hosts (" << merged->outside
            << " not in the fabric, unchanged)\n";
        files->push_back({std::string(slurm::discover_file(slurm::OutputFile::NodesConf)),
                          std::move(merged->text)});
    }
    out << "wrote:";
    for (const auto& [name, content] : *files) {
        const auto path = (std::filesystem::path(a.out_dir) / name).string();
        if (auto r = write_file_atomic(path, content); !r) {
            err << "\nswitchyard discover: " << r.error().to_string() << "\n";
            return DiscoverResult::Problem;
        }
        out << " " << name;
    }
    out << " (in " << a.out_dir << ")\n";
    keep_until_exit(std::move(*graph));
    keep_until_exit(std::move(c));
    keep_until_exit(std::move(*files));
    return DiscoverResult::Done;
}

}  // namespace switchyard::ops
