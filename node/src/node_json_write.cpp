// SPDX-License-Identifier: Apache-2.0
// `switchyard node`'s JSON: the node document and the NVLink-only forms.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "switchyard/node/node_json.hpp"

namespace switchyard::node {
namespace {

/// The PCIe ancestry, root port first, as "busid [vendor:device]".
nlohmann::json pcie(const PciPlace& p) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& h : p.above) {
        char ids[24];
        std::snprintf(ids, sizeof ids, " [%04x:%04x]", h.vendor, h.device);
        out.push_back(h.busid + ids);
    }
    return out;
}

nlohmann::json nvlink_object(const NvlinkView& v) {
    using nlohmann::json;
    json gpus = json::array();
    for (const auto& g : v.facts.gpus) {
        json one{{"index", g.index}, {"uuid", g.uuid}};
        if (!g.error.empty()) {
            one["error"] = g.error;
        }
        if (g.fabric) {
            const auto& f = *g.fabric;
            one["fabric"] = {{"state", to_string(f.state)},
                             {"cluster_uuid", f.cluster_uuid},
                             {"clique", f.clique},
                             {"status", f.status},
                             {"health_mask", f.health_mask ? json(*f.health_mask) : json()},
                             {"health", f.health_mask ? fabric_health_problems(*f.health_mask)
                                                      : std::vector<std::string>{}}};
        }
        gpus.push_back(std::move(one));
    }
    return {{"multi_node", v.node.multi_node},
            {"domain", v.node.domain},
            {"state", to_string(v.node.state)},
            {"healthy", v.node.healthy},
            {"problems", v.node.problems},
            {"gpus", std::move(gpus)},
            {"note", v.note}};
}

nlohmann::json node_object(const NodeTopology& n,
                           const std::string& verbs,
                           const LldpView& lldp,
                           const NvlinkView& nvlink) {
    using nlohmann::json;
    json out{{"shape", n.shape}, {"verbs", verbs}};
    auto& numa = out["numa"] = json::array();
    for (const auto& m : n.numa) {
        numa.push_back({{"node", m.os_index}, {"cpus", m.cpus}});
    }
    auto& gpus = out["gpus"] = json::array();
    for (const auto& g : n.gpus) {
        gpus.push_back({{"index", g.index},
                        {"pci", g.place.busid},
                        {"vendor", g.vendor},
                        {"model", g.model},
                        {"numa", g.place.numa},
                        {"osdevs", g.osdevs},
                        {"nearest_nics", nearest_nics(n, g.index)},
                        {"host_bridge", g.place.host_bridge},
                        {"pcie", pcie(g.place)}});
    }
    auto& nics = out["nics"] = json::array();
    for (const auto& c : n.nics) {
        json ports = json::array();
        for (const auto& p : c.ports) {
            json gids = json::array();
            for (const auto& g : p.gids) {
                gids.push_back(
                    {{"index", g.index}, {"gid", g.gid}, {"type", g.type}, {"ndev", g.ndev}});
            }
            json seen = json::array();
            for (const auto& pn : lldp.ports) {
                if (pn.nic == c.name && pn.port == p.port) {
                    seen.push_back({{"netdev", pn.netdev},
                                    {"system", pn.system},
                                    {"chassis_id", pn.chassis_id},
                                    {"port_id", pn.port_id},
                                    {"port_descr", pn.port_descr}});
                }
            }
            ports.push_back({{"port", p.port},
                             {"state", p.state},
                             {"phys_state", p.phys_state},
                             {"rate_gbps", p.rate_gbps},
                             {"link_layer", p.link_layer},
                             {"lid", p.lid},
                             {"gids", std::move(gids)},
                             {"counters", p.counters}});
            if (lldp.asked) {
                ports.back()["lldp"] = std::move(seen);
            }
        }
        nics.push_back({{"name", c.name},
                        {"kind", c.kind},
                        {"pci", c.place.busid},
                        {"numa", c.place.numa},
                        {"netdevs", c.netdevs},
                        {"node_guid", c.node_guid},
                        {"ports", std::move(ports)}});
    }
    auto& paths = out["paths"] = json::array();
    for (const auto& p : n.paths) {
        paths.push_back({{"gpu", p.gpu},
                         {"nic", p.nic},
                         {"type", to_string(p.type)},
                         {"nccl", nccl_name(p.type)}});
    }
    if (lldp.asked) {
        out["lldp_note"] = lldp.note;
    }
    if (nvlink.asked) {
        out["nvlink"] = nvlink_object(nvlink);
    }
    auto& warnings = out["warnings"] = json::array();
    for (const auto& w : n.warnings) {
        warnings.push_back({{"kind", w.kind}, {"path", w.where.source}, {"detail", w.message}});
    }
    return out;
}

}  // namespace

std::string node_json(const NodeTopology& n,
                      const std::string& verbs,
                      const LldpView& lldp,
                      const NvlinkView& nvlink) {
    return node_object(n, verbs, lldp, nvlink)
        .dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string nvlink_json(const NvlinkView& v) {
    return nlohmann::json{{"nvlink", nvlink_object(v)}}.dump(
        1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string nvlink_line(const std::string& host, const NvlinkView& v) {
    const auto& n = v.node;
    return nlohmann::json{{"host", host},
                          {"nvlink",
                           {{"multi_node", n.multi_node},
                            {"domain", n.domain},
                            {"state", to_string(n.state)},
                            {"healthy", n.healthy},
                            {"problems", n.problems},
                            {"note", v.note}}}}
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace switchyard::node
