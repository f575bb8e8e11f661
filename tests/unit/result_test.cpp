// SPDX-License-Identifier: Apache-2.0
// Tests of Result<T> and Error formatting.
#include "switchyard/common/result.hpp"

#include "catch.hpp"

using namespace switchyard;

namespace {
Result<int> half(int v) {
    if (v % 2 != 0) {
        return fail(Error::invalid_argument("odd value " + std::to_string(v)));
    }
    return v / 2;
}
}  // namespace

TEST_CASE("result: carries a value or an error", "[result]") {
    auto ok = half(4);
    REQUIRE(ok);
    CHECK(*ok == 2);
    auto bad = half(3);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code() == ErrorCode::InvalidArgument);
    CHECK(bad.error().message() == "odd value 3");
}

TEST_CASE("result: void results", "[result]") {
    Result<void> ok;
    CHECK(ok);
    Result<void> bad = fail(Error::io("disk gone"));
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code() == ErrorCode::Io);
}

TEST_CASE("result: errors print file:line:col", "[result]") {
    const auto e = Error::parse(SourceLoc{"fabric.txt", 12, 3}, "expected '[port]'");
    CHECK(e.to_string() == "fabric.txt:12:3: expected '[port]'");
    CHECK(Error::parse(SourceLoc{"f", 4, 0}, "m").to_string() == "f:4: m");
    CHECK(Error::not_found("no such host").to_string() == "no such host");
}
