// SPDX-License-Identifier: Apache-2.0
// The fabric index: writer, and the reader a step uses (binary search over fixed-width records,
// read in cached blocks).
#include "switchyard/fabric/fabric_index.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <optional>
#include <unordered_map>

#include "fabric_index_format.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/fabric/guid.hpp"

namespace switchyard::fabric {
namespace {

using namespace index_format;

constexpr std::uint64_t kBlock = 16384;

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
            std::uint64_t domain;  // kNoRecord: none
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
            found.push_back({n, (*at)->second[0], (*at)->second[1], (*at)->second[2]});
        }
        // The SUs, groups, rail sets and switches those hosts use, in the index's order (so
        // indices compare as in the whole map).
        Ids sus;
        Ids railsets;
        Ids domains;
        for (const auto& f : found) {
            sus.add(f.su);
            railsets.add(f.railset);
            if (f.domain != kNoRecord) {
                domains.add(f.domain);
            }
        }
        domains.finish();
        std::vector<DomainRecord> domain_records;
        for (const auto id : domains.ids) {
            auto r = domain_record(id);
            if (!r) {
                return fail(r.error());
            }
            sus.add(r->su);  // a domain across two SUs is put under one the step may not use
            domain_records.push_back(std::move(*r));
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
            const auto f = split(*r, ' ');
            const auto global = f.size() == 3 ? parse_number<std::uint32_t>(f[1]) : std::nullopt;
            const auto core = f.size() == 3 ? parse_number<std::uint32_t>(f[2]) : std::nullopt;
            if (!global || !core || f[0].empty()) {
                return fail(
                    bad(kGroups, id, "expected '<group name> <global cables> <core cables>'"));
            }
            map_.groups.push_back({std::string(f[0]), {}, *global, *core});
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
            if (f.domain != kNoRecord) {
                h.domain = domains.local(f.domain);
            }
            map_.hosts.push_back(std::move(h));
        }
        for (auto& r : domain_records) {
            MapDomain d{std::move(r.name), std::move(r.key), sus.local(r.su), r.state, {}};
            map_.domains.push_back(std::move(d));
        }
        for (const auto& h : map_.hosts) {  // a domain's members: the step's hosts in it
            if (h.domain != kNoDomain) {
                map_.domains[h.domain].members.push_back(h.name);
            }
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
    struct DomainRecord {
        std::string name;
        std::uint64_t su = 0;
        DomainState state = DomainState::Ok;
        std::string key;
    };
    static constexpr std::uint64_t kNoRecord = UINT64_MAX;
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
    std::size_t table_count_ = kTableCountV2;  // of this index's version
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
        // The first line says the version, and so how many table lines follow.
        if (const auto v3 = std::string(kMagic) + " " + std::to_string(kFabricIndexVersion);
            std::string_view(*text).substr(0, v3.size() + 1) == v3 + "\n") {
            table_count_ = kTableCount;
        }
        while (lines.size() < 5 + table_count_) {
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
        if (lines[0] != std::string(kMagic) + " " + std::to_string(kFabricIndexVersion) &&
            lines[0] != std::string(kMagic) + " 2") {
            return fail(error_at(1, "expected '" + std::string(kMagic) + " 2' or '" +
                                        std::string(kMagic) + " " +
                                        std::to_string(kFabricIndexVersion) +
                                        "'; is this an index written by 'switchyard discover'?"));
        }
        const auto m = split(lines[1], ' ');
        const auto digest = m.size() == 3 && m[0] == "map" && m[1].size() == 16
                                ? parse_number<std::uint64_t>(m[1], 16)
                                : std::nullopt;
        const auto bytes = m.size() == 3 ? parse_number<std::uint64_t>(m[2]) : std::nullopt;
        if (!digest || !bytes) {
            return fail(error_at(2, "expected 'map <16 hex digits> <bytes>'"));
        }
        if (*digest != stamp_.digest || *bytes != stamp_.bytes) {
            return fail(Error::invalid_argument(
                src_.name() + " is stale: it was made from the map with digest " +
                hex_digits(*digest, 16) + " (" + std::to_string(*bytes) +
                " bytes), the map beside it has " + hex_digits(stamp_.digest, 16) + " (" +
                std::to_string(stamp_.bytes) +
                " bytes); copy both files together, or re-run 'switchyard discover'"));
        }
        const auto kind = lines[2].substr(0, 5) == "kind "
                              ? fabric_kind_from_string(lines[2].substr(5))
                              : std::nullopt;
        if (!kind) {
            return fail(error_at(3, "expected 'kind <fabric kind>'"));
        }
        map_.kind = *kind;
        map_.link_counts = true;  // version 2 switch records carry them
        const auto tiers = lines[3].substr(0, 6) == "tiers "
                               ? parse_number<std::uint32_t>(lines[3].substr(6))
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
        std::uint64_t line = 5 + table_count_ + 1;
        for (std::size_t t = 0; t < table_count_; ++t) {
            const auto f = split(lines[5 + t], ' ');
            const auto count = f.size() == 4 ? parse_number<std::uint64_t>(f[2]) : std::nullopt;
            const auto width = f.size() == 4 ? parse_number<std::uint64_t>(f[3]) : std::nullopt;
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

    /// (position, {su, railset, domain}) of host `name` at or after record `lo`; nullopt if
    /// absent. The domain is kNoRecord in a version-2 index and for a host in none.
    Result<std::optional<std::pair<std::uint64_t, std::array<std::uint64_t, 3>>>> find_host(
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
            return std::optional<std::pair<std::uint64_t, std::array<std::uint64_t, 3>>>{};
        }
        auto r = record(kHosts, lo);
        if (!r) {
            return fail(r.error());
        }
        const auto f = split(*r, ' ');
        if (f[0] != name) {
            return std::optional<std::pair<std::uint64_t, std::array<std::uint64_t, 3>>>{};
        }
        const bool v3 = table_count_ == kTableCount;
        const std::size_t want = v3 ? 4 : 3;
        const auto su = f.size() == want ? parse_number<std::uint64_t>(f[1]) : std::nullopt;
        const auto rs = f.size() == want ? parse_number<std::uint64_t>(f[2]) : std::nullopt;
        const auto dom = !v3 || f.size() != want || f[3] == "-"
                             ? std::optional<std::uint64_t>(kNoRecord)
                             : parse_number<std::uint64_t>(f[3]);
        if (!su || !rs || !dom || *su >= tables_[kSus].count || *rs >= tables_[kRailsets].count ||
            (*dom != kNoRecord && *dom >= tables_[kDomains].count)) {
            return fail(bad(kHosts, lo,
                            v3 ? "expected '<name> <su record> <railset record> <domain record "
                                 "or ->'"
                               : "expected '<name> <su record> <railset record>'"));
        }
        return std::optional{std::pair{lo, std::array<std::uint64_t, 3>{*su, *rs, *dom}}};
    }

    Result<SuRecord> su_record(std::uint64_t id) {
        auto r = record(kSus, id);
        if (!r) {
            return fail(r.error());
        }
        const auto f = split(*r, ' ');
        const auto group = f.size() == 4 ? parse_number<std::uint64_t>(f[1]) : std::nullopt;
        const auto total = f.size() == 4 ? parse_number<std::uint32_t>(f[2]) : std::nullopt;
        SuRecord su;
        if (!group || !total || f[0].empty() || *group >= tables_[kGroups].count) {
            return fail(bad(kSus, id, "expected '<name> <group record> <hosts> <switch>,...'"));
        }
        su.name = std::string(f[0]);
        su.group = *group;
        su.total = *total;
        for (const auto l : split(f[3], ',')) {
            const auto sw = parse_number<std::uint64_t>(l);
            if (!sw || *sw >= tables_[kSwitches].count) {
                return fail(bad(kSus, id, "leaf '" + std::string(l) + "' is not a switch record"));
            }
            su.leaves.push_back(*sw);
        }
        return su;
    }

    /// "<name> <su record> <ok|degraded|missing> <key> <hosts>".
    Result<DomainRecord> domain_record(std::uint64_t id) {
        auto r = record(kDomains, id);
        if (!r) {
            return fail(r.error());
        }
        const auto f = split(*r, ' ');
        const auto su = f.size() == 5 ? parse_number<std::uint64_t>(f[1]) : std::nullopt;
        std::optional<DomainState> state;
        if (f.size() == 5) {
            for (const auto s : {DomainState::Ok, DomainState::Degraded, DomainState::Missing}) {
                state = to_string(s) == f[2] ? std::optional(s) : state;
            }
        }
        if (!su || !state || f[0].empty() || f[3].empty() || *su >= tables_[kSus].count) {
            return fail(bad(kDomains, id,
                            "expected '<name> <su record> <ok|degraded|missing> <key> <hosts>'"));
        }
        return DomainRecord{std::string(f[0]), *su, *state, std::string(f[3])};
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
            const auto hca = parse_number<std::uint64_t>(item.substr(0, colon));
            const auto sw =
                colon == std::string_view::npos
                    ? std::nullopt
                    : parse_number<std::uint64_t>(item.substr(
                          colon + 1, star == std::string_view::npos ? std::string_view::npos
                                                                    : star - colon - 1));
            const auto cables = star == std::string_view::npos
                                    ? std::optional<std::uint64_t>(1)
                                    : parse_number<std::uint64_t>(item.substr(star + 1));
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
        const bool four = f.size() == 4;
        const auto guid = four ? parse_guid(f[1]) : std::nullopt;
        const auto tier = four ? parse_number<std::uint32_t>(f[2]) : std::nullopt;
        const auto up = four ? parse_number<std::uint32_t>(f[3]) : std::nullopt;
        if (!guid || !tier || !up || f[0].empty()) {
            return fail(bad(kSwitches, id, "expected '<name> <guid> <tier> <uplinks>'"));
        }
        return MapSwitch{std::string(f[0]), *guid, *tier, *up};
    }
};

}  // namespace

Result<FabricMap> read_fabric_index_for(const ByteSource& index,
                                        const MapStamp& stamp,
                                        const std::vector<std::string>& hosts) {
    return IndexReader(index, stamp).run(hosts);
}

}  // namespace switchyard::fabric
