// SPDX-License-Identifier: Apache-2.0
// The node facts file: writer and bounded, validating reader.
#include "switchyard/node/node_facts.hpp"

#include <charconv>
#include <cstdio>
#include <optional>
#include <vector>

#include "switchyard/common/strings.hpp"

namespace switchyard::node {
namespace {

constexpr std::string_view kMagic = "switchyard-node-facts";

/// Free text as one token: space, '%', ',', '/' and control bytes as %XX; "" as "%".
std::string escape(std::string_view s) {
    if (s.empty()) {
        return "%";
    }
    std::string out;
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u == 0x7f || c == '%' || c == ',' || c == '/') {
            out += '%' + hex_digits(u, 2);
        } else {
            out += c;
        }
    }
    return out;
}

std::optional<std::string> unescape(std::string_view s) {
    if (s == "%") {
        return std::string();
    }
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        unsigned v = 0;
        if (i + 2 >= s.size()) {
            return std::nullopt;
        }
        const auto [p, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
        if (ec != std::errc{} || p != s.data() + i + 3) {
            return std::nullopt;
        }
        out += static_cast<char>(v);
        i += 2;
    }
    return out;
}

std::string list(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items) {
        out += (out.empty() ? "" : ",") + escape(i);
    }
    return out.empty() ? "%" : out;
}

std::string place(const PciPlace& p) {
    std::string out = escape(p.busid) + ' ' + escape(p.host_bridge) + ' ' + std::to_string(p.numa);
    for (const auto& h : p.above) {
        out += ' ' + escape(h.busid) + '/' + hex_digits(h.vendor, 4) + ':' +
               hex_digits(h.device, 4) + ':' + hex_digits(h.subvendor, 4) + ':' +
               hex_digits(h.subdevice, 4);
    }
    return out;
}

class Reader {
public:
    Reader(std::string_view text, std::string_view source, std::uint64_t key)
        : text_(text), source_(source), key_(key) {}

    Result<NodeTopology> run() {
        std::string_view line;
        bool ended = false;
        while (next(line)) {
            if (ended) {
                return fail(bad("a line after the 'end' line"));
            }
            const auto w = split(line, ' ');
            if (line_no_ == 1) {
                if (line != std::string(kMagic) + " " + std::to_string(kNodeFactsVersion)) {
                    return fail(bad("expected '" + std::string(kMagic) + " " +
                                    std::to_string(kNodeFactsVersion) + "'"));
                }
                continue;
            }
            if (line_no_ == 2) {
                const auto k = w.size() == 2 && w[0] == "key" && w[1].size() == 16
                                   ? parse_number<std::uint64_t>(w[1], 16)
                                   : std::nullopt;
                if (!k) {
                    return fail(bad("expected 'key <16 hex digits>'"));
                }
                if (*k != key_) {
                    return fail(Error::invalid_argument(
                        std::string(source_) + " is stale: written under key " +
                        hex_digits(*k, 16) + ", the node's devices and boot now give " +
                        hex_digits(key_, 16)));
                }
                continue;
            }
            Result<void> r;
            if (w[0] == "numa") {
                r = numa_line(w);
            } else if (w[0] == "gpu") {
                r = gpu_line(w);
            } else if (w[0] == "nic") {
                r = nic_line(w);
            } else if (w[0] == "end") {
                r = end_line(w);
                ended = true;
            } else {
                r = fail(bad("unknown line; expected numa, gpu, nic or end"));
            }
            if (!r) {
                return fail(r.error());
            }
        }
        if (!ended) {
            ++line_no_;
            return fail(bad("the file ends without its 'end' line: it was cut short"));
        }
        return std::move(node_);
    }

private:
    std::string_view text_;
    std::string_view source_;
    std::uint64_t key_;
    std::size_t pos_ = 0;
    std::uint32_t line_no_ = 0;
    NodeTopology node_;

    bool next(std::string_view& line) {
        if (pos_ >= text_.size()) {
            return false;
        }
        const auto nl = text_.find('\n', pos_);
        line = text_.substr(pos_, nl == std::string_view::npos ? nl : nl - pos_);
        pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
        ++line_no_;
        return true;
    }

    Error bad(const std::string& message) const {
        return Error::parse(SourceLoc{std::string(source_), line_no_, 0}, message);
    }

    Result<void> numa_line(const std::vector<std::string_view>& w) {
        const auto index = w.size() == 3 ? parse_number<int>(w[1]) : std::nullopt;
        const auto cpus = w.size() == 3 ? unescape(w[2]) : std::nullopt;
        if (!index || !cpus || node_.numa.size() >= kMaxNodeFactsItems) {
            return fail(bad("expected 'numa <index> <cpus>' (at most " +
                            std::to_string(kMaxNodeFactsItems) + ")"));
        }
        node_.numa.push_back({*index, *cpus});
        return {};
    }

    static std::optional<std::vector<std::string>> items(std::string_view s) {
        std::vector<std::string> out;
        if (s == "%") {
            return out;
        }
        while (true) {
            const auto c = s.find(',');
            auto item = unescape(s.substr(0, c));
            if (!item || item->empty() || out.size() >= kMaxNodeFactsItems) {
                return std::nullopt;
            }
            out.push_back(std::move(*item));
            if (c == std::string_view::npos) {
                return out;
            }
            s.remove_prefix(c + 1);
        }
    }

    /// busid host_bridge numa hop... from word `at` on.
    std::optional<PciPlace> read_place(const std::vector<std::string_view>& w, std::size_t at) {
        if (w.size() < at + 3 || w.size() - at - 3 > kMaxPciHops) {
            return std::nullopt;
        }
        PciPlace p;
        auto busid = unescape(w[at]);
        auto bridge = unescape(w[at + 1]);
        const auto numa = parse_number<int>(w[at + 2]);
        if (!busid || !bridge || !numa) {
            return std::nullopt;
        }
        p.busid = std::move(*busid);
        p.host_bridge = std::move(*bridge);
        p.numa = *numa;
        for (std::size_t i = at + 3; i < w.size(); ++i) {
            const auto slash = w[i].rfind('/');
            const auto ids =
                slash == std::string_view::npos ? std::string_view{} : w[i].substr(slash + 1);
            auto hop_busid = unescape(w[i].substr(0, slash));
            if (!hop_busid || ids.size() != 19 || ids[4] != ':' || ids[9] != ':' ||
                ids[14] != ':') {
                return std::nullopt;
            }
            std::uint16_t v[4];
            for (int k = 0; k < 4; ++k) {
                const auto n =
                    parse_number<std::uint16_t>(ids.substr(static_cast<std::size_t>(k) * 5, 4), 16);
                if (!n) {
                    return std::nullopt;
                }
                v[k] = *n;
            }
            p.above.push_back({std::move(*hop_busid), v[0], v[1], v[2], v[3]});
        }
        return p;
    }

    Result<void> gpu_line(const std::vector<std::string_view>& w) {
        const auto expected = [&] {
            return fail(
                bad("expected 'gpu <index> <vendor> <vendor id> <device id> <model> "
                    "<os devices> <busid> <host bridge> <numa> <hop>...'"));
        };
        if (w.size() < 8 || node_.gpus.size() >= kMaxNodeFactsItems) {
            return expected();
        }
        Gpu g;
        const auto index = parse_number<int>(w[1]);
        auto vendor = unescape(w[2]);
        const auto vid = parse_number<std::uint16_t>(w[3], 16);
        const auto did = parse_number<std::uint16_t>(w[4], 16);
        auto model = unescape(w[5]);
        auto osdevs = items(w[6]);
        auto p = read_place(w, 7);
        if (!index || !vendor || !vid || !did || !model || !osdevs || !p) {
            return expected();
        }
        g.index = *index;
        g.vendor = std::move(*vendor);
        g.vendor_id = *vid;
        g.device_id = *did;
        g.model = std::move(*model);
        g.osdevs = std::move(*osdevs);
        g.place = std::move(*p);
        node_.gpus.push_back(std::move(g));
        return {};
    }

    Result<void> nic_line(const std::vector<std::string_view>& w) {
        const auto expected = [&] {
            return fail(
                bad("expected 'nic <name> <kind> <net devices> <node guid> <firmware> "
                    "<HCA type> <busid> <host bridge> <numa> <hop>...'"));
        };
        if (w.size() < 10 || node_.nics.size() >= kMaxNodeFactsItems) {
            return expected();
        }
        Nic n;
        auto name = unescape(w[1]);
        auto kind = unescape(w[2]);
        auto netdevs = items(w[3]);
        auto guid = unescape(w[4]);
        auto fw = unescape(w[5]);
        auto type = unescape(w[6]);
        auto p = read_place(w, 7);
        if (!name || name->empty() || !kind || !netdevs || !guid || !fw || !type || !p) {
            return expected();
        }
        n.name = std::move(*name);
        n.kind = std::move(*kind);
        n.netdevs = std::move(*netdevs);
        n.node_guid = std::move(*guid);
        n.fw_ver = std::move(*fw);
        n.hca_type = std::move(*type);
        n.place = std::move(*p);
        node_.nics.push_back(std::move(n));
        return {};
    }

    Result<void> end_line(const std::vector<std::string_view>& w) {
        const auto numa = w.size() == 4 ? parse_number<std::size_t>(w[1]) : std::nullopt;
        const auto gpus = w.size() == 4 ? parse_number<std::size_t>(w[2]) : std::nullopt;
        const auto nics = w.size() == 4 ? parse_number<std::size_t>(w[3]) : std::nullopt;
        if (!numa || !gpus || !nics) {
            return fail(bad("expected 'end <numa> <gpus> <nics>'"));
        }
        if (*numa != node_.numa.size() || *gpus != node_.gpus.size() ||
            *nics != node_.nics.size()) {
            return fail(
                bad("the 'end' line counts other numbers of numa, gpu and nic lines "
                    "than the file holds: lines are missing"));
        }
        return {};
    }
};

}  // namespace

std::string write_node_facts(const NodeTopology& node, std::uint64_t key) {
    std::string out = std::string(kMagic) + " " + std::to_string(kNodeFactsVersion) + "\nkey " +
                      hex_digits(key, 16) + "\n";
    for (const auto& n : node.numa) {
        out += "numa " + std::to_string(n.os_index) + ' ' + escape(n.cpus) + '\n';
    }
    for (const auto& g : node.gpus) {
        out += "gpu " + std::to_string(g.index) + ' ' + escape(g.vendor) + ' ' +
               hex_digits(g.vendor_id, 4) + ' ' + hex_digits(g.device_id, 4) + ' ' +
               escape(g.model) + ' ' + list(g.osdevs) + ' ' + place(g.place) + '\n';
    }
    for (const auto& n : node.nics) {
        out += "nic " + escape(n.name) + ' ' + escape(n.kind) + ' ' + list(n.netdevs) + ' ' +
               escape(n.node_guid) + ' ' + escape(n.fw_ver) + ' ' + escape(n.hca_type) + ' ' +
               place(n.place) + '\n';
    }
    out += "end " + std::to_string(node.numa.size()) + ' ' + std::to_string(node.gpus.size()) +
           ' ' + std::to_string(node.nics.size()) + '\n';
    return out;
}

Result<NodeTopology> read_node_facts(std::string_view text,
                                     std::string_view source,
                                     std::uint64_t key) {
    return Reader(text, source, key).run();
}

}  // namespace switchyard::node
