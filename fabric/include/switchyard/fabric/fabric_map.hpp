// SPDX-License-Identifier: Apache-2.0
// FabricMap: the classified fabric (groups → scalable units → leaves → hosts and their rails),
// and its versioned text file, which the plugin reads at every step launch.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/result.hpp"

namespace switchyard::fabric {

/// What the cabling says the fabric is.
enum class FabricKind {
    Empty,          ///< no compute host is attached to a switch
    FatTree,        ///< one group: leaves (or rail leaf groups) under a common spine layer
    FatTree3,       ///< pods of leaves + aggregation switches under a core layer
    DragonflyPlus,  ///< groups (leaf–spine Clos) joined by spine-to-spine global links
    Islands,        ///< several groups with no path between them
};

[[nodiscard]] std::string_view to_string(FabricKind k);
[[nodiscard]] std::optional<FabricKind> fabric_kind_from_string(std::string_view s);

struct MapSwitch {
    std::string name;  ///< switch name from its description, else "sw-<guid hex>"
    std::uint64_t guid = 0;
    std::uint32_t tier = 0;     ///< 1 = leaf (serves hosts), 2 = above leaves, ...; 0 = unreachable
    std::uint32_t uplinks = 0;  ///< cables to switches of a higher tier (a leaf's uplinks)
};

/// One HCA of a host: its rail (device name) and the leaf its cable reaches.
struct MapRail {
    std::uint32_t hca = 0;     ///< index into FabricMap::hcas
    std::uint32_t leaf = 0;    ///< index into FabricMap::switches
    std::uint32_t cables = 1;  ///< parallel cables between this HCA and the leaf
};

/// MapHost::domain of a host in no NVLink domain.
inline constexpr std::uint32_t kNoDomain = UINT32_MAX;

struct MapHost {
    std::string name;
    std::uint32_t su = 0;          ///< index into FabricMap::sus
    std::uint32_t rail_begin = 0;  ///< first rail in FabricMap::rails
    std::uint32_t rail_count = 0;
    std::uint32_t domain = kNoDomain;  ///< index into FabricMap::domains
};

/// A scalable unit: the leaves that serve the same hosts (one leaf in a plain fat tree).
struct MapSu {
    std::string name;
    std::uint32_t group = 0;            ///< index into FabricMap::groups
    std::vector<std::uint32_t> leaves;  ///< switch indices
    std::vector<std::uint32_t> hosts;   ///< host indices (derived; not stored in the file)
    /// Hosts of the SU in the whole fabric when the map holds only some of them (read for a
    /// step's hosts); 0 when `hosts` is all of them. Use fabric_hosts().
    std::uint32_t host_total = 0;

    [[nodiscard]] std::size_t fabric_hosts() const {
        return host_total != 0 ? host_total : hosts.size();
    }
};

/// A Dragonfly+ group or fat-tree pod (the whole fabric for a 2-level fat tree).
struct MapGroup {
    std::string name;
    std::vector<std::uint32_t> sus;  ///< derived; not stored in the file
    std::uint32_t global = 0;        ///< Dragonfly+: the fewest cables it has to any other group
    std::uint32_t uplinks = 0;       ///< 3-level fat tree: cables from the pod to the core
};

/// How a multi-node NVLink domain stands.
enum class DomainState {
    Ok,        ///< every host's GPUs completed their fabric registration, health masks clean
    Degraded,  ///< some host is not (still registering, degraded bandwidth, ...)
    Missing,   ///< no host of it reported this time: kept from the previous map as a placeholder
};
[[nodiscard]] std::string_view to_string(DomainState s);

/// A multi-node NVLink domain (an NVL72 rack's 18 compute trays): the level below the SU.
struct MapDomain {
    std::string name;      ///< short and stable: "nvl_<8 hex digits of the cluster UUID>_<clique>"
    std::string key;       ///< "<clusterUuid>.<cliqueId>", as NVML gives it
    std::uint32_t su = 0;  ///< index into FabricMap::sus: the SU most of its hosts are in
    DomainState state = DomainState::Ok;
    /// Its hosts' names, sorted (a missing domain's are the previous map's: they may not be
    /// hosts of this map).
    std::vector<std::string> members;
};

struct Anomaly {
    std::string kind;    ///< stable word, e.g. unnamed-hca, sharp-node, missing-rail
    std::string detail;  ///< names hosts, GUIDs, switches
};

struct FabricMap {
    FabricKind kind = FabricKind::Empty;
    std::uint32_t tiers = 0;
    std::vector<std::string> hcas;  ///< rail device names, sorted
    std::vector<MapSwitch> switches;
    std::vector<MapGroup> groups;
    std::vector<MapSu> sus;
    std::vector<MapHost> hosts;  ///< sorted by name
    std::vector<MapRail> rails;
    /// NVLink domains, SU by SU in block order (each SU's in the order their blocks keep).
    std::vector<MapDomain> domains;
    std::vector<Anomaly> anomalies;
    /// Switch uplinks and group global cable counts are known (version 4 maps and their index);
    /// older maps leave them 0 and the cost model falls back to the policy's taper.
    bool link_counts = false;

    /// The host called `name`, or nullptr (binary search).
    [[nodiscard]] const MapHost* find_host(std::string_view name) const;
    [[nodiscard]] std::span<const MapRail> rails_of(const MapHost& h) const {
        return {rails.data() + h.rail_begin, h.rail_count};
    }
    /// Cables per rail from SU `su`'s leaves to the tier above: their uplink counts over the
    /// most rails one of its hosts has (0 for maps without counts, and for hosts cabled into a
    /// spine, which have no uplink of their own).
    [[nodiscard]] double su_uplinks_per_rail(std::uint32_t su) const;
    /// Whether SU `su` is compute hosts cabled straight into a spine (its "leaves" are above
    /// tier 1), not hosts under leaves.
    [[nodiscard]] bool su_on_spine(std::uint32_t su) const;
};

/// The first word of a map file.
inline constexpr std::string_view kFabricMapMagic = "switchyard-fabric-map";

/// Current version of the map file format. 2 added the closing `end` line; 3 the digest on the
/// first line; 4 each switch's uplink count and each group's global and core cable counts; 5
/// the NVLink domains (`nvl` lines). A map without NVLink domains is still written as version 4,
/// so fabrics without them keep their files byte for byte. Versions 2 (without a digest to
/// check or an index to use), 3 (without cable counts) and 4 are still read.
inline constexpr int kFabricMapVersion = 5;

/// The digest a version-3, -4 or -5 map names on its first line ("switchyard-fabric-map 4 <16 hex
/// digits>"): content_digest() of every byte after that line. nullopt for any other line.
[[nodiscard]] std::optional<std::uint64_t> fabric_map_digest(std::string_view first_line);

/// Writes the map file: "switchyard-fabric-map 4 <digest>", then kind, tiers, hcas, switch
/// ("switch <name> <guid> <tier> <uplinks>"), group ("group <name> <fewest global cables to another
/// group> <cables to the core>"), su, host and anomaly lines, one object per line, sorted, so two
/// maps diff meaningfully, and last "end <n> switches <n> sus <n> hosts", so a map cut short (a
/// full disk, a copy interrupted at a line boundary) is refused instead of loading fewer hosts. An
/// SU line carries its hosts' usual rails ("<hca>:<leaf>[*cables],..."); a host line lists rails
/// only when they differ from its SU's (a missing rail, say), which keeps the file small and fast
/// to load. NVLink domains follow the hosts, one line each in block order: "nvl <name> <su>
/// <ok|degraded|missing> <key> <hosts as a hostlist>".
[[nodiscard]] std::string write_fabric_map(const FabricMap& map, std::string_view comment);

/// Reads a map file. Validates everything: the version line and digest, line shapes, references to
/// switches/SUs/groups defined earlier, duplicate names, hosts in sorted order, HCA names, and
/// the `end` line: present, last, and counting the switch, SU and host lines above it.
/// \return the map, or Error::parse naming source:line and the expected form.
[[nodiscard]] Result<FabricMap> read_fabric_map(std::string_view text, std::string_view source);

/// The same, keeping only the host lines of `hosts` (a step's nodes): what the plugin needs at
/// step launch, without building 100k host records. Skipped host lines are not validated.
[[nodiscard]] Result<FabricMap> read_fabric_map_for(std::string_view text,
                                                    std::string_view source,
                                                    const std::vector<std::string>& hosts);

/// The fabric map in file `path`, read within its bound (512 MiB) and checked.
/// \return the map, or the error naming the file (and line).
[[nodiscard]] Result<FabricMap> read_fabric_map_file(const std::string& path);

/// The uplinks each leaf lacks against the best-cabled leaf of its group, summed: the cables
/// to look for (0 when the map has no cable counts).
[[nodiscard]] std::uint64_t missing_uplink_cables(const FabricMap& m);

}  // namespace switchyard::fabric
