// SPDX-License-Identifier: Apache-2.0
// `switchyard fabric show`: the fabric map as text or JSON.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "switchyard/common/hostlist.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/fabric/map_diff.hpp"
#include "switchyard/ops/inputs.hpp"

namespace switchyard::cli {

using ops::load_fabric_map;
using ops::read_json_dir;
using ops::short_hostname;
namespace {

struct FabricArgs {
    std::string map;
    bool json = false;
    std::string before;
    std::string after;
};

nlohmann::json to_json(const fabric::FabricMap& m) {
    using nlohmann::json;
    json out{{"kind", fabric::to_string(m.kind)}, {"tiers", m.tiers}};
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

void print_text(const fabric::FabricMap& m) {
    std::cout << "fabric: " << fabric::to_string(m.kind) << ", " << m.tiers << " tiers, "
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
        std::cout << to_json(*map).dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
    } else {
        print_text(*map);
    }
    return kExitOk;
}

nlohmann::json to_json(const fabric::MapDiff& d) {
    using nlohmann::json;
    json moved = json::array();
    for (const auto& m : d.hosts_moved) {
        moved.push_back({{"host", m.host},
                         {"from_su", m.from_su},
                         {"to_su", m.to_su},
                         {"from_group", m.from_group},
                         {"to_group", m.to_group}});
    }
    json cables = json::array();
    for (const auto& c : d.cables) {
        cables.push_back({{"where", c.where}, {"before", c.before}, {"after", c.after}});
    }
    return {{"changed", d.changed()},
            {"kind", {{"before", d.kind_before}, {"after", d.kind_after}}},
            {"hosts", {{"before", d.hosts_before}, {"after", d.hosts_after}}},
            {"hosts_added", d.hosts_added},
            {"hosts_removed", d.hosts_removed},
            {"hosts_moved", moved},
            {"sus_added", d.sus_added},
            {"sus_removed", d.sus_removed},
            {"groups_added", d.groups_added},
            {"groups_removed", d.groups_removed},
            {"cables", cables},
            {"anomalies_new", d.anomalies_new},
            {"anomalies_resolved", d.anomalies_resolved}};
}

int run_fabric_diff(const FabricArgs& a) {
    auto before = load_fabric_map(a.before);
    auto after =
        before ? load_fabric_map(a.after) : Result<fabric::FabricMap>(fail(before.error()));
    if (!after) {
        std::cerr << "switchyard fabric diff: " << after.error().to_string() << "\n";
        return kExitProblem;
    }
    const auto d = fabric::compare_maps(*before, *after);
    if (a.json) {
        std::cout << to_json(d).dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
    } else {
        std::cout << format_diff(d);
    }
    return d.changed() ? kExitChanged : kExitOk;
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
    auto* diff = cmd.add_subcommand(
        "diff", "what changed between two fabric maps (exit 0: nothing, 3: changed, 1: error)");
    diff->footer(
        "\nExamples:\n  switchyard fabric diff /etc/slurm/switchyard/fabric.map new/fabric.map\n"
        "  switchyard fabric diff old.map new.map --json | jq '.hosts_moved'\n");
    diff->add_option("before", args->before, "the installed map")->required();
    diff->add_option("after", args->after, "the new map (a later discover)")->required();
    diff->add_flag("--json", args->json,
                   "JSON: hosts added, removed and moved; SUs and groups; cables; anomalies");
    diff->callback([&run, args] { run = [args] { return run_fabric_diff(*args); }; });
}

}  // namespace switchyard::cli
