// SPDX-License-Identifier: Apache-2.0
// lldpctl's output → LldpFile. JSON is read by a small parser of its own: no recursion (the
// nesting is bounded and kept on a vector), strings left in place and decoded only when read,
// positions kept for messages; it reads both of lldpctl's JSON forms ("json", where a list of
// one is an object and a chassis is keyed by its name, and "json0", where everything is a list
// and every value an object). Keyvalue lines ("lldp.eth0.chassis.name=leaf1") are read too.
#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

#include "json_reader.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/discover/lldp/lldp.hpp"

namespace switchyard::discover {
namespace {

using json::JNode;
using json::JsonReader;
using json::kNone;
using json::unescape;

/// Reading an lldpctl document: the two JSON forms, one set of questions.
class LldpJson {
public:
    LldpJson(const JsonReader& r, LldpFile& out) : r_(r), out_(out) {}

    [[nodiscard]] const JNode& at(std::uint32_t i) const { return r_.nodes[i]; }

    /// Children of a container.
    template <typename F>
    void each(std::uint32_t n, F&& f) const {
        if (n == kNone || (at(n).kind != JNode::Object && at(n).kind != JNode::Array)) {
            return;
        }
        for (auto c = at(n).first; c != kNone; c = at(c).next) {
            f(c);
        }
    }

    /// A list's elements, or the value itself (json writes a list of one as its element).
    template <typename F>
    void items(std::uint32_t n, F&& f) const {
        if (n != kNone && at(n).kind == JNode::Array) {
            each(n, f);
        } else if (n != kNone) {
            f(n);
        }
    }

    /// The first member named `key` (names are short: compared in place, no library call).
    [[nodiscard]] std::uint32_t member(std::uint32_t n, std::string_view key) const {
        if (n == kNone || at(n).kind != JNode::Object) {
            return kNone;
        }
        for (auto c = at(n).first; c != kNone; c = at(c).next) {
            const auto k = r_.key(at(c));
            if (k.size() == key.size() && std::equal(k.begin(), k.end(), key.begin())) {
                return c;
            }
        }
        return kNone;
    }

    [[nodiscard]] std::uint32_t first_item(std::uint32_t n) const {
        std::uint32_t found = kNone;
        items(n, [&](std::uint32_t c) {
            if (found == kNone) {
                found = c;
            }
        });
        return found;
    }

    /// The text of a value: a string, or json0's [{"value": "..."}].
    [[nodiscard]] std::string text(std::uint32_t n) const {
        for (int hops = 0; n != kNone && hops < 4; ++hops) {
            const auto& j = at(n);
            if (j.kind == JNode::String) {
                return j.escaped ? unescape(r_.raw(j)) : std::string(r_.raw(j));
            }
            if (j.kind == JNode::Number || j.kind == JNode::True || j.kind == JNode::False) {
                return std::string(r_.raw(j));
            }
            n = j.kind == JNode::Array ? first_item(n) : member(n, "value");
        }
        return {};
    }

    [[nodiscard]] std::string key_text(const JNode& j) const {
        const auto k = r_.key(j);
        return k.find('\\') == std::string_view::npos ? std::string(k) : unescape(k);
    }

    void read_id(std::uint32_t id, std::string& type, std::string& value) const {
        const auto i = first_item(id);
        if (i != kNone && at(i).kind == JNode::Object) {
            type = text(member(i, "type"));
            value = text(member(i, "value"));
        } else {
            value = text(i);
        }
    }

    void read_caps(std::uint32_t caps, LldpChassis& c) const {
        items(caps, [&](std::uint32_t cap) {
            const auto type = text(member(cap, "type"));
            const auto e = member(cap, "enabled");
            const bool on = e != kNone && (at(e).kind == JNode::True || text(e) == "on");
            c.caps_known = true;
            if (type == "Bridge") {
                c.bridge = c.bridge || on;
            } else if (type == "Router") {
                c.router = c.router || on;
            } else if (type == "Station") {
                c.station = c.station || on;
            }
        });
    }

    /// json: {"NAME": {"id": ...}} or, unnamed, {"id": ...}; json0: [{"id": [...], "name": [...]}].
    [[nodiscard]] LldpChassis chassis(std::uint32_t n) const {
        LldpChassis c;
        auto body = first_item(n);
        if (body == kNone || at(body).kind != JNode::Object) {
            return c;
        }
        if (member(body, "id") == kNone) {
            each(body, [&](std::uint32_t m) {
                if (c.name.empty() && at(m).kind == JNode::Object) {
                    c.name = key_text(at(m));
                    body = m;
                }
            });
        } else {
            c.name = text(member(body, "name"));
        }
        read_id(member(body, "id"), c.id_type, c.id);
        read_caps(member(body, "capability"), c);
        return c;
    }

    void neighbor(std::string name, std::uint32_t rec) {
        LldpNeighbor nb;
        nb.local_port = std::move(name);
        nb.line = at(rec).line;
        nb.chassis = chassis(member(rec, "chassis"));
        const auto port = first_item(member(rec, "port"));
        read_id(member(port, "id"), nb.port_id_type, nb.port_id);
        nb.port_descr = text(member(port, "descr"));
        out_.neighbors.push_back(std::move(nb));
    }

    /// The interfaces of one "lldp" value: json0 records carry "name"; json ones are keyed by it.
    void interfaces(std::uint32_t lldp) {
        items(lldp, [&](std::uint32_t l) {
            items(member(l, "interface"), [&](std::uint32_t i) {
                if (at(i).kind != JNode::Object) {
                    return;
                }
                const auto name = member(i, "name");
                if (name != kNone && at(name).kind == JNode::String) {
                    neighbor(text(name), i);
                    return;
                }
                each(i, [&](std::uint32_t rec) {
                    if (at(rec).kind == JNode::Object) {
                        neighbor(key_text(at(rec)), rec);
                    }
                });
            });
        });
    }

private:
    const JsonReader& r_;
    LldpFile& out_;
};

Result<LldpFile> parse_json(std::string_view text,
                            std::string_view source,
                            detail::JsonReading how) {
    JsonReader r(text, source);
    // Pretty-printed lldpctl output holds a value every 30 bytes or so: one allocation instead
    // of a doubling chain (bounded: a file of spaces gets no more than 64k nodes' room).
    r.nodes.reserve(std::min<std::size_t>(text.size() / 32, std::size_t{1} << 16U));
    if (auto ok = r.parse_all(how); !ok) {
        return fail(ok.error());
    }
    LldpFile out;
    out.source = std::string(source);
    LldpJson j(r, out);
    for (const auto root : r.roots) {
        const auto lldp = j.member(root, "lldp");
        const auto local = j.member(root, "local-chassis");
        if (lldp == kNone && local == kNone) {
            return fail(Error::parse(
                r.where(r.nodes[root].offset),
                "expected an lldpctl document: an object holding \"lldp\" (lldpctl -f json) or "
                "\"local-chassis\" (lldpcli -f json show chassis)"));
        }
        if (local != kNone) {
            const auto c = j.chassis(j.member(j.first_item(local), "chassis"));
            out.local = c;
        }
        if (lldp != kNone) {
            j.interfaces(lldp);
        }
        if (out.neighbors.size() > kMaxLldpNeighbors) {
            return fail(Error::parse(
                r.where(r.nodes[root].offset),
                "more than " + std::to_string(kMaxLldpNeighbors) + " neighbours in one file"));
        }
    }
    return out;
}

/// "lldp.<port>.<rest>" → port and rest; the port name may hold dots ("eth0.100").
bool split_keyvalue_port(std::string_view key, std::string_view& port, std::string_view& rest) {
    static constexpr std::string_view kAfter[] = {
        ".via",   ".rid", ".age",       ".chassis.",      ".port.", ".vlan",
        ".ppvid", ".pi.", ".lldp-med.", ".unknown-tlvs.", ".ttl"};
    std::size_t cut = std::string_view::npos;
    for (const auto a : kAfter) {
        const auto at = key.find(a);
        if (at != std::string_view::npos && at < cut) {
            cut = at;
        }
    }
    if (cut == std::string_view::npos || cut == 0) {
        return false;
    }
    port = key.substr(0, cut);
    rest = key.substr(cut + 1);
    return true;
}

/// The id subtypes lldpd names keyvalue keys after (chassis.mac=, port.ifname=, ...).
bool is_id_type(std::string_view k) {
    static constexpr std::string_view kIdTypes[] = {"mac",     "local", "ifname",
                                                    "ifalias", "ip",    "agentcid"};
    return std::find(std::begin(kIdTypes), std::end(kIdTypes), k) != std::end(kIdTypes);
}

/// chassis.<key>=value into `c`.
void keyvalue_chassis(std::string_view k, std::string_view v, LldpChassis& c) {
    if (k == "name") {
        c.name = std::string(v);
        return;
    }
    if (is_id_type(k)) {
        c.id_type = std::string(k);
        c.id = std::string(v);
        return;
    }
    const bool on = v == "on";
    if (k == "Bridge.enabled") {
        c.bridge = c.bridge || on;
    } else if (k == "Router.enabled") {
        c.router = c.router || on;
    } else if (k == "Station.enabled") {
        c.station = c.station || on;
    } else {
        return;
    }
    c.caps_known = true;
}

Result<LldpFile> parse_keyvalue(std::string_view text, std::string_view source) {
    LldpFile out;
    out.source = std::string(source);
    std::uint32_t line_no = 0;
    std::string current;  // interface of the record being read
    for (auto line : split(text, '\n')) {
        ++line_no;
        line = trim(line);
        if (line.empty()) {
            continue;
        }
        const auto eq = line.find('=');
        const auto key = line.substr(0, eq);
        const auto value = eq == std::string_view::npos ? std::string_view() : line.substr(eq + 1);
        auto bad = [&] {
            return fail(
                Error::parse(SourceLoc{std::string(source), line_no, 1},
                             "expected lldpctl keyvalue lines 'lldp.<port>.<key>=<value>' or "
                             "'local-chassis.chassis.<key>=<value>' (lldpctl -f keyvalue), got '" +
                                 std::string(line.substr(0, 120)) + "'"));
        };
        if (eq == std::string_view::npos) {
            return bad();
        }
        if (key.starts_with("local-chassis.chassis.")) {
            if (!out.local) {
                out.local.emplace();
            }
            keyvalue_chassis(key.substr(22), value, *out.local);
            continue;
        }
        std::string_view port;
        std::string_view rest;
        if (!key.starts_with("lldp.") || !split_keyvalue_port(key.substr(5), port, rest)) {
            return bad();
        }
        // A new record: another port, or the same port's "via" again (a second neighbour).
        if (out.neighbors.empty() || port != current || rest == "via") {
            if (out.neighbors.size() >= kMaxLldpNeighbors) {
                return fail(Error::parse(
                    SourceLoc{std::string(source), line_no, 1},
                    "more than " + std::to_string(kMaxLldpNeighbors) + " neighbours in one file"));
            }
            out.neighbors.emplace_back();
            out.neighbors.back().local_port = std::string(port);
            out.neighbors.back().line = line_no;
            current = std::string(port);
        }
        auto& nb = out.neighbors.back();
        if (rest.starts_with("chassis.")) {
            keyvalue_chassis(rest.substr(8), value, nb.chassis);
        } else if (rest == "port.descr") {
            nb.port_descr = std::string(value);
        } else if (rest.starts_with("port.") && is_id_type(rest.substr(5))) {
            nb.port_id_type = std::string(rest.substr(5));
            nb.port_id = std::string(value);
        }
    }
    return out;
}

/// True for a line lldpcli writes back when it reads its commands from a pipe, as the admin
/// guide gathers ("show chassis", "show neighbors details"): "show" then words of [a-z0-9-].
/// No line of lldpctl's JSON or keyvalue output is one.
bool is_lldpcli_echo(std::string_view line) {
    if (!line.starts_with("show") || (line.size() > 4 && line[4] != ' ')) {
        return false;
    }
    return std::all_of(line.begin(), line.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == ' ';
    });
}

/// `text` with lldpcli's echoed commands blanked (spaces: offsets and line numbers are kept
/// for messages), or nullopt when it has none.
std::optional<std::string> without_echo(std::string_view text) {
    std::optional<std::string> out;
    for (std::size_t start = 0; start < text.size();) {
        const auto nl = text.find('\n', start);
        const auto end = nl == std::string_view::npos ? text.size() : nl;
        auto line = text.substr(start, end - start);
        if (line.ends_with('\r')) {
            line.remove_suffix(1);
        }
        if (is_lldpcli_echo(line)) {
            if (!out) {
                out.emplace(text);
            }
            std::fill_n(out->begin() + static_cast<std::ptrdiff_t>(start), line.size(), ' ');
        }
        start = end + 1;
    }
    return out;
}

Result<LldpFile> read_lldp(std::string_view text,
                           std::string_view source,
                           detail::JsonReading how) {
    if (text.size() > kMaxLldpFileBytes) {
        return fail(Error::parse(SourceLoc{std::string(source), 1, 1},
                                 "larger than " + std::to_string(kMaxLldpFileBytes >> 20U) +
                                     " MiB; lldpctl's output of one system is far smaller"));
    }
    const auto blanked = without_echo(text);
    if (blanked) {
        text = *blanked;
    }
    const auto start = text.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) {
        return fail(Error::parse(SourceLoc{std::string(source), 1, 1},
                                 "empty; expected lldpctl's output (-f json, json0 or keyvalue)"));
    }
    return text[start] == '{' ? parse_json(text, source, how) : parse_keyvalue(text, source);
}

}  // namespace

bool lldp_says_nothing(std::string_view text) {
    const auto blanked = without_echo(text);
    return std::string_view(blanked ? *blanked : text).find_first_not_of(" \t\r\n") ==
           std::string_view::npos;
}

Result<LldpFile> parse_lldp(std::string_view text, std::string_view source) {
    return read_lldp(text, source, detail::JsonReading::Both);
}

Result<LldpFile> detail::parse_lldp(std::string_view text,
                                    std::string_view source,
                                    JsonReading how) {
    return read_lldp(text, source, how);
}

}  // namespace switchyard::discover
