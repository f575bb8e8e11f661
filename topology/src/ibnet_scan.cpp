// SPDX-License-Identifier: Apache-2.0
// First pass over ibnetdiscover text: the record and port-line grammar of infiniband-diags 44.
#include "switchyard/topology/ibnet_scan.hpp"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "switchyard/common/strings.hpp"

namespace switchyard::topology {
namespace {

struct PortEnd {
    std::string node;
    std::uint64_t port = 0;
    auto operator<=>(const PortEnd&) const = default;
};

Failure parse_error(std::string_view source, std::size_t line, std::string message) {
    return fail(Error::parse(SourceLoc{std::string(source), static_cast<std::uint32_t>(line), 0},
                             std::move(message)));
}

/// Reads `"text"` at the start of s; returns the text and advances s past the closing quote.
std::optional<std::string_view> take_quoted(std::string_view& s) {
    s = trim(s);
    if (s.empty() || s.front() != '"') {
        return std::nullopt;
    }
    const auto close = s.find('"', 1);
    if (close == std::string_view::npos) {
        return std::nullopt;
    }
    const auto text = s.substr(1, close - 1);
    s.remove_prefix(close + 1);
    return text;
}

/// Reads `[number]` at the start of s and advances past it.
std::optional<std::uint64_t> take_port(std::string_view& s) {
    s = trim(s);
    if (s.empty() || s.front() != '[') {
        return std::nullopt;
    }
    const auto close = s.find(']');
    if (close == std::string_view::npos) {
        return std::nullopt;
    }
    const auto number = parse_uint(s.substr(1, close - 1));
    s.remove_prefix(close + 1);
    return number;
}

}  // namespace

Result<IbnetCounts> scan_ibnetdiscover(std::string_view text, std::string_view source) {
    IbnetCounts counts;
    std::vector<std::pair<PortEnd, PortEnd>> ends;  // (local, remote) per port line
    std::string current;                            // id of the record being read
    std::size_t line_no = 0;
    for (auto raw : split(text, '\n')) {
        ++line_no;
        auto line = trim(raw);
        if (line.empty() || line.front() == '#') {
            continue;
        }
        const auto kind = line.substr(0, line.find_first_of(" \t"));
        if (kind == "Switch" || kind == "Ca" || kind == "Rt") {
            auto rest = trim(line.substr(kind.size()));
            const auto nports = parse_uint(rest.substr(0, rest.find_first_of(" \t")));
            rest.remove_prefix(std::min(rest.size(), rest.find_first_of(" \t")));
            const auto id = take_quoted(rest);
            if (!nports || !id) {
                return parse_error(source, line_no,
                                   "expected '" + std::string(kind) +
                                       " <number of ports> \"<id>\"', got '" + std::string(line) +
                                       "'");
            }
            current = std::string(*id);
            (kind == "Switch" ? counts.switches : kind == "Ca" ? counts.cas : counts.routers)++;
            continue;
        }
        if (line.front() != '[') {
            continue;  // vendid=, devid=, sysimgguid=, switchguid=, caguid= lines
        }
        if (current.empty()) {
            return parse_error(source, line_no, "port line before any Switch/Ca/Rt record");
        }
        auto rest = line;
        const auto port = take_port(rest);
        if (rest.starts_with('(')) {  // CA port lines carry their own port GUID: "[1](guid)"
            rest.remove_prefix(std::min(rest.size(), rest.find(')') + 1));
        }
        const auto remote = take_quoted(rest);
        const auto remote_port = take_port(rest);
        if (!port || !remote || !remote_port) {
            return parse_error(
                source, line_no,
                "expected '[port] \"<remote id>\"[remote port]', got '" + std::string(line) + "'");
        }
        ++counts.port_lines;
        ends.push_back({PortEnd{current, *port}, PortEnd{std::string(*remote), *remote_port}});
    }
    // A cable seen from both ends appears as (a,b) and (b,a): normalise and count pairs.
    for (auto& [a, b] : ends) {
        if (b < a) {
            std::swap(a, b);
        }
    }
    std::sort(ends.begin(), ends.end());
    for (std::size_t i = 0; i < ends.size();) {
        std::size_t j = i + 1;
        while (j < ends.size() && ends[j] == ends[i]) {
            ++j;
        }
        ++counts.links;
        if (j - i == 1) {
            ++counts.one_sided;
        }
        i = j;
    }
    return counts;
}

}  // namespace switchyard::topology
