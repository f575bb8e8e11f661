// SPDX-License-Identifier: Apache-2.0
// Tests of the fabric index: the step's view equals the map's, a stale or damaged index is
// refused by name, and a lookup reads a few blocks whatever the fabric's size.
#include "switchyard/fabric/fabric_index.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "catch.hpp"

using namespace switchyard;
using namespace switchyard::fabric;

namespace {

/// A Dragonfly+ map of `groups` groups × `sus` SUs × `per_su` hosts, `rails` rails (one leaf
/// per rail in each SU); every 97th host lacks its last rail, every 89th has two cables.
FabricMap synthetic(std::uint32_t groups,
                    std::uint32_t sus,
                    std::uint32_t per_su,
                    std::uint32_t rails) {
    FabricMap m;
    m.kind = FabricKind::DragonflyPlus;
    m.tiers = 2;
    m.link_counts = true;
    for (std::uint32_t r = 0; r < rails; ++r) {
        m.hcas.push_back("mlx5_" + std::to_string(r));
    }
    std::uint32_t n = 0;
    for (std::uint32_t g = 0; g < groups; ++g) {
        m.groups.push_back({"g" + std::to_string(g), {}, 2 + g, 3 * g});
        for (std::uint32_t s = 0; s < sus; ++s) {
            MapSu su;
            su.name = "g" + std::to_string(g) + "-su" + std::to_string(s);
            su.group = g;
            const auto first_leaf = static_cast<std::uint32_t>(m.switches.size());
            for (std::uint32_t r = 0; r < rails; ++r) {
                su.leaves.push_back(static_cast<std::uint32_t>(m.switches.size()));
                m.switches.push_back({su.name + "-leaf" + std::to_string(r),
                                      0x1000 + m.switches.size(), 1, per_su / 2 + r});
            }
            const auto su_index = static_cast<std::uint32_t>(m.sus.size());
            for (std::uint32_t h = 0; h < per_su; ++h, ++n) {
                char name[16];
                std::snprintf(name, sizeof name, "h%06u", n);
                MapHost host{name, su_index, static_cast<std::uint32_t>(m.rails.size()), 0};
                const auto count = n % 97 == 5 ? rails - 1 : rails;
                for (std::uint32_t r = 0; r < count; ++r) {
                    m.rails.push_back({r, first_leaf + r, n % 89 == 3 && r == 0 ? 2U : 1U});
                }
                host.rail_count = count;
                su.hosts.push_back(static_cast<std::uint32_t>(m.hosts.size()));
                m.hosts.push_back(host);
            }
            m.groups[g].sus.push_back(su_index);
            m.sus.push_back(std::move(su));
        }
    }
    return m;
}

/// What a step sees of a map, with every index turned into a name.
std::string describe(const FabricMap& m) {
    std::ostringstream out;
    out << to_string(m.kind) << " tiers " << m.tiers << " cable counts " << m.link_counts
        << " hcas";
    for (const auto& h : m.hcas) {
        out << ' ' << h;
    }
    out << '\n';
    for (const auto& h : m.hosts) {
        const auto& su = m.sus[h.su];
        out << h.name << " su " << su.name << " group " << m.groups[su.group].name << " ("
            << m.groups[su.group].global << " global, " << m.groups[su.group].uplinks
            << " to the core) of " << su.fabric_hosts() << " leaves";
        for (const auto l : su.leaves) {
            out << ' ' << m.switches[l].name << '/' << m.switches[l].guid << '/'
                << m.switches[l].tier << '^' << m.switches[l].uplinks;
        }
        out << " rails";
        for (const auto& r : m.rails_of(h)) {
            out << ' ' << m.hcas[r.hca] << ':' << m.switches[r.leaf].name << '*' << r.cables;
        }
        if (h.domain != kNoDomain) {
            const auto& d = m.domains[h.domain];
            out << " nvl " << d.name << '/' << to_string(d.state) << '/' << d.key << " under "
                << m.sus[d.su].name;
        }
        out << '\n';
    }
    // The order of SUs and groups matters to the planner: it must be the map's.
    for (const auto& su : m.sus) {
        if (!su.hosts.empty()) {
            out << "su " << su.name << '\n';
        }
    }
    return out.str();
}

/// A ByteSource that counts its reads.
class Counting final : public ByteSource {
public:
    explicit Counting(std::string bytes) : bytes_(std::move(bytes)) {}
    [[nodiscard]] const std::string& name() const override { return name_; }
    [[nodiscard]] std::uint64_t size() const override { return bytes_.size(); }
    [[nodiscard]] Result<std::string> read_at(std::uint64_t offset,
                                              std::size_t length) const override {
        ++reads;
        bytes_read += length;
        return offset >= bytes_.size() ? std::string() : bytes_.substr(offset, length);
    }
    mutable std::size_t reads = 0;
    mutable std::size_t bytes_read = 0;

private:
    std::string name_ = "fabric.map.index";
    std::string bytes_;
};

struct Built {
    std::string map_text;
    std::string index;
    MapStamp stamp;
};

Built build(const FabricMap& m) {
    Built b;
    b.map_text = write_fabric_map(m, "test");
    auto idx = write_fabric_index(m, b.map_text);
    REQUIRE(idx);
    b.index = *idx;
    b.stamp = {*fabric_map_digest(b.map_text.substr(0, b.map_text.find('\n'))), b.map_text.size()};
    return b;
}

std::string index_error(const std::string& index, const MapStamp& stamp) {
    auto r = read_fabric_index_for(StringSource("fabric.map.index", index), stamp, {"h000001"});
    REQUIRE_FALSE(r);
    return r.error().to_string();
}

}  // namespace

TEST_CASE("fabric_index: a step's hosts read from the index equal those read from the map",
          "[fabric_index]") {
    const auto m = synthetic(3, 4, 20, 4);
    const auto b = build(m);
    const std::vector<std::vector<std::string>> steps = {
        {"h000001"},
        {"h000005", "h000003", "h000092", "h000239", "nothere"},  // unsorted, a missing rail
        {"h000000", "h000079", "h000080", "h000160", "h000161", "h000001"},
        {},
        {"zzz", "a"},
    };
    for (const auto& hosts : steps) {
        auto from_map = read_fabric_map_for(b.map_text, "fabric.map", hosts);
        auto from_index =
            read_fabric_index_for(StringSource("fabric.map.index", b.index), b.stamp, hosts);
        REQUIRE(from_map);
        REQUIRE(from_index);
        CHECK(describe(*from_index) == describe(*from_map));
    }
    std::vector<std::string> all;
    for (const auto& h : m.hosts) {
        all.push_back(h.name);
    }
    auto whole = read_fabric_index_for(StringSource("i", b.index), b.stamp, all);
    REQUIRE(whole);
    CHECK(describe(*whole) == describe(m));
}

TEST_CASE("fabric_index: every golden map gives the same step view", "[fabric_index]") {
    const auto dir = std::filesystem::path(SWITCHYARD_SOURCE_DIR) / "tests/golden";
    int maps = 0;
    int nvl_maps = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        const auto path = e.path();
        if (path.filename() != "fabric.map" && path.filename() != "fabric.map.expected") {
            continue;
        }
        std::ifstream in(path);
        const std::string text((std::istreambuf_iterator<char>(in)), {});
        if (text.empty()) {
            continue;  // the empty map a refusal case gives install (cli/install-empty-map)
        }
        auto full = read_fabric_map(text, path.string());
        REQUIRE(full);
        full->link_counts = true;  // a version 3 input map: its counts are written as 0
        const auto b = build(*full);
        std::vector<std::string> some;
        for (std::size_t i = 0; i < full->hosts.size(); i += 3) {
            some.push_back(full->hosts[i].name);
        }
        auto from_map = read_fabric_map_for(b.map_text, "m", some);
        auto from_index = read_fabric_index_for(StringSource("i", b.index), b.stamp, some);
        REQUIRE(from_map);
        REQUIRE(from_index);
        CHECK(describe(*from_index) == describe(*from_map));
        ++maps;
        nvl_maps += full->domains.empty() ? 0 : 1;
    }
    CHECK(maps >= 5);
    CHECK(nvl_maps >= 2);  // discover/nvl-dfp16 and its dirty twin: a version 3 index
}

TEST_CASE("fabric_index: a lookup reads a few blocks, not the fabric", "[fabric_index]") {
    const auto b = build(synthetic(8, 50, 250, 8));  // 100,000 hosts × 8 rails
    Counting src(b.index);
    std::vector<std::string> job;
    for (int i = 0; i < 64; ++i) {
        char name[16];
        std::snprintf(name, sizeof name, "h%06d", 40000 + i * 13);
        job.emplace_back(name);
    }
    auto m = read_fabric_index_for(src, b.stamp, job);
    REQUIRE(m);
    CHECK(m->hosts.size() == 64);
    INFO("index " << b.index.size() << " bytes, " << src.reads << " reads, " << src.bytes_read
                  << " bytes read");
    CHECK(b.index.size() > 1'500'000);
    CHECK(src.reads <= 40);
    CHECK(src.bytes_read <= 40 * 16384);
}

TEST_CASE("fabric_index: a stale, cut or damaged index is refused by name", "[fabric_index]") {
    const auto b = build(synthetic(1, 2, 4, 2));
    // Another map (one byte longer, another digest): stale.
    CHECK_THAT(index_error(b.index, {b.stamp.digest, b.stamp.bytes + 1}),
               Catch::StartsWith("fabric.map.index is stale: it was made from the map with "
                                 "digest"));
    CHECK_THAT(index_error(b.index, {b.stamp.digest ^ 1, b.stamp.bytes}),
               Catch::Contains("copy both files together, or re-run 'switchyard discover'"));
    CHECK_THAT(index_error(b.index.substr(0, b.index.size() - 1), b.stamp),
               Catch::Contains("it was cut short or added to"));
    CHECK_THAT(index_error(b.index + "x", b.stamp),
               Catch::Contains("it was cut short or added to"));
    CHECK_THAT(index_error("switchyard-fabric-index 9\n", b.stamp),
               Catch::StartsWith("fabric.map.index:2: the header ends early"));
    std::string wrong_version = b.index;
    wrong_version.replace(0, 25, "switchyard-fabric-index 1");  // before cable counts
    CHECK_THAT(index_error(wrong_version, b.stamp),
               Catch::StartsWith("fabric.map.index:1: expected 'switchyard-fabric-index 2'"));
    // A table too large is refused before anything is read from it.
    std::string huge = b.index;
    const auto t = huge.find("table hosts 8 ");
    REQUIRE(t != std::string::npos);
    huge.replace(t, 14, "table hosts 99999999999 ");
    CHECK_THAT(index_error(huge, b.stamp), Catch::StartsWith("fabric.map.index:6: expected "
                                                             "'table hosts <count ≤ 16777216>"));
    // A host record pointing past the SU table.
    std::string bad_ref = b.index;
    const auto rec = bad_ref.find("h000001 0 ");
    REQUIRE(rec != std::string::npos);
    bad_ref.replace(rec, 10, "h000001 7 ");
    CHECK_THAT(index_error(bad_ref, b.stamp),
               Catch::StartsWith("fabric.map.index:12: hosts record 1: expected '<name> <su "
                                 "record> <railset record>'"));
}

TEST_CASE("fabric_index: a version 2 map has no digest to make an index from", "[fabric_index]") {
    const auto m = synthetic(1, 1, 2, 1);
    auto text = write_fabric_map(m, "");
    text.replace(0, text.find('\n'), "switchyard-fabric-map 2");
    CHECK_FALSE(write_fabric_index(m, text));
}

TEST_CASE("fabric_index: a map without cable counts (version 3) makes no index", "[fabric_index]") {
    auto m = synthetic(1, 1, 2, 1);
    m.link_counts = false;
    const auto text = write_fabric_map(m, "");
    const auto r = write_fabric_index(m, text);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message(), Catch::Contains("version 3 map"));
}
