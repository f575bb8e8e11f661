// SPDX-License-Identifier: Apache-2.0
// What a preflight can measure and blame: a job's hosts on each plane (an HCA rail, or NVLink),
// the leaves they hang from, and the parts of the fabric between them. Built from the fabric map
// (which knows leaves, SUs, groups and uplink counts, not which spine a cable reaches), so the
// parts above the leaves are sets: "one of g1-leaf3's uplinks", "a spine of g1". A caller that
// knows the cabling and the forwarding tables gives exact paths instead (Model::exact_path).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/result.hpp"
#include "switchyard/fabric/fabric_map.hpp"

namespace switchyard::preflight {

inline constexpr std::uint32_t kNone = UINT32_MAX;

enum class PartKind : std::uint8_t {
    Port,        ///< a host's HCA on one rail, or its cable to the leaf
    NvlinkPort,  ///< a tray's NVLink ports
    Leaf,        ///< a leaf switch
    Uplinks,     ///< one of a leaf's uplinks (which one, only forwarding tables tell)
    Uplink,      ///< one leaf–spine cable (exact paths)
    Spines,      ///< a spine of a group (which one, only forwarding tables tell)
    Spine,       ///< one spine (exact paths)
    Globals,     ///< a global cable between two groups (pods: their core cables)
    Global,      ///< one global cable (exact paths)
    Rail,        ///< every link of one rail (a plane-wide fault: the SM, a rail's spine plane)
    Domain,      ///< an NVLink domain
};
[[nodiscard]] std::string_view to_string(PartKind k);

struct Part {
    PartKind kind = PartKind::Port;
    std::string name;  ///< "node007:mlx5_2", "g1-leaf3", "g1-leaf3 uplinks", "rail mlx5_2"
    std::uint32_t host = kNone;  ///< Port, NvlinkPort: the host whose fault it is
    /// A set's members (a leaf's uplinks, a group's spines, the cables between two groups): a
    /// fault in one of them slows about 1 in `members` of the pairs through the set. 1 else.
    std::uint32_t members = 1;
    /// A good probe through it clears it. Not for sets (Uplinks, Spines, Globals): a probe uses
    /// one member of the set, and a good one says nothing of the others.
    [[nodiscard]] bool clearable() const {
        return kind != PartKind::Uplinks && kind != PartKind::Spines && kind != PartKind::Globals;
    }
    /// A fault of the node itself (drained), not of a cable or switch (steered around).
    [[nodiscard]] bool node_fault() const {
        return kind == PartKind::Port || kind == PartKind::NvlinkPort;
    }
};

/// A rail (one HCA name on every host that has it) or the NVLink plane.
struct Plane {
    std::string name;  ///< the HCA ("mlx5_2") or "nvlink"
    bool nvlink = false;
    std::uint32_t rail_part = kNone;
};

/// A leaf of one plane, or for the NVLink plane an NVLink domain.
struct Leaf {
    std::uint32_t part = kNone;     ///< Leaf or Domain part
    std::uint32_t uplinks = kNone;  ///< Uplinks part (kNone for a domain)
    std::uint32_t spines = kNone;   ///< Spines part above it (kNone for a domain)
    std::uint32_t group = 0;        ///< index into FabricMap::groups
    std::uint32_t uplink_count = 0;
    std::uint32_t switch_index = kNone;  ///< FabricMap::switches (kNone for a domain)
};

/// One host on one plane.
struct Attachment {
    std::uint32_t host = 0;  ///< index into Model::hosts
    std::uint32_t plane = 0;
    std::uint32_t leaf = 0;      ///< index into Model::leaves
    std::uint32_t port = kNone;  ///< its Port / NvlinkPort part
};

/// A pair measurement: `a` (the client) and `b` (the server) are attachments of one plane.
struct Probe {
    std::uint32_t a = 0;
    std::uint32_t b = 0;
    std::uint32_t round = 0;
};

struct Model {
    std::vector<std::string> hosts;  ///< the job's hosts, as given
    std::vector<Plane> planes;
    std::vector<Leaf> leaves;
    std::vector<Attachment> attachments;  ///< by plane, then leaf, then host
    std::vector<Part> parts;
    std::vector<std::string> group_names;  ///< the map's groups
    /// Cables between two groups on one plane, as far as the map knows (Dragonfly+: the fewest
    /// a group has to another; pods: their core cables over the other pods; either over the
    /// planes when each rail has leaves of its own); 1 at least.
    std::vector<std::uint32_t> group_cables;
    /// Spines parts: per group, or per group and plane when every leaf serves one plane
    /// (rails on leaves of their own, each rail under its own spines): (group << 32 | plane or
    /// kNone, part), sorted.
    std::vector<std::pair<std::uint64_t, std::uint32_t>> group_spines;
    /// Every leaf serves one plane: each rail has its own spines and global cables.
    bool rail_leaves = false;
    /// Globals parts between two groups (on one plane when rail_leaves), by a key of the two
    /// groups and the plane (path_of finds them), sorted.
    std::vector<std::pair<std::uint64_t, std::uint32_t>> group_globals;
    std::vector<std::string> notes;  ///< hosts left out, planes not measured, and why
    /// Exact paths, when the caller knows the cabling and the routing: the parts a probe
    /// crosses, the two ports and leaves included. Unset: the map's sets (path_of).
    std::function<void(const Model&, const Probe&, std::vector<std::uint32_t>&)> exact_path;

    [[nodiscard]] std::uint32_t add_part(PartKind kind,
                                         std::string name,
                                         std::uint32_t host = kNone);
};

struct ModelOptions {
    /// Measure the rails whose HCA names match (empty: every rail of the map).
    std::vector<std::string> rails;
    /// Pair the hosts of each NVLink domain over NVLink too.
    bool nvlink = true;
};

/// The job's hosts on the map. Hosts the map does not know are left out with a note (they
/// cannot be placed); fewer than two known hosts is not an error: the model has no pairs.
[[nodiscard]] Result<Model> build_model(const fabric::FabricMap& map,
                                        std::span<const std::string> hosts,
                                        const ModelOptions& options = {});

/// The parts probe `p` crosses, each once: exact_path when set, else the map's view (ports, leaves,
/// and for a pair across leaves the uplink and spine sets, across groups the global set; the rail).
void path_of(const Model& m, const Probe& p, std::vector<std::uint32_t>& out);

}  // namespace switchyard::preflight
