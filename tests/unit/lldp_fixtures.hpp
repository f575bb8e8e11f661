// SPDX-License-Identifier: Apache-2.0
// What the LLDP reader's tests share: the real captures and a file's error as text.
#pragma once

#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "switchyard/discover/lldp/lldp.hpp"

namespace switchyard::discover::test {

/// A file of tests/data/lldp/clos-variant (real lldpd output).
inline std::string capture(const std::string& name) {
    std::ifstream in(std::string(SWITCHYARD_SOURCE_DIR) + "/tests/data/lldp/clos-variant/" + name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/// parse_lldp's error for `text` read as x.json, or "parsed".
inline std::string error_of(std::string_view text) {
    auto r = parse_lldp(text, "x.json");
    return r ? std::string("parsed") : r.error().to_string();
}

inline LldpChassis chassis(std::string name, std::string mac, bool bridge) {
    LldpChassis c;
    c.name = std::move(name);
    c.id = std::move(mac);
    c.id_type = "mac";
    c.caps_known = true;
    c.bridge = bridge;
    c.station = !bridge;
    return c;
}

/// A file of `self` whose ports see (port, far system, far port) — far systems are switches
/// when their name starts with "leaf" or "spine".
inline LldpFile file(const std::string& self,
                     std::vector<std::tuple<std::string, std::string, std::string>> sees,
                     bool with_local = true) {
    auto is_switch = [](const std::string& n) {
        return n.starts_with("leaf") || n.starts_with("spine") || n.starts_with("mgmt");
    };
    auto mac = [](const std::string& n) {
        char buf[18];
        std::snprintf(buf, sizeof buf, "02:00:00:00:%02x:%02x",
                      static_cast<unsigned>(std::hash<std::string>{}(n)&0xffU),
                      static_cast<unsigned>(n.size()));
        return std::string(buf);
    };
    LldpFile f;
    f.source = self + ".json";
    if (with_local) {
        f.local = chassis(self, mac(self), is_switch(self));
    }
    std::uint32_t line = 10;
    for (auto& [port, far, far_port] : sees) {
        LldpNeighbor n;
        n.local_port = port;
        n.chassis = chassis(far, mac(far), is_switch(far));
        n.port_id = far_port;
        n.port_id_type = "ifname";
        n.line = line += 10;
        f.neighbors.push_back(n);
    }
    return f;
}

inline std::vector<std::string> kinds(const FabricGraph& g) {
    std::vector<std::string> k;
    for (const auto& w : g.warnings) {
        k.push_back(w.kind);
    }
    return k;
}

inline std::string message(const FabricGraph& g, std::string_view kind) {
    for (const auto& w : g.warnings) {
        if (w.kind == kind) {
            return w.where.to_string() + ": " + w.message;
        }
    }
    return "";
}

}  // namespace switchyard::discover::test
