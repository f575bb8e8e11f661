// SPDX-License-Identifier: Apache-2.0
// ibnetdiscover text → FabricGraph: the default record format and the -p port list
// (infiniband-diags 44; grammar in reference/fabric.md section 1).
#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <span>
#include <tuple>
#include <unordered_map>

#include "ibnetdiscover_text.hpp"

namespace switchyard::topology {
namespace ibnet {

void check_symmetry(FabricGraph& g, std::string_view source) {
    const auto by_port = [](const FabricPort& a, const FabricPort& b) { return a.port < b.port; };
    for (auto& n : g.nodes) {
        if (!std::is_sorted(n.ports.begin(), n.ports.end(), by_port)) {  // dumps list them in order
            std::sort(n.ports.begin(), n.ports.end(), by_port);
        }
    }
    for (NodeIndex i = 0; i < g.nodes.size(); ++i) {
        for (const auto& p : g.nodes[i].ports) {
            if (p.remote == kNoNode) {
                continue;
            }
            const auto& rports = g.nodes[p.remote].ports;
            const auto it =
                std::lower_bound(rports.begin(), rports.end(), p.remote_port,
                                 [](const FabricPort& a, std::uint32_t v) { return a.port < v; });
            const bool back = it != rports.end() && it->port == p.remote_port && it->remote == i &&
                              it->remote_port == p.port;
            if (!back) {
                g.warnings.push_back({"asymmetric-link", SourceLoc{std::string(source), p.line, 0},
                                      "'" + g.nodes[i].id + "'[" + std::to_string(p.port) +
                                          "] → '" + g.nodes[p.remote].id + "'[" +
                                          std::to_string(p.remote_port) +
                                          "], but that port does not lead back"});
            }
        }
    }
}

}  // namespace ibnet

namespace {

using namespace ibnet;

/// A port line whose remote end is resolved after all records are read.
struct PendingPort {
    NodeIndex node;
    std::size_t port_index;
    std::string_view remote_id;
};

std::optional<NodeKind> header_kind(std::string_view word) {
    return kind_named(word, {"Switch", "Ca", "Rt"});
}

/// GUID carried by an id "S-<hex>" / "H-<hex>" / "R-<hex>", if it has that shape.
std::optional<std::uint64_t> guid_from_id(std::string_view id) {
    if (id.size() > 2 && id[1] == '-') {
        return parse_guid(id.substr(2));
    }
    return std::nullopt;
}

/// Whether `id` is ibnetdiscover's own spelling of a GUID, "S-" / "H-" / "R-" and 16 lower-case
/// hex digits: then two such ids are equal exactly when their letters and GUIDs are.
bool canonical_id(std::string_view id) {
    if (id.size() != 18 || id[1] != '-' || (id[0] != 'S' && id[0] != 'H' && id[0] != 'R')) {
        return false;
    }
    return std::all_of(id.begin() + 2, id.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

/// GUID → node, open addressing over a power-of-two table whose slots hold the GUID and how the
/// node's id is spelled, so that a lookup touches one cache line and not the node (a
/// std::unordered_map of the ids' text, then a check of the node's id, cost a third of the
/// parse at 800k HCAs: three cache misses per cable end).
class GuidTable {
public:
    explicit GuidTable(std::size_t n) {
        std::size_t size = 16;
        while (size < n * 2) {
            size *= 2;
        }
        slots_.assign(size, Slot{});
        mask_ = size - 1;
    }
    /// Inserts node `i`; \return the node already there with its GUID, or kNoNode.
    NodeIndex insert(const FabricNode& node, NodeIndex i) {
        for (auto at = slot(node.guid);; at = (at + 1) & mask_) {
            auto& s = slots_[at];
            if (s.node == kNoNode) {
                s = {node.guid, i, canonical_id(node.id) ? node.id[0] : '\0'};
                all_canonical_ = all_canonical_ && s.letter != '\0';
                return kNoNode;
            }
            if (s.guid == node.guid) {
                return s.node;
            }
        }
    }
    /// The node whose id is `id`, when `id` is canonical and so is that node's; else kNoNode
    /// (the caller looks the text up).
    [[nodiscard]] NodeIndex find_canonical(std::string_view id) const {
        if (!canonical_id(id)) {
            return kNoNode;
        }
        const auto guid = parse_guid(id.substr(2));
        for (auto at = slot(*guid);; at = (at + 1) & mask_) {
            const auto& s = slots_[at];
            if (s.node == kNoNode || s.guid == *guid) {
                return s.letter == id[0] ? s.node : kNoNode;
            }
        }
    }
    /// Whether every node's id is canonical: then an id find_canonical misses names no node.
    [[nodiscard]] bool all_canonical() const { return all_canonical_; }
    void prefetch(std::string_view id) const {
        if (id.size() == 18) {
            if (const auto guid = parse_guid(id.substr(2))) {
                __builtin_prefetch(&slots_[slot(*guid)]);
            }
        }
    }

private:
    struct Slot {
        std::uint64_t guid = 0;
        NodeIndex node = kNoNode;
        char letter = '\0';  ///< the id's letter when the id is canonical, else '\0'
    };
    [[nodiscard]] std::size_t slot(std::uint64_t guid) const {
        return static_cast<std::size_t>((guid * 0x9E3779B97F4A7C15ULL) >> 20U) & mask_;
    }
    std::vector<Slot> slots_;
    std::size_t mask_ = 0;
    bool all_canonical_ = true;
};

/// Refuses a GUID used by two records (naming both lines); \return the table of all GUIDs.
Result<GuidTable> unique_guids(const FabricGraph& g, std::string_view source) {
    GuidTable table(g.nodes.size());
    for (NodeIndex i = 0; i < g.nodes.size(); ++i) {
        const auto other = table.insert(g.nodes[i], i);
        if (other != kNoNode) {
            const auto& a = g.nodes[other];
            const auto& b = g.nodes[i];
            const auto& [first, second] = a.line < b.line ? std::tie(a, b) : std::tie(b, a);
            return error_at(source, second.line,
                            "GUID " + format_guid(second.guid) + " of '" + second.id +
                                "' was already used by '" + first.id + "' on line " +
                                std::to_string(first.line));
        }
    }
    return table;
}

/// Resolves every pending remote id: through the GUID its "S-<hex>" form names (checked against
/// the node's own id), else by the id's text; unknown ids become dangling.
void resolve_remotes(FabricGraph& g,
                     const GuidTable& by_guid,
                     const std::vector<PendingPort>& pending,
                     std::string_view source) {
    std::unordered_map<std::string_view, NodeIndex> by_id;  // built on the first miss only
    constexpr std::size_t kAhead = 8;
    for (std::size_t k = 0; k < pending.size(); ++k) {
        if (k + kAhead < pending.size()) {
            by_guid.prefetch(pending[k + kAhead].remote_id);
        }
        const auto& p = pending[k];
        auto& port = g.nodes[p.node].ports[p.port_index];
        auto remote = by_guid.find_canonical(p.remote_id);
        if (remote == kNoNode && !by_guid.all_canonical()) {
            if (by_id.empty()) {
                by_id.reserve(g.nodes.size() * 2);
                for (NodeIndex i = 0; i < g.nodes.size(); ++i) {
                    by_id.emplace(g.nodes[i].id, i);
                }
            }
            const auto it = by_id.find(p.remote_id);
            remote = it == by_id.end() ? kNoNode : it->second;
        }
        if (remote == kNoNode) {
            g.warnings.push_back({"dangling-link", SourceLoc{std::string(source), port.line, 0},
                                  "port " + std::to_string(port.port) + " of '" +
                                      g.nodes[p.node].id + "' leads to '" +
                                      std::string(p.remote_id) +
                                      "', which has no record in the dump"});
            continue;
        }
        port.remote = remote;
    }
}

/// Attributes given on the lines before a header.
struct PendingAttrs {
    std::optional<std::uint64_t> guid;
    std::uint32_t devid = 0;
};

Result<void> parse_attr_line(std::string_view line, PendingAttrs& attrs) {
    const auto eq = line.find('=');
    const auto key = line.substr(0, eq);
    auto value = line.substr(eq + 1);
    if (key == "switchguid" || key == "caguid" || key == "routerguid") {
        value = value.substr(0, value.find('('));
        attrs.guid = parse_guid(value);
        if (!attrs.guid) {
            return fail(Error::invalid_argument("bad GUID"));
        }
    } else if (key == "devid") {
        const auto v = parse_guid(value);  // hex like a GUID
        attrs.devid = v ? static_cast<std::uint32_t>(*v) : 0;
    }
    return {};  // vendid, sysimgguid and other ids carry nothing we use
}

Result<FabricGraph> parse_records(std::string_view text, std::string_view source) {
    FabricGraph g;
    g.nodes.reserve(text.size() / 400 + 16);
    std::vector<PendingPort> pending;
    pending.reserve(text.size() / 90 + 16);
    PendingAttrs attrs;
    NodeIndex current = kNoNode;
    ForeignLines foreign;
    Lines lines(text);
    std::string_view line;
    while (lines.next(line)) {
        const auto t = trim(line);
        if (t.empty()) {
            current = kNoNode;
            continue;
        }
        if (t.front() == '#') {
            continue;
        }
        const auto n = lines.number();
        if (t.front() == '[') {
            if (current == kNoNode) {
                return error_at(source, n,
                                "port line outside a Switch/Ca/Rt record: " + quote_line(t));
            }
            Cursor c{t};
            auto& node = g.nodes[current];
            FabricPort port;
            port.line = n;
            const auto local = c.bracket_port();
            if (c.s.starts_with('(')) {  // CA: "[1](portguid)"
                const auto pg = c.paren_guid();
                port.port_guid = pg.value_or(0);
            }
            const auto remote_id = c.quoted();
            const auto remote_port = c.bracket_port();
            if (!local || !remote_id || !remote_port) {
                return error_at(
                    source, n,
                    "expected '[port] \"<remote id>\"[remote port]', got " + quote_line(t));
            }
            if (node.nports != 0 && *local > node.nports) {
                return error_at(source, n,
                                "port " + std::to_string(*local) + " of '" + node.id +
                                    "' is beyond its " + std::to_string(node.nports) + " ports");
            }
            // Dumps list a record's ports in increasing order: only an out-of-order port can
            // repeat one, so only that one is compared with the others.
            const bool in_order = node.ports.empty() || node.ports.back().port < *local;
            for (const auto& p : in_order ? std::span<const FabricPort>{} : node.ports) {
                if (p.port == *local) {
                    return error_at(source, n,
                                    "port " + std::to_string(*local) + " of '" + node.id +
                                        "' already listed on line " + std::to_string(p.line));
                }
            }
            if (c.s.starts_with('(')) {  // switch port to a CA: "[1](remote port guid)"
                (void)c.paren_guid();
            }
            port.port = *local;
            port.remote_port = *remote_port;
            node.ports.push_back(port);
            pending.push_back({current, node.ports.size() - 1, *remote_id});
            continue;
        }
        Cursor c{t};
        const auto first = c.word();
        if (const auto kind = first ? header_kind(*first) : std::nullopt) {
            const auto nports = c.number();
            const auto id = c.quoted();
            if (!nports || !id || id->empty()) {
                return error_at(source, n,
                                "expected '" + std::string(*first) +
                                    " <number of ports> \"<id>\" # \"<description>\"', got " +
                                    quote_line(t));
            }
            FabricNode node;
            node.kind = *kind;
            node.nports = *nports;
            // Its ports follow: room for them at once (a switch grew its list 6 times), within a
            // bound a hostile count cannot raise.
            node.ports.reserve(std::min<std::uint32_t>(*nports, 128));
            node.id = std::string(*id);
            node.line = n;
            node.devid = attrs.devid;
            const auto guid = attrs.guid ? attrs.guid : guid_from_id(*id);
            if (!guid) {
                return error_at(source, n,
                                "no GUID for '" + node.id +
                                    "': expected a switchguid=/caguid= line before it or "
                                    "an id of the form S-<hex>/H-<hex>");
            }
            node.guid = *guid;
            if (c.eat('#')) {
                node.desc = std::string(c.quoted().value_or(""));
            }
            attrs = PendingAttrs{};
            current = static_cast<NodeIndex>(g.nodes.size());
            g.nodes.push_back(std::move(node));
            continue;
        }
        if (t.find('=') != std::string_view::npos && !t.starts_with('=')) {
            if (!parse_attr_line(t, attrs)) {
                return error_at(source, n, "bad GUID in " + quote_line(t));
            }
            continue;
        }
        if (foreign_line(t)) {  // only where no record could be meant
            foreign.skip(n);
            continue;
        }
        return error_at(source, n,
                        "unrecognised line " + quote_line(t) +
                            "; expected a Switch/Ca/Rt header, a [port] line or key=value");
    }
    if (g.nodes.empty()) {
        return error_at(source, lines.number(),
                        "no Switch or Ca record found; is this ibnetdiscover output?");
    }
    auto by_guid = unique_guids(g, source);
    if (!by_guid) {
        return fail(by_guid.error());
    }
    resolve_remotes(g, *by_guid, pending, source);
    check_symmetry(g, source);
    foreign.report(g, source);
    return g;
}

}  // namespace

std::string_view to_string(NodeKind k) {
    switch (k) {
        case NodeKind::Switch:
            return "switch";
        case NodeKind::Ca:
            return "ca";
        case NodeKind::Router:
            return "router";
    }
    return "?";
}

std::optional<std::uint64_t> parse_guid(std::string_view s) {
    s = trim(s);
    if (s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
    }
    std::uint64_t v = 0;
    int digits = 0;
    for (const char ch : s) {
        unsigned d = 0;
        if (ch >= '0' && ch <= '9') {
            d = static_cast<unsigned>(ch - '0');
        } else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f') {
            d = static_cast<unsigned>((ch | 0x20) - 'a' + 10);
        } else if (ch == ':') {
            continue;
        } else {
            return std::nullopt;
        }
        if (++digits > 16) {
            return std::nullopt;
        }
        v = (v << 4U) | d;
    }
    if (digits == 0) {
        return std::nullopt;
    }
    return v;
}

std::string format_guid(std::uint64_t guid) {
    char buf[19];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(guid));
    return buf;
}

Result<FabricGraph> parse_ibnetdiscover(std::string_view text, std::string_view source) {
    auto g =
        looks_like_port_list(text) ? parse_port_list(text, source) : parse_records(text, source);
    if (g && !text.empty() && text.back() != '\n') {
        const auto last =
            static_cast<std::uint32_t>(std::count(text.begin(), text.end(), '\n') + 1);
        g->warnings.insert(
            g->warnings.begin(),
            {"truncated", SourceLoc{std::string(source), last, 0},
             "the file ends in the middle of a line: the dump is probably cut short"});
    }
    return g;
}

}  // namespace switchyard::topology
