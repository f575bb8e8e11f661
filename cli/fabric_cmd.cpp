// SPDX-License-Identifier: Apache-2.0
// `switchyard fabric show`: the fabric map as text or JSON.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "io.hpp"
#include "switchyard/common/hostlist.hpp"
#include "switchyard/topology/fabric_map.hpp"

namespace switchyard::cli {
namespace {

namespace topo = switchyard::topology;

struct FabricArgs {
    std::string map;
    bool json = false;
};

nlohmann::json to_json(const topo::FabricMap& m) {
    using nlohmann::json;
    json out{{"kind", topo::to_string(m.kind)}, {"tiers", m.tiers}};
    auto& hosts = out["hosts"] = json::array();
    for (const auto& h : m.hosts) {
        json leaves = json::array();
        for (const auto& r : m.rails_of(h)) {
            leaves.push_back(
                {{"hca", m.hcas[r.hca]}, {"leaf", m.switches[r.leaf].name}, {"cables", r.cables}});
        }
        const auto& su = m.sus[h.su];
        hosts.push_back({{"host", h.name},
                         {"su", su.name},
                         {"group", m.groups[su.group].name},
                         {"leaves", std::move(leaves)}});
    }
    auto& sus = out["sus"] = json::array();
    for (const auto& su : m.sus) {
        json leaves = json::array();
        for (const auto l : su.leaves) {
            leaves.push_back(m.switches[l].name);
        }
        json names = json::array();
        for (const auto h : su.hosts) {
            names.push_back(m.hosts[h].name);
        }
        sus.push_back({{"name", su.name},
                       {"group", m.groups[su.group].name},
                       {"leaves", std::move(leaves)},
                       {"hosts", std::move(names)}});
    }
    auto& groups = out["groups"] = json::array();
    for (const auto& g : m.groups) {
        json names = json::array();
        for (const auto s : g.sus) {
            names.push_back(m.sus[s].name);
        }
        groups.push_back({{"name", g.name}, {"sus", std::move(names)}});
    }
    auto& switches = out["switches"] = json::array();
    for (const auto& s : m.switches) {
        switches.push_back({{"name", s.name}, {"guid", s.guid}, {"tier", s.tier}});
    }
    auto& anomalies = out["anomalies"] = json::array();
    for (const auto& a : m.anomalies) {
        anomalies.push_back({{"kind", a.kind}, {"detail", a.detail}});
    }
    return out;
}

void print_text(const topo::FabricMap& m) {
    std::cout << "fabric: " << topo::to_string(m.kind) << ", " << m.tiers << " tiers, "
              << m.groups.size() << " groups, " << m.sus.size() << " scalable units, "
              << m.hosts.size() << " hosts, " << m.anomalies.size() << " anomalies\n";
    for (const auto& g : m.groups) {
        std::cout << "group " << g.name << "\n";
        for (const auto s : g.sus) {
            const auto& su = m.sus[s];
            std::vector<std::string> hosts;
            for (const auto h : su.hosts) {
                hosts.push_back(m.hosts[h].name);
            }
            std::vector<std::string> leaves;
            for (const auto l : su.leaves) {
                leaves.push_back(m.switches[l].name);
            }
            std::cout << "  su " << su.name << ": " << su.hosts.size() << " hosts "
                      << compress_hostlist(hosts) << "; leaves " << compress_hostlist(leaves)
                      << "\n";
        }
    }
}

int run_fabric_show(const FabricArgs& a) {
    auto map = load_fabric_map(a.map);
    if (!map) {
        std::cerr << "switchyard fabric show: " << map.error().to_string() << "\n";
        return kExitProblem;
    }
    if (a.json) {
        std::cout << to_json(*map).dump(1) << "\n";
    } else {
        print_text(*map);
    }
    return kExitOk;
}

}  // namespace

void setup_fabric(CLI::App& cmd, Runner& run) {
    cmd.require_subcommand(1, 1);
    cmd.footer("\nExamples:\n  switchyard fabric show --map /etc/slurm/switchyard/fabric.map\n");
    auto args = std::make_shared<FabricArgs>();
    auto* show =
        cmd.add_subcommand("show", "print the groups, scalable units and hosts of a fabric map");
    show->footer(
        "\nExamples:\n  switchyard fabric show --map /etc/slurm/switchyard/fabric.map\n"
        "  switchyard fabric show --map fabric.map --json | jq '.hosts[0]'\n");
    show->add_option("--map", args->map, "fabric map written by 'switchyard discover'")->required();
    show->add_flag("--json", args->json, "JSON: hosts, sus, groups, switches, anomalies");
    show->callback([&run, args] { run = [args] { return run_fabric_show(*args); }; });
}

}  // namespace switchyard::cli
