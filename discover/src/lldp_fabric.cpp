// SPDX-License-Identifier: Apache-2.0
// LldpFiles → FabricGraph: systems named and told apart, cables taken from either end, dirty
// data reported, and only the network that holds the most host ports kept, in the shape
// parse_ibnetdiscover gives, so the classifier reads an Ethernet fabric as an InfiniBand one.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <numeric>
#include <set>

#include "name_index.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/common/two_cores.hpp"
#include "switchyard/discover/lldp.hpp"

namespace switchyard::discover {

using node::NodeTopology;
using node::port_netdevs;

namespace {

using detail::NameIndex;
using detail::next_slot;
using detail::slot_of;

constexpr std::uint32_t kNoSystem = detail::kNoName;
constexpr std::size_t kListed = 10;  ///< names listed in one warning

struct System {
    std::string name;
    std::string id;  ///< chassis id as first seen
    LldpChassis caps;
    std::uint32_t file = kNoSystem;  ///< the file that describes it, if any
    bool sees = false;               ///< its file lists a neighbour
    bool host = false;
    std::uint32_t network = 0;
};

/// One end of a cable: a system and one of its ports (interned), as one number.
using End = std::uint64_t;
constexpr End end_of(std::uint32_t system, std::uint32_t port) {
    return (std::uint64_t{system} << 32U) | port;
}
constexpr std::uint32_t system_of(End e) {
    return static_cast<std::uint32_t>(e >> 32U);
}
constexpr std::uint32_t port_of(End e) {
    return static_cast<std::uint32_t>(e & 0xffffffffU);
}
constexpr End kNoEnd = ~End{0};  ///< no system has number 2^32-1

struct Cable {
    End far = 0;
    std::uint64_t far_mac = 0;  ///< the far end's port MAC when a view of it gave one
    std::uint32_t file = 0;     ///< where it was read
    std::uint32_t line = 0;
};

/// Cables by end, for the ends that come after the others are laid out (files named by their
/// neighbours, at the end; at most all the host files): open addressing over End keys (linear
/// probing, grown at 70 % full), no allocation per entry. Any table size (slot_of).
class CableTable {
public:
    [[nodiscard]] Cable* find(End e) {
        if (keys_.empty()) {
            return nullptr;
        }
        for (auto i = slot_of(e, keys_.size());; i = next_slot(i, keys_.size())) {
            if (keys_[i] == e) {
                return &values_[i];
            }
            if (keys_[i] == kEmpty) {
                return nullptr;
            }
        }
    }

    void put(End e, const Cable& c) {
        if (10 * (size_ + 1) > 7 * keys_.size()) {
            grow(2 * keys_.size());
        }
        for (auto i = slot_of(e, keys_.size());; i = next_slot(i, keys_.size())) {
            if (keys_[i] == kEmpty || keys_[i] == e) {
                size_ += keys_[i] == kEmpty ? 1U : 0U;
                keys_[i] = e;
                values_[i] = c;
                return;
            }
        }
    }

    [[nodiscard]] std::size_t size() const { return size_; }

    template <typename F>
    void each(F&& f) const {
        for (std::size_t i = 0; i < keys_.size(); ++i) {
            if (keys_[i] != kEmpty) {
                f(keys_[i], values_[i]);
            }
        }
    }

private:
    static constexpr End kEmpty = kNoEnd;
    std::vector<End> keys_;
    std::vector<Cable> values_;
    std::size_t size_ = 0;

    /// To `n` slots (at least 1024), filled at most 70 %.
    void grow(std::size_t n) {
        auto keys = std::move(keys_);
        auto values = std::move(values_);
        n = std::max<std::size_t>(n, 1024);
        keys_.assign(n, kEmpty);
        values_.assign(n, Cable{});
        size_ = 0;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            if (keys[i] != kEmpty) {
                put(keys[i], values[i]);
            }
        }
    }
};

/// A sequence kept in blocks of 64k entries: it grows without copying what it holds (a
/// vector of two million views doubling its way there touches twice their size in fresh pages,
/// each zeroed by the kernel).
template <typename T>
class Blocks {
public:
    void push_back(const T& v) {
        if (blocks_.empty() || blocks_.back().size() == kBlock) {
            blocks_.emplace_back().reserve(kBlock);
        }
        blocks_.back().push_back(v);
    }
    template <typename F>
    void each(F&& f) const {
        for (const auto& b : blocks_) {
            for (const auto& v : b) {
                f(v);
            }
        }
    }
    void clear() { blocks_.clear(); }

private:
    static constexpr std::size_t kBlock = std::size_t{1} << 16U;
    std::vector<std::vector<T>> blocks_;
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
const std::string& port_name(const LldpNeighbor& nb) {
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

/// "H-" or "S-" and the GUID's 16 hex digits, as ibnetdiscover names its nodes.
std::string node_id(char kind, std::uint64_t guid) {
    std::string id(18, '0');
    id[0] = kind;
    id[1] = '-';
    for (std::size_t i = 17; i >= 2; --i, guid >>= 4U) {
        id[i] = "0123456789abcdef"[guid & 0xfU];
    }
    return id;
}

/// The node GUIDs given so far (never 0): open addressing, kept at most half full.
class GuidSet {
public:
    explicit GuidSet(std::size_t n) : slots_(std::max<std::size_t>(1024, 2 * n), 0) {}

    /// False when `g` is there already.
    bool insert(std::uint64_t g) {
        if (2 * (size_ + 1) > slots_.size()) {
            auto old = std::move(slots_);
            slots_.assign(2 * old.size(), 0);
            size_ = 0;
            for (const auto x : old) {
                if (x != 0) {
                    insert(x);
                }
            }
        }
        for (auto i = slot_of(g, slots_.size());; i = next_slot(i, slots_.size())) {
            if (slots_[i] == g) {
                return false;
            }
            if (slots_[i] == 0) {
                slots_[i] = g;
                ++size_;
                return true;
            }
        }
    }

private:
    std::vector<std::uint64_t> slots_;
    std::size_t size_ = 0;
};

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

}  // namespace

/// LldpFabric's state: systems, interned ports, cables.
class LldpFabricBuilder {
public:
    explicit LldpFabricBuilder(const LldpOptions& opt) : opt_(opt) {}

    void add(LldpFile&& file) {
        const auto f = static_cast<std::uint32_t>(sources_.size());
        sources_.push_back(std::move(file.source));
        if (!file.local) {
            pending_.emplace_back(f, std::move(file));  // named by the far ends, at the end
            return;
        }
        const auto* name = name_of(*file.local, {f, 0});
        if (name == nullptr) {
            return;
        }
        const auto s = system(*name, *file.local, {f, 0});
        if (s == kNoSystem) {
            return;
        }
        if (systems_[s].file != kNoSystem) {
            warn("lldp-duplicate-name", loc({f, 0}),
                 "'" + *name + "' is described by " + sources_[systems_[s].file] +
                     " too; this file is left out");
            return;
        }
        read_cables(s, f, file);
    }

    FabricGraph finish() {
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

private:
    LldpOptions opt_;
    FabricGraph g_;
    std::vector<std::string> sources_;
    std::vector<std::pair<std::uint32_t, LldpFile>> pending_;  ///< files without their chassis
    std::vector<System> systems_;
    NameIndex by_name_;               ///< into systems_
    std::vector<std::string> ports_;  ///< interned port names
    NameIndex port_ids_;              ///< into ports_
    /// Each view of a cable as read (one per neighbour record), in file order, until put_views
    /// makes cables of them in that order.
    struct View {
        End a;
        End b;
        std::uint64_t b_mac;
        std::uint32_t file;
        std::uint32_t line;
    };
    Blocks<View> views_;
    /// Each end and its cable, by system and port; system s's are [first_[s], first_[s + 1]).
    /// lay_out makes a place for every end of the views read by then (far == kNoEnd until a
    /// cable is put there); ends that come later (files named at the end) go to extra_, and
    /// settle_cables merges them in and drops the places left empty.
    struct Linked {
        End end;
        Cable cable;
    };
    std::vector<Linked> linked_;
    std::vector<std::uint32_t> first_;
    CableTable extra_;
    std::vector<std::uint32_t> number_;  ///< a switch end's port number, by linked_ index
    std::set<std::string> reported_;
    std::uint32_t main_ = kNoSystem;

    void warn(std::string kind, SourceLoc where, std::string message) {
        g_.warnings.push_back({std::move(kind), std::move(where), std::move(message)});
    }

    /// Where a record was read: a file's number and a line (0: the file as a whole), made a
    /// SourceLoc only for a warning (a million records, a handful of warnings).
    struct Where {
        std::uint32_t file;
        std::uint32_t line;
    };
    [[nodiscard]] SourceLoc loc(Where w) const { return {sources_[w.file], w.line, 0}; }

    std::uint32_t port(const std::string& name) {
        return port_ids_.find_or_add(name, ports_, [&] {
            ports_.push_back(name);
            return static_cast<std::uint32_t>(ports_.size() - 1);
        });
    }

    /// systems_' names, by number, for by_name_.
    struct SystemNames {
        const std::vector<System>& systems;
        const std::string& operator[](std::uint32_t s) const { return systems[s].name; }
    };

    /// The cables of system `s`: [first, last) of linked_.
    [[nodiscard]] std::pair<std::size_t, std::size_t> range(std::uint32_t s) const {
        return {first_[s], first_[s + 1]};
    }

    /// Where end `e` is in linked_.
    [[nodiscard]] std::size_t position(End e) const {
        const auto [lo, hi] = range(system_of(e));
        return static_cast<std::size_t>(
            std::lower_bound(linked_.begin() + static_cast<std::ptrdiff_t>(lo),
                             linked_.begin() + static_cast<std::ptrdiff_t>(hi), e,
                             [](const Linked& l, End x) { return l.end < x; }) -
            linked_.begin());
    }

    /// The name of a chassis: the map's for its id, else its own, or none (nullptr, reported
    /// once).
    const std::string* name_of(const LldpChassis& c, Where where) {
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
                 "chassis " +
                     (c.id.empty() ? std::string("without an id") : c.id_type + " " + c.id) +
                     (c.name.empty() ? " sends no system name" : " calls itself '" + c.name + "'") +
                     ": left out (name it in a --guid-map line '" + c.id + " <name>')");
        }
        return nullptr;
    }

    /// The system named `name` with chassis id `c.id`; kNoSystem when another chassis already
    /// holds the name (reported once per name).
    std::uint32_t system(const std::string& name, const LldpChassis& c, Where where) {
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

    /// File `f` is system `self`'s: its cables, from its side.
    void read_cables(std::uint32_t self, std::uint32_t f, const LldpFile& file) {
        systems_[self].file = f;
        systems_[self].sees = !file.neighbors.empty();
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

    /// Files without their own chassis: named by what the far ends' files see on those ports.
    void name_pending() {
        for (auto& [f, file] : pending_) {
            std::string found;
            for (const auto& nb : file.neighbors) {
                const auto sys = by_name_.find(nb.chassis.name, SystemNames{systems_});
                const auto p = port_ids_.find(port_name(nb), ports_);
                if (sys == kNoSystem || p == kNoSystem) {
                    continue;
                }
                const auto* far = find(end_of(sys, p));
                if (far != nullptr) {
                    found = systems_[system_of(far->far)].name;
                    break;
                }
            }
            const auto s = found.empty() ? kNoSystem : system(found, LldpChassis{}, {f, 0});
            if (s == kNoSystem || systems_[s].file != kNoSystem) {
                warn("lldp-unknown-system", loc({f, 0}),
                     "the file does not say which system it is from (gather 'lldpcli -f json "
                     "show chassis' with 'lldpctl -f json') and no other file sees its ports: "
                     "left out");
                continue;
            }
            read_cables(s, f, file);
            put_views();  // the next pending file may be named through these cables
        }
        pending_.clear();
    }

    std::string describe(End e) const {
        return "'" + systems_[system_of(e)].name + "' port " + ports_[port_of(e)];
    }

    /// A place in linked_ for every end of the views read so far: the ends counted and laid out
    /// by system (a counting sort: a system has a few dozen ends at most), then sorted by port
    /// and made unique within each system. No hash table: at 100k hosts x 8 rails a table of
    /// the ends took 228 MB of fresh memory, each page of it zeroed by the kernel.
    void lay_out() {
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

    /// End `e`'s place in linked_, if lay_out made one.
    Cable* place(End e) {
        const auto s = system_of(e);
        if (s + 1 >= first_.size()) {
            return nullptr;
        }
        const auto lo = linked_.begin() + first_[s];
        const auto hi = linked_.begin() + first_[s + 1];
        const auto it =
            std::lower_bound(lo, hi, e, [](const Linked& l, End x) { return l.end < x; });
        return it != hi && it->end == e ? &it->cable : nullptr;
    }

    /// The cable at end `e`, if any.
    Cable* find(End e) {
        if (auto* c = place(e)) {
            return c->far == kNoEnd ? nullptr : c;
        }
        return extra_.find(e);
    }

    void put(End e, const Cable& c) {
        if (auto* p = place(e)) {
            *p = c;
        } else {
            extra_.put(e, c);
        }
    }

    /// The views read so far made cables, in their order.
    void put_views() {
        views_.each([&](const View& v) { cable(v.a, v.b, v.b_mac, v.file, v.line); });
        views_.clear();
    }

    void cable(End a, End b, std::uint64_t b_mac, std::uint32_t file, std::uint32_t line) {
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
            warn("lldp-port-mismatch", {sources_[file], line, 0},
                 describe(a) + " sees " + describe(b) + ", but " + describe(mine) +
                     " was seen with " + describe(other.far) + " (" +
                     SourceLoc{sources_[other.file], other.line, 0}.to_string() +
                     "): the two ends disagree (a stale neighbour or a moved cable); the first "
                     "is kept");
            return;
        }
        put(a, {b, b_mac, file, line});
        put(b, {a, 0, file, line});
    }

    /// linked_ holding only cables, of every system: the places left empty (ends of views
    /// refused) dropped and the ends of extra_ merged in. Most often there is nothing to do.
    void settle_cables() {
        const bool empty_places = std::any_of(
            linked_.begin(), linked_.end(), [](const Linked& l) { return l.cable.far == kNoEnd; });
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

    static std::uint32_t find(std::vector<std::uint32_t>& up, std::uint32_t x) {
        while (up[x] != x) {
            up[x] = up[up[x]];
            x = up[x];
        }
        return x;
    }

    /// Switches joined by switch-to-switch cables are one network; the one with the most host
    /// ports is the fabric, the others (management, storage) are reported and left out.
    void keep_largest_network() {
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
        main_ = std::max_element(host_ports.begin(), host_ports.end(),
                                 [&](const auto& x, const auto& y) {
                                     return std::pair(x.second, members[x.first].size()) <
                                            std::pair(y.second, members[y.first].size());
                                 })
                    ->first;
        for (auto& [root, names] : members) {
            if (root == main_) {
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

    [[nodiscard]] bool in_fabric(std::uint32_t s) const {
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

    /// The number a port's name ends in ("swp12" → 12, "Ethernet48" → 48), or 0 when it ends
    /// in none (or in 0, or in more than six digits).
    static std::uint32_t trailing_number(std::string_view name) {
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

    /// Port numbers of switch `s`'s ends into number_: the name's trailing number where those
    /// are unique on the switch, else the rank of the name. Returns the largest. `trailing`
    /// holds each interned name's trailing number, `seen` is room to sort them in.
    std::uint32_t port_numbers(std::uint32_t s,
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

    /// The RDMA device on a host's net device, where the node's facts say; else the net device.
    [[nodiscard]] const std::string& rdma_device(const std::string& host,
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

    void build() {
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
                    ca_guids.push_back(unique_guid(c.far_mac, [&] {
                        return fnv1a(host.name + "/" + ports_[port_of(c.far)]);
                    }));
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
};

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
