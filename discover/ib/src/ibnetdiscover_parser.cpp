// SPDX-License-Identifier: Apache-2.0
// ibnetdiscover text → FabricGraph: the default record format and the -p port list
// (infiniband-diags 44; grammar in reference/fabric.md section 1).
#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <iterator>
#include <span>
#include <tuple>
#include <unordered_map>

#include "ibnetdiscover_text.hpp"
#include "switchyard/fabric/guid.hpp"

namespace switchyard::discover {

using fabric::format_guid;
using fabric::parse_guid;

namespace ibnet {

void check_symmetry(FabricGraph& g, std::string_view source) {
    const auto by_port = [](const FabricPort& a, const FabricPort& b) { return a.port < b.port; };
    for (auto& n : g.nodes) {
        if (!std::is_sorted(n.ports.begin(), n.ports.end(), by_port)) {  // dumps list them in order
            std::sort(n.ports.begin(), n.ports.end(), by_port);
        }
    }
    const auto& nodes = g.nodes;  // read only from here: the halves share it
    in_halves(nodes.size(), kHalvesFromItems, g.warnings,
              [&](std::size_t begin, std::size_t end, std::vector<Diagnostic>& warnings) {
                  for (auto i = static_cast<NodeIndex>(begin); i < end; ++i) {
                      for (const auto& p : nodes[i].ports) {
                          if (p.remote == kNoNode) {
                              continue;
                          }
                          const auto& rports = nodes[p.remote].ports;
                          // Ports are numbered from 1 and usually all listed: port k is then at
                          // k - 1, else found by its number.
                          const auto at = p.remote_port - 1;
                          const auto it =
                              at < rports.size() && rports[at].port == p.remote_port
                                  ? rports.begin() + at
                                  : std::lower_bound(rports.begin(), rports.end(), p.remote_port,
                                                     [](const FabricPort& a, std::uint32_t v) {
                                                         return a.port < v;
                                                     });
                          const bool back = it != rports.end() && it->port == p.remote_port &&
                                            it->remote == i && it->remote_port == p.port;
                          if (!back) {
                              warnings.push_back(
                                  {"asymmetric-link", SourceLoc{std::string(source), p.line, 0},
                                   "'" + nodes[i].id + "'[" + std::to_string(p.port) + "] → '" +
                                       nodes[p.remote].id + "'[" + std::to_string(p.remote_port) +
                                       "], but that port does not lead back"});
                          }
                      }
                  }
              });
}

}  // namespace ibnet

namespace {

using namespace ibnet;

/// A port line whose remote end is resolved after all records are read.
struct PendingPort {
    NodeIndex node;
    std::uint32_t port_index;  ///< below the node's port count, itself a uint32
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
/// the node's own id), else by the id's text; unknown ids become dangling. Both tables are
/// read only while the two halves of the ports run at once.
void resolve_remotes(FabricGraph& g,
                     const GuidTable& by_guid,
                     const std::vector<PendingPort>& pending,
                     std::string_view source) {
    std::unordered_map<std::string_view, NodeIndex> by_id;
    if (!by_guid.all_canonical()) {
        by_id.reserve(g.nodes.size() * 2);
        for (NodeIndex i = 0; i < g.nodes.size(); ++i) {
            by_id.emplace(g.nodes[i].id, i);
        }
    }
    auto& nodes = g.nodes;  // each pending entry is its own port: the halves write apart
    const auto resolve = [&](std::size_t begin, std::size_t end,
                             std::vector<Diagnostic>& warnings) {
        constexpr std::size_t kAhead = 8;
        for (std::size_t k = begin; k < end; ++k) {
            if (k + kAhead < end) {
                by_guid.prefetch(pending[k + kAhead].remote_id);
            }
            const auto& p = pending[k];
            auto& port = nodes[p.node].ports[p.port_index];
            auto remote = by_guid.find_canonical(p.remote_id);
            if (remote == kNoNode && !by_id.empty()) {
                const auto it = by_id.find(p.remote_id);
                remote = it == by_id.end() ? kNoNode : it->second;
            }
            if (remote == kNoNode) {
                warnings.push_back({"dangling-link", SourceLoc{std::string(source), port.line, 0},
                                    "port " + std::to_string(port.port) + " of '" +
                                        nodes[p.node].id + "' leads to '" +
                                        std::string(p.remote_id) +
                                        "', which has no record in the dump"});
                continue;
            }
            port.remote = remote;
        }
    };
    in_halves(pending.size(), kHalvesFromItems, g.warnings, resolve);
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

/// What a stretch of records gives: its nodes, their ports' unresolved remote ends, the foreign
/// lines skipped, where it ends, and whether attribute lines at its end wait for a header.
struct Stretch {
    FabricGraph g;
    std::vector<PendingPort> pending;
    ForeignLines foreign;
    std::uint32_t last_line = 0;
    bool attrs_pending = false;
};

/// Reads the records of `text`; `whole` is the file's size, for reserving room for all of its
/// nodes at once.
Result<Stretch> read_records(std::string_view text, std::size_t whole, std::string_view source) {
    Stretch out;
    auto& g = out.g;
    auto& pending = out.pending;
    auto& foreign = out.foreign;
    g.nodes.reserve(whole / 320 + 16);  // a CA record is 200-400 bytes
    pending.reserve(whole / 90 + 16);
    PendingAttrs attrs;
    NodeIndex current = kNoNode;
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
            pending.push_back(
                {current, static_cast<std::uint32_t>(node.ports.size() - 1), *remote_id});
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
    out.last_line = lines.number();
    out.attrs_pending = attrs.guid.has_value() || attrs.devid != 0;
    return out;
}

/// Dumps this large are read in two halves at once (800k HCAs: 320 MB, two cores here).
constexpr std::size_t kHalvesFrom = std::size_t{16} << 20U;

/// Reads `text` as two stretches split at the blank line that starts at `cut`, the second on
/// another thread, and joins them. The second is read as if it began the file, and its line
/// numbers are moved by the first's lines when they are joined; when it fails, the file is
/// read again whole for the message's line. Between records the reader keeps only attribute
/// lines that wait for their header: when the first half ends with some, the same.
Result<Stretch> read_halves(std::string_view text, std::size_t cut, std::string_view source) {
    const auto head = text.substr(0, cut);
    const auto tail = text.substr(cut);
    std::optional<Result<Stretch>> first;
    std::optional<Result<Stretch>> second;
    if (!both_at_once([&] { first.emplace(read_records(head, text.size(), source)); },
                      [&] { second.emplace(read_records(tail, tail.size(), source)); })) {
        return read_records(text, text.size(), source);  // no thread to be had: one pass
    }
    if (!*first) {
        return std::move(*first);  // the first error in the file
    }
    if (!*second || (*first)->attrs_pending) {
        return read_records(text, text.size(), source);
    }
    auto& a = **first;
    auto& b = **second;
    const auto before = a.last_line;  // head ends with a newline: its lines
    const auto offset = static_cast<NodeIndex>(a.g.nodes.size());
    for (auto& node : b.g.nodes) {
        node.line += before;
        for (auto& p : node.ports) {
            p.line += before;
        }
        a.g.nodes.push_back(std::move(node));
    }
    a.pending.reserve(a.pending.size() + b.pending.size());
    for (auto p : b.pending) {
        p.node += offset;
        a.pending.push_back(p);
    }
    if (b.foreign.count > 0) {
        b.foreign.first += before;
    }
    a.foreign.add(b.foreign);
    a.last_line = before + b.last_line;
    a.attrs_pending = b.attrs_pending;
    return std::move(*first);
}

Result<FabricGraph> parse_records(std::string_view text, std::string_view source) {
    // The blank line after the middle: records never span one.
    const auto blank =
        text.size() >= kHalvesFrom ? text.find("\n\n", text.size() / 2) : std::string_view::npos;
    auto read = blank == std::string_view::npos ? read_records(text, text.size(), source)
                                                : read_halves(text, blank + 1, source);
    if (!read) {
        return fail(read.error());
    }
    auto& g = read->g;
    if (g.nodes.empty()) {
        return error_at(source, read->last_line,
                        "no Switch or Ca record found; is this ibnetdiscover output?");
    }
    auto by_guid = unique_guids(g, source);
    if (!by_guid) {
        return fail(by_guid.error());
    }
    resolve_remotes(g, *by_guid, read->pending, source);
    check_symmetry(g, source);
    read->foreign.report(g, source);
    return std::move(g);
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

}  // namespace switchyard::discover
