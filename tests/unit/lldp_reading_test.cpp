// SPDX-License-Identifier: Apache-2.0
// Tests of how an lldpctl file is read: lldpcli's echoed commands, the bounds on what a file
// may cost, the 16-byte scans, and the fast JSON reading against the careful one.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "lldp_fixtures.hpp"
#include "switchyard/discover/lldp/lldp.hpp"
#include "switchyard/node/node_json.hpp"

using namespace switchyard;
using namespace switchyard::discover;
using namespace switchyard::discover::test;

TEST_CASE("lldp: lldpcli's echoed commands (commands piped in, as the guide gathers) are skipped",
          "[lldp]") {
    // `printf 'show chassis\nshow neighbors\n' | lldpcli -f FORMAT` writes each command back
    // before its output.
    const auto without_lines = [](LldpFile f) {
        for (auto& n : f.neighbors) {
            n.line = 0;
        }
        return f;
    };
    for (const std::string name : {"gpu0002.json", "spine01.json0", "gpu0001.keyvalue"}) {
        INFO(name);
        const auto plain = capture(name);
        // The neighbours' part starts at the second document, or at the first "lldp." line.
        const auto second = name.ends_with("keyvalue") ? plain.find("\nlldp.") : plain.find("\n{");
        REQUIRE(second != std::string::npos);
        const auto echoed = "show chassis\n" + plain.substr(0, second + 1) + "show neighbors\r\n" +
                            plain.substr(second + 1);
        const auto want = parse_lldp(plain, name);
        const auto got = parse_lldp(echoed, name);
        REQUIRE(want);
        REQUIRE(got);
        CHECK(got->local == want->local);
        CHECK(!got->neighbors.empty());
        CHECK(without_lines(*got) == without_lines(*want));
    }
    // Errors keep their lines: the echo lines count.
    CHECK(error_of("show chassis\n{\"lldp\" {}}") ==
          "x.json:2:9: expected ':' after the member name, got '{'");
    // Only lldpcli's own words: anything else on such a line is still an error.
    CHECK(error_of("show chassis; rm -rf /\n{}").starts_with("x.json:1:1: expected lldpctl "));
    CHECK(error_of("showchassis\n").starts_with("x.json:1:1: expected lldpctl keyvalue"));
    // Echoes and nothing else: lldpd did not answer.
    CHECK(lldp_says_nothing("show chassis\nshow neighbors\n"));
    CHECK(lldp_says_nothing(" \n\t\r\n"));
    CHECK_FALSE(lldp_says_nothing("show chassis\n{}"));
    CHECK(error_of("show chassis\nshow neighbors\n") ==
          "x.json:1:1: empty; expected lldpctl's output (-f json, json0 or keyvalue)");
}

TEST_CASE("lldp: a file of tiny values is refused, not read at 16 times its size", "[lldp]") {
    // 100 kB of "0," is 50,000 values; lldpctl's own output has one in 32 bytes or more.
    std::string dense = "{\"lldp\": [";
    for (int i = 0; i < 50'000; ++i) {
        dense += "0,";
    }
    dense += "0]}";
    const auto limit = std::to_string(dense.size() / kMinLldpBytesPerValue + 4096);
    for (const auto how : {detail::JsonReading::Both, detail::JsonReading::Careful}) {
        const auto r = detail::parse_lldp(dense, "dense.json", how);
        REQUIRE_FALSE(r);
        CHECK(r.error().to_string().starts_with("dense.json:1:"));
        CHECK(r.error().to_string().find("more JSON values than lldpctl writes in " +
                                         std::to_string(dense.size()) + " bytes (at most " +
                                         limit) != std::string::npos);
    }
    // The same number of values, as lldpctl spaces them, is read.
    std::string spaced = "{\"lldp\": [";
    for (int i = 0; i < 5'000; ++i) {
        spaced += "\n        \"value-of-an-lldp-entry\",";
    }
    spaced += "0]}";
    CHECK(detail::parse_lldp(spaced, "spaced.json", detail::JsonReading::Both));
}

TEST_CASE("lldp: indentation, names and faults at every offset of the 16-byte scans", "[lldp]") {
    // The reader skips spaces and string bodies 16 bytes a step: each length and position
    // around that step must read as the byte-by-byte reading does.
    for (std::size_t indent = 0; indent <= 40; ++indent) {
        for (std::size_t len = 1; len <= 40; ++len) {
            const std::string pad(indent, ' ');
            const std::string name(len, 'n');
            const std::string doc = "{\n" + pad + "\"lldp\": {\"interface\": {\"" + name +
                                    "\": {\"chassis\": {\"" + name + "-x\": {}},\n" + pad +
                                    "\"port\": {\"descr\": \"p\\\"" + name + "\"}}}}}";
            auto f = parse_lldp(doc, "x.json");
            REQUIRE(f);
            REQUIRE(f->neighbors.size() == 1);
            CHECK(f->neighbors[0].local_port == name);
            CHECK(f->neighbors[0].chassis.name == name + "-x");
            CHECK(f->neighbors[0].port_descr == "p\"" + name);
            CHECK(f->neighbors[0].line == 2);
        }
    }
    for (std::size_t at = 0; at < 40; ++at) {
        std::string value(40, 'v');
        value[at] = '\x01';
        CHECK(error_of("{\"lldp\": \"" + value + "\"}") ==
              "x.json:1:" + std::to_string(11 + at) +
                  ": expected the rest of a string, got a control character");
        CHECK(error_of("{\"lldp\":" + std::string(at, ' ') + "\"" + std::string(at, 'v')) ==
              "x.json:1:" + std::to_string(9 + at) +
                  ": expected a string closed by '\"', got '\"'");
    }
    CHECK(error_of("{\"lldp\": \"" + std::string(30, 'v') + "\\") ==
          "x.json:1:10: expected a string closed by '\"', got '\"'");
}

namespace {

/// Both JSON readings of `text`: the same file, or the same error where the fast one gives up.
/// Returns whether the fast one read it itself.
bool read_alike(const std::string& text) {
    const auto careful = detail::parse_lldp(text, "x.json", detail::JsonReading::Careful);
    const auto both = detail::parse_lldp(text, "x.json", detail::JsonReading::Both);
    const auto fast = detail::parse_lldp(text, "x.json", detail::JsonReading::Fast);
    REQUIRE(both.has_value() == careful.has_value());
    if (careful) {
        CHECK(*both == *careful);
    } else {
        CHECK(both.error().to_string() == careful.error().to_string());
    }
    if (fast) {
        REQUIRE(careful);
        CHECK(*fast == *careful);
    }
    return fast.has_value();
}

}  // namespace

/// Where the fast JSON reading is built (SSE2: x86-64); elsewhere the careful one reads alone.
#if defined(__SSE2__)
constexpr bool kFastReading = true;
#else
constexpr bool kFastReading = false;
#endif

TEST_CASE("lldp: the fast JSON reading reads as the careful one, or hands over", "[lldp]") {
    // Every capture of real lldpd output, in both JSON forms: read by the fast reading itself.
    std::size_t json_files = 0;
    for (const auto& dir : {"clos-variant", "fabric16"}) {
        const auto root = std::string(SWITCHYARD_SOURCE_DIR) + "/tests/data/lldp/" + dir;
        for (const auto& e : std::filesystem::directory_iterator(root)) {
            std::ifstream in(e.path());
            std::stringstream s;
            s << in.rdbuf();
            if (s.str().find('{') == std::string::npos) {
                continue;  // keyvalue
            }
            INFO(e.path().string());
            CHECK(read_alike(s.str()) == kFastReading);
            ++json_files;
        }
    }
    CHECK(json_files > 20);

#if defined(__SSE2__)
    // Escapes, strings and words across the 64-byte blocks the fast reading classifies at once:
    // each run of backslashes and each quote at every offset around a block's end.
    for (std::size_t pad = 0; pad < 140; ++pad) {
        for (const std::string body :
             {"a\\\"b", "a\\\\", "\\\\\\\"", "\\\\\\\\\\\\", "x\\u0041y"}) {
            const std::string doc = "{\"lldp\": {\"interface\": {\"" + std::string(pad, 'p') +
                                    "\": {\"chassis\": {\"" + body + "\": {\"id\": [" +
                                    std::string(pad % 7, ' ') + "true, -1.5e3, null]}},\n" +
                                    "\"port\": {\"descr\": \"" + body + "\"}}}}}";
            INFO(doc);
            CHECK(read_alike(doc));
        }
    }
    // Lines counted across blocks: the record's line is its key's.
    std::string tall = "{\"lldp\": {\"interface\": [\n";
    for (int i = 0; i < 30; ++i) {
        tall += "\n" + std::string(static_cast<std::size_t>(i * 5), ' ') + "{\"eth" +
                std::to_string(i) + "\": {\"port\": {\"descr\": \"p\"}}}" + (i < 29 ? "," : "");
    }
    tall += "\n]}}\n";
    const auto fast = detail::parse_lldp(tall, "x.json", detail::JsonReading::Fast);
    REQUIRE(fast);
    REQUIRE(fast->neighbors.size() == 30);
    CHECK(fast->neighbors[29].line == 32);
    CHECK(read_alike(tall));

    // What the fast reading does not take, the careful one reads (or refuses) as ever.
    for (const std::string doc :
         {"{\"lldp\": truex}", "{\"lldp\": 12ab}", "{\"lldp\": \"a\" \"b\"}", "{\"lldp\": [1,]}",
          "{\"lldp\": [1 2]}", "{\"lldp\": {\"a\" 1}}", "{\"lldp\": \\\"a\"}",
          "{\"lldp\": \"a\tb\"}", "{\"lldp\": \"a\\\nb\"}", "{\"lldp\": [}", "{\"lldp\": tru}",
          "{\"lldp\": {}}}", "{\"lldp\": \"unclosed}", "{\"lldp\": {\"a\":}}", "{\"lldp\": x}",
          "{\"lldp\": {}} [", "{\"lldp\"}", "{\"lldp\": [\x01]}"}) {
        INFO(doc);
        CHECK_FALSE(read_alike(doc + "\n"));
    }
    std::string deep = "{\"lldp\": ";
    for (int i = 0; i < 40; ++i) {
        deep += "[";
    }
    CHECK_FALSE(read_alike(deep));
    // Well-formed JSON in forms pretty-printing never gives: still the fast reading's.
    for (const std::string doc :
         {"{\"lldp\":{\"interface\":{\"eth0\":{\"port\":{\"descr\":\"p\"}}}}}",
          "\t{ \"lldp\" :\r\n { } }  {\"local-chassis\": {\"chassis\": {\"h\": {}}}}",
          "{\"lldp\": [[], {}, \"\", 0, false]}"}) {
        INFO(doc);
        CHECK(read_alike(doc));
    }
#endif
}

TEST_CASE("gather directories: a link is refused, never followed, and lines are bounded",
          "[lldp][node-facts]") {
    // Users' tasks fill --lldp and --node-facts through an srun recipe; discover runs as root.
    // A link there to a root-only file must not reach stderr or the world-readable map.
    const auto dir =
        std::filesystem::temp_directory_path() / ("sy-gather-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "lldp");
    std::filesystem::create_directories(dir / "facts");
    const auto secret = dir / "root-only";
    std::ofstream(secret) << "secret-first-line\n";
    std::ofstream(dir / "lldp" / "gpu0003.json") << capture("gpu0003.json");
    std::filesystem::create_symlink(secret, dir / "lldp" / "gpu0002.json");
    auto lldp = lldp_reader((dir / "lldp").string(), {})->read();
    REQUIRE_FALSE(lldp);
    CHECK_THAT(lldp.error().to_string(), Catch::Contains("gpu0002.json") &&
                                             Catch::Contains("symbolic link") &&
                                             !Catch::Contains("secret-first-line"));
    std::filesystem::create_symlink(secret, dir / "facts" / "node001.json");
    auto facts = node::read_facts((dir / "facts").string(), false);
    REQUIRE_FALSE(facts);
    CHECK_THAT(facts.error().to_string(),
               Catch::Contains("node001.json") && Catch::Contains("symbolic link"));
    // A file of lines given as a link is refused too.
    std::filesystem::create_symlink(secret, dir / "facts.jsonl");
    facts = node::read_facts((dir / "facts.jsonl").string(), false);
    REQUIRE_FALSE(facts);
    CHECK_THAT(facts.error().to_string(), Catch::Contains("symbolic link"));
    // A line over 64 KiB is refused before the JSON parser allocates for its values.
    const auto lines = dir / "big.jsonl";
    std::ofstream(lines) << "{\"host\":\"node001\",\"nvlink\":{}}\n{\"host\":\"node002\",\"x\":["
                         << std::string(70000, '1') << "]}\n";
    facts = node::read_facts(lines.string(), false);
    REQUIRE_FALSE(facts);
    CHECK(facts.error().to_string() ==
          lines.string() +
              ":2: 70025 bytes, more than 65536; expected a line of `switchyard node "
              "--nvlink-only --line`");
    std::filesystem::remove_all(dir);
}
