// SPDX-License-Identifier: Apache-2.0
// LldpFiles → FabricGraph: systems named and told apart, cables taken from either end, dirty
// data reported, and only the network that holds the most host ports kept, in the shape
// parse_ibnetdiscover gives, so the classifier reads an Ethernet fabric as an InfiniBand one.
#include "lldp_builder.hpp"

namespace switchyard::discover::lldp_detail {

void LldpFabricBuilder::add(LldpFile&& file) {
    const auto f = static_cast<std::uint32_t>(sources_.size());
    sources_.push_back(std::move(file.source));
    if (!file.local && file.neighbors.empty()) {
        // An empty output (a dead lldpd, a gathering that failed on that host) says nothing;
        // the rest of the fabric is still read.
        warn("lldp-empty-file", loc({f, 0}),
             "describes no system and no neighbour (lldpd not running, or its output not "
             "gathered); left out");
        return;
    }
    if (!file.local) {
        pending_.emplace_back(f, std::move(file));  // named by the far ends, at the end
        return;
    }
    const auto* name = name_of(*file.local, {f, 0});
    if (name == nullptr) {
        return;
    }
    // The system is named, not yet given this file's chassis id or capabilities: another file
    // may say it is the same system, and which is right is known only once all are read.
    const auto s = by_name_.find_or_add(*name, SystemNames{systems_}, [&] {
        systems_.push_back({*name, {}, {}});
        return static_cast<std::uint32_t>(systems_.size() - 1);
    });
    ++systems_[s].claims;
    claims_.push_back({s, f, *file.local, !file.neighbors.empty()});
    read_cables(s, f, file);
}

void LldpFabricBuilder::resolve_claims() {
    std::vector<std::uint32_t> score(claims_.size(), 0);
    std::vector<bool> dropped(sources_.size(), false);
    bool contested = false;
    for (const auto& c : claims_) {
        contested = contested || systems_[c.system].claims > 1;
    }
    if (contested) {
        // The far ends' own views of the contested systems' ports, from files that are not
        // claims on them: (far end, contested end).
        std::vector<std::uint32_t> claim_of_file(sources_.size(), kNoSystem);
        for (std::uint32_t i = 0; i < claims_.size(); ++i) {
            claim_of_file[claims_[i].file] = i;
        }
        const auto claimant = [&](std::uint32_t file, std::uint32_t system) {
            const auto c = claim_of_file[file];
            return c != kNoSystem && claims_[c].system == system;
        };
        std::set<std::pair<End, End>> seen_back;
        views_.each([&](const View& v) {
            const auto far = system_of(v.b);
            if (systems_[far].claims > 1 && !claimant(v.file, far)) {
                seen_back.emplace(v.a, v.b);
            }
        });
        views_.each([&](const View& v) {
            const auto c = claim_of_file[v.file];
            if (c != kNoSystem && systems_[claims_[c].system].claims > 1 &&
                seen_back.contains({v.b, v.a})) {
                ++score[c];
            }
        });
        // A claim whose chassis id is the one its system's neighbours see.
        const auto matches_id = [&](std::uint32_t c) {
            const auto& id = systems_[claims_[c].system].id;
            return !id.empty() && claims_[c].chassis.id == id;
        };
        // Per contested system, its claims in file order: the best is kept.
        std::vector<std::uint32_t> best(systems_.size(), kNoSystem);
        for (std::uint32_t i = 0; i < claims_.size(); ++i) {
            const auto s = claims_[i].system;
            if (systems_[s].claims < 2) {
                continue;
            }
            if (best[s] == kNoSystem || score[i] > score[best[s]] ||
                (score[i] == score[best[s]] && matches_id(i) && !matches_id(best[s]))) {
                best[s] = i;
            }
        }
        for (std::uint32_t i = 0; i < claims_.size(); ++i) {
            const auto s = claims_[i].system;
            if (systems_[s].claims < 2 || best[s] == i) {
                continue;
            }
            const auto& kept = claims_[best[s]];
            warn("lldp-duplicate-name", loc({claims_[i].file, 0}),
                 "says it is '" + systems_[s].name + "', as " + sources_[kept.file] +
                     " does; that file is kept: the far ends' files confirm " +
                     std::to_string(score[best[s]]) + " of its cables and " +
                     std::to_string(score[i]) + " of this one's" +
                     (matches_id(best[s]) ? ", and see its chassis id" : "") +
                     " (a copied file, or two systems with one name); this file is left out");
            dropped[claims_[i].file] = true;
        }
        Blocks<View> kept_views;
        views_.each([&](const View& v) {
            if (!dropped[v.file]) {
                kept_views.push_back(v);
            }
        });
        views_ = std::move(kept_views);
    }
    for (const auto& c : claims_) {
        if (dropped[c.file]) {
            continue;
        }
        auto& s = systems_[c.system];
        s.file = c.file;
        s.sees = c.sees;
        if (s.id.empty()) {
            s.id = c.chassis.id;
        }
        if (c.chassis.caps_known) {
            s.caps.caps_known = true;
            s.caps.bridge = s.caps.bridge || c.chassis.bridge;
            s.caps.router = s.caps.router || c.chassis.router;
            s.caps.station = s.caps.station || c.chassis.station;
        }
    }
    claims_.clear();
}

FabricGraph LldpFabricBuilder::finish() {
    resolve_claims();
    lay_out();
    put_views();
    name_pending();
    settle_cables();
    decide_roles();
    keep_largest_network();
    report_unseen();
    build();
    return std::move(g_);
}

std::uint32_t LldpFabricBuilder::port(const std::string& name) {
    return port_ids_.find_or_add(name, ports_, [&] {
        ports_.push_back(name);
        return static_cast<std::uint32_t>(ports_.size() - 1);
    });
}

const std::string* LldpFabricBuilder::name_of(const LldpChassis& c, Where where) {
    if (opt_.names != nullptr && !opt_.names->empty() && !c.id.empty()) {
        const auto it = opt_.names->find(lower(c.id));
        if (it != opt_.names->end()) {
            return &it->second;
        }
    }
    if (!useless_name(c.name)) {
        return &c.name;
    }
    if (reported_.insert("unnamed " + c.id).second) {
        warn("lldp-unnamed-chassis", loc(where),
             "chassis " + (c.id.empty() ? std::string("without an id") : c.id_type + " " + c.id) +
                 (c.name.empty() ? " sends no system name" : " calls itself '" + c.name + "'") +
                 ": left out (name it in a --guid-map line '" + c.id + " <name>')");
    }
    return nullptr;
}

std::uint32_t LldpFabricBuilder::system(const std::string& name,
                                        const LldpChassis& c,
                                        Where where) {
    bool fresh = false;
    const auto n = by_name_.find_or_add(name, SystemNames{systems_}, [&] {
        fresh = true;
        systems_.push_back({name, c.id, c});
        return static_cast<std::uint32_t>(systems_.size() - 1);
    });
    if (fresh) {
        return n;
    }
    auto& s = systems_[n];
    if (!c.id.empty() && !s.id.empty() && c.id != s.id) {
        if (reported_.insert("duplicate " + name).second) {
            warn("lldp-duplicate-name", loc(where),
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
    return n;
}

void LldpFabricBuilder::read_cables(std::uint32_t self, std::uint32_t f, const LldpFile& file) {
    systems_[self].file = f;
    systems_[self].sees = !file.neighbors.empty();
    file_system_.resize(sources_.size(), kNoSystem);
    file_system_[f] = self;
    for (const auto& nb : file.neighbors) {
        const Where where{f, nb.line};
        const auto* name = name_of(nb.chassis, where);
        if (name == nullptr) {
            continue;
        }
        const auto far = system(*name, nb.chassis, where);
        if (far == kNoSystem) {
            continue;
        }
        const auto mac = nb.port_id_type == "mac" ? parse_mac(nb.port_id) : std::nullopt;
        views_.push_back({end_of(self, port(nb.local_port)), end_of(far, port(port_name(nb))),
                          mac.value_or(0), f, nb.line});
    }
}

std::string LldpFabricBuilder::describe(End e) const {
    return "'" + systems_[system_of(e)].name + "' port " + ports_[port_of(e)];
}

void LldpFabricBuilder::lay_out() {
    const auto systems = systems_.size();
    first_.assign(systems + 1, 0);
    views_.each([&](const View& v) {
        ++first_[system_of(v.a) + 1];
        ++first_[system_of(v.b) + 1];
    });
    std::partial_sum(first_.begin(), first_.end(), first_.begin());
    std::vector<std::uint32_t> ports(first_[systems]);  // the system is the bucket's
    auto at = first_;
    views_.each([&](const View& v) {
        ports[at[system_of(v.a)]++] = port_of(v.a);
        ports[at[system_of(v.b)]++] = port_of(v.b);
    });
    std::uint32_t kept = 0;
    for (std::uint32_t s = 0; s < systems; ++s) {
        const auto lo = ports.begin() + first_[s];
        const auto hi = ports.begin() + first_[s + 1];
        std::sort(lo, hi);
        first_[s] = kept;
        for (auto it = lo; it != hi; ++it) {
            if (it == lo || *it != *(it - 1)) {
                ports[kept++] = *it;  // kept <= it: written behind the reading
            }
        }
    }
    first_[systems] = kept;
    linked_.resize(kept);
    for (std::uint32_t s = 0; s < systems; ++s) {
        for (auto i = first_[s]; i < first_[s + 1]; ++i) {
            linked_[i].end = end_of(s, ports[i]);
            linked_[i].cable.far = kNoEnd;
        }
    }
}

Cable* LldpFabricBuilder::place(End e) {
    const auto s = system_of(e);
    if (s + 1 >= first_.size()) {
        return nullptr;
    }
    const auto lo = linked_.begin() + first_[s];
    const auto hi = linked_.begin() + first_[s + 1];
    const auto it = std::lower_bound(lo, hi, e, [](const Linked& l, End x) { return l.end < x; });
    return it != hi && it->end == e ? &it->cable : nullptr;
}

Cable* LldpFabricBuilder::find(End e) {
    if (auto* c = place(e)) {
        return c->far == kNoEnd ? nullptr : c;
    }
    return extra_.find(e);
}

void LldpFabricBuilder::put(End e, const Cable& c) {
    if (auto* p = place(e)) {
        *p = c;
    } else {
        extra_.put(e, c);
    }
}

void LldpFabricBuilder::put_views() {
    for (const bool switches : {true, false}) {
        views_.each([&](const View& v) {
            if (switch_system(system_of(v.a)) == switches) {
                cable(v.a, v.b, v.b_mac, v.file, v.line);
            }
        });
    }
    views_.clear();
}

void LldpFabricBuilder::cable(
    End a, End b, std::uint64_t b_mac, std::uint32_t file, std::uint32_t line) {
    auto* at_a = find(a);
    const auto* at_b = find(b);
    if (at_a != nullptr && at_a->far == b) {
        if (b_mac != 0) {
            at_a->far_mac = b_mac;
        }
        return;  // the other end said it first
    }
    if (at_a != nullptr || at_b != nullptr) {
        const auto& other = at_a != nullptr ? *at_a : *at_b;
        const auto mine = at_a != nullptr ? a : b;
        const auto kept_by =
            other.file < file_system_.size() ? file_system_[other.file] : kNoSystem;
        const bool switch_kept =
            kept_by != kNoSystem && switch_system(kept_by) && !switch_system(system_of(a));
        warn("lldp-port-mismatch", {sources_[file], line, 0},
             describe(a) + " sees " + describe(b) + ", but " + describe(mine) + " was seen with " +
                 describe(other.far) + " (" +
                 SourceLoc{sources_[other.file], other.line, 0}.to_string() +
                 "): the two ends disagree (a stale neighbour or a moved cable); " +
                 (switch_kept ? "the switch's view is kept" : "the first is kept"));
        return;
    }
    put(a, {b, b_mac, file, line});
    put(b, {a, 0, file, line});
}

void LldpFabricBuilder::settle_cables() {
    const bool empty_places = std::any_of(linked_.begin(), linked_.end(),
                                          [](const Linked& l) { return l.cable.far == kNoEnd; });
    if (!empty_places && extra_.size() == 0 && first_.size() == systems_.size() + 1) {
        return;
    }
    std::vector<Linked> all;
    all.reserve(linked_.size() + extra_.size());
    for (const auto& l : linked_) {
        if (l.cable.far != kNoEnd) {
            all.push_back(l);
        }
    }
    extra_.each([&](End e, const Cable& c) { all.push_back({e, c}); });
    extra_ = CableTable{};
    first_.assign(systems_.size() + 1, 0);
    for (const auto& l : all) {
        ++first_[system_of(l.end) + 1];
    }
    std::partial_sum(first_.begin(), first_.end(), first_.begin());
    linked_.assign(all.size(), Linked{});
    auto at = first_;
    for (const auto& l : all) {
        linked_[at[system_of(l.end)]++] = l;
    }
    for (std::size_t s = 0; s < systems_.size(); ++s) {
        std::sort(linked_.begin() + first_[s], linked_.begin() + first_[s + 1],
                  [](const Linked& x, const Linked& y) { return x.end < y.end; });
    }
}

}  // namespace switchyard::discover::lldp_detail

namespace switchyard::discover {

using lldp_detail::LldpFabricBuilder;
using node::NodeTopology;
using node::port_netdevs;

LldpFabric::LldpFabric(const LldpOptions& opt) : impl_(std::make_unique<LldpFabricBuilder>(opt)) {}
LldpFabric::~LldpFabric() = default;

void LldpFabric::add(LldpFile file) {
    impl_->add(std::move(file));
}

FabricGraph LldpFabric::finish() {
    return impl_->finish();
}

FabricGraph lldp_fabric(std::vector<LldpFile> files, const LldpOptions& opt) {
    LldpFabric fabric(opt);
    for (auto& f : files) {
        fabric.add(std::move(f));
    }
    return fabric.finish();
}

std::vector<PortNeighbor> rdma_port_neighbors(const NodeTopology& node, const LldpFile& lldp) {
    std::vector<PortNeighbor> out;
    for (const auto& nic : node.nics) {
        for (const auto& port : nic.ports) {
            for (const auto& dev : port_netdevs(nic, port)) {
                for (const auto& n : lldp.neighbors) {
                    if (n.local_port == dev) {
                        out.push_back({nic.name, port.port, dev, n});
                    }
                }
            }
        }
    }
    return out;
}

}  // namespace switchyard::discover
