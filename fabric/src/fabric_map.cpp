// SPDX-License-Identifier: Apache-2.0
// The fabric map file: writer and validating reader (fast: the plugin reads it per step).
#include "switchyard/fabric/fabric_map.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "switchyard/common/file.hpp"
#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/fabric/guid.hpp"

namespace switchyard::fabric {
namespace {

/// Splits a line on single spaces into at most `max` fields; the last takes the rest.
std::size_t fields(std::string_view line, std::string_view* out, std::size_t max) {
    std::size_t n = 0;
    while (!line.empty() && n < max) {
        if (n + 1 == max) {
            out[n++] = line;
            break;
        }
        const auto sp = line.find(' ');
        out[n++] = line.substr(0, sp);
        if (sp == std::string_view::npos) {
            break;
        }
        line.remove_prefix(sp + 1);
    }
    return n;
}

class Reader {
public:
    Reader(std::string_view text,
           std::string_view source,
           const std::vector<std::string>* only = nullptr)
        : text_(text), source_(source) {
        if (only != nullptr) {
            only_.emplace(only->begin(), only->end());
        }
    }

    Result<FabricMap> run() {
        std::string_view line;
        if (!next(line)) {
            line_no_ = 1;
            bad("an empty file; expected a fabric map (its first line 'switchyard-fabric-map "
                "<version> "
                "<digest>'), as switchyard discover writes it");
            return fail(error_);
        }
        if (!check_version(line)) {
            return fail(error_);
        }
        while (next(line)) {
            if (line.empty() || line.front() == '#') {
                continue;
            }
            if (ended_) {
                bad("a line after the 'end' line; expected nothing more");
                return fail(error_);
            }
            if (!dispatch(line)) {
                return fail(error_);
            }
        }
        if (!ended_) {
            ++line_no_;
            bad("the map ends without its 'end' line: it was cut short (" +
                std::to_string(host_lines_) +
                " hosts read); copy it again or re-run 'switchyard discover'");
            return fail(error_);
        }
        for (std::uint32_t d = 0; d < map_.domains.size(); ++d) {
            for (const auto& name : map_.domains[d].members) {
                const auto* h = map_.find_host(name);
                if (h != nullptr) {
                    map_.hosts[static_cast<std::size_t>(h - map_.hosts.data())].domain = d;
                }
            }
        }
        for (std::uint32_t s = 0; s < map_.sus.size(); ++s) {
            map_.groups[map_.sus[s].group].sus.push_back(s);
            if (only_) {
                map_.sus[s].host_total = su_host_lines_[s];
            }
        }
        return std::move(map_);
    }

private:
    std::string_view text_;
    std::string_view source_;
    std::size_t pos_ = 0;
    std::uint32_t line_no_ = 0;
    Error error_ = Error::internal("");
    FabricMap map_;
    std::unordered_map<std::string_view, std::uint32_t> switch_by_name_;
    std::unordered_map<std::string_view, std::uint32_t> su_by_name_;
    std::unordered_map<std::string_view, std::uint32_t> group_by_name_;
    std::unordered_map<std::string_view, std::uint32_t> domain_by_name_;
    std::unordered_set<std::string> domain_hosts_;  // every nvl line's hosts, each in one
    std::optional<std::unordered_set<std::string_view>> only_;  // hosts to keep, if filtering
    int version_ = 0;                                           // of the map being read (2 to 5)
    std::vector<std::pair<std::uint32_t, std::uint32_t>> su_rails_;  // (begin, count) per SU
    std::vector<std::uint32_t> prev_rails_;  // leaf per rail of the previous rail list
    std::vector<std::string_view> prev_rail_text_;
    bool ended_ = false;
    bool hcas_seen_ = false;
    std::size_t host_lines_ = 0;                // every host line, kept or not
    std::vector<std::uint32_t> su_host_lines_;  // per SU, when filtering: every host line
    std::string_view last_su_name_;             // of the previous host line, and its index
    std::uint32_t last_su_ = 0;

    bool next(std::string_view& line) {
        if (pos_ >= text_.size()) {
            return false;
        }
        const auto* start = text_.data() + pos_;
        const auto* nl = static_cast<const char*>(std::memchr(start, '\n', text_.size() - pos_));
        const auto len = nl != nullptr ? static_cast<std::size_t>(nl - start) : text_.size() - pos_;
        line = std::string_view(start, len);
        pos_ += len + 1;
        ++line_no_;
        return true;
    }

    bool bad(const std::string& message) {
        error_ = Error::parse(SourceLoc{std::string(source_), line_no_, 0}, message);
        return false;
    }

    /// "switchyard-fabric-map 4 <digest>" or "... 3 <digest>" (the digest checked against the
    /// rest of the text), or "switchyard-fabric-map 2" (no digest).
    bool check_version(std::string_view line) {
        std::string_view f[4];
        const auto n = fields(line, f, 4);
        if (n < 2 || f[0] != kFabricMapMagic) {
            return bad("expected '" + std::string(kFabricMapMagic) +
                       " <version> <digest>' on the first line; is this a fabric map written by "
                       "'switchyard discover'?");
        }
        if (f[1] == "2" && n == 2) {
            version_ = 2;
            return true;
        }
        if (f[1] != "3" && f[1] != "4" && f[1] != std::to_string(kFabricMapVersion)) {
            return bad("fabric map version " + std::string(f[1]) +
                       " is not supported; this switchyard reads versions 2 to " +
                       std::to_string(kFabricMapVersion) + " (re-run 'switchyard discover')");
        }
        version_ = f[1][0] - '0';
        map_.link_counts = version_ >= 4;
        const auto digest = fabric_map_digest(line);
        if (!digest) {
            return bad("expected '" + std::string(kFabricMapMagic) + " " + std::string(f[1]) +
                       " <16 hex digits>' on the first line, got '" +
                       std::string(line.substr(0, 80)) + "'");
        }
        const auto actual = content_digest(text_.substr(std::min(pos_, text_.size())));
        if (actual != *digest) {
            return bad(
                "the map's content does not match the digest on its first line: it was "
                "changed after 'switchyard discover' wrote it. Re-run discover; for a map "
                "edited on purpose, make its first line '" +
                std::string(kFabricMapMagic) + " 2' (no digest, no index)");
        }
        return true;
    }

    template <typename Map>
    bool lookup(const Map& m, std::string_view name, std::string_view what, std::uint32_t& out) {
        const auto it = m.find(name);
        if (it == m.end()) {
            return bad(std::string(what) + " '" + std::string(name) +
                       "' is not defined above this line");
        }
        out = it->second;
        return true;
    }

    template <typename Map>
    bool define(Map& m, std::string_view name, std::string_view what, std::uint32_t index) {
        if (name.empty()) {
            return bad(std::string(what) + " without a name");
        }
        if (!m.emplace(name, index).second) {
            return bad(std::string(what) + " '" + std::string(name) + "' is defined twice");
        }
        return true;
    }

    static std::optional<std::uint32_t> number(std::string_view s) {
        std::uint32_t v = 0;
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc{} || p != s.data() + s.size()) {
            return std::nullopt;
        }
        return v;
    }

    bool dispatch(std::string_view line) {
        std::string_view f[5];
        const auto sp = line.find(' ');
        const auto key = line.substr(0, sp);
        const auto rest = sp == std::string_view::npos ? std::string_view{} : line.substr(sp + 1);
        if (key == "host") {
            ++host_lines_;
            if (only_ && only_->count(rest.substr(0, rest.find(' '))) == 0) {
                return count_skipped(rest);  // not a host of this step
            }
            return host_line(rest);
        }
        if (key == "switch") {
            // Version 4 adds the uplink count.
            const std::size_t want = version_ >= 4 ? 4 : 3;
            const auto n = fields(rest, f, 5);
            const auto guid = n == want ? parse_guid(f[1]) : std::nullopt;
            const auto tier = n == want ? number(f[2]) : std::nullopt;
            const auto up = n == want && want == 4 ? number(f[3]) : std::optional<std::uint32_t>(0);
            if (!guid || !tier || !up) {
                return bad(std::string(want == 4
                                           ? "expected 'switch <name> <guid> <tier> "
                                             "<uplinks>', got '"
                                           : "expected 'switch <name> <guid> <tier>', got '") +
                           std::string(line.substr(0, 200)) + "'");
            }
            const auto idx = static_cast<std::uint32_t>(map_.switches.size());
            map_.switches.push_back({std::string(f[0]), *guid, *tier, *up});
            return define(switch_by_name_, f[0], "switch", idx);  // views into the text: stable
        }
        if (key == "su") {
            return su_line(rest, line);
        }
        if (key == "group") {
            // Version 4 adds the group's global and core cable counts.
            const std::size_t want = version_ >= 4 ? 3 : 1;
            const auto n = fields(rest, f, 4);
            const auto global =
                n == want && want == 3 ? number(f[1]) : std::optional<std::uint32_t>(0);
            const auto core =
                n == want && want == 3 ? number(f[2]) : std::optional<std::uint32_t>(0);
            if (n != want || !global || !core) {
                return bad(std::string(want == 3 ? "expected 'group <name> <global cables> <core "
                                                   "cables>', got '"
                                                 : "expected 'group <name>', got '") +
                           std::string(line.substr(0, 200)) + "'");
            }
            const auto idx = static_cast<std::uint32_t>(map_.groups.size());
            map_.groups.push_back({std::string(f[0]), {}, *global, *core});
            return define(group_by_name_, f[0], "group", idx);
        }
        if (key == "nvl" && version_ >= 5) {
            return nvl_line(rest, line);
        }
        if (key == "anomaly") {
            if (fields(rest, f, 2) != 2) {
                return bad("expected 'anomaly <kind> <detail>', got '" + std::string(line) + "'");
            }
            // A map written by hand or by an older version may hold any byte: made printable
            // here, so every output of a read map is (the writer makes them printable too).
            map_.anomalies.push_back({printable(f[0]), printable(f[1])});
            return true;
        }
        if (key == "kind") {
            const auto k = fabric_kind_from_string(rest);
            if (!k) {
                return bad("unknown fabric kind '" + std::string(rest) +
                           "'; expected empty, fat-tree, fat-tree-3, dragonfly+ or islands");
            }
            map_.kind = *k;
            return true;
        }
        if (key == "tiers") {
            const auto t = number(rest);
            if (!t) {
                return bad("expected 'tiers <number>', got '" + std::string(line) + "'");
            }
            map_.tiers = *t;
            return true;
        }
        if (key == "hcas") {
            return hcas_line(rest);
        }
        if (key == "end") {
            return end_line(rest, line);
        }
        return bad("unknown line '" + std::string(line.substr(0, 60)) +
                   "'; expected kind, tiers, hcas, switch, group, su, host, " +
                   (version_ >= 5 ? "nvl, " : "") + "anomaly or end");
    }

    /// "nvl <name> <su> <ok|degraded|missing> <key> <hostlist>": a domain of a version-5 map,
    /// its SU defined above, its hosts in no other domain.
    bool nvl_line(std::string_view rest, std::string_view line) {
        std::string_view f[5];
        const auto expected = [&] {
            return bad(
                "expected 'nvl <name> <su> <ok|degraded|missing> <clusterUuid.clique> "
                "<hosts>', got '" +
                std::string(line.substr(0, 200)) + "'");
        };
        if (fields(rest, f, 5) != 5 || f[4].empty()) {
            return expected();
        }
        MapDomain d;
        d.name = std::string(f[0]);
        if (!lookup(su_by_name_, f[1], "SU", d.su)) {
            return false;
        }
        if (f[2] == "ok") {
            d.state = DomainState::Ok;
        } else if (f[2] == "degraded") {
            d.state = DomainState::Degraded;
        } else if (f[2] == "missing") {
            d.state = DomainState::Missing;
        } else {
            return expected();
        }
        d.key = std::string(f[3]);
        auto members = expand_hostlist(f[4]);
        if (!members) {
            return bad("nvl " + d.name + ": " + members.error().message());
        }
        for (const auto& m : *members) {
            if (!domain_hosts_.insert(m).second) {
                return bad("nvl " + d.name + ": host '" + m + "' is in another NVLink domain too");
            }
        }
        d.members = std::move(*members);
        std::sort(d.members.begin(), d.members.end());
        const auto idx = static_cast<std::uint32_t>(map_.domains.size());
        map_.domains.push_back(std::move(d));
        return define(domain_by_name_, f[0], "NVLink domain", idx);
    }

    /// "hcas mlx5_0 mlx5_1": once, names sorted, each a non-empty word.
    bool hcas_line(std::string_view names) {
        if (hcas_seen_) {
            return bad("a second 'hcas' line; expected one");
        }
        hcas_seen_ = true;
        while (!names.empty()) {
            const auto s = names.find(' ');
            const auto name = names.substr(0, s);
            if (name.empty()) {
                return bad("an empty HCA name in the 'hcas' line (two spaces in a row?)");
            }
            if (!map_.hcas.empty() && map_.hcas.back() >= name) {
                return bad("the 'hcas' line must list HCA names sorted, each once");
            }
            map_.hcas.emplace_back(name);
            names = s == std::string_view::npos ? std::string_view{} : names.substr(s + 1);
        }
        return true;
    }

    /// "end 8 switches 4 sus 16 hosts": what the writer wrote, checked against what was read.
    bool end_line(std::string_view rest, std::string_view line) {
        std::string_view f[7];
        const auto n = fields(rest, f, 7);
        const auto sw = n == 6 ? number(f[0]) : std::nullopt;
        const auto su = n == 6 ? number(f[2]) : std::nullopt;
        const auto ho = n == 6 ? number(f[4]) : std::nullopt;
        if (!sw || !su || !ho || f[1] != "switches" || f[3] != "sus" || f[5] != "hosts") {
            return bad("expected 'end <n> switches <n> sus <n> hosts', got '" +
                       std::string(line.substr(0, 80)) + "'");
        }
        if (*sw != map_.switches.size() || *su != map_.sus.size() || *ho != host_lines_) {
            return bad("the 'end' line counts " + std::string(rest) + " but the map holds " +
                       std::to_string(map_.switches.size()) + " switches " +
                       std::to_string(map_.sus.size()) + " sus " + std::to_string(host_lines_) +
                       " hosts: lines are missing; copy it again or re-run 'switchyard "
                       "discover'");
        }
        ended_ = true;
        return true;
    }

    bool su_line(std::string_view rest, std::string_view line) {
        std::string_view f[5];
        const auto n = fields(rest, f, 5);
        if (n != 3 && n != 4) {  // an SU without hosts has no usual rails
            return bad("expected 'su <name> <group> <leaf>[,<leaf>...] <hca>:<leaf>[,...]', got '" +
                       std::string(line) + "'");
        }
        MapSu su;
        su.name = std::string(f[0]);
        if (!lookup(group_by_name_, f[1], "group", su.group)) {
            return false;
        }
        auto leaves = f[2];
        if (leaves.empty()) {
            return bad("SU '" + su.name + "' has no leaf");
        }
        while (!leaves.empty()) {
            const auto c = leaves.find(',');
            std::uint32_t leaf = 0;
            if (!lookup(switch_by_name_, leaves.substr(0, c), "switch", leaf)) {
                return false;
            }
            su.leaves.push_back(leaf);
            leaves = c == std::string_view::npos ? std::string_view{} : leaves.substr(c + 1);
        }
        const auto idx = static_cast<std::uint32_t>(map_.sus.size());
        su_rails_.emplace_back(static_cast<std::uint32_t>(map_.rails.size()), 0U);
        if (n == 4 && !rail_list(f[3])) {
            return false;
        }
        su_rails_.back().second =
            static_cast<std::uint32_t>(map_.rails.size()) - su_rails_.back().first;
        map_.sus.push_back(std::move(su));
        su_host_lines_.push_back(0);
        return define(su_by_name_, f[0], "su", idx);  // views into the text: stable
    }

    /// A host line the step does not need still counts for its SU's size.
    bool count_skipped(std::string_view rest) {
        std::string_view f[3];
        if (fields(rest, f, 3) < 2) {
            return bad("expected 'host <name> <su> [<hca>:<leaf>,...]', got 'host " +
                       std::string(rest) + "'");
        }
        if (f[1] != last_su_name_ && !lookup(su_by_name_, f[1], "su", last_su_)) {
            return false;
        }
        last_su_name_ = f[1];
        ++su_host_lines_[last_su_];
        return true;
    }

    bool rail_list(std::string_view rails) {
        if (rails.empty()) {  // "host <name> <su> " with a space and no rail after it
            return bad(
                "empty rail list after a space; expected '<hca>:<leaf>[*<cables>],...' "
                "or no space at the end of the line");
        }
        std::size_t r = 0;
        while (!rails.empty()) {
            const auto c = rails.find(',');
            if (!rail(rails.substr(0, c), r++)) {
                return false;
            }
            rails = c == std::string_view::npos ? std::string_view{} : rails.substr(c + 1);
        }
        return true;
    }

    /// "host <name> <su> [<hca>:<leaf>[*<cables>],...]" — hosts sorted, references resolved;
    /// without rails the host has its SU's.
    bool host_line(std::string_view rest) {
        std::string_view f[4];
        const auto n = fields(rest, f, 4);
        if (n < 2 || n > 3) {
            return bad("expected 'host <name> <su> [<hca>:<leaf>,...]', got 'host " +
                       std::string(rest) + "'");
        }
        MapHost h;
        h.name = std::string(f[0]);
        if (!map_.hosts.empty() && !(map_.hosts.back().name < h.name)) {
            return bad("host '" + h.name +
                       "' is out of order or repeated (hosts must be sorted by name)");
        }
        if (!lookup(su_by_name_, f[1], "su", h.su)) {
            return false;
        }
        if (only_) {
            ++su_host_lines_[h.su];
        }
        if (n == 2) {
            h.rail_begin = su_rails_[h.su].first;
            h.rail_count = su_rails_[h.su].second;
        } else {
            h.rail_begin = static_cast<std::uint32_t>(map_.rails.size());
            if (!rail_list(f[2])) {
                return false;
            }
            h.rail_count = static_cast<std::uint32_t>(map_.rails.size() - h.rail_begin);
        }
        map_.sus[h.su].hosts.push_back(static_cast<std::uint32_t>(map_.hosts.size()));
        map_.hosts.push_back(std::move(h));
        return true;
    }

    bool rail(std::string_view text, std::size_t position) {
        if (text.empty()) {
            return bad("empty rail in a rail list; expected '<hca>:<leaf>[*<cables>]'");
        }
        MapRail rail;
        const auto star = text.find('*');
        if (star != std::string_view::npos) {
            const auto cables = number(text.substr(star + 1));
            if (!cables || *cables == 0) {
                return bad("bad cable count in rail '" + std::string(text) + "'");
            }
            rail.cables = *cables;
            text = text.substr(0, star);
        }
        const auto colon = text.find(':');
        if (colon == std::string_view::npos) {
            return bad("expected '<hca>:<leaf>' in rail '" + std::string(text) + "'");
        }
        const auto hca = text.substr(0, colon);
        const auto it = std::lower_bound(map_.hcas.begin(), map_.hcas.end(), hca);
        if (it == map_.hcas.end() || *it != hca) {
            return bad("HCA '" + std::string(hca) + "' is not in the 'hcas' line");
        }
        rail.hca = static_cast<std::uint32_t>(it - map_.hcas.begin());
        // Consecutive hosts mostly share their rails: compare with the previous host first.
        if (position < prev_rail_text_.size() && prev_rail_text_[position] == text) {
            rail.leaf = prev_rails_[position];
        } else if (!lookup(switch_by_name_, text.substr(colon + 1), "switch", rail.leaf)) {
            return false;
        }
        if (prev_rail_text_.size() <= position) {
            prev_rail_text_.resize(position + 1);
            prev_rails_.resize(position + 1);
        }
        prev_rail_text_[position] = text;
        prev_rails_[position] = rail.leaf;
        map_.rails.push_back(rail);
        return true;
    }
};

}  // namespace

Result<FabricMap> read_fabric_map(std::string_view text, std::string_view source) {
    return Reader(text, source).run();
}

Result<FabricMap> read_fabric_map_for(std::string_view text,
                                      std::string_view source,
                                      const std::vector<std::string>& hosts) {
    return Reader(text, source, &hosts).run();
}

Result<FabricMap> read_fabric_map_file(const std::string& path) {
    auto text = read_text_file(path, kFabricInput);
    if (!text) {
        return fail(text.error());
    }
    return read_fabric_map(*text, path);
}

std::uint64_t missing_uplink_cables(const FabricMap& m) {
    std::vector<std::uint32_t> best(m.groups.size(), 0);
    for (const auto& su : m.sus) {
        for (const auto l : su.leaves) {
            if (su.group < best.size() && l < m.switches.size()) {
                best[su.group] = std::max(best[su.group], m.switches[l].uplinks);
            }
        }
    }
    std::uint64_t missing = 0;
    for (const auto& su : m.sus) {
        for (const auto l : su.leaves) {
            if (su.group < best.size() && l < m.switches.size()) {
                missing += best[su.group] - m.switches[l].uplinks;
            }
        }
    }
    return missing;
}

}  // namespace switchyard::fabric
