// SPDX-License-Identifier: Apache-2.0
// GUID → host maps (`discover --guid-map`): this project's form and the quoted node-name-map
// form infiniband-diags and OpenSM read.
#include "classifier.hpp"
#include "switchyard/fabric/guid.hpp"

namespace switchyard::discover {

using fabric::format_guid;
using fabric::parse_guid;

Result<GuidMap> parse_guid_map(std::string_view text, std::string_view source) {
    GuidMap out;
    std::uint32_t line_no = 0;
    for (auto line : split(text, '\n')) {
        ++line_no;
        auto bad = [&](const std::string& why) {
            return fail(Error::parse(SourceLoc{std::string(source), line_no, 0},
                                     why +
                                         "; expected '<guid> <host> [<hca>]' or, as "
                                         "infiniband-diags and OpenSM read it, '<guid> "
                                         "\"<host> [<hca>]\"', got '" +
                                         std::string(trim(line).substr(0, 120)) + "'"));
        };
        // A '#' starts a comment outside quotes; a quoted name is the node description that
        // --node-name-map gives, its words read as host and HCA (quotes are not part of them).
        std::vector<std::string_view> f;
        bool quoted = false;
        for (std::size_t i = 0; i < line.size();) {
            const char c = line[i];
            if (c == '#') {
                break;
            }
            if (c == ' ' || c == '\t' || c == '\r') {
                ++i;
                continue;
            }
            if (c == '"') {
                const auto close = line.find('"', i + 1);
                if (close == std::string_view::npos) {
                    return bad("a quoted name without its closing quote");
                }
                for (auto w : split(line.substr(i + 1, close - i - 1), ' ')) {
                    if (!trim(w).empty()) {
                        f.push_back(trim(w));
                    }
                }
                quoted = true;
                i = close + 1;
                continue;
            }
            const auto end = line.find_first_of(" \t\r#\"", i);
            f.push_back(line.substr(i, end == std::string_view::npos ? line.size() - i : end - i));
            i = end == std::string_view::npos ? line.size() : end;
        }
        if (f.empty()) {
            continue;
        }
        // A MAC (an LLDP chassis id or port) stands for its 48-bit value.
        auto guid = parse_guid(f[0]);
        if (!guid) {
            guid = fabric::parse_mac(f[0]);
        }
        if (!guid) {
            return bad("'" + std::string(f[0]) + "' is not a GUID or a MAC");
        }
        if (f.size() < 2 || f.size() > 3) {
            return bad(f.size() < 2 ? (quoted ? "an empty name" : "no host")
                                    : (quoted ? "more than a host and an HCA in the name"
                                              : "too many fields"));
        }
        GuidEntry e{std::string(f[1]), f.size() == 3 ? std::string(f[2]) : std::string()};
        auto [it, fresh] = out.try_emplace(*guid, e);
        if (!fresh && it->second.host != e.host) {
            return bad("GUID " + format_guid(*guid) + " was already given to host '" +
                       it->second.host + "'");
        }
    }
    return out;
}

}  // namespace switchyard::discover
