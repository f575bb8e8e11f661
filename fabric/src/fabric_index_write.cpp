// SPDX-License-Identifier: Apache-2.0
// The fabric index's writer: the map's facts as fixed-width tables.
#include <algorithm>
#include <unordered_map>

#include "fabric_index_format.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/fabric/fabric_index.hpp"
#include "switchyard/fabric/guid.hpp"

namespace switchyard::fabric {
namespace {

using namespace index_format;

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

}  // namespace

Result<std::string> write_fabric_index(const FabricMap& map, std::string_view map_text) {
    const auto digest = fabric_map_digest(map_text.substr(0, map_text.find('\n')));
    if (!digest) {
        return fail(Error::invalid_argument(
            "the map has no digest on its first line (a version 2 map); an index needs one"));
    }
    if (!map.link_counts) {
        return fail(Error::invalid_argument(
            "the map has no cable counts on its switch lines (a version 3 map); an index needs "
            "them: re-run 'switchyard discover'"));
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
        if (!map.domains.empty()) {
            hosts.back() +=
                ' ' + (h.domain == kNoDomain ? std::string("-") : std::to_string(h.domain));
        }
    }
    std::vector<std::string> domains;
    for (const auto& d : map.domains) {
        domains.push_back(d.name + ' ' + std::to_string(d.su) + ' ' +
                          std::string(to_string(d.state)) + ' ' + d.key + ' ' +
                          std::to_string(d.members.size()));
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
        groups.push_back(g.name + ' ' + std::to_string(g.global) + ' ' + std::to_string(g.uplinks));
    }
    std::vector<std::string> switches;
    for (const auto& s : map.switches) {
        switches.push_back(s.name + ' ' + format_guid(s.guid) + ' ' + std::to_string(s.tier) + ' ' +
                           std::to_string(s.uplinks));
    }
    const bool v3 = !map.domains.empty();
    std::string header =
        std::string(kMagic) + " " + std::to_string(v3 ? kFabricIndexVersion : 2) + "\nmap " +
        hex_digits(*digest, 16) + " " + std::to_string(map_text.size()) + "\nkind " +
        std::string(to_string(map.kind)) + "\ntiers " + std::to_string(map.tiers) + "\nhcas";
    for (const auto& h : map.hcas) {
        header += ' ' + h;
    }
    header += '\n';
    std::string body;
    const std::vector<std::string>* in_order[kTableCount] = {&hosts,    &sus,      &groups,
                                                             &railsets, &switches, &domains};
    for (std::size_t t = 0; t < (v3 ? kTableCount : kTableCountV2); ++t) {
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

}  // namespace switchyard::fabric
