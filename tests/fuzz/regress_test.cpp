// SPDX-License-Identifier: Apache-2.0
// Replays every input in tests/fuzz/regress/ (crashers found by the fuzzers, kept after the fix)
// through the same pipeline as the fuzz harnesses, in the normal and sanitizer builds.
#include <filesystem>

#include "catch.hpp"
#include "paths.hpp"
#include "switchyard/topology/classify.hpp"
#include "switchyard/topology/slurm_writers.hpp"

namespace topo = switchyard::topology;

TEST_CASE("fuzz-regress: every kept fuzz input parses, classifies and round-trips", "[fuzz]") {
    const auto dir = std::filesystem::path(SWITCHYARD_SOURCE_DIR) / "tests" / "fuzz" / "regress";
    std::size_t replayed = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (!entry.is_regular_file() || entry.path().filename() == "README.md") {
            continue;
        }
        INFO(entry.path().string());
        const auto text = switchyard::test::slurp(entry.path());
        ++replayed;
        if (auto map = topo::read_fabric_map(text, "regress")) {
            const auto once = topo::write_fabric_map(*map, "");
            auto again = topo::read_fabric_map(once, "rt");
            REQUIRE(again);
            CHECK(topo::write_fabric_map(*again, "") == once);
        }
        auto graph = topo::parse_ibnetdiscover(text, "regress");
        if (!graph) {
            continue;
        }
        const auto c = topo::classify(*graph, {});
        const auto written = topo::write_fabric_map(c.map, "");
        auto back = topo::read_fabric_map(written, "rt");
        REQUIRE(back);
        CHECK(topo::write_fabric_map(*back, "") == written);
        CHECK_NOTHROW(topo::write_topology_conf(c.map, ""));
    }
    CHECK(replayed > 0);
}
