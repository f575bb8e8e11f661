// SPDX-License-Identifier: Apache-2.0
// LldpFabric's last passes: which systems are switches and hosts, the one network kept (the one
// that holds the most host ports), what was not seen, port numbers, the FabricGraph built.
#include "lldp_builder.hpp"

namespace switchyard::discover::lldp_detail {

void LldpFabricBuilder::decide_roles() {
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
    for (std::uint32_t s = 0; s < systems_.size(); ++s) {
        if (known[s]) {
            continue;
        }
        bool next_to_host = false;
        const auto [lo, hi] = range(s);
        for (auto i = lo; i < hi; ++i) {
            const auto far = system_of(linked_[i].cable.far);
            next_to_host = next_to_host || (known[far] && systems_[far].host);
        }
        systems_[s].host = !next_to_host;
    }
}

void LldpFabricBuilder::keep_largest_network() {
    std::vector<std::uint32_t> up(systems_.size());
    std::iota(up.begin(), up.end(), 0U);
    for (const auto& [a, c] : linked_) {
        if (!systems_[system_of(a)].host && !systems_[system_of(c.far)].host) {
            up[find(up, system_of(a))] = find(up, system_of(c.far));
        }
    }
    // A network is named by its first system (in the order the files named them), not by
    // its root, which depends on the order the cables were joined in.
    std::vector<std::uint32_t> first_of(systems_.size(), kNoSystem);  // root → first system
    std::map<std::uint32_t, std::size_t> host_ports;                  // network → host ports
    std::map<std::uint32_t, std::vector<std::string>> members;
    for (std::uint32_t s = 0; s < systems_.size(); ++s) {
        if (!systems_[s].host) {
            auto& named = first_of[find(up, s)];
            named = named == kNoSystem ? s : named;
            systems_[s].network = named;
            members[systems_[s].network].push_back(systems_[s].name);
            host_ports.try_emplace(systems_[s].network, 0);
        }
    }
    std::vector<std::size_t> ports_of(systems_.size(), 0);  // host ports per switch
    for (const auto& [a, c] : linked_) {
        if (systems_[system_of(a)].host && !systems_[system_of(c.far)].host) {
            ++ports_of[system_of(c.far)];
        }
    }
    for (std::uint32_t s = 0; s < systems_.size(); ++s) {
        if (ports_of[s] != 0) {
            host_ports[systems_[s].network] += ports_of[s];
        }
    }
    if (members.empty()) {
        return;
    }
    main_ =
        std::max_element(host_ports.begin(), host_ports.end(), [&](const auto& x, const auto& y) {
            return std::pair(x.second, members[x.first].size()) <
                   std::pair(y.second, members[y.first].size());
        })->first;
    for (auto& [root, names] : members) {
        if (root == main_) {
            continue;
        }
        std::sort(names.begin(), names.end());
        warn("lldp-separate-network", {},
             std::to_string(names.size()) + " switch(es) with " + std::to_string(host_ports[root]) +
                 " host port(s) form a network apart from the fabric (a management or "
                 "storage network?): " +
                 list_names(names) + "; left out");
    }
}

void LldpFabricBuilder::report_unseen() {
    std::vector<std::string> no_switch_file;
    std::vector<std::string> no_host_file;
    bool switch_files = false;
    bool host_files = false;
    for (const auto& s : systems_) {
        if (s.file != kNoSystem) {
            (s.host ? host_files : switch_files) = true;
        }
    }
    for (std::uint32_t s = 0; s < systems_.size(); ++s) {
        const auto& sys = systems_[s];
        const auto [lo, hi] = range(s);
        if (sys.file != kNoSystem && !sys.sees && lo == hi) {
            warn("lldp-unseen-host", {sources_[sys.file], 0, 0},
                 "'" + sys.name +
                     "' sees no neighbour and no file sees it (lldpd not running on its "
                     "links, or LLDP off on the switch ports): left out");
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

std::uint32_t LldpFabricBuilder::trailing_number(std::string_view name) {
    std::size_t d = name.size();
    while (d > 0 && std::isdigit(static_cast<unsigned char>(name[d - 1])) != 0) {
        --d;
    }
    std::uint32_t n = 0;
    const auto digits = name.substr(d);
    const bool ok =
        !digits.empty() && digits.size() < 7 &&
        std::from_chars(digits.data(), digits.data() + digits.size(), n).ec == std::errc();
    return ok ? n : 0;
}

std::uint32_t LldpFabricBuilder::port_numbers(std::uint32_t s,
                                              const std::vector<std::uint32_t>& trailing,
                                              std::vector<std::uint32_t>& seen) {
    const auto [lo, hi] = range(s);
    seen.clear();
    bool unique = true;
    for (auto i = lo; i < hi; ++i) {
        number_[i] = trailing[port_of(linked_[i].end)];
        unique = unique && number_[i] != 0;
        seen.push_back(number_[i]);
    }
    std::sort(seen.begin(), seen.end());
    if (!unique || std::adjacent_find(seen.begin(), seen.end()) != seen.end()) {
        std::vector<std::pair<std::string_view, std::size_t>> names;  // name, linked_ index
        for (auto i = lo; i < hi; ++i) {
            names.emplace_back(ports_[port_of(linked_[i].end)], i);
        }
        std::sort(names.begin(), names.end(), [&](const auto& x, const auto& y) {
            return std::pair(x.first, port_of(linked_[x.second].end)) <
                   std::pair(y.first, port_of(linked_[y.second].end));
        });
        std::uint32_t k = 0;
        for (const auto& [name, at] : names) {
            number_[at] = ++k;
        }
        return k;
    }
    return seen.empty() ? 0 : seen.back();
}

const std::string& LldpFabricBuilder::rdma_device(const std::string& host,
                                                  const std::string& netdev) const {
    if (opt_.rdma_devices != nullptr) {
        const auto h = opt_.rdma_devices->find(host);
        if (h != opt_.rdma_devices->end()) {
            const auto d = h->second.find(netdev);
            if (d != h->second.end()) {
                return d->second;
            }
        }
    }
    return netdev;
}

void LldpFabricBuilder::build() {
    std::vector<NodeIndex> index(systems_.size(), kNoNode);
    number_.assign(linked_.size(), 0);
    std::vector<std::uint32_t> switches;
    for (std::uint32_t s = 0; s < systems_.size(); ++s) {
        if (in_fabric(s)) {
            switches.push_back(s);
        }
    }
    std::sort(switches.begin(), switches.end(),
              [&](auto a, auto b) { return systems_[a].name < systems_[b].name; });
    // CAs: one per host port cabled into the fabric, numbered switch by switch.
    std::vector<std::uint32_t> cas_before(switches.size() + 1, 0);
    for (std::size_t k = 0; k < switches.size(); ++k) {
        const auto [lo, hi] = range(switches[k]);
        std::uint32_t n = 0;
        for (auto i = lo; i < hi; ++i) {
            n += systems_[system_of(linked_[i].cable.far)].host ? 1U : 0U;
        }
        cas_before[k + 1] = cas_before[k] + n;
    }
    // GUIDs in that order, one at a time (a clash is settled by the first to come).
    GuidSet guids(switches.size() + cas_before.back());
    auto unique_guid = [&](std::uint64_t want, auto&& salt) {
        for (std::uint64_t g = want == 0 ? salt() : want;; g = fnv1a(std::to_string(g))) {
            if (g != 0 && guids.insert(g)) {
                return g;
            }
        }
    };
    g_.nodes.reserve(switches.size() + cas_before.back());  // no copy at the resize below
    std::vector<std::uint32_t> trailing(ports_.size());
    std::transform(ports_.begin(), ports_.end(), trailing.begin(), trailing_number);
    std::vector<std::uint32_t> seen;
    for (const auto s : switches) {
        FabricNode n;
        n.kind = NodeKind::Switch;
        n.guid = unique_guid(parse_mac(systems_[s].id).value_or(0),
                             [&] { return fnv1a(systems_[s].name); });
        n.id = node_id('S', n.guid);
        n.desc = systems_[s].name;
        n.nports = port_numbers(s, trailing, seen);
        const auto [lo, hi] = range(s);
        n.ports.reserve(hi - lo);
        index[s] = static_cast<NodeIndex>(g_.nodes.size());
        g_.nodes.push_back(std::move(n));
    }
    std::vector<std::uint64_t> ca_guids;
    ca_guids.reserve(cas_before.back());
    for (const auto s : switches) {
        const auto [lo, hi] = range(s);
        for (auto i = lo; i < hi; ++i) {
            const auto& c = linked_[i].cable;
            const auto& host = systems_[system_of(c.far)];
            if (host.host) {
                ca_guids.push_back(unique_guid(
                    c.far_mac, [&] { return fnv1a(host.name + "/" + ports_[port_of(c.far)]); }));
            }
        }
    }
    // The CA nodes and each switch's side of its cables, the switches in two halves at
    // once on a large fabric: each half touches only its own switches and makes its own
    // CAs, in their places of the graph (sized first: nothing moves meanwhile).
    g_.nodes.resize(switches.size() + cas_before.back());
    const auto nswitches = static_cast<NodeIndex>(switches.size());
    auto make = [&](std::size_t from, std::size_t to) {
        for (auto k = from; k < to; ++k) {
            const auto s = switches[k];
            auto& sw = g_.nodes[index[s]];
            auto ca_index = nswitches + cas_before[k];
            const auto [lo, hi] = range(s);
            for (auto i = lo; i < hi; ++i) {
                const auto& c = linked_[i].cable;
                const auto me = number_[i];
                const auto far = system_of(c.far);
                if (!systems_[far].host) {
                    if (in_fabric(far)) {
                        sw.ports.push_back({me, index[far], number_[position(c.far)], 0, 0});
                    }
                    continue;
                }
                const auto& host = systems_[far].name;
                auto& ca = g_.nodes[ca_index];
                ca.kind = NodeKind::Ca;
                ca.nports = 1;
                ca.guid = ca_guids[ca_index - nswitches];
                ca.id = node_id('H', ca.guid);
                const auto& device = rdma_device(host, ports_[port_of(c.far)]);
                ca.desc.reserve(host.size() + 1 + device.size());
                ca.desc.append(host).append(1, ' ').append(device);
                ca.ports.push_back({1, index[s], me, 0, ca.guid});
                sw.ports.push_back({me, ca_index++, 1, 0, 0});
            }
            std::sort(sw.ports.begin(), sw.ports.end(),
                      [](const auto& x, const auto& y) { return x.port < y.port; });
        }
    };
    const auto half = switches.size() / 2;
    if (cas_before.back() < opt_.two_threads_from ||
        !both_at_once([&] { make(0, half); }, [&] { make(half, switches.size()); })) {
        make(0, switches.size());
    }
}

std::uint32_t LldpFabricBuilder::find(std::vector<std::uint32_t>& up, std::uint32_t x) {
    while (up[x] != x) {
        up[x] = up[up[x]];
        x = up[x];
    }
    return x;
}

}  // namespace switchyard::discover::lldp_detail
