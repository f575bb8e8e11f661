// SPDX-License-Identifier: Apache-2.0
// lldpctl's output → LldpFile. JSON is read by a small parser of its own: no recursion (the
// nesting is bounded and kept on a vector), strings left in place and decoded only when read,
// positions kept for messages; it reads both of lldpctl's JSON forms ("json", where a list of
// one is an object and a chassis is keyed by its name, and "json0", where everything is a list
// and every value an object). Keyvalue lines ("lldp.eth0.chassis.name=leaf1") are read too.
#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "switchyard/common/strings.hpp"
#include "switchyard/topology/lldp.hpp"

namespace switchyard::topology {
namespace {

constexpr std::uint32_t kNone = 0xffffffffU;

struct JNode {
    enum Kind : std::uint8_t { Object, Array, String, Number, True, False, Null };
    Kind kind = Null;
    bool escaped = false;  ///< a string holding a backslash
    std::uint32_t first = kNone;
    std::uint32_t next = kNone;
    std::uint32_t offset = 0;  ///< where the value starts
    std::uint32_t line = 0;
    std::string_view key;  ///< raw member name (objects' members only)
    std::string_view raw;  ///< string contents without quotes, or the literal
};

std::string unescape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 == s.size()) {
            out += s[i];
            continue;
        }
        const char c = s[++i];
        switch (c) {
            case 'n':
                out += '\n';
                break;
            case 't':
                out += '\t';
                break;
            case 'r':
                out += '\r';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'u': {
                unsigned v = 0;
                const auto hex = s.substr(i + 1, 4);
                if (hex.size() == 4 &&
                    std::from_chars(hex.data(), hex.data() + 4, v, 16).ptr == hex.data() + 4) {
                    i += 4;
                    // Names are ASCII in practice; anything else becomes '?' rather than be
                    // encoded (a system name with it is reported under its chassis id anyway).
                    out += v < 0x80 ? static_cast<char>(v) : '?';
                }
                break;
            }
            default:
                out += c;  // \" \\ \/
        }
    }
    return out;
}

// Pretty-printed lldpctl JSON is mostly indentation and short strings: the two scans below
// take 16 bytes a step where SSE2 is there (every x86-64), byte by byte elsewhere and at the
// end of the text. Neither reads past the text.

/// The first position from `p` that is not a space (or the text's size).
std::size_t skip_spaces(std::string_view t, std::size_t p) {
#if defined(__SSE2__)
    const __m128i space = _mm_set1_epi8(' ');
    while (t.size() - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data() + p));
        const auto other =
            ~static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, space))) & 0xffffU;
        if (other != 0) {
            return p + static_cast<std::size_t>(std::countr_zero(other));
        }
        p += 16;
    }
#endif
    while (p < t.size() && t[p] == ' ') {
        ++p;
    }
    return p;
}

/// The first position from `p` inside a string that needs a look: a quote, a backslash or a
/// control character (or the text's size).
std::size_t skip_plain(std::string_view t, std::size_t p) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i control = _mm_set1_epi8(0x1f);
    while (t.size() - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data() + p));
        const __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                         _mm_cmpeq_epi8(_mm_max_epu8(v, control), control));  // v <= 0x1f
        const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
        if (mask != 0) {
            return p + static_cast<std::size_t>(std::countr_zero(mask));
        }
        p += 16;
    }
#endif
    while (p < t.size()) {
        const auto c = static_cast<unsigned char>(t[p]);
        if (c == '"' || c == '\\' || c < 0x20) {
            return p;
        }
        ++p;
    }
    return p;
}

/// The documents of one text, as a tree of JNodes (roots listed in `roots`).
class JsonReader {
public:
    JsonReader(std::string_view text, std::string_view source) : t_(text), source_(source) {}

    Result<void> parse_all() {
        skip_ws();
        while (p_ < t_.size()) {
            auto root = value_tree();
            if (!root) {
                return fail(root.error());
            }
            roots.push_back(*root);
            skip_ws();
        }
        return {};
    }

    std::vector<JNode> nodes;
    std::vector<std::uint32_t> roots;

    [[nodiscard]] SourceLoc where(std::size_t offset) const {
        std::uint32_t line = 1;
        std::size_t line_start = 0;
        for (std::size_t i = 0; i < offset && i < t_.size(); ++i) {
            if (t_[i] == '\n') {
                ++line;
                line_start = i + 1;
            }
        }
        return {std::string(source_), line, static_cast<std::uint32_t>(offset - line_start + 1)};
    }

    Error bad(std::size_t offset, const std::string& expected) const {
        std::string got = offset < t_.size() ? "'" + std::string(t_.substr(offset, 1)) + "'"
                                             : std::string("the end of the file");
        if (offset < t_.size() && static_cast<unsigned char>(t_[offset]) < 0x20) {
            got = "a control character";
        }
        return Error::parse(where(offset), "expected " + expected + ", got " + got);
    }

private:
    std::string_view t_;
    std::string_view source_;
    std::size_t p_ = 0;
    std::uint32_t line_ = 1;  ///< of p_ (a newline is whitespace: strings hold none)

    void skip_ws() {
        for (;;) {
            p_ = skip_spaces(t_, p_);
            if (p_ == t_.size()) {
                return;
            }
            const char c = t_[p_];
            if (c != '\n' && c != '\t' && c != '\r') {
                return;
            }
            line_ += c == '\n' ? 1U : 0U;
            ++p_;
        }
    }

    Result<std::string_view> string_body(bool& escaped) {
        const std::size_t start = ++p_;  // after the quote
        escaped = false;
        while (p_ < t_.size()) {
            p_ = skip_plain(t_, p_);
            if (p_ == t_.size()) {
                break;
            }
            const char c = t_[p_];
            if (c == '"') {
                return t_.substr(start, p_++ - start);
            }
            if (c == '\\') {
                escaped = true;
                ++p_;
            } else if (static_cast<unsigned char>(c) < 0x20) {
                return fail(bad(p_, "the rest of a string"));
            }
            ++p_;
        }
        return fail(bad(start - 1, "a string closed by '\"'"));
    }

    std::uint32_t add(JNode n) {
        nodes.push_back(n);
        return static_cast<std::uint32_t>(nodes.size() - 1);
    }

    /// One scalar or the opening of a container at p_; containers are filled by value_tree.
    Result<std::uint32_t> scalar_or_open() {
        skip_ws();
        if (p_ >= t_.size()) {
            return fail(bad(p_, "a JSON value"));
        }
        JNode n;
        n.offset = static_cast<std::uint32_t>(p_);
        n.line = line_;
        const char c = t_[p_];
        if (c == '{' || c == '[') {
            n.kind = c == '{' ? JNode::Object : JNode::Array;
            ++p_;
            return add(n);
        }
        if (c == '"') {
            bool esc = false;
            auto s = string_body(esc);
            if (!s) {
                return fail(s.error());
            }
            n.kind = JNode::String;
            n.raw = *s;
            n.escaped = esc;
            return add(n);
        }
        for (const auto& [word, kind] : {std::pair{std::string_view("true"), JNode::True},
                                         std::pair{std::string_view("false"), JNode::False},
                                         std::pair{std::string_view("null"), JNode::Null}}) {
            if (t_.substr(p_, word.size()) == word) {
                n.kind = kind;
                n.raw = word;
                p_ += word.size();
                return add(n);
            }
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            const std::size_t start = p_;
            while (p_ < t_.size() &&
                   (std::isdigit(static_cast<unsigned char>(t_[p_])) != 0 || t_[p_] == '-' ||
                    t_[p_] == '+' || t_[p_] == '.' || t_[p_] == 'e' || t_[p_] == 'E')) {
                ++p_;
            }
            n.kind = JNode::Number;
            n.raw = t_.substr(start, p_ - start);
            return add(n);
        }
        return fail(bad(p_, "a JSON value ('{', '[', a string, a number, true, false or null)"));
    }

    /// One whole value; containers are read with an explicit stack, never by recursion.
    Result<std::uint32_t> value_tree() {
        struct Open {
            std::uint32_t node;
            std::uint32_t last = kNone;  ///< last child appended
        };
        std::vector<Open> stack;
        auto first = scalar_or_open();
        if (!first) {
            return fail(first.error());
        }
        const auto root = *first;
        if (nodes[root].kind == JNode::Object || nodes[root].kind == JNode::Array) {
            stack.push_back({root});
        }
        while (!stack.empty()) {
            auto& top = stack.back();
            const bool object = nodes[top.node].kind == JNode::Object;
            skip_ws();
            if (p_ < t_.size() && t_[p_] == (object ? '}' : ']')) {
                ++p_;
                stack.pop_back();
                continue;
            }
            if (top.last != kNone) {
                if (p_ >= t_.size() || t_[p_] != ',') {
                    return fail(bad(p_, object ? "',' or '}'" : "',' or ']'"));
                }
                ++p_;
                skip_ws();
            }
            std::string_view key;
            if (object) {
                if (p_ >= t_.size() || t_[p_] != '"') {
                    return fail(
                        bad(p_, top.last == kNone ? "a member name or '}'" : "a member name"));
                }
                bool esc = false;
                auto k = string_body(esc);
                if (!k) {
                    return fail(k.error());
                }
                key = *k;
                skip_ws();
                if (p_ >= t_.size() || t_[p_] != ':') {
                    return fail(bad(p_, "':' after the member name"));
                }
                ++p_;
            }
            auto child = scalar_or_open();
            if (!child) {
                return fail(child.error());
            }
            nodes[*child].key = key;
            // `top` may dangle after the push below: link the child first.
            if (top.last == kNone) {
                nodes[top.node].first = *child;
            } else {
                nodes[top.last].next = *child;
            }
            top.last = *child;
            if (nodes[*child].kind == JNode::Object || nodes[*child].kind == JNode::Array) {
                if (stack.size() >= kMaxLldpDepth) {
                    return fail(Error::parse(where(nodes[*child].offset),
                                             "nested deeper than " + std::to_string(kMaxLldpDepth) +
                                                 " levels; lldpctl's output nests about 8"));
                }
                stack.push_back({*child});
            }
        }
        return root;
    }
};

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

    [[nodiscard]] std::uint32_t member(std::uint32_t n, std::string_view key) const {
        std::uint32_t found = kNone;
        if (n != kNone && at(n).kind == JNode::Object) {
            each(n, [&](std::uint32_t c) {
                if (found == kNone && at(c).key == key) {
                    found = c;
                }
            });
        }
        return found;
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
                return j.escaped ? unescape(j.raw) : std::string(j.raw);
            }
            if (j.kind == JNode::Number || j.kind == JNode::True || j.kind == JNode::False) {
                return std::string(j.raw);
            }
            n = j.kind == JNode::Array ? first_item(n) : member(n, "value");
        }
        return {};
    }

    [[nodiscard]] static std::string key_text(const JNode& j) {
        return j.key.find('\\') == std::string_view::npos ? std::string(j.key) : unescape(j.key);
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

Result<LldpFile> parse_json(std::string_view text, std::string_view source) {
    JsonReader r(text, source);
    // Pretty-printed lldpctl output holds a value every 30 bytes or so: one allocation instead
    // of a doubling chain (bounded: a file of spaces gets no more than 64k nodes' room).
    r.nodes.reserve(std::min<std::size_t>(text.size() / 32, std::size_t{1} << 16U));
    if (auto ok = r.parse_all(); !ok) {
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

}  // namespace

Result<LldpFile> parse_lldp(std::string_view text, std::string_view source) {
    if (text.size() > kMaxLldpFileBytes) {
        return fail(Error::parse(SourceLoc{std::string(source), 1, 1},
                                 "larger than " + std::to_string(kMaxLldpFileBytes >> 20U) +
                                     " MiB; lldpctl's output of one system is far smaller"));
    }
    const auto start = text.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) {
        return fail(Error::parse(SourceLoc{std::string(source), 1, 1},
                                 "empty; expected lldpctl's output (-f json, json0 or keyvalue)"));
    }
    return text[start] == '{' ? parse_json(text, source) : parse_keyvalue(text, source);
}

std::optional<std::uint64_t> parse_mac(std::string_view s) {
    if (s.size() != 17) {
        return std::nullopt;
    }
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < 17; i += 3) {
        unsigned byte = 0;
        if ((i + 2 < 17 && s[i + 2] != ':' && s[i + 2] != '-') ||
            std::from_chars(s.data() + i, s.data() + i + 2, byte, 16).ptr != s.data() + i + 2) {
            return std::nullopt;
        }
        v = (v << 8U) | byte;
    }
    return v;
}

}  // namespace switchyard::topology
