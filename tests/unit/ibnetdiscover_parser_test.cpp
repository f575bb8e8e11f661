// SPDX-License-Identifier: Apache-2.0
// Tests of the ibnetdiscover parser: both formats, bad input with line numbers, real captures.
#include <algorithm>
#include <string>

#include "../../bench/synthetic_fabric.hpp"
#include "catch.hpp"
#include "paths.hpp"
#include "switchyard/discover/graph/fabric_graph.hpp"
#include "switchyard/discover/ib/ibnetdiscover.hpp"
#include "switchyard/fabric/guid.hpp"

using namespace switchyard::discover;
using namespace switchyard::fabric;

namespace {
// Two switches joined by two parallel cables, one CA on switch A; every link on both ends.
constexpr const char* kSmall = R"(# Topology file: generated on Mon Nov 30 2026
vendid=0x2c9
devid=0xd2f0
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
devid=0x101b
caguid=0x200
Ca	1 "H-0000000000000200"		# "gpu01 mlx5_0"
[1](201) 	"S-0000000000000100"[1]		# lid 3 lmc 0 "MF0;leaf01:MQM8700/U1" lid 1 4xHDR
)";

constexpr const char* kPortList =
    "CA     3  1 0x0000000000000201 4x HDR - SW     1  1 0x0000000000000100 ( 'gpu01 mlx5_0' - "
    "'MF0;leaf01:MQM8700/U1' )\n"
    "SW     1  1 0x0000000000000100 4x HDR - CA     3  1 0x0000000000000201 ( "
    "'MF0;leaf01:MQM8700/U1' - 'gpu01 mlx5_0' )\n"
    "SW     1  5 0x0000000000000100 4x HDR - SW     2  5 0x0000000000000101 ( "
    "'MF0;leaf01:MQM8700/U1' - 'MF0;spine01:MQM8700/U1' )\n"
    "SW     2  5 0x0000000000000101 4x HDR - SW     1  5 0x0000000000000100 ( "
    "'MF0;spine01:MQM8700/U1' - 'MF0;leaf01:MQM8700/U1' )\n"
    "SW     1  7 0x0000000000000100 4x SDR                                    "
    "'MF0;leaf01:MQM8700/U1'\n";

std::string error_of(std::string_view text) {
    auto r = parse_ibnetdiscover(text, "t.txt");
    REQUIRE_FALSE(r);
    return r.error().to_string();
}
}  // namespace

TEST_CASE("ibnetdiscover_parser: records, GUIDs, descriptions, parallel cables", "[parser]") {
    auto r = parse_ibnetdiscover(kSmall, "small.txt");
    REQUIRE(r);
    REQUIRE(r->nodes.size() == 3);
    const auto& leaf = r->nodes[0];
    CHECK(leaf.kind == NodeKind::Switch);
    CHECK(leaf.guid == 0x100);
    CHECK(leaf.nports == 8);
    CHECK(leaf.devid == 0xd2f0);
    CHECK(leaf.desc == "MF0;leaf01:MQM8700/U1");
    REQUIRE(leaf.ports.size() == 3);
    CHECK(leaf.ports[0].remote == 2);
    CHECK(leaf.ports[1].remote == 1);
    CHECK(leaf.ports[2].remote == 1);  // the parallel cable is kept
    const auto& ca = r->nodes[2];
    CHECK(ca.kind == NodeKind::Ca);
    CHECK(ca.desc == "gpu01 mlx5_0");
    CHECK(ca.devid == 0x101b);
    CHECK(ca.ports[0].port_guid == 0x201);
    CHECK(r->warnings.empty());
}

TEST_CASE("ibnetdiscover_parser: -p port lists give the same cables", "[parser]") {
    auto r = parse_ibnetdiscover(kPortList, "p.txt");
    REQUIRE(r);
    REQUIRE(r->nodes.size() == 3);
    CHECK(r->nodes[0].kind == NodeKind::Ca);
    CHECK(r->nodes[0].guid == 0x201);  // a CA is known by its port GUID in -p output
    CHECK(r->nodes[0].desc == "gpu01 mlx5_0");
    CHECK(r->nodes[1].desc == "MF0;leaf01:MQM8700/U1");
    CHECK(r->nodes[1].ports.size() == 2);  // port 7 is unconnected
    CHECK(r->warnings.empty());
}

TEST_CASE("ibnetdiscover_parser: GUID formats", "[parser]") {
    CHECK(parse_guid("0x2c5eab0300b87b40") == 0x2c5eab0300b87b40ULL);
    CHECK(parse_guid("2c5eab0300b87b40") == 0x2c5eab0300b87b40ULL);
    CHECK(parse_guid("b8ce:f603:00aa:0000") == 0xb8cef60300aa0000ULL);
    CHECK_FALSE(parse_guid("0x"));
    CHECK_FALSE(parse_guid("0x12345678901234567"));
    CHECK_FALSE(parse_guid("xyz"));
    CHECK(format_guid(0x100) == "0x0000000000000100");
}

TEST_CASE("ibnetdiscover_parser: bad input names the line", "[parser]") {
    CHECK(error_of("") == "t.txt: no Switch or Ca record found; is this ibnetdiscover output?");
    CHECK(error_of("# only a comment\n") ==
          "t.txt:1: no Switch or Ca record found; is this ibnetdiscover output?");
    CHECK_THAT(error_of("Switch \"S-1\"\n"),
               Catch::StartsWith("t.txt:1: expected 'Switch <number"));
    CHECK(error_of("[1]\t\"S-1\"[2]\n") ==
          "t.txt:1: port line outside a Switch/Ca/Rt record: '[1]\t\"S-1\"[2]'");
    CHECK_THAT(error_of("Ca\t1 \"H-1\"\n[1](1) \"S-2\"\n"),
               Catch::StartsWith("t.txt:2: expected '[port] \"<remote id>\"[remote port]'"));
    CHECK_THAT(error_of("Switch\t2 \"S-1\"\n[3]\t\"S-2\"[1]\n"),
               Catch::Contains("t.txt:2: port 3 of 'S-1' is beyond its 2 ports"));
    CHECK_THAT(error_of("Switch\t4 \"S-1\"\n[1]\t\"S-2\"[1]\n[1]\t\"S-3\"[1]\n"),
               Catch::Contains("t.txt:3: port 1 of 'S-1' already listed on line 2"));
    CHECK_THAT(error_of("Switch\t4 \"S-1\"\nhello world\n"),
               Catch::StartsWith("t.txt:2: unrecognised line 'hello world'"));
    CHECK_THAT(
        error_of("Switch\t4 \"S-1\"\n\nSwitch\t4 \"S-01\"\n"),
        Catch::Contains(
            "t.txt:3: GUID 0x0000000000000001 of 'S-01' was already used by 'S-1' on line 1"));
    CHECK_THAT(error_of("Switch\t4 \"leafA\"\n"), Catch::Contains("no GUID for 'leafA'"));
    CHECK_THAT(error_of("switchguid=0xzz\nSwitch\t4 \"S-1\"\n"),
               Catch::StartsWith("t.txt:1: bad GUID"));
    CHECK_THAT(error_of("CA 1 1 0x1 4x HDR - SW 2\n"),
               Catch::StartsWith("t.txt:1: expected '- <CA|SW|RT>"));
}

TEST_CASE("ibnetdiscover_parser: lines a real capture mixes in are skipped with one warning",
          "[parser]") {
    // `ibnetdiscover > f 2>&1`, and the chassis headers of `ibnetdiscover -s` / older releases.
    const std::string text =
        "ibwarn: [12345] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,3)\n"
        "src/query_smp.c:228; umad (DR path slid 0; dlid 0; 0,1,3) Attr 0x11:0 : Connection "
        "timed out\n"
        "Chassis 1 (guid 0x0002c90000000001)\n"
        "Switch\t2 \"S-1\"\t# \"leaf\" base port 0 lid 1 lmc 0\n"
        "[1]\t\"H-2\"[1]\t\t# \"node01 mlx5_0\" lid 2 4xHDR\n"
        "\n"
        "Non-Chassis Nodes\n"
        "Ca\t1 \"H-2\"\t\t# \"node01 mlx5_0\"\n"
        "[1](2)\t\"S-1\"[1]\t\t# lid 2 lmc 0 \"leaf\" lid 1 4xHDR\n";
    auto g = parse_ibnetdiscover(text, "mixed.txt");
    REQUIRE(g);
    CHECK(g->nodes.size() == 2);
    REQUIRE(g->warnings.size() == 1);
    CHECK(g->warnings[0].kind == "foreign-lines");
    CHECK(g->warnings[0].where.line == 1);
    CHECK_THAT(g->warnings[0].message,
               Catch::StartsWith("4 lines that are not ibnetdiscover records were skipped"));
    // The same in a port list, before its first record.
    auto p = parse_ibnetdiscover(
        "ibwarn: [1] something\nCA 2 1 0x2 4x HDR - SW 1 1 0x1 ( 'node01 mlx5_0' - 'leaf' )\n"
        "SW 1 1 0x1 4x HDR - CA 2 1 0x2 ( 'leaf' - 'node01 mlx5_0' )\n",
        "p.txt");
    REQUIRE(p);
    CHECK(p->nodes.size() == 2);
    REQUIRE(p->warnings.size() == 1);
    CHECK(p->warnings[0].kind == "foreign-lines");
    // Only lines that could be no record are foreign: a description that says "umad" is data.
    auto named = parse_ibnetdiscover(
        "Switch\t2 \"S-1\"\t# \"leaf umad\" base port 0 lid 1 lmc 0\n"
        "[1]\t\"H-2\"[1]\t\t# \"node01 umad0\" lid 2 4xHDR\n\n"
        "Ca\t1 \"H-2\"\t\t# \"node01 umad0\"\n"
        "[1](2)\t\"S-1\"[1]\t\t# lid 2 lmc 0 \"leaf umad\" lid 1 4xHDR\n",
        "umad.txt");
    REQUIRE(named);
    CHECK(named->nodes.size() == 2);
    CHECK(named->warnings.empty());
    // Truly corrupt input is still refused, and its line shows no raw byte.
    CHECK(error_of("Switch\t2 \"S-1\"\n\x7f\x45LF\x02\x01\x01\n") ==
          "t.txt:2: unrecognised line '\\x7fELF\\x02\\x01\\x01'; expected a Switch/Ca/Rt header, a "
          "[port] line or key=value");
}

TEST_CASE("ibnetdiscover_parser: dangling, asymmetric and truncated input warn", "[parser]") {
    auto r = parse_ibnetdiscover(
        "Switch\t4 \"S-1\"\n[1]\t\"S-9\"[1]\n[2]\t\"S-2\"[1]\n\nSwitch\t4 \"S-2\"\n[1]\t\"S-1\"[3]",
        "w.txt");
    REQUIRE(r);
    REQUIRE(r->warnings.size() == 4);
    CHECK(r->warnings[0].kind == "truncated");
    CHECK(r->warnings[0].where.line == 6);
    CHECK(r->warnings[1].kind == "dangling-link");
    CHECK(r->warnings[1].where.to_string() == "w.txt:2");
    CHECK(r->warnings[1].message ==
          "port 1 of 'S-1' leads to 'S-9', which has no record in the dump");
    CHECK(r->warnings[2].kind == "asymmetric-link");
    CHECK(r->warnings[3].kind == "asymmetric-link");
}

TEST_CASE("ibnetdiscover_parser: real DGX H100 SuperPOD capture", "[parser][real]") {
    const auto path = switchyard::test::real_fixtures() / "ibnetdiscover" /
                      "topograph-dgxh100-superpod-example.out";
    // Tests tagged [real] are registered only when ../shared/fixtures/real exists (CMake).
    REQUIRE(std::filesystem::exists(path));
    auto r = parse_ibnetdiscover(switchyard::test::slurp(path), path.string());
    REQUIRE(r);
    std::size_t switches = 0;
    std::size_t cas = 0;
    std::size_t sharp = 0;
    for (const auto& n : r->nodes) {
        switches += n.kind == NodeKind::Switch ? 1U : 0U;
        cas += n.kind == NodeKind::Ca ? 1U : 0U;
        sharp += n.devid == 0xcf09 ? 1U : 0U;
    }
    // SOURCES.md: 40 switches (31 leaves, 9 spines), 582 CAs of which 40 SHARP nodes.
    CHECK(switches == 40);
    CHECK(cas == 582);
    CHECK(sharp == 40);
    CHECK(r->warnings.empty());  // every cable of the dump is seen from both ends
}

TEST_CASE("ibnetdiscover_parser: real single-CA GB200 capture parses to one isolated CA",
          "[parser][real]") {
    const auto path = switchyard::test::real_fixtures() / "ibnetdiscover" /
                      "topograph-gb200-single-ca-example-bad.out";
    REQUIRE(std::filesystem::exists(path));
    auto r = parse_ibnetdiscover(switchyard::test::slurp(path), path.string());
    REQUIRE(r);
    REQUIRE(r->nodes.size() == 1);
    CHECK(r->nodes[0].desc == "dgx-gb200-n01-c1 HCA-1");
    CHECK(r->nodes[0].ports.empty());
}

TEST_CASE("ibnetdiscover_parser: ids resolve by their exact text, through the GUID table",
          "[parser]") {
    // Canonical ids resolve through the GUID they spell; another letter, other case or another
    // GUID is a different id (dangling), as in ibnetdiscover, whose ids are exact strings.
    auto r = parse_ibnetdiscover(
        "Switch\t4 \"S-0000000000000abc\"\n"
        "[1]\t\"H-0000000000000def\"[1]\n"
        "[2]\t\"H-0000000000000abc\"[1]\n"  // the switch's GUID with a CA's letter
        "[3]\t\"S-0000000000000ABC\"[3]\n"  // upper case: not the switch's id
        "[4]\t\"S-0000000000000123\"[1]\n"  // no such record
        "\nCa\t1 \"H-0000000000000def\"\n"
        "[1]\t\"S-0000000000000abc\"[1]\n",
        "c.txt");
    REQUIRE(r);
    REQUIRE(r->nodes.size() == 2);
    CHECK(r->nodes[0].ports[0].remote == 1);
    CHECK(r->nodes[1].ports[0].remote == 0);
    std::vector<std::string> dangling;
    for (const auto& w : r->warnings) {
        if (w.kind == "dangling-link") {
            dangling.push_back(w.where.to_string());
        }
    }
    CHECK(dangling == std::vector<std::string>{"c.txt:3", "c.txt:4", "c.txt:5"});
    // With one id that is not canonical in the dump, the text table answers the rest.
    auto mixed = parse_ibnetdiscover(
        "Switch\t4 \"S-1\"\n[1]\t\"H-0000000000000def\"[1]\n"
        "\nCa\t1 \"H-0000000000000def\"\n[1]\t\"S-1\"[1]\n",
        "m.txt");
    REQUIRE(mixed);
    CHECK(mixed->nodes[0].ports[0].remote == 1);
    CHECK(mixed->nodes[1].ports[0].remote == 0);
    CHECK(mixed->warnings.empty());
}

namespace {

/// The same dump with no empty line ("\n\n" becomes "\n \n", still a blank line to the
/// reader): the parser finds no place to cut it and reads it in one pass.
std::string one_pass(const std::string& text) {
    std::string out;
    out.reserve(text.size() + text.size() / 16);
    for (std::size_t i = 0; i < text.size(); ++i) {
        out += text[i];
        if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] == '\n') {
            out += ' ';
        }
    }
    return out;
}

void check_same_graph(const FabricGraph& a, const FabricGraph& b) {
    REQUIRE(a.nodes.size() == b.nodes.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < a.nodes.size(); ++i) {
        const auto& x = a.nodes[i];
        const auto& y = b.nodes[i];
        bool same = x.kind == y.kind && x.guid == y.guid && x.id == y.id && x.desc == y.desc &&
                    x.nports == y.nports && x.devid == y.devid && x.line == y.line &&
                    x.ports.size() == y.ports.size();
        for (std::size_t k = 0; same && k < x.ports.size(); ++k) {
            const auto& p = x.ports[k];
            const auto& q = y.ports[k];
            same = p.port == q.port && p.remote == q.remote && p.remote_port == q.remote_port &&
                   p.port_guid == q.port_guid && p.line == q.line;
        }
        differ += same ? 0 : 1;
    }
    CHECK(differ == 0);
    REQUIRE(a.warnings.size() == b.warnings.size());
    for (std::size_t i = 0; i < a.warnings.size(); ++i) {
        CHECK(a.warnings[i].kind == b.warnings[i].kind);
        CHECK(a.warnings[i].where.to_string() == b.warnings[i].where.to_string());
        CHECK(a.warnings[i].message == b.warnings[i].message);
    }
}

/// Inserts `line` at the start of the first record after `fraction` of the text.
std::size_t insert_line(std::string& text, double fraction, const std::string& line) {
    const auto at =
        text.find("\n\n", static_cast<std::size_t>(static_cast<double>(text.size()) * fraction)) +
        2;
    text.insert(at, line);
    return at;
}

std::uint32_t line_at(const std::string& text, std::size_t pos) {
    return static_cast<std::uint32_t>(
        std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n') + 1);
}

}  // namespace

TEST_CASE("ibnetdiscover: a large dump read in two halves is read as in one pass",
          "[ibnetdiscover]") {
    // 65,536 HCAs, 17 MB: above the size from which the parser reads two halves at once.
    static const auto dump = switchyard::bench::synthetic_dragonfly(8192, 8);
    auto text = dump;
    REQUIRE(text.size() > (std::size_t{16} << 20U));
    // Foreign lines in both halves.
    insert_line(text, 0.1, "ibwarn: [4711] mad_rpc: _do_madrpc failed; dport (DR path slid 0)\n");
    insert_line(text, 0.8, "src/query_smp.c:228; umad (DR path) timed out\n");

    SECTION("every node, port, line and warning is the same") {
        const auto halves = parse_ibnetdiscover(text, "big.out");
        const auto whole = parse_ibnetdiscover(one_pass(text), "big.out");
        REQUIRE(halves);
        REQUIRE(whole);
        check_same_graph(*halves, *whole);
        REQUIRE(halves->warnings.size() == 1);
        CHECK(halves->warnings[0].kind == "foreign-lines");
        CHECK(halves->warnings[0].message.starts_with("2 lines that are not"));
        CHECK(halves->nodes.size() == 65536 + 64 * 48);  // HCAs, then 64 groups of 48 switches
    }
    SECTION("dangling and asymmetric cables in both halves are reported in file order") {
        // Two port lines lead to a switch that is not in the dump: each is dangling, and the
        // port at the other end of its cable no longer leads back.
        std::vector<std::uint32_t> lines;
        for (const double at : {0.2, 0.7}) {
            const auto port = text.find(
                "\n[1]\t\"S-", static_cast<std::size_t>(static_cast<double>(text.size()) * at));
            REQUIRE(port != std::string::npos);
            text.replace(port + 6, 18, "S-00000000deadbeef");
            lines.push_back(line_at(text, port + 1));
        }
        const auto r = parse_ibnetdiscover(text, "big.out");
        REQUIRE(r);
        std::vector<std::string> dangling;
        std::size_t asymmetric = 0;
        for (const auto& w : r->warnings) {
            if (w.kind == "dangling-link") {
                dangling.push_back(w.where.to_string());
            }
            asymmetric += w.kind == "asymmetric-link" ? 1U : 0U;
        }
        CHECK(dangling == std::vector<std::string>{"big.out:" + std::to_string(lines[0]),
                                                   "big.out:" + std::to_string(lines[1])});
        CHECK(asymmetric == 2);
        const auto w = parse_ibnetdiscover(one_pass(text), "big.out");
        REQUIRE(w);
        check_same_graph(*r, *w);
    }
    SECTION("an error in the second half names its line in the whole file") {
        const auto at = insert_line(text, 0.75, "garbage here\n");
        const auto r = parse_ibnetdiscover(text, "big.out");
        REQUIRE_FALSE(r);
        CHECK(r.error().to_string().starts_with("big.out:" + std::to_string(line_at(text, at)) +
                                                ": unrecognised line"));
        const auto w = parse_ibnetdiscover(one_pass(text), "big.out");
        REQUIRE_FALSE(w);
        CHECK(w.error().to_string() == r.error().to_string());
    }
    SECTION("with errors in both halves, the first one is reported") {
        const auto first = insert_line(text, 0.25, "garbage one\n");
        insert_line(text, 0.75, "garbage two\n");
        const auto r = parse_ibnetdiscover(text, "big.out");
        REQUIRE_FALSE(r);
        CHECK(r.error().to_string().starts_with("big.out:" + std::to_string(line_at(text, first)) +
                                                ": unrecognised line 'garbage one'"));
    }
    SECTION("attribute lines just before the cut still belong to the header after it") {
        // The cut is the first empty line after the middle: put a devid= line before it.
        const auto blank = text.find("\n\n", text.size() / 2);
        text.insert(blank + 1, "devid=0xbeef\n");
        const auto r = parse_ibnetdiscover(text, "big.out");
        REQUIRE(r);
        const auto w = parse_ibnetdiscover(one_pass(text), "big.out");
        REQUIRE(w);
        check_same_graph(*r, *w);
        const auto n = std::count_if(r->nodes.begin(), r->nodes.end(),
                                     [](const FabricNode& x) { return x.devid == 0xbeef; });
        CHECK(n == 1);
    }
}
