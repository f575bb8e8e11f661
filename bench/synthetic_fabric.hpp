// SPDX-License-Identifier: Apache-2.0
// Synthetic ibnetdiscover output of a Dragonfly+ fabric of any size, for benchmarks: groups of
// 32 leaves x 32 hosts under 16 spines, spine-to-spine global links, one or more rails.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace switchyard::bench {

/// ibnetdiscover text for `hosts` hosts (rounded up to whole groups) with `rails` HCAs each
/// (rails of 1, 2, 4, 8, 16 or 32: each SU is `rails` leaves of a group).
inline std::string synthetic_dragonfly(std::size_t hosts, std::size_t rails = 1) {
    constexpr std::size_t kLeaves = 32;
    constexpr std::size_t kHostsPerLeaf = 32;
    constexpr std::size_t kSpines = 16;
    const std::size_t sus_per_group = kLeaves / rails;
    const std::size_t hosts_per_group = sus_per_group * kHostsPerLeaf;
    const std::size_t groups = (hosts + hosts_per_group - 1) / hosts_per_group;
    auto sw_guid = [](std::size_t g, std::size_t i) {
        return 0x0c42a10300000000ULL + g * 0x10000 + i;
    };
    auto ca_guid = [](std::size_t h, std::size_t r) { return 0xb8cef60300000000ULL + h * 16 + r; };
    std::string out;
    out.reserve(hosts * rails * 260 + groups * kSpines * 4000);
    char line[256];
    // Global links: spine s of group x ↔ spine s of group y for every pair sharing s mod kSpines.
    std::vector<std::vector<std::pair<std::size_t, std::size_t>>> global(groups * kSpines);
    for (std::size_t x = 0; x < groups; ++x) {
        for (std::size_t y = x + 1; y < groups; ++y) {
            const std::size_t s = (x + y) % kSpines;
            global[x * kSpines + s].emplace_back(y, s);
            global[y * kSpines + s].emplace_back(x, s);
        }
    }
    for (std::size_t g = 0; g < groups; ++g) {
        for (std::size_t s = 0; s < kSpines; ++s) {
            const auto& gl = global[g * kSpines + s];
            std::snprintf(line, sizeof line,
                          "switchguid=0x%016llx\nSwitch\t%zu \"S-%016llx\"\t\t# "
                          "\"MF0;g%zu-spine%zu:MQM9700/U1\" enhanced port 0 lid 0 lmc 0\n",
                          static_cast<unsigned long long>(sw_guid(g, 100 + s)),
                          kLeaves + gl.size() + 1,
                          static_cast<unsigned long long>(sw_guid(g, 100 + s)), g, s);
            out += line;
            for (std::size_t l = 0; l < kLeaves; ++l) {
                std::snprintf(
                    line, sizeof line,
                    "[%zu]\t\"S-%016llx\"[%zu]\t\t# \"MF0;g%zu-leaf%zu:MQM9700/U1\" lid 0 4xNDR\n",
                    l + 1, static_cast<unsigned long long>(sw_guid(g, l)), kHostsPerLeaf + s + 1, g,
                    l);
                out += line;
            }
            for (std::size_t k = 0; k < gl.size(); ++k) {
                const auto [other, os] = gl[k];
                // the port on the other side: index of g in other's list for spine os
                const auto& back = global[other * kSpines + os];
                std::size_t bp = 0;
                while (back[bp].first != g) {
                    ++bp;
                }
                std::snprintf(
                    line, sizeof line,
                    "[%zu]\t\"S-%016llx\"[%zu]\t\t# \"MF0;g%zu-spine%zu:MQM9700/U1\" lid 0 4xNDR\n",
                    kLeaves + k + 1, static_cast<unsigned long long>(sw_guid(other, 100 + os)),
                    kLeaves + bp + 1, other, os);
                out += line;
            }
            out += '\n';
        }
        for (std::size_t l = 0; l < kLeaves; ++l) {
            std::snprintf(line, sizeof line,
                          "switchguid=0x%016llx\nSwitch\t%zu \"S-%016llx\"\t\t# "
                          "\"MF0;g%zu-leaf%zu:MQM9700/U1\" enhanced port 0 lid 0 lmc 0\n",
                          static_cast<unsigned long long>(sw_guid(g, l)), kHostsPerLeaf + kSpines,
                          static_cast<unsigned long long>(sw_guid(g, l)), g, l);
            out += line;
            const std::size_t su = l / rails;
            const std::size_t rail = l % rails;
            for (std::size_t p = 0; p < kHostsPerLeaf; ++p) {
                const std::size_t h = (g * sus_per_group + su) * kHostsPerLeaf + p;
                std::snprintf(
                    line, sizeof line,
                    "[%zu]\t\"H-%016llx\"[1](%016llx) \t\t# \"host%06zu mlx5_%zu\" lid 0 4xNDR\n",
                    p + 1, static_cast<unsigned long long>(ca_guid(h, rail)),
                    static_cast<unsigned long long>(ca_guid(h, rail)), h, rail);
                out += line;
            }
            for (std::size_t s = 0; s < kSpines; ++s) {
                std::snprintf(
                    line, sizeof line,
                    "[%zu]\t\"S-%016llx\"[%zu]\t\t# \"MF0;g%zu-spine%zu:MQM9700/U1\" lid 0 4xNDR\n",
                    kHostsPerLeaf + s + 1, static_cast<unsigned long long>(sw_guid(g, 100 + s)),
                    l + 1, g, s);
                out += line;
            }
            out += '\n';
            for (std::size_t p = 0; p < kHostsPerLeaf; ++p) {
                const std::size_t h = (g * sus_per_group + su) * kHostsPerLeaf + p;
                std::snprintf(line, sizeof line,
                              "caguid=0x%016llx\nCa\t1 \"H-%016llx\"\t\t# \"host%06zu "
                              "mlx5_%zu\"\n[1](%016llx) \t\"S-%016llx\"[%zu]\t\t# lid 0 lmc 0 "
                              "\"MF0;g%zu-leaf%zu:MQM9700/U1\" lid 0 4xNDR\n\n",
                              static_cast<unsigned long long>(ca_guid(h, rail)),
                              static_cast<unsigned long long>(ca_guid(h, rail)), h, rail,
                              static_cast<unsigned long long>(ca_guid(h, rail)),
                              static_cast<unsigned long long>(sw_guid(g, l)), p + 1, g, l);
                out += line;
            }
        }
    }
    return out;
}

/// One leaf switch's lldpctl output, as bench/gen_lldp.py writes it and `discover --lldp`
/// reads it: `lldpcli -f json show chassis` then `lldpctl -f json` (pretty-printed), with
/// `hosts` host ports and `uplinks` spine ports (about 1 KB a neighbour).
inline std::string synthetic_lldp_leaf(std::size_t hosts, std::size_t uplinks) {
    auto chassis = [](const std::string& name, unsigned mac, bool sw, const char* indent) {
        char id[32];
        std::snprintf(id, sizeof id, "0a:00:00:%02x:%02x:%02x", (mac >> 16U) & 0xffU,
                      (mac >> 8U) & 0xffU, mac & 0xffU);
        const std::string in(indent);
        std::string caps;
        const char* kinds[] = {"Bridge", "Router", "Wlan", "Station"};
        for (std::size_t k = 0; k < (sw ? 2U : 4U); ++k) {
            const bool on = sw ? true : k == 3;
            caps += in + "    {\n" + in + "      \"type\": \"" + kinds[k] + "\",\n" + in +
                    "      \"enabled\": " + (on ? "true" : "false") + "\n" + in + "    }" +
                    (k + 1 < (sw ? 2U : 4U) ? ",\n" : "\n");
        }
        return in + "\"" + name + "\": {\n" + in + "  \"id\": {\n" + in +
               "    \"type\": \"mac\",\n" + in + "    \"value\": \"" + id + "\"\n" + in + "  },\n" +
               in + "  \"descr\": \"" +
               (sw ? "SONiC Software Version: SONiC.202311 - HwSku: Mellanox-SN5600"
                   : "Ubuntu 22.04.4 LTS Linux 5.15.0-105-generic") +
               "\",\n" + in + "  \"mgmt-ip\": \"10.143.50.154\",\n" + in +
               "  \"mgmt-iface\": \"2\",\n" + in + "  \"capability\": [\n" + caps + in + "  ]\n" +
               in + "}\n";
    };
    std::string out = "{\n  \"local-chassis\": {\n    \"chassis\": {\n" +
                      chassis("leaf-0", 1, true, "      ") + "    }\n  }\n}\n";
    out += "{\n  \"lldp\": {\n    \"interface\": [\n";
    for (std::size_t p = 0; p < hosts + uplinks; ++p) {
        const bool up = p >= hosts;
        const auto port = "swp" + std::to_string(p + 1);
        out += std::string("    {\n      \"") + port +
               "\": {\n        \"via\": \"LLDP\",\n        \"rid\": \"1\",\n"
               "        \"age\": \"12 days, 03:14:07\",\n        \"chassis\": {\n" +
               chassis((up ? "spine-" : "gpu") + std::to_string(p),
                       0x100U + static_cast<unsigned>(p), up, "          ") +
               "        },\n        \"port\": {\n          \"id\": {\n            \"type\": \"" +
               (up ? "ifname" : "mac") + "\",\n            \"value\": \"" +
               (up ? "swp" + std::to_string(p) : std::string("06:00:00:00:00:00")) +
               "\"\n          },\n          \"descr\": \"" + (up ? "swp1" : "ens1np0") +
               "\",\n          \"ttl\": \"120\",\n          \"mfs\": \"9216\"\n        }\n      }\n"
               "    }" +
               (p + 1 < hosts + uplinks ? ",\n" : "\n");
    }
    out += "    ]\n  }\n}\n";
    return out;
}

}  // namespace switchyard::bench
