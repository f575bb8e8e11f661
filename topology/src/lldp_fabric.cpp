// SPDX-License-Identifier: Apache-2.0
// LldpFiles → FabricGraph: systems named and told apart, cables taken from either end, dirty
// data reported, and only the network that holds the most host ports kept, in the shape
// parse_ibnetdiscover gives, so the classifier reads an Ethernet fabric as an InfiniBand one.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <numeric>
#include <set>
#include <unordered_map>

#include "switchyard/common/strings.hpp"
#include "switchyard/topology/lldp.hpp"

namespace switchyard::topology {
namespace {

constexpr std::size_t kNoSystem = static_cast<std::size_t>(-1);
constexpr std::size_t kListed = 10;  ///< names listed in one warning

struct System {
    std::string name;
    std::string id;  ///< chassis id as first seen
    LldpChassis caps;
    std::size_t file = kNoSystem;  ///< the file that describes it, if any
    bool host = false;
    std::size_t network = 0;
};

struct End {
    std::size_t system = kNoSystem;
    std::string port;
    bool operator<(const End& o) const {
        return system != o.system ? system < o.system : port < o.port;
    }
    bool operator==(const End& o) const = default;
};

struct Cable {
    End far;
    std::string port_mac;  ///< the far end's port MAC when its view of it gave one
    SourceLoc seen;
};

bool useless_name(std::string_view n) {
    return n.empty() || n == "localhost" || n == "(none)" || n == "localhost.localdomain";
}

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

/// The name a neighbour gives its port: the id when it is a name, else the description
/// (lldpd on Linux sends the MAC as id and the interface name as description).
std::string port_name(const LldpNeighbor& nb) {
    if ((nb.port_id_type == "ifname" || nb.port_id_type == "local") && !nb.port_id.empty()) {
        return nb.port_id;
    }
    return nb.port_descr.empty() ? nb.port_id : nb.port_descr;
}

std::uint64_t fnv1a(std::string_view s) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const char c : s) {
        h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    }
    return h;
}

std::string list_names(const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size() && i < kListed; ++i) {
        s += (i == 0 ? "'" : ", '") + names[i] + "'";
    }
    if (names.size() > kListed) {
        s += " and " + std::to_string(names.size() - kListed) + " more";
    }
    return s;
}

class Builder {
public:
    Builder(const std::vector<LldpFile>& files, const LldpOptions& opt)
        : files_(files), opt_(opt) {}

    FabricGraph run() {
        name_files();
        read_cables();
        decide_roles();
        keep_largest_network();
        report_unseen();
        build();
        return std::move(g_);
    }

private:
    const std::vector<LldpFile>& files_;
    const LldpOptions& opt_;
    FabricGraph g_;
    std::vector<System> systems_;
    std::unordered_map<std::string, std::size_t> by_name_;
    std::vector<std::size_t> file_system_;  ///< file → system (kNoSystem: left out)
    std::map<End, Cable> cables_;           ///< both directions
    std::set<std::string> reported_;

    void warn(std::string kind, SourceLoc where, std::string message) {
        g_.warnings.push_back({std::move(kind), std::move(where), std::move(message)});
    }

    /// The name of a chassis: its own, the map's for its id, or none (reported once).
    std::optional<std::string> name_of(const LldpChassis& c, const SourceLoc& where) {
        if (opt_.names != nullptr) {
            const auto it = opt_.names->find(lower(c.id));
            if (it != opt_.names->end()) {
                return it->second;
            }
        }
        if (!useless_name(c.name)) {
            return c.name;
        }
        if (reported_.insert("unnamed " + c.id).second) {
            warn("lldp-unnamed-chassis", where,
                 "chassis " +
                     (c.id.empty() ? std::string("without an id") : c.id_type + " " + c.id) +
                     (c.name.empty() ? " sends no system name" : " calls itself '" + c.name + "'") +
                     ": left out (name it in a --guid-map line '" + c.id + " <name>')");
        }
        return std::nullopt;
    }

    /// The system named `name` with chassis id `id`; kNoSystem when another chassis already
    /// holds the name (reported once per name).
    std::size_t system(const std::string& name, const LldpChassis& c, const SourceLoc& where) {
        auto [it, fresh] = by_name_.try_emplace(name, systems_.size());
        if (fresh) {
            systems_.push_back({name, c.id, c, kNoSystem});
            return it->second;
        }
        auto& s = systems_[it->second];
        if (!c.id.empty() && !s.id.empty() && c.id != s.id) {
            if (reported_.insert("duplicate " + name).second) {
                warn("lldp-duplicate-name", where,
                     "two chassis call themselves '" + name + "': " + s.id + " and " + c.id +
                         "; the second is left out");
            }
            return kNoSystem;
        }
        if (s.id.empty()) {
            s.id = c.id;
        }
        if (c.caps_known) {
            s.caps.caps_known = true;
            s.caps.bridge = s.caps.bridge || c.bridge;
            s.caps.router = s.caps.router || c.router;
            s.caps.station = s.caps.station || c.station;
        }
        return it->second;
    }

    /// Each file's own system: its local chassis, else the one its neighbours' files say
    /// is cabled to its ports.
    void name_files() {
        file_system_.assign(files_.size(), kNoSystem);
        for (std::size_t f = 0; f < files_.size(); ++f) {
            const auto& file = files_[f];
            if (!file.local) {
                continue;
            }
            const SourceLoc where{file.source, 0, 0};
            const auto name = name_of(*file.local, where);
            if (!name) {
                continue;
            }
            const auto s = system(*name, *file.local, where);
            if (s == kNoSystem) {
                continue;
            }
            if (systems_[s].file != kNoSystem) {
                warn("lldp-duplicate-name", where,
                     "'" + *name + "' is described by " + files_[systems_[s].file].source +
                         " too; this file is left out");
                continue;
            }
            systems_[s].file = f;
            file_system_[f] = s;
        }
        // Files without their own chassis: the far ends' files name them.
        std::map<End, std::string> seen_from;  // (system, port) → who it sees there
        for (std::size_t f = 0; f < files_.size(); ++f) {
            if (file_system_[f] == kNoSystem) {
                continue;
            }
            for (const auto& nb : files_[f].neighbors) {
                seen_from[{file_system_[f], nb.local_port}] = nb.chassis.name;
            }
        }
        for (std::size_t f = 0; f < files_.size(); ++f) {
            if (file_system_[f] != kNoSystem || files_[f].local) {
                continue;
            }
            std::string found;
            for (const auto& nb : files_[f].neighbors) {
                const auto it = by_name_.find(nb.chassis.name);
                if (it == by_name_.end()) {
                    continue;
                }
                const auto far = seen_from.find({it->second, port_name(nb)});
                if (far != seen_from.end() && !useless_name(far->second)) {
                    found = far->second;
                    break;
                }
            }
            if (found.empty()) {
                warn("lldp-unknown-system", {files_[f].source, 0, 0},
                     "the file does not say which system it is from (gather 'lldpcli -f json "
                     "show chassis' with 'lldpctl -f json') and no other file sees its ports: "
                     "left out");
                continue;
            }
            const auto s = system(found, LldpChassis{}, {files_[f].source, 0, 0});
            if (s != kNoSystem && systems_[s].file == kNoSystem) {
                systems_[s].file = f;
                file_system_[f] = s;
            }
        }
    }

    void read_cables() {
        for (std::size_t f = 0; f < files_.size(); ++f) {
            const auto self = file_system_[f];
            if (self == kNoSystem) {
                continue;
            }
            for (const auto& nb : files_[f].neighbors) {
                const SourceLoc where{files_[f].source, nb.line, 0};
                const auto name = name_of(nb.chassis, where);
                if (!name) {
                    continue;
                }
                const auto far = system(*name, nb.chassis, where);
                if (far == kNoSystem) {
                    continue;
                }
                cable({self, nb.local_port}, {far, port_name(nb)},
                      nb.port_id_type == "mac" ? lower(nb.port_id) : std::string(), where);
            }
        }
    }

    std::string describe(const End& e) const {
        return "'" + systems_[e.system].name + "' port " + e.port;
    }

    void cable(const End& a, const End& b, const std::string& b_mac, const SourceLoc& where) {
        const auto at_a = cables_.find(a);
        const auto at_b = cables_.find(b);
        if (at_a != cables_.end() && at_a->second.far == b) {
            if (!b_mac.empty()) {
                at_a->second.port_mac = b_mac;
            }
            return;  // the other end said it first
        }
        if (at_a != cables_.end() || at_b != cables_.end()) {
            const auto& other = at_a != cables_.end() ? at_a->second : at_b->second;
            const auto& mine = at_a != cables_.end() ? a : b;
            warn("lldp-port-mismatch", where,
                 describe(a) + " sees " + describe(b) + ", but " + describe(mine) +
                     " was seen with " + describe(other.far) + " (" + other.seen.to_string() +
                     "): the two ends disagree (a stale neighbour or a moved cable); the first "
                     "is kept");
            return;
        }
        cables_[a] = {b, b_mac, where};
        cables_[b] = {a, std::string(), where};
    }

    [[nodiscard]] bool named_host(const std::string& name) const {
        return opt_.hosts != nullptr &&
               std::find(opt_.hosts->begin(), opt_.hosts->end(), name) != opt_.hosts->end();
    }

    void decide_roles() {
        std::vector<bool> known(systems_.size(), false);
        for (std::size_t s = 0; s < systems_.size(); ++s) {
            auto& sys = systems_[s];
            if (named_host(sys.name)) {
                sys.host = true;
                known[s] = true;
            } else if (sys.caps.caps_known) {
                sys.host = !(sys.caps.bridge || sys.caps.router);
                known[s] = true;
            }
        }
        // No capability anywhere: a switch when it is cabled to a known host, else a host.
        for (std::size_t s = 0; s < systems_.size(); ++s) {
            if (known[s]) {
                continue;
            }
            bool next_to_host = false;
            for (auto it = cables_.lower_bound({s, ""});
                 it != cables_.end() && it->first.system == s; ++it) {
                const auto far = it->second.far.system;
                next_to_host = next_to_host || (known[far] && systems_[far].host);
            }
            systems_[s].host = !next_to_host;
        }
    }

    std::size_t find(std::vector<std::size_t>& up, std::size_t x) {
        while (up[x] != x) {
            up[x] = up[up[x]];
            x = up[x];
        }
        return x;
    }

    /// Switches joined by switch-to-switch cables are one network; the one with the most host
    /// ports is the fabric, the others (management, storage) are reported and left out.
    void keep_largest_network() {
        std::vector<std::size_t> up(systems_.size());
        std::iota(up.begin(), up.end(), 0);
        for (const auto& [a, c] : cables_) {
            if (!systems_[a.system].host && !systems_[c.far.system].host) {
                up[find(up, a.system)] = find(up, c.far.system);
            }
        }
        std::map<std::size_t, std::size_t> host_ports;  // network root → host ports
        std::map<std::size_t, std::vector<std::string>> members;
        for (std::size_t s = 0; s < systems_.size(); ++s) {
            if (!systems_[s].host) {
                systems_[s].network = find(up, s);
                members[systems_[s].network].push_back(systems_[s].name);
                host_ports.try_emplace(systems_[s].network, 0);
            }
        }
        for (const auto& [a, c] : cables_) {
            if (systems_[a.system].host && !systems_[c.far.system].host) {
                ++host_ports[systems_[c.far.system].network];
            }
        }
        if (members.empty()) {
            return;
        }
        const auto main = std::max_element(host_ports.begin(), host_ports.end(),
                                           [&](const auto& x, const auto& y) {
                                               return std::pair(x.second, members[x.first].size()) <
                                                      std::pair(y.second, members[y.first].size());
                                           })
                              ->first;
        main_ = main;
        for (auto& [root, names] : members) {
            if (root == main) {
                continue;
            }
            std::sort(names.begin(), names.end());
            warn("lldp-separate-network", {},
                 std::to_string(names.size()) + " switch(es) with " +
                     std::to_string(host_ports[root]) +
                     " host port(s) form a network apart from the fabric (a management or "
                     "storage network?): " +
                     list_names(names) + "; left out");
        }
    }

    std::size_t main_ = kNoSystem;

    [[nodiscard]] bool in_fabric(std::size_t s) const {
        return !systems_[s].host && systems_[s].network == main_;
    }

    void report_unseen() {
        std::vector<std::string> no_switch_file;
        std::vector<std::string> no_host_file;
        bool switch_files = false;
        bool host_files = false;
        for (const auto& s : systems_) {
            if (s.file != kNoSystem) {
                (s.host ? host_files : switch_files) = true;
            }
        }
        for (std::size_t s = 0; s < systems_.size(); ++s) {
            const auto& sys = systems_[s];
            const bool cabled = cables_.lower_bound({s, ""}) != cables_.end() &&
                                cables_.lower_bound({s, ""})->first.system == s;
            if (sys.file != kNoSystem && files_[sys.file].neighbors.empty() && !cabled) {
                warn("lldp-unseen-host", {files_[sys.file].source, 0, 0},
                     "'" + sys.name +
                         "' sees no neighbour and no file sees it (lldpd not "
                         "running on its links, or LLDP off on the switch ports): left out");
            }
            if (sys.file == kNoSystem && (sys.host ? host_files : switch_files) &&
                (sys.host || in_fabric(s))) {
                (sys.host ? no_host_file : no_switch_file).push_back(sys.name);
            }
        }
        for (auto* names : {&no_switch_file, &no_host_file}) {
            if (!names->empty()) {
                std::sort(names->begin(), names->end());
                warn("lldp-no-file", {},
                     std::to_string(names->size()) +
                         (names == &no_switch_file ? " switch(es)" : " host(s)") +
                         " named by neighbours have no file of their own (their side of each "
                         "cable is not checked): " +
                         list_names(*names));
            }
        }
    }

    /// Port numbers: the name's trailing number where those are unique on the switch
    /// ("swp12" → 12, "Ethernet48" → 48), else the rank of the name.
    std::map<std::string, std::uint32_t> port_numbers(std::size_t s) const {
        std::map<std::string, std::uint32_t> out;
        std::set<std::uint32_t> used;
        bool unique = true;
        for (auto it = cables_.lower_bound({s, ""}); it != cables_.end() && it->first.system == s;
             ++it) {
            const auto& name = it->first.port;
            std::size_t d = name.size();
            while (d > 0 && std::isdigit(static_cast<unsigned char>(name[d - 1])) != 0) {
                --d;
            }
            std::uint32_t n = 0;
            const auto digits = std::string_view(name).substr(d);
            const bool ok = !digits.empty() && digits.size() < 7 &&
                            std::from_chars(digits.data(), digits.data() + digits.size(), n).ec ==
                                std::errc() &&
                            n > 0;
            unique = unique && ok && used.insert(n).second;
            out[name] = n;
        }
        if (!unique) {
            std::uint32_t k = 0;
            for (auto& [name, n] : out) {
                n = ++k;
            }
        }
        return out;
    }

    void build() {
        std::set<std::uint64_t> guids;
        auto unique_guid = [&](std::uint64_t want, std::string_view salt) {
            for (std::uint64_t g = want == 0 ? fnv1a(salt) : want;; g = fnv1a(std::to_string(g))) {
                if (g != 0 && guids.insert(g).second) {
                    return g;
                }
            }
        };
        std::vector<NodeIndex> index(systems_.size(), kNoNode);
        std::vector<std::map<std::string, std::uint32_t>> numbers(systems_.size());
        std::vector<std::size_t> switches;
        for (std::size_t s = 0; s < systems_.size(); ++s) {
            if (in_fabric(s)) {
                switches.push_back(s);
            }
        }
        std::sort(switches.begin(), switches.end(),
                  [&](auto a, auto b) { return systems_[a].name < systems_[b].name; });
        for (const auto s : switches) {
            FabricNode n;
            n.kind = NodeKind::Switch;
            n.guid = unique_guid(parse_mac(systems_[s].id).value_or(0), systems_[s].name);
            n.id = "S-" + hex_digits(n.guid, 16);
            n.desc = systems_[s].name;
            numbers[s] = port_numbers(s);
            for (const auto& [name, num] : numbers[s]) {
                n.nports = std::max(n.nports, num);
            }
            index[s] = static_cast<NodeIndex>(g_.nodes.size());
            g_.nodes.push_back(std::move(n));
        }
        // One CA per host port cabled into the fabric, and the switch side of every cable.
        for (const auto s : switches) {
            for (auto it = cables_.lower_bound({s, ""});
                 it != cables_.end() && it->first.system == s; ++it) {
                const auto& far = it->second.far;
                const auto me = numbers[s].at(it->first.port);
                if (!systems_[far.system].host) {
                    if (in_fabric(far.system)) {
                        g_.nodes[index[s]].ports.push_back(
                            {me, index[far.system], numbers[far.system].at(far.port), 0, 0});
                    }
                    continue;
                }
                FabricNode ca;
                ca.kind = NodeKind::Ca;
                ca.nports = 1;
                ca.guid = unique_guid(parse_mac(it->second.port_mac).value_or(0),
                                      systems_[far.system].name + "/" + far.port);
                ca.id = "H-" + hex_digits(ca.guid, 16);
                ca.desc = systems_[far.system].name + " " + far.port;
                const auto ca_index = static_cast<NodeIndex>(g_.nodes.size());
                ca.ports.push_back({1, index[s], me, 0, ca.guid});
                g_.nodes[index[s]].ports.push_back({me, ca_index, 1, 0, 0});
                g_.nodes.push_back(std::move(ca));
            }
        }
        for (auto& n : g_.nodes) {
            std::sort(n.ports.begin(), n.ports.end(),
                      [](const auto& a, const auto& b) { return a.port < b.port; });
        }
    }
};

}  // namespace

FabricGraph lldp_fabric(const std::vector<LldpFile>& files, const LldpOptions& opt) {
    return Builder(files, opt).run();
}

}  // namespace switchyard::topology
