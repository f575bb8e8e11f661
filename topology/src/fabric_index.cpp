// SPDX-License-Identifier: Apache-2.0
// The fabric index: writer, and the reader a step uses (binary search over fixed-width records,
// read in cached blocks).
#include "switchyard/topology/fabric_index.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <optional>
#include <unordered_map>

#include "switchyard/topology/fabric_graph.hpp"

namespace switchyard::topology {
namespace {

constexpr std::string_view kMagic = "switchyard-fabric-index";
/// Table order in the file, and their names on the header's `table` lines.
constexpr std::string_view kTables[] = {"hosts", "sus", "groups", "railsets", "switches"};
constexpr std::size_t kHosts = 0;
constexpr std::size_t kSus = 1;
constexpr std::size_t kGroups = 2;
constexpr std::size_t kRailsets = 3;
constexpr std::size_t kSwitches = 4;
constexpr std::size_t kTableCount = 5;
constexpr std::uint64_t kBlock = 16384;

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    while (true) {
        const auto p = s.find(sep);
        out.push_back(s.substr(0, p));
        if (p == std::string_view::npos) {
            return out;
        }
        s.remove_prefix(p + 1);
    }
}

template <typename T>
std::optional<T> number(std::string_view s, int base = 10) {
    T v{};
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (s.empty() || ec != std::errc{} || p != s.data() + s.size()) {
        return std::nullopt;
    }
    return v;
}

std::string hex16(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

/// Lays records out at one width (the longest + its newline), padded with spaces, and adds
/// the table's line to `header`.
Result<std::string> table(const std::vector<std::string>& records,
                          std::string_view name,
                          std::string& header) {
    std::size_t width = 2;
    for (const auto& r : records) {
        width = std::max(width, r.size() + 1);
    }
    if (width > kMaxIndexRecord || records.size() > kMaxIndexRecords) {
        return fail(Error::invalid_argument(
            "the index's " + std::string(name) + " table would hold " +
            std::to_string(records.size()) + " records of " + std::to_string(width) +
            " bytes; the limits are " + std::to_string(kMaxIndexRecords) + " and " +
            std::to_string(kMaxIndexRecord)));
    }
    header += "table " + std::string(name) + " " + std::to_string(records.size()) + " " +
              std::to_string(width) + "\n";
    std::string out;
    out.reserve(records.size() * width);
    for (const auto& r : records) {
        out += r;
        out.append(width - 1 - r.size(), ' ');
        out += '\n';
    }
    return out;
}

class IndexReader {
public:
    IndexReader(const ByteSource& src, const MapStamp& stamp) : src_(src), stamp_(stamp) {}

    Result<FabricMap> run(const std::vector<std::string>& wanted) {
        if (auto h = header(); !h) {
            return fail(h.error());
        }
        std::vector<std::string> names(wanted);
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        struct Found {
            std::string name;
            std::uint64_t su;
            std::uint64_t railset;
        };
        std::vector<Found> found;
        std::uint64_t lo = 0;
        for (const auto& n : names) {
            auto at = find_host(n, lo);
            if (!at) {
                return fail(at.error());
            }
            if (!*at) {
                continue;
            }
            lo = (*at)->first;
            found.push_back({n, (*at)->second[0], (*at)->second[1]});
        }
        // The SUs, groups, rail sets and switches those hosts use, in the index's order (so
        // indices compare as in the whole map).
        Ids sus;
        Ids railsets;
        for (const auto& f : found) {
            sus.add(f.su);
            railsets.add(f.railset);
        }
        sus.finish();
        railsets.finish();
        Ids groups;
        Ids switches;
        std::vector<SuRecord> su_records;
        for (const auto id : sus.ids) {
            auto r = su_record(id);
            if (!r) {
                return fail(r.error());
            }
            groups.add(r->group);
            for (const auto l : r->leaves) {
                switches.add(l);
            }
            su_records.push_back(std::move(*r));
        }
        std::vector<std::vector<RailRecord>> rail_records;
        for (const auto id : railsets.ids) {
            auto r = railset_record(id);
            if (!r) {
                return fail(r.error());
            }
            for (const auto& rr : *r) {
                switches.add(rr.sw);
            }
            rail_records.push_back(std::move(*r));
        }
        groups.finish();
        switches.finish();
        for (const auto id : switches.ids) {
            auto r = switch_record(id);
            if (!r) {
                return fail(r.error());
            }
            map_.switches.push_back(std::move(*r));
        }
        for (const auto id : groups.ids) {
            auto r = record(kGroups, id);
            if (!r) {
                return fail(r.error());
            }
            if (r->empty() || r->find(' ') != std::string::npos) {
                return fail(bad(kGroups, id, "expected '<group name>'"));
            }
            map_.groups.push_back({std::move(*r), {}});
        }
        for (std::size_t s = 0; s < su_records.size(); ++s) {
            auto& r = su_records[s];
            MapSu su;
            su.name = std::move(r.name);
            su.group = groups.local(r.group);
            su.host_total = static_cast<std::uint32_t>(r.total);
            for (const auto l : r.leaves) {
                su.leaves.push_back(switches.local(l));
            }
            map_.groups[su.group].sus.push_back(static_cast<std::uint32_t>(s));
            map_.sus.push_back(std::move(su));
        }
        for (const auto& f : found) {
            MapHost h;
            h.name = f.name;
            h.su = sus.local(f.su);
            h.rail_begin = static_cast<std::uint32_t>(map_.rails.size());
            for (const auto& rr : rail_records[railsets.local(f.railset)]) {
                map_.rails.push_back({static_cast<std::uint32_t>(rr.hca), switches.local(rr.sw),
                                      static_cast<std::uint32_t>(rr.cables)});
            }
            h.rail_count = static_cast<std::uint32_t>(map_.rails.size()) - h.rail_begin;
            map_.sus[h.su].hosts.push_back(static_cast<std::uint32_t>(map_.hosts.size()));
            map_.hosts.push_back(std::move(h));
        }
        return std::move(map_);
    }

private:
    struct Table {
        std::uint64_t count = 0;
        std::uint64_t width = 0;
        std::uint64_t offset = 0;
        std::uint64_t first_line = 0;  // line number of record 0
    };
    struct SuRecord {
        std::string name;
        std::uint64_t group = 0;
        std::uint64_t total = 0;
        std::vector<std::uint64_t> leaves;
    };
    struct RailRecord {
        std::uint64_t hca = 0;
        std::uint64_t sw = 0;
        std::uint64_t cables = 1;
    };
    /// Record numbers of one table in use, then their positions in the step's map.
    struct Ids {
        std::vector<std::uint64_t> ids;
        void add(std::uint64_t id) { ids.push_back(id); }
        void finish() {
            std::sort(ids.begin(), ids.end());
            ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        }
        [[nodiscard]] std::uint32_t local(std::uint64_t id) const {
            return static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), id) -
                                              ids.begin());
        }
    };

    const ByteSource& src_;
    MapStamp stamp_;
    Table tables_[kTableCount];
    FabricMap map_;
    std::unordered_map<std::uint64_t, std::string> blocks_;

    Error error_at(std::uint64_t line, const std::string& message) const {
        return Error::parse(SourceLoc{src_.name(), static_cast<std::uint32_t>(line), 0}, message);
    }
    Error bad(std::size_t t, std::uint64_t i, const std::string& message) const {
        return error_at(tables_[t].first_line + i,
                        std::string(kTables[t]) + " record " + std::to_string(i) + ": " + message);
    }

    Result<void> header() {
        auto text = src_.read_at(0, kMaxIndexHeader);
        if (!text) {
            return fail(text.error());
        }
        std::string_view rest(*text);
        std::vector<std::string_view> lines;
        while (lines.size() < 5 + kTableCount) {
            const auto nl = rest.find('\n');
            if (nl == std::string_view::npos) {
                return fail(error_at(lines.size() + 1,
                                     "the header ends early or is longer than " +
                                         std::to_string(kMaxIndexHeader) +
                                         " bytes; expected the lines written by 'switchyard "
                                         "discover'"));
            }
            lines.push_back(rest.substr(0, nl));
            rest.remove_prefix(nl + 1);
        }
        const std::uint64_t header_bytes = text->size() - rest.size();
        if (lines[0] != std::string(kMagic) + " " + std::to_string(kFabricIndexVersion)) {
            return fail(error_at(1, "expected '" + std::string(kMagic) + " " +
                                        std::to_string(kFabricIndexVersion) +
                                        "'; is this an index written by 'switchyard discover'?"));
        }
        const auto m = split(lines[1], ' ');
        const auto digest = m.size() == 3 && m[0] == "map" && m[1].size() == 16
                                ? number<std::uint64_t>(m[1], 16)
                                : std::nullopt;
        const auto bytes = m.size() == 3 ? number<std::uint64_t>(m[2]) : std::nullopt;
        if (!digest || !bytes) {
            return fail(error_at(2, "expected 'map <16 hex digits> <bytes>'"));
        }
        if (*digest != stamp_.digest || *bytes != stamp_.bytes) {
            return fail(Error::invalid_argument(
                src_.name() + " is stale: it was made from the map with digest " + hex16(*digest) +
                " (" + std::to_string(*bytes) + " bytes), the map beside it has " +
                hex16(stamp_.digest) + " (" + std::to_string(stamp_.bytes) +
                " bytes); copy both files together, or re-run 'switchyard discover'"));
        }
        const auto kind = lines[2].substr(0, 5) == "kind "
                              ? fabric_kind_from_string(lines[2].substr(5))
                              : std::nullopt;
        if (!kind) {
            return fail(error_at(3, "expected 'kind <fabric kind>'"));
        }
        map_.kind = *kind;
        const auto tiers = lines[3].substr(0, 6) == "tiers "
                               ? number<std::uint32_t>(lines[3].substr(6))
                               : std::nullopt;
        if (!tiers) {
            return fail(error_at(4, "expected 'tiers <number>'"));
        }
        map_.tiers = *tiers;
        const auto hcas = split(lines[4], ' ');
        if (hcas[0] != "hcas") {
            return fail(error_at(5, "expected 'hcas <name>...'"));
        }
        for (std::size_t i = 1; i < hcas.size(); ++i) {
            if (hcas[i].empty()) {
                return fail(error_at(5, "an empty HCA name"));
            }
            map_.hcas.emplace_back(hcas[i]);
        }
        std::uint64_t offset = header_bytes;
        std::uint64_t line = 5 + kTableCount + 1;
        for (std::size_t t = 0; t < kTableCount; ++t) {
            const auto f = split(lines[5 + t], ' ');
            const auto count = f.size() == 4 ? number<std::uint64_t>(f[2]) : std::nullopt;
            const auto width = f.size() == 4 ? number<std::uint64_t>(f[3]) : std::nullopt;
            if (f.size() != 4 || f[0] != "table" || f[1] != kTables[t] || !count || !width ||
                *count > kMaxIndexRecords || *width < 2 || *width > kMaxIndexRecord) {
                return fail(error_at(6 + t, "expected 'table " + std::string(kTables[t]) +
                                                " <count ≤ " + std::to_string(kMaxIndexRecords) +
                                                "> <width 2.." + std::to_string(kMaxIndexRecord) +
                                                ">'"));
            }
            tables_[t] = {*count, *width, offset, line};
            offset += *count * *width;
            line += *count;
        }
        if (offset != src_.size()) {
            return fail(error_at(0, "the index is " + std::to_string(src_.size()) +
                                        " bytes but its tables take " + std::to_string(offset) +
                                        ": it was cut short or added to; re-run 'switchyard "
                                        "discover'"));
        }
        return {};
    }

    /// Bytes [offset, offset + length) of the file, through 16 KiB cached blocks.
    Result<std::string> bytes(std::uint64_t offset, std::uint64_t length) {
        std::string out;
        while (length > 0) {
            const auto b = offset / kBlock;
            auto it = blocks_.find(b);
            if (it == blocks_.end()) {
                auto data = src_.read_at(b * kBlock, kBlock);
                if (!data) {
                    return fail(data.error());
                }
                it = blocks_.emplace(b, std::move(*data)).first;
            }
            const auto in = offset - b * kBlock;
            const auto take = std::min<std::uint64_t>(length, kBlock - in);
            if (in + take > it->second.size()) {
                return fail(Error::io(src_.name() + ": the file became shorter while read"));
            }
            out.append(it->second, in, take);
            offset += take;
            length -= take;
        }
        return out;
    }

    /// Record i of table t, without its padding.
    Result<std::string> record(std::size_t t, std::uint64_t i) {
        const auto& tab = tables_[t];
        if (i >= tab.count) {
            return fail(
                bad(t, i, "no such record (the table has " + std::to_string(tab.count) + ")"));
        }
        auto r = bytes(tab.offset + i * tab.width, tab.width);
        if (!r) {
            return fail(r.error());
        }
        if (r->back() != '\n' || r->find('\n') != r->size() - 1) {
            return fail(
                bad(t, i, "not " + std::to_string(tab.width) + " bytes ending in a newline"));
        }
        const auto end = r->find_last_not_of(" \n");
        r->resize(end == std::string::npos ? 0 : end + 1);
        return r;
    }

    /// (position, {su, railset}) of host `name` at or after record `lo`; nullopt if absent.
    Result<std::optional<std::pair<std::uint64_t, std::array<std::uint64_t, 2>>>> find_host(
        const std::string& name, std::uint64_t lo) {
        std::uint64_t hi = tables_[kHosts].count;
        while (lo < hi) {
            const auto mid = lo + (hi - lo) / 2;
            auto r = record(kHosts, mid);
            if (!r) {
                return fail(r.error());
            }
            const auto sp = r->find(' ');
            if (std::string_view(*r).substr(0, sp) < name) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (lo >= tables_[kHosts].count) {
            return std::optional<std::pair<std::uint64_t, std::array<std::uint64_t, 2>>>{};
        }
        auto r = record(kHosts, lo);
        if (!r) {
            return fail(r.error());
        }
        const auto f = split(*r, ' ');
        if (f[0] != name) {
            return std::optional<std::pair<std::uint64_t, std::array<std::uint64_t, 2>>>{};
        }
        const auto su = f.size() == 3 ? number<std::uint64_t>(f[1]) : std::nullopt;
        const auto rs = f.size() == 3 ? number<std::uint64_t>(f[2]) : std::nullopt;
        if (!su || !rs || *su >= tables_[kSus].count || *rs >= tables_[kRailsets].count) {
            return fail(bad(kHosts, lo, "expected '<name> <su record> <railset record>'"));
        }
        return std::optional{std::pair{lo, std::array<std::uint64_t, 2>{*su, *rs}}};
    }

    Result<SuRecord> su_record(std::uint64_t id) {
        auto r = record(kSus, id);
        if (!r) {
            return fail(r.error());
        }
        const auto f = split(*r, ' ');
        const auto group = f.size() == 4 ? number<std::uint64_t>(f[1]) : std::nullopt;
        const auto total = f.size() == 4 ? number<std::uint32_t>(f[2]) : std::nullopt;
        SuRecord su;
        if (!group || !total || f[0].empty() || *group >= tables_[kGroups].count) {
            return fail(bad(kSus, id, "expected '<name> <group record> <hosts> <switch>,...'"));
        }
        su.name = std::string(f[0]);
        su.group = *group;
        su.total = *total;
        for (const auto l : split(f[3], ',')) {
            const auto sw = number<std::uint64_t>(l);
            if (!sw || *sw >= tables_[kSwitches].count) {
                return fail(bad(kSus, id, "leaf '" + std::string(l) + "' is not a switch record"));
            }
            su.leaves.push_back(*sw);
        }
        return su;
    }

    Result<std::vector<RailRecord>> railset_record(std::uint64_t id) {
        auto r = record(kRailsets, id);
        if (!r) {
            return fail(r.error());
        }
        std::vector<RailRecord> rails;
        if (*r == "-") {
            return rails;
        }
        for (const auto item : split(*r, ',')) {
            const auto colon = item.find(':');
            const auto star = item.find('*');
            const auto hca = number<std::uint64_t>(item.substr(0, colon));
            const auto sw =
                colon == std::string_view::npos
                    ? std::nullopt
                    : number<std::uint64_t>(item.substr(colon + 1, star == std::string_view::npos
                                                                       ? std::string_view::npos
                                                                       : star - colon - 1));
            const auto cables = star == std::string_view::npos
                                    ? std::optional<std::uint64_t>(1)
                                    : number<std::uint64_t>(item.substr(star + 1));
            if (!hca || !sw || !cables || *hca >= map_.hcas.size() ||
                *sw >= tables_[kSwitches].count || *cables == 0 || *cables > UINT32_MAX) {
                return fail(bad(kRailsets, id,
                                "expected '<hca>:<switch record>[*<cables>],...', "
                                "got '" +
                                    std::string(item.substr(0, 40)) + "'"));
            }
            rails.push_back({*hca, *sw, *cables});
        }
        return rails;
    }

    Result<MapSwitch> switch_record(std::uint64_t id) {
        auto r = record(kSwitches, id);
        if (!r) {
            return fail(r.error());
        }
        const auto f = split(*r, ' ');
        const auto guid = f.size() == 3 ? parse_guid(f[1]) : std::nullopt;
        const auto tier = f.size() == 3 ? number<std::uint32_t>(f[2]) : std::nullopt;
        if (!guid || !tier || f[0].empty()) {
            return fail(bad(kSwitches, id, "expected '<name> <guid> <tier>'"));
        }
        return MapSwitch{std::string(f[0]), *guid, *tier};
    }
};

}  // namespace

Result<std::string> write_fabric_index(const FabricMap& map, std::string_view map_text) {
    const auto digest = fabric_map_digest(map_text.substr(0, map_text.find('\n')));
    if (!digest) {
        return fail(Error::invalid_argument(
            "the map has no digest on its first line (a version 2 map); an index needs one"));
    }
    std::vector<std::string> hosts;
    std::vector<std::string> railsets;
    std::unordered_map<std::string, std::size_t> railset_ids;
    hosts.reserve(map.hosts.size());
    for (const auto& h : map.hosts) {
        std::string rails;
        for (const auto& r : map.rails_of(h)) {
            rails +=
                (rails.empty() ? "" : ",") + std::to_string(r.hca) + ':' + std::to_string(r.leaf);
            if (r.cables != 1) {
                rails += '*' + std::to_string(r.cables);
            }
        }
        if (rails.empty()) {
            rails = "-";
        }
        const auto [it, added] = railset_ids.emplace(rails, railsets.size());
        if (added) {
            railsets.push_back(rails);
        }
        hosts.push_back(h.name + ' ' + std::to_string(h.su) + ' ' + std::to_string(it->second));
    }
    std::vector<std::string> sus;
    for (const auto& su : map.sus) {
        std::string leaves;
        for (const auto l : su.leaves) {
            leaves += (leaves.empty() ? "" : ",") + std::to_string(l);
        }
        sus.push_back(su.name + ' ' + std::to_string(su.group) + ' ' +
                      std::to_string(su.fabric_hosts()) + ' ' + leaves);
    }
    std::vector<std::string> groups;
    for (const auto& g : map.groups) {
        groups.push_back(g.name);
    }
    std::vector<std::string> switches;
    for (const auto& s : map.switches) {
        switches.push_back(s.name + ' ' + format_guid(s.guid) + ' ' + std::to_string(s.tier));
    }
    std::string header = std::string(kMagic) + " " + std::to_string(kFabricIndexVersion) +
                         "\nmap " + hex16(*digest) + " " + std::to_string(map_text.size()) +
                         "\nkind " + std::string(to_string(map.kind)) + "\ntiers " +
                         std::to_string(map.tiers) + "\nhcas";
    for (const auto& h : map.hcas) {
        header += ' ' + h;
    }
    header += '\n';
    std::string body;
    const std::vector<std::string>* in_order[kTableCount] = {&hosts, &sus, &groups, &railsets,
                                                             &switches};
    for (std::size_t t = 0; t < kTableCount; ++t) {
        auto part = table(*in_order[t], kTables[t], header);
        if (!part) {
            return fail(part.error());
        }
        body += *part;
    }
    if (header.size() > kMaxIndexHeader) {
        return fail(Error::invalid_argument("the index header would be " +
                                            std::to_string(header.size()) +
                                            " bytes (the HCA names "
                                            "are too many or too long); the limit is " +
                                            std::to_string(kMaxIndexHeader)));
    }
    return header + body;
}

Result<FabricMap> read_fabric_index_for(const ByteSource& index,
                                        const MapStamp& stamp,
                                        const std::vector<std::string>& hosts) {
    return IndexReader(index, stamp).run(hosts);
}

}  // namespace switchyard::topology
