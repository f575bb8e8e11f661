// SPDX-License-Identifier: Apache-2.0
// `switchyard fabric show` and `fabric diff` (ops/fabric.hpp).
#include "switchyard/ops/fabric.hpp"

#include <nlohmann/json.hpp>
#include <ostream>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/ops/inputs.hpp"

namespace switchyard::ops {
namespace {

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

void print_text(const fabric::FabricMap& m, std::ostream& out) {
    out << "fabric: " << fabric::to_string(m.kind) << ", " << m.tiers << " tiers, "
        << m.groups.size() << " groups, " << m.sus.size() << " scalable units, " << m.hosts.size()
        << " hosts, " << m.anomalies.size() << " anomalies\n";
    for (const auto& g : m.groups) {
        out << "group " << g.name << "\n";
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
            out << "  su " << su.name << ": " << su.hosts.size() << " hosts "
                << compress_hostlist(hosts) << "; leaves " << compress_hostlist(leaves) << "\n";
        }
    }
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

}  // namespace

FabricShowReport run_fabric_show(const FabricRequest& a, Deps& /*deps*/) {
    FabricShowReport r;
    auto map = load_fabric_map(a.map);
    if (!map) {
        r.rc = kExitProblem;
        r.error = map.error().to_string();
        return r;
    }
    r.map = std::move(*map);
    return r;
}

FabricDiffReport run_fabric_diff(const FabricRequest& a, Deps& /*deps*/) {
    FabricDiffReport r;
    auto before = load_fabric_map(a.before);
    auto after =
        before ? load_fabric_map(a.after) : Result<fabric::FabricMap>(fail(before.error()));
    if (!after) {
        r.rc = kExitProblem;
        r.error = after.error().to_string();
        return r;
    }
    r.diff = fabric::compare_maps(*before, *after);
    r.rc = r.diff->changed() ? kExitChanged : kExitOk;
    return r;
}

void print_fabric_show(const FabricRequest& a,
                       const FabricShowReport& r,
                       std::ostream& out,
                       std::ostream& err) {
    if (!r.error.empty()) {
        err << "switchyard fabric show: " << r.error << "\n";
    } else if (a.json) {
        out << to_json(*r.map).dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
            << "\n";
    } else {
        print_text(*r.map, out);
    }
}

void print_fabric_diff(const FabricRequest& a,
                       const FabricDiffReport& r,
                       std::ostream& out,
                       std::ostream& err) {
    if (!r.error.empty()) {
        err << "switchyard fabric diff: " << r.error << "\n";
    } else if (a.json) {
        out << to_json(*r.diff).dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
            << "\n";
    } else {
        out << format_diff(*r.diff);
    }
}

}  // namespace switchyard::ops
