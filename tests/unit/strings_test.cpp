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
