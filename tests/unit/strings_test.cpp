// SPDX-License-Identifier: Apache-2.0
// Tests of the string helpers.
#include "switchyard/common/strings.hpp"

#include "catch.hpp"

using namespace switchyard;

TEST_CASE("strings: trim removes blanks on both sides only", "[strings]") {
    CHECK(trim("  a b\t\r\n") == "a b");
    CHECK(trim("").empty());
    CHECK(trim(" \t ").empty());
}

TEST_CASE("strings: split keeps empty fields", "[strings]") {
    const auto parts = split("a,,b", ',');
    REQUIRE(parts.size() == 3);
    CHECK(parts[1].empty());
    CHECK(split("", ',').size() == 1);
}

TEST_CASE("strings: parse_uint is strict", "[strings]") {
    CHECK(parse_uint("007") == 7U);
    CHECK(parse_uint("18446744073709551615") == 18446744073709551615ULL);
    CHECK_FALSE(parse_uint("18446744073709551616"));
    CHECK_FALSE(parse_uint("-1"));
    CHECK_FALSE(parse_uint("+1"));
    CHECK_FALSE(parse_uint(" 1"));
    CHECK_FALSE(parse_uint("1x"));
    CHECK_FALSE(parse_uint(""));
}

TEST_CASE("strings: join", "[strings]") {
    CHECK(join({"a", "b", "c"}, ", ") == "a, b, c");
    CHECK(join({}, ",").empty());
}

TEST_CASE("strings: printable escapes controls, DEL and every byte from 0x80, once", "[strings]") {
    CHECK(printable("node001 ok-._:/[]") == "node001 ok-._:/[]");
    CHECK(printable("a\nb\tc\rd") == "a\\x0ab\\x09c\\x0dd");
    CHECK(printable("\x1b]0;t\x07") == "\\x1b]0;t\\x07");
    CHECK(printable(std::string("x\0y", 3)) == "x\\x00y");
    // UTF-8 characters stay; a byte that does not start one, a C1 control (CSI is C2 9B), an
    // overlong form or a surrogate does not.
    CHECK(printable("\x7f\xff\xfe\xc3\xa9 \xe2\x86\x92") == "\\x7f\\xff\\xfe\xc3\xa9 \xe2\x86\x92");
    CHECK(printable("\xc2\x9b"
                    "2J") == "\\xc2\\x9b2J");
    CHECK(printable("\xe2\x86") == "\\xe2\\x86");
    CHECK(printable("\xc0\xaf \xed\xa0\x80") == "\\xc0\\xaf \\xed\\xa0\\x80");
    CHECK(printable("\xf0\x9f\x98\x80") == "\xf0\x9f\x98\x80");
    const std::string once = printable("\x1b[2J\nanomaly x y\xff");
    CHECK(once.find_first_of("\n\x1b") == std::string::npos);
    CHECK(printable(once) == once);  // applied twice: the same text
    CHECK(printable("").empty());
}

TEST_CASE("strings: prometheus_label escapes what ends or breaks a label value", "[strings]") {
    CHECK(prometheus_label("node001") == "node001");
    CHECK(prometheus_label(R"(a"b\c)") == R"(a\"b\\c)");
    // Control bytes and bytes that are no UTF-8 become \xNN text (its backslash escaped):
    // node_exporter drops a whole file that is not valid UTF-8.
    CHECK(prometheus_label("one\ntwo") == "one\\\\x0atwo");
    CHECK(prometheus_label("p\xff\x1b") == "p\\\\xff\\\\x1b");
    CHECK(prometheus_label("gr\xc3\xbcn") == "gr\xc3\xbcn");  // valid UTF-8 is kept
    CHECK(prometheus_label("") == "");
}

TEST_CASE("strings: bounded_line is one printable line, cut between characters", "[strings]") {
    CHECK(bounded_line("ok", 10) == "ok");
    CHECK(bounded_line("a\nb\x1b[0m", 100) == "a\\x0ab\\x1b[0m");
    CHECK(bounded_line(std::string(50, 'x'), 10) == "xxxxxxx...");
    // "é" is two bytes: a cut never splits it.
    const auto cut = bounded_line("abcdé" + std::string(20, 'z'), 8);
    CHECK(cut == "abcd...");
    CHECK(cut.size() <= 8);
    CHECK(bounded_line("abcdé", 7) == "abcdé");
}
