// SPDX-License-Identifier: Apache-2.0
// NCCL versions and version ranges (profiles' nccl_versions), which had no tests of their own.
#include "switchyard/policy/policy.hpp"

#include "catch.hpp"

using namespace switchyard::policy;

namespace {

NcclVersion v(const char* text) {
    const auto parsed = parse_nccl_version(text);
    REQUIRE(parsed);
    return *parsed;
}

}  // namespace

TEST_CASE("policy: NCCL versions parse and order", "[policy]") {
    CHECK(v("2.21") == NcclVersion{2, 21, 0});
    CHECK(v("2.23.4") == NcclVersion{2, 23, 4});
    CHECK(v("2.9") < v("2.10"));  // numbers, not text
    CHECK(v("2.23.4") > v("2.23"));
    for (const char* bad : {"", "2", "2.", "2.x", "2.21.4.1", "-2.21", "2.21a", "v2.21"}) {
        INFO(bad);
        CHECK_FALSE(parse_nccl_version(bad));
    }
}

TEST_CASE("policy: version ranges hold every bound", "[policy]") {
    const auto r = parse_version_range(">=2.18,<2.24");
    REQUIRE(r);
    CHECK(r->bounds.size() == 2);
    CHECK_FALSE(r->contains(v("2.17.9")));
    CHECK(r->contains(v("2.18")));
    CHECK(r->contains(v("2.23.4")));
    CHECK_FALSE(r->contains(v("2.24")));
    const auto one = parse_version_range("==2.21.5");
    REQUIRE(one);
    CHECK(one->contains(v("2.21.5")));
    CHECK_FALSE(one->contains(v("2.21.4")));
    const auto open = parse_version_range(" > 2.20 , <= 2.22 ");
    REQUIRE(open);
    CHECK_FALSE(open->contains(v("2.20")));
    CHECK(open->contains(v("2.22")));
    CHECK_FALSE(open->contains(v("2.22.1")));
    CHECK(VersionRange{}.contains(v("1.0")));  // no bound: any version
    for (const char* bad : {"", "2.18", "=>2.18", "=2.18", "<<2.1", ">=2.18,", ">=x"}) {
        INFO(bad);
        CHECK_FALSE(parse_version_range(bad));
    }
}
