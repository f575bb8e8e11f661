// SPDX-License-Identifier: Apache-2.0
// LldpFabric's state (internal to the discover library): systems, interned ports, cables, and
// the passes that make a FabricGraph of them. Naming and cabling in lldp_fabric.cpp; roles, the
// network kept and the graph built in lldp_roles.cpp.
#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <numeric>
#include <set>

#include "name_index.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/common/two_cores.hpp"
#include "switchyard/discover/lldp/lldp.hpp"

namespace switchyard::discover::lldp_detail {

using detail::NameIndex;
using detail::next_slot;
using detail::slot_of;
using node::NodeTopology;
using node::port_netdevs;

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
    std::uint32_t claims = 0;        ///< files that say they are its (one is kept)
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

inline bool useless_name(std::string_view n) {
    return n.empty() || n == "localhost" || n == "(none)" || n == "localhost.localdomain";
}

inline std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

/// The name a neighbour gives its port: the id when it is a name, else the description
/// (lldpd on Linux sends the MAC as id and the interface name as description).
inline const std::string& port_name(const LldpNeighbor& nb) {
    if ((nb.port_id_type == "ifname" || nb.port_id_type == "local") && !nb.port_id.empty()) {
        return nb.port_id;
    }
    return nb.port_descr.empty() ? nb.port_id : nb.port_descr;
}

inline std::uint64_t fnv1a(std::string_view s) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const char c : s) {
        h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    }
    return h;
}

/// "H-" or "S-" and the GUID's 16 hex digits, as ibnetdiscover names its nodes.
inline std::string node_id(char kind, std::uint64_t guid) {
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

inline std::string list_names(const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size() && i < kListed; ++i) {
        s += (i == 0 ? "'" : ", '") + names[i] + "'";
    }
    if (names.size() > kListed) {
        s += " and " + std::to_string(names.size() - kListed) + " more";
    }
    return s;
}

/// LldpFabric's state: systems, interned ports, cables.
class LldpFabricBuilder {
public:
    explicit LldpFabricBuilder(const LldpOptions& opt) : opt_(opt) {
        if (opt_.hosts != nullptr) {
            hosts_.insert(opt_.hosts->begin(), opt_.hosts->end());
        }
    }

    void add(LldpFile&& file);

    FabricGraph finish();

private:
    LldpOptions opt_;
    FabricGraph g_;
    std::vector<std::string> sources_;
    std::vector<std::uint32_t> file_system_;    ///< the system each file was read as (or none)
    std::set<std::string, std::less<>> hosts_;  ///< --expect-hosts
    std::vector<std::pair<std::uint32_t, LldpFile>> pending_;  ///< files without their chassis
    /// A file that says which system it is from (its local chassis): kept until finish, where
    /// one file per system is chosen (resolve_claims).
    struct Claim {
        std::uint32_t system;
        std::uint32_t file;
        LldpChassis chassis;
        bool sees;  ///< it lists a neighbour
    };
    std::vector<Claim> claims_;
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

    std::uint32_t port(const std::string& name);

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
    const std::string* name_of(const LldpChassis& c, Where where);

    /// The system named `name` with chassis id `c.id`; kNoSystem when another chassis already
    /// holds the name (reported once per name).
    std::uint32_t system(const std::string& name, const LldpChassis& c, Where where);

    /// File `f` is system `self`'s: its cables, from its side.
    void read_cables(std::uint32_t self, std::uint32_t f, const LldpFile& file);

    /// One file per system among those that say they are its: the one whose cables the far
    /// ends' own files confirm most (then the one whose chassis id the neighbours see, then the
    /// first by name). The others are reported (lldp-duplicate-name) and their views dropped.
    /// Then each system takes its file's chassis id (when no neighbour gave one) and
    /// capabilities.
    void resolve_claims();

    /// Files without their own chassis (plain `lldpctl` output): named by what the far ends'
    /// files see on those ports: first through the named systems' cables, round after round;
    /// then, for files no named system sees (every file plain), by mutual cables among
    /// themselves (name_by_mutual_cables). The rest are reported.
    void name_pending();

    /// Plain files named from each other: file X's record (its port p → S's port q) and file
    /// Y's record (its port q → T's port p) are the two ends of one cable if X is T and Y is S.
    /// Each such pair is a vote; a file whose votes have one clear winner (a name no other file
    /// holds) is named, and the next round counts only votes that agree with the names given.
    /// Precision first: a name is kept only when the named far ends' records confirm it and
    /// none names another system there; else it is taken back, never given to that file again,
    /// and the rounds run again.
    /// \return the name each file of `files` was given ("" for none), and the votes against it.
    struct Naming {
        std::string name;
        std::uint32_t votes = 0;    ///< for the name (or the refused one)
        std::uint32_t against = 0;  ///< for other names, counted in the last round
        std::string other;          ///< the name most of those were for
        /// When no name is given: the last name its cables fit by port names, taken back
        /// because the far ends' records did not confirm it or named another system.
        std::string refused;
    };
    /// A file left out because its far ends name two systems: `a` `na` times, `b` `nb`.
    void unclear(Where where,
                 const std::string& says,
                 const std::string& a,
                 std::uint32_t na,
                 const std::string& b,
                 std::uint32_t nb,
                 const char* what);

    std::vector<Naming> name_by_mutual_cables(
        const std::vector<std::pair<std::uint32_t, LldpFile>>& files);

    std::string describe(End e) const;

    /// A place in linked_ for every end of the views read so far: the ends counted and laid out
    /// by system (a counting sort: a system has a few dozen ends at most), then sorted by port
    /// and made unique within each system. No hash table: at 100k hosts x 8 rails a table of
    /// the ends took 228 MB of fresh memory, each page of it zeroed by the kernel.
    void lay_out();

    /// End `e`'s place in linked_, if lay_out made one.
    Cable* place(End e);

    /// The cable at end `e`, if any.
    Cable* find(End e);

    void put(End e, const Cable& c);

    /// The views read so far made cables: the switches' views of their own ports first, then
    /// the others, each in file order. Where two views disagree the first is kept, so a host's
    /// file (users' tasks write them) never displaces what a switch records, whatever the
    /// files' names.
    void put_views();

    /// A view from a system that says it is a switch (bridge or router, not an expected host).
    [[nodiscard]] bool switch_system(std::uint32_t s) const {
        const auto& c = systems_[s].caps;
        return c.caps_known && (c.bridge || c.router) && !named_host(systems_[s].name);
    }

    void cable(End a, End b, std::uint64_t b_mac, std::uint32_t file, std::uint32_t line);

    /// linked_ holding only cables, of every system: the places left empty (ends of views
    /// refused) dropped and the ends of extra_ merged in. Most often there is nothing to do.
    void settle_cables();

    [[nodiscard]] bool named_host(const std::string& name) const { return hosts_.contains(name); }

    void decide_roles();

    static std::uint32_t find(std::vector<std::uint32_t>& up, std::uint32_t x);

    /// Switches joined by switch-to-switch cables are one network; the one with the most host
    /// ports is the fabric, the others (management, storage) are reported and left out.
    void keep_largest_network();

    [[nodiscard]] bool in_fabric(std::uint32_t s) const {
        return !systems_[s].host && systems_[s].network == main_;
    }

    void report_unseen();

    /// The number a port's name ends in ("swp12" → 12, "Ethernet48" → 48), or 0 when it ends
    /// in none (or in 0, or in more than six digits).
    static std::uint32_t trailing_number(std::string_view name);

    /// Port numbers of switch `s`'s ends into number_: the name's trailing number where those
    /// are unique on the switch, else the rank of the name. Returns the largest. `trailing`
    /// holds each interned name's trailing number, `seen` is room to sort them in.
    std::uint32_t port_numbers(std::uint32_t s,
                               const std::vector<std::uint32_t>& trailing,
                               std::vector<std::uint32_t>& seen);

    /// The RDMA device on a host's net device, where the node's facts say; else the net device.
    [[nodiscard]] const std::string& rdma_device(const std::string& host,
                                                 const std::string& netdev) const;

    void build();
};

}  // namespace switchyard::discover::lldp_detail
