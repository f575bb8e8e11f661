// SPDX-License-Identifier: Apache-2.0
// `ibnetdiscover -p` port lists → FabricGraph.
#include <unordered_map>
#include <vector>

#include "ibnetdiscover_text.hpp"
#include "switchyard/fabric/guid.hpp"

namespace switchyard::discover::ibnet {

using fabric::format_guid;
using fabric::parse_guid;

/// `ibnetdiscover -p`: one line per port, "CA lid port guid width speed - SW lid port guid (...)".
Result<FabricGraph> parse_port_list(std::string_view text, std::string_view source) {
    FabricGraph g;
    std::unordered_map<std::uint64_t, NodeIndex> by_guid;
    auto node_for = [&](NodeKind kind, std::uint64_t guid, std::string_view desc,
                        std::uint32_t line) -> NodeIndex {
        auto [it, inserted] = by_guid.try_emplace(guid, static_cast<NodeIndex>(g.nodes.size()));
        if (inserted) {
            FabricNode node;
            node.kind = kind;
            node.guid = guid;
            node.id = std::string(kind == NodeKind::Switch ? "S-"
                                  : kind == NodeKind::Ca   ? "H-"
                                                           : "R-") +
                      format_guid(guid).substr(2);
            node.desc = std::string(desc);
            node.line = line;
            g.nodes.push_back(std::move(node));
        } else if (g.nodes[it->second].desc.empty()) {
            g.nodes[it->second].desc = std::string(desc);
        }
        return it->second;
    };
    auto kind_of = [](std::string_view w) { return kind_named(w, {"SW", "CA", "RT"}); };
    struct Half {
        NodeIndex node;
        std::uint32_t port;
        std::uint64_t remote_guid;
        std::uint32_t remote_port;
        std::uint32_t line;
    };
    std::vector<Half> halves;
    ForeignLines foreign;
    Lines lines(text);
    std::string_view t;
    while (lines.next_content(t)) {
        const auto n = lines.number();
        if (!t.starts_with("CA ") && !t.starts_with("SW ") && !t.starts_with("RT ") &&
            foreign_line(t)) {
            foreign.skip(n);
            continue;
        }
        Cursor c{t};
        const auto kind = then(c.word(), kind_of);
        const auto lid = c.number();
        const auto port = c.number();
        const auto guid = then(c.word(), [](std::string_view w) { return parse_guid(w); });
        const auto width = c.word();
        const auto speed = c.word();
        if (!kind || !lid || !port || !guid || !width || !speed) {
            return error_at(source, n,
                            "expected '<CA|SW|RT> <lid> <port> <guid> <width> <speed> ...', got " +
                                quote_line(t));
        }
        if (c.eat('-')) {
            const auto rkind = then(c.word(), kind_of);
            const auto rlid = c.number();
            const auto rport = c.number();
            const auto rguid = then(c.word(), [](std::string_view w) { return parse_guid(w); });
            std::string_view ldesc;
            std::string_view rdesc;
            if (c.eat('(')) {
                ldesc = c.quoted('\'').value_or("");
                c.eat('-');
                rdesc = c.quoted('\'').value_or("");
            }
            if (!rkind || !rlid || !rport || !rguid) {
                return error_at(source, n,
                                "expected '- <CA|SW|RT> <lid> <port> <guid>' after the "
                                "local port, got " +
                                    quote_line(t));
            }
            const auto local = node_for(*kind, *guid, ldesc, n);
            node_for(*rkind, *rguid, rdesc, n);
            halves.push_back({local, *port, *rguid, *rport, n});
        } else {
            node_for(*kind, *guid, c.quoted('\'').value_or(""), n);  // unconnected port
        }
    }
    if (g.nodes.empty()) {
        return error_at(source, lines.number(),
                        "no port lines found; is this 'ibnetdiscover -p' output?");
    }
    for (const auto& h : halves) {
        auto& node = g.nodes[h.node];
        for (const auto& p : node.ports) {
            if (p.port == h.port) {
                return error_at(source, h.line,
                                "port " + std::to_string(h.port) + " of " + format_guid(node.guid) +
                                    " already listed on line " + std::to_string(p.line));
            }
        }
        node.ports.push_back({h.port, by_guid.at(h.remote_guid), h.remote_port, h.line, 0});
    }
    for (auto& node : g.nodes) {
        for (const auto& p : node.ports) {
            node.nports = std::max(node.nports, p.port);
        }
    }
    check_symmetry(g, source);
    foreign.report(g, source);
    return g;
}

bool looks_like_port_list(std::string_view text) {
    Lines lines(text);
    std::string_view t;
    while (lines.next_content(t)) {
        if (!foreign_line(t)) {
            return t.starts_with("CA ") || t.starts_with("SW ") || t.starts_with("RT ");
        }
    }
    return false;
}

}  // namespace switchyard::discover::ibnet
