// SPDX-License-Identifier: Apache-2.0
// Tests of the first ibnetdiscover pass on hand-made text and on a real SuperPOD capture.
#include "switchyard/topology/ibnet_scan.hpp"

#include "catch.hpp"
#include "paths.hpp"

using switchyard::topology::scan_ibnetdiscover;

namespace {
// Two switches joined by two parallel cables, one CA on switch A; every link on both ends.
constexpr const char* kSmall = R"(# Topology file: generated on Mon Nov 30 2026
vendid=0x2c9
switchguid=0x100(100)
Switch	8 "S-0000000000000100"		# "MF0;leaf01:MQM8700/U1" enhanced port 0 lid 1 lmc 0
[1]	"H-0000000000000200"[1](200) 		# "gpu01 mlx5_0" lid 3 4xHDR
[5]	"S-0000000000000101"[5]		# "MF0;spine01:MQM8700/U1" lid 2 4xHDR
[6]	"S-0000000000000101"[6]		# "MF0;spine01:MQM8700/U1" lid 2 4xHDR

vendid=0x2c9
switchguid=0x101(101)
Switch	8 "S-0000000000000101"		# "MF0;spine01:MQM8700/U1" enhanced port 0 lid 2 lmc 0
[5]	"S-0000000000000100"[5]		# "MF0;leaf01:MQM8700/U1" lid 1 4xHDR
[6]	"S-0000000000000100"[6]		# "MF0;leaf01:MQM8700/U1" lid 1 4xHDR

vendid=0x2c9
caguid=0x200
Ca	1 "H-0000000000000200"		# "gpu01 mlx5_0"
[1](200) 	"S-0000000000000100"[1]		# lid 3 lmc 0 "MF0;leaf01:MQM8700/U1" lid 1 4xHDR
)";
}  // namespace

TEST_CASE("ibnet_scan: counts records and parallel links once per cable", "[ibnet_scan]") {
    auto r = scan_ibnetdiscover(kSmall, "small.txt");
    REQUIRE(r);
    CHECK(r->switches == 2);
    CHECK(r->cas == 1);
    CHECK(r->routers == 0);
    CHECK(r->port_lines == 6);
    CHECK(r->links == 3);
    CHECK(r->one_sided == 0);
}

TEST_CASE("ibnet_scan: malformed lines name file and line", "[ibnet_scan]") {
    auto no_count = scan_ibnetdiscover("\nSwitch \"S-1\"\n", "bad.txt");
    REQUIRE_FALSE(no_count);
    CHECK_THAT(no_count.error().to_string(),
               Catch::StartsWith("bad.txt:2: expected 'Switch <number"));
    auto orphan = scan_ibnetdiscover("[1]\t\"S-1\"[2]\n", "orphan.txt");
    REQUIRE_FALSE(orphan);
    CHECK(orphan.error().to_string() == "orphan.txt:1: port line before any Switch/Ca/Rt record");
    auto no_remote_port = scan_ibnetdiscover("Ca\t1 \"H-1\"\n[1](1) \"S-2\"\n", "ca.txt");
    REQUIRE_FALSE(no_remote_port);
    CHECK_THAT(no_remote_port.error().to_string(), Catch::StartsWith("ca.txt:2: expected '[port]"));
}

TEST_CASE("ibnet_scan: empty input is an empty fabric", "[ibnet_scan]") {
    auto r = scan_ibnetdiscover("", "empty.txt");
    REQUIRE(r);
    CHECK(r->switches == 0);
    CHECK(r->links == 0);
}

TEST_CASE("ibnet_scan: real DGX H100 SuperPOD capture", "[ibnet_scan][real]") {
    const auto path = switchyard::test::real_fixtures() / "ibnetdiscover" /
                      "topograph-dgxh100-superpod-example.out";
    // Tests tagged [real] are registered only when ../shared/fixtures/real exists (CMake).
    REQUIRE(std::filesystem::exists(path));
    auto r = scan_ibnetdiscover(switchyard::test::slurp(path), path.string());
    REQUIRE(r);
    // SOURCES.md: 40 switches (31 leaves, 9 spines) and 582 CAs.
    CHECK(r->switches == 40);
    CHECK(r->cas == 582);
    // Every cable between two nodes of the dump is seen from both ends.
    CHECK(r->one_sided == 0);
    CHECK(r->port_lines == 2 * r->links);
}
