// SPDX-License-Identifier: Apache-2.0
// `switchyard discover`: ibnetdiscover output → fabric map, Slurm topology files, summary.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "commands.hpp"
#include "io.hpp"
#include "node_facts_in.hpp"
#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/pattern.hpp"
#include "switchyard/common/process.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/discover/classify.hpp"
#include "switchyard/discover/ibnetdiscover.hpp"
#include "switchyard/discover/lldp.hpp"
#include "switchyard/discover/nvlink_domains.hpp"
#include "switchyard/fabric/fabric_index.hpp"
#include "switchyard/fabric/guid.hpp"
#include "switchyard/node/nvlink.hpp"
#include "switchyard/slurmconf/install_sets.hpp"
#include "switchyard/slurmconf/scontrol.hpp"
#include "switchyard/slurmconf/slurm_nodes.hpp"
#include "switchyard/slurmconf/slurm_partitions.hpp"
#include "switchyard/slurmconf/slurm_writers.hpp"

namespace switchyard::cli {
namespace {

struct DiscoverArgs {
    std::string input;
    std::string lldp;
    std::string guid_map;
    std::string compute_hca;
    std::string expect_hosts;
    std::string node_facts;
    std::uint32_t expect_nvl_size = 0;
    std::string previous_map;
    std::string expect_cabling;
    std::string out_dir;
    std::string topology_plugin = "tree";
    bool topology_plugin_given = false;
    std::vector<std::string> partition_topology;
    std::string default_partition;
    std::string slurm_nodes;
};

/// The topologies the hints tell the Lua filters: --topology-plugin, then slurmctld's answer
/// for --partition-topology slurm, then the PART=TOPO items and --default-partition.
Result<slurmconf::SlurmTopologies> hint_topologies(const DiscoverArgs& a) {
    slurmconf::SlurmTopologies out;
    out.default_kind = a.topology_plugin;
    for (const auto& item : a.partition_topology) {
        if (trim(item) != "slurm") {
            continue;
        }
        auto asked = slurmconf::topologies_from_slurm();
        if (!asked) {
            return fail(Error::io("--partition-topology slurm: " + asked.error().to_string()));
        }
        if (a.topology_plugin_given && asked->default_kind != a.topology_plugin) {
            std::cerr << "switchyard discover: warning: --topology-plugin " << a.topology_plugin
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
        if (auto r = slurmconf::add_partition_topologies(item, slurmconf::discover_topology_names(),
                                                         out);
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
void print_anomalies(const std::vector<fabric::Anomaly>& anomalies) {
    std::map<std::string, std::vector<const fabric::Anomaly*>> by_kind;
    for (const auto& a : anomalies) {
        by_kind[a.kind].push_back(&a);
    }
    if (by_kind.empty()) {
        std::cout << "anomalies: none\n";
        return;
    }
    std::cout << "anomalies: " << anomalies.size() << "\n";
    for (const auto& [kind, list] : by_kind) {
        std::cout << "  " << kind << ": " << list.size() << "\n";
        for (std::size_t i = 0; i < list.size() && i < 3; ++i) {
            std::cout << "    " << list[i]->detail << "\n";
        }
        if (list.size() > 3) {
            std::cout << "    ... and " << list.size() - 3 << " more (all listed in fabric.map)\n";
        }
    }
}

/// "nvlink domains: 4 (2 per SU), 18 hosts each; 1 degraded, 1 missing".
void print_nvlink_summary(const fabric::FabricMap& m) {
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
    std::cout << "nvlink domains: " << m.domains.size() << ", hosts each:";
    for (const auto& [n, count] : sizes) {
        std::cout << " " << n << " x " << count << ";";
    }
    std::cout << " " << degraded << " degraded, " << missing << " missing (kept in place)\n";
}

void print_summary(const discover::Classification& c, const std::string& source) {
    const auto& m = c.map;
    std::cout << "fabric: " << fabric::to_string(m.kind) << ", " << m.tiers << " switch tier"
              << (m.tiers == 1 ? "" : "s") << ", " << m.hosts.size() << " hosts, "
              << c.stats.compute_hcas << " compute HCAs (" << c.stats.excluded_hcas
              << " other CAs left out) from " << source << "\n";
    std::vector<std::string> tiers;
    for (std::size_t t = 1; t < c.stats.switches_per_tier.size(); ++t) {
        tiers.push_back("tier " + std::to_string(t) + ": " +
                        std::to_string(c.stats.switches_per_tier[t]));
    }
    if (!c.stats.switches_per_tier.empty() && c.stats.switches_per_tier[0] > 0) {
        tiers.push_back("unreachable: " + std::to_string(c.stats.switches_per_tier[0]));
    }
    std::cout << "switches: " << (tiers.empty() ? "none" : join(tiers, ", "));
    std::cout << "\nrails: " << m.hcas.size() << " (";
    for (std::size_t i = 0; i < m.hcas.size(); ++i) {
        std::cout << (i > 0 ? " " : "") << m.hcas[i];
    }
    std::cout << ")\nscalable units: " << m.sus.size() << "\n";
    for (const auto& g : m.groups) {
        std::size_t hosts = 0;
        for (const auto s : g.sus) {
            hosts += m.sus[s].hosts.size();
        }
        std::cout << "  group " << g.name << ": " << g.sus.size() << " SUs, " << hosts
                  << " hosts\n";
    }
    std::cout << "leaf uplinks (cables per leaf-switch pair):";
    for (const auto& [cables, pairs] : c.stats.uplink_cables) {
        std::cout << " " << cables << " x " << pairs << " pairs;";
    }
    std::cout << "\n";
    print_nvlink_summary(m);
    const auto blocks = slurmconf::block_layout(m);
    if (blocks.base == 0) {
        print_anomalies(m.anomalies);
        return;
    }
    std::cout << "block topology: BlockSizes=";
    const auto sizes = slurmconf::layout_sizes(blocks);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        std::cout << (i > 0 ? "," : "") << sizes[i];
    }
    const std::string base = m.domains.empty() ? "one SU" : "one NVLink domain";
    if (blocks.su > 0 && blocks.group > 0) {
        std::cout << " (a base block is " << base << ", aggregated blocks one SU and one group)";
    } else if (blocks.su > 0) {
        std::cout << " (a base block is " << base << ", an aggregated block one SU)";
    } else if (blocks.group > 0) {
        std::cout << " (a base block is " << base << ", an aggregated block one group)";
    } else {
        std::cout << " (a base block is " << base << ")";
    }
    std::cout << "\n";
    for (const auto& note : blocks.notes) {
        std::cout << "  note: " << note << "\n";
    }
    print_anomalies(m.anomalies);
}

/// The graph of an --lldp directory: every file read and parsed on up to four threads, and
/// added on this one in name order (a file keeps only its cables once added). At most
/// kLldpWindow parsed files wait for their turn.
Result<discover::FabricGraph> read_lldp(
    const std::string& dir,
    const std::map<std::string, std::string, std::less<>>& names,
    const std::vector<std::string>& hosts,
    const RdmaDevices* rdma_devices) {
    constexpr std::size_t kLldpWindow = 64;
    discover::LldpOptions opt;
    opt.names = &names;
    opt.hosts = hosts.empty() ? nullptr : &hosts;
    opt.rdma_devices = rdma_devices;
    const auto paths = list_dir_files(dir, "--lldp", "", "lldpctl outputs (one per host or switch)",
                                      discover::kMaxLldpFiles);
    if (!paths) {
        return fail(paths.error());
    }
    if (paths->empty()) {
        return fail(Error::invalid_argument("--lldp " + dir +
                                            ": no file; expected lldpctl outputs (one per host "
                                            "or switch)"));
    }
    discover::LldpFabric fabric(opt);
    std::vector<std::optional<Result<discover::LldpFile>>> parsed(kLldpWindow);
    const auto threads = std::clamp(std::thread::hardware_concurrency(), 1U, 4U);
    auto ok = ordered_pipeline(
        paths->size(), threads, kLldpWindow,
        [&](std::size_t i) {
            const auto& path = (*paths)[i];
            auto text = read_input(path, kSmallInput);
            parsed[i % kLldpWindow] = text ? discover::parse_lldp(*text, path)
                                           : Result<discover::LldpFile>(fail(text.error()));
        },
        [&](std::size_t i) -> Result<void> {
            auto& f = *parsed[i % kLldpWindow];
            if (!f) {
                return fail(f.error());
            }
            fabric.add(std::move(*f));
            parsed[i % kLldpWindow].reset();
            return {};
        });
    if (!ok) {
        return fail(ok.error());
    }
    return fabric.finish();
}

int run_discover(const DiscoverArgs& a) {
    auto topologies = hint_topologies(a);
    if (!topologies) {
        std::cerr << "switchyard discover: " << topologies.error().to_string() << "\n";
        return topologies.error().code() == ErrorCode::InvalidArgument ? kExitUsage : kExitProblem;
    }
    const std::string input = a.lldp.empty() ? a.input : a.lldp;
    const std::string source = input == "-" ? "<stdin>" : input;
    // Summary and file headers name the input by its file name: the same dump gives the same
    // files wherever it was read from.
    const std::string label = input == "-" ? source
                                           : std::filesystem::path(input).filename().string() +
                                                 (a.lldp.empty() ? "" : " (LLDP)");
    std::vector<std::string> expected;
    if (!a.expect_hosts.empty()) {
        auto names = expand_hostlist(a.expect_hosts);
        if (!names) {
            std::cerr << "switchyard discover: --expect-hosts: " << names.error().message() << "\n";
            return kExitUsage;
        }
        expected = std::move(*names);
    }
    discover::ClassifyOptions opt;
    discover::GuidMap guid_map;
    std::map<std::string, std::string, std::less<>> lldp_names;
    if (!a.guid_map.empty()) {
        auto gm_text = read_input(a.guid_map, kSmallInput);
        auto gm = gm_text ? discover::parse_guid_map(*gm_text, a.guid_map)
                          : Result<discover::GuidMap>(fail(gm_text.error()));
        if (!gm) {
            std::cerr << "switchyard discover: --guid-map: " << gm.error().to_string() << "\n";
            return kExitProblem;
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
    HostFacts facts;
    if (!a.node_facts.empty()) {
        auto f = read_facts(a.node_facts, !a.lldp.empty());
        if (!f) {
            std::cerr << "switchyard discover: --node-facts: " << f.error().to_string() << "\n";
            return kExitProblem;
        }
        facts = std::move(*f);
    }
    fabric::FabricMap previous;
    if (!a.previous_map.empty()) {
        auto text = read_input(a.previous_map, kFabricInput);
        auto map = text ? fabric::read_fabric_map(*text, a.previous_map)
                        : Result<fabric::FabricMap>(fail(text.error()));
        if (!map) {
            std::cerr << "switchyard discover: --previous-map: " << map.error().to_string() << "\n";
            return kExitProblem;
        }
        previous = std::move(*map);
    }
    auto graph = [&]() -> Result<discover::FabricGraph> {
        if (!a.lldp.empty()) {
            return read_lldp(a.lldp, lldp_names, expected,
                             a.node_facts.empty() ? nullptr : &facts.devices);
        }
        auto text = InputText::open(a.input, kDumpInput);
        if (!text) {
            return fail(text.error());
        }
        return discover::parse_ibnetdiscover(text->text(), source);
    }();  // the dump is unmapped (or freed) here: the graph holds copies of what it needs
    if (!graph) {
        std::cerr << "switchyard discover: " << graph.error().to_string() << "\n";
        return kExitProblem;
    }
    discover::ExpectedCabling cabling;
    if (!a.expect_cabling.empty()) {
        auto text = read_input(a.expect_cabling, kSmallInput);
        auto parsed = text ? discover::parse_expected_cabling(*text, a.expect_cabling)
                           : Result<discover::ExpectedCabling>(fail(text.error()));
        if (!parsed) {
            std::cerr << "switchyard discover: --expect-cabling: " << parsed.error().to_string()
                      << "\n";
            return kExitProblem;
        }
        cabling = *parsed;
        opt.expected_cabling = &cabling;
    }
    if (!a.compute_hca.empty()) {
        auto pattern = Pattern::compile(a.compute_hca);
        if (!pattern) {
            std::cerr << "switchyard discover: --compute-hca: " << pattern.error().message()
                      << "\n";
            return kExitUsage;
        }
        opt.compute_hca = [p = std::move(*pattern)](std::string_view hca) {
            return p.matches(hca);
        };
    }
    if (!a.expect_hosts.empty()) {
        opt.expected_hosts = &expected;
    }
    auto c = discover::classify(*graph, opt);
    if (opt.expected_hosts != nullptr) {
        (void)discover::check_expected_hosts(c.map, expected);
    }
    for (const auto& w : graph->warnings) {
        c.map.anomalies.push_back(
            {w.kind, w.where.source.empty() ? w.message : w.where.to_string() + ": " + w.message});
    }
    discover::assign_nvlink_domains(
        c.map, facts.nvlink, {a.expect_nvl_size, a.previous_map.empty() ? nullptr : &previous});
    print_summary(c, label);
    if (c.map.hosts.empty()) {
        std::cerr << "switchyard discover: no compute host is attached to a switch in " << source
                  << "; nothing written\n";
        return kExitProblem;
    }
    std::error_code ec;
    std::filesystem::create_directories(a.out_dir, ec);
    if (ec) {
        std::cerr << "switchyard discover: cannot create '" << a.out_dir << "': " << ec.message()
                  << "\n";
        return kExitProblem;
    }
    const std::string header = "Written by switchyard " SWITCHYARD_VERSION_STRING
                               " discover from " +
                               label + ".\nRegenerate instead of editing: switchyard discover.";
    std::cout << "slurm topologies (for the Lua filters): cluster default "
              << topologies->default_kind;
    for (const auto& [name, kind] : topologies->partitions) {
        std::cout << ", partition " << name << " " << kind;
    }
    if (!topologies->default_partition.empty()) {
        std::cout << "; default partition " << topologies->default_partition;
    }
    std::cout << "\n";
    auto files = slurmconf::write_discover_files(
        c.map, "written by switchyard " SWITCHYARD_VERSION_STRING " discover from " + label, header,
        *topologies);
    if (!files) {
        std::cerr << "switchyard discover: fabric.map.index: " << files.error().to_string() << "\n";
        return kExitProblem;
    }
    if (!a.slurm_nodes.empty()) {
        auto site = read_input(a.slurm_nodes, kSmallInput);
        auto merged = site ? slurmconf::merge_node_features(*site, a.slurm_nodes, c.map, header)
                           : Result<slurmconf::NodesConf>(fail(site.error()));
        if (!merged) {
            std::cerr << "switchyard discover: --slurm-nodes: " << merged.error().to_string()
                      << "\n";
            return kExitProblem;
        }
        std::cout << "nodes.conf: " << merged->site_lines << " NodeName lines of " << a.slurm_nodes
                  << " -> " << merged->lines << ", " << merged->hosts << " hosts ("
                  << merged->outside << " not in the fabric, unchanged)\n";
        files->push_back({std::string(slurmconf::kDiscoverFiles[8]), std::move(merged->text)});
    }
    std::cout << "wrote:";
    for (const auto& [name, content] : *files) {
        const auto path = (std::filesystem::path(a.out_dir) / name).string();
        if (auto r = write_file_atomic(path, content); !r) {
            std::cerr << "\nswitchyard discover: " << r.error().to_string() << "\n";
            return kExitProblem;
        }
        std::cout << " " << name;
    }
    std::cout << " (in " << a.out_dir << ")\n";
    keep_until_exit(std::move(*graph));
    keep_until_exit(std::move(c));
    keep_until_exit(std::move(*files));
    return kExitOk;
}

}  // namespace

void setup_discover(CLI::App& cmd, Runner& run) {
    auto args = std::make_shared<DiscoverArgs>();
    cmd.footer(
        "\nExamples:\n"
        "  ibnetdiscover > fabric.txt && switchyard discover --ibnetdiscover fabric.txt -o out/\n"
        "  switchyard discover --ibnetdiscover fabric.txt --guid-map guids.txt "
        "--compute-hca 'mlx5_[0-7]' -o /etc/slurm/switchyard\n"
        "  switchyard discover --ibnetdiscover fabric.txt --topology-plugin block -o out/\n"
        "  switchyard discover --ibnetdiscover fabric.txt --partition-topology gpu=blocks -o out/\n"
        "  switchyard discover --ibnetdiscover fabric.txt --partition-topology slurm -o out/\n"
        "  switchyard discover --lldp lldp/ -o out/    (RoCE: one lldpctl output per system)\n");
    auto* ib = cmd.add_option("--ibnetdiscover", args->input,
                              "ibnetdiscover output (default or -p format); - for stdin");
    auto* lldp = cmd.add_option(
        "--lldp", args->lldp,
        "an Ethernet (RoCE) fabric instead: a directory of lldpctl outputs, one per host or "
        "switch ('lldpcli -f json show chassis' then 'lldpctl -f json'; json0 and keyvalue "
        "read too)");
    ib->excludes(lldp);
    lldp->excludes(ib);
    cmd.add_option("--node-facts", args->node_facts,
                   "a directory of `switchyard node --json` outputs, <host>.json, or a file of "
                   "`switchyard node --nvlink-only --line` lines: each host's NVLink domain "
                   "(GB200/GB300 NVL72 racks: the level below the SU, one block "
                   "each) and, with --lldp, each host port's RDMA device (mlx5_0) instead of its "
                   "net device (eth0)");
    cmd.add_option("--expect-nvl-size", args->expect_nvl_size,
                   "hosts per NVLink domain by design (18 for an NVL72 rack of 4-GPU trays): "
                   "each domain of another size is reported")
        ->check(CLI::Range(1U, 4096U));
    cmd.add_option("--previous-map", args->previous_map,
                   "the fabric.map installed before: NVLink domains keep their block positions, "
                   "and a rack that reports nothing keeps its block (a placeholder of its hosts)");
    cmd.add_option("--guid-map", args->guid_map,
                   "lines '<guid> <host> [<hca>]', or '<guid> \"<host> [<hca>]\"' as in a "
                   "--node-name-map file, naming HCAs whose description names no host; with "
                   "--lldp, '<mac> <name>' names a system by its chassis id");
    cmd.add_option(
        "--compute-hca", args->compute_hca,
        "regular expression of compute HCA names, e.g. 'mlx5_[0-7]'; others are left out");
    cmd.add_option("--expect-hosts", args->expect_hosts,
                   "the hosts the fabric should hold, as a Slurm hostlist (e.g. the NodeName "
                   "list of slurm.conf): each one without an HCA in the fabric is reported");
    cmd.add_option("--expect-cabling", args->expect_cabling,
                   "the cable counts the fabric's design gives, lines 'leaf-spine-cables N' "
                   "(per leaf and spine) and 'global-cables N' (per Dragonfly+ group pair); "
                   "without it, the largest count that many pairs have");
    cmd.add_option("-o,--output", args->out_dir, "directory for fabric.map and the Slurm files")
        ->required();
    cmd.add_option("--topology-plugin", args->topology_plugin,
                   "the topology the cluster runs by default: tree (topology.conf; --switches), "
                   "block (topology-block.conf installed as topology.conf, Slurm 24.05+; "
                   "--segment) or flat; told to the Lua filters through job_submit_hints.lua")
        ->check(CLI::IsMember({"tree", "block", "flat"}))
        ->default_str("tree")
        ->each([args](const std::string&) { args->topology_plugin_given = true; });
    cmd.add_option("--partition-topology", args->partition_topology,
                   "partitions that run another topology (Slurm 25.05+ topology.yaml, partition "
                   "Topology=): PART=TOPO[,...] with TOPO tree, block, flat, other, or a name of "
                   "discover's topology.yaml (fabric, blocks); or 'slurm' to ask slurmctld "
                   "(scontrol, with your SLURM_CONF)");
    cmd.add_option("--slurm-nodes", args->slurm_nodes,
                   "the site's NodeName lines (slurm.conf, or the file it keeps them in): also "
                   "write nodes.conf, those lines with each host's SU and group features, for "
                   "slurm.conf to Include in their place (features there survive any restart)");
    cmd.add_option("--default-partition", args->default_partition,
                   "the partition a job without -p runs in (job_submit.lua asks slurmctld; "
                   "cli_filter.lua reads it from the hints)");
    cmd.callback([&run, args] {
        if (args->input.empty() && args->lldp.empty()) {
            throw CLI::RequiredError("--ibnetdiscover or --lldp");
        }
        run = [args] { return run_discover(*args); };
    });
}

}  // namespace switchyard::cli
