// SPDX-License-Identifier: Apache-2.0
// Tests of Slurm hostlist expansion and compression.
#include "switchyard/common/hostlist.hpp"

#include <algorithm>

#include "catch.hpp"

using switchyard::compress_hostlist;
using switchyard::expand_hostlist;
using V = std::vector<std::string>;

TEST_CASE("hostlist: expands ranges in order, keeping padding", "[hostlist]") {
    auto r = expand_hostlist("node[001-003,010],gpu7");
    REQUIRE(r);
    CHECK(*r == V{"node001", "node002", "node003", "node010", "gpu7"});
}

TEST_CASE("hostlist: keeps Slurm's order and duplicates", "[hostlist]") {
    auto ok = expand_hostlist("n3,n1,n3");
    REQUIRE(ok);
    CHECK(*ok == V{"n3", "n1", "n3"});
}

TEST_CASE("hostlist: several bracket groups expand as a product", "[hostlist]") {
    auto r = expand_hostlist("r[1-2]n[1-2]");
    REQUIRE(r);
    CHECK(*r == V{"r1n1", "r1n2", "r2n1", "r2n2"});
}

TEST_CASE("hostlist: empty expression gives no names", "[hostlist]") {
    auto r = expand_hostlist("  ");
    REQUIRE(r);
    CHECK(r->empty());
}

TEST_CASE("hostlist: bad expressions are named in the error", "[hostlist]") {
    struct Case {
        const char* expr;
        const char* needle;
    };
    const Case cases[] = {
        {"node[1-3", "never closed"},
        {"node1-3]", "without '['"},
        {"node[3-1]", "goes down"},
        {"node[a-b]", "not N or N-M"},
        {"node[1-2],,n3", "empty name"},
        {"node[[1]]", "nested"},
        {"n[0-99999999]", "more than 1000000 names"},
    };
    for (const auto& c : cases) {
        INFO(c.expr);
        auto r = expand_hostlist(c.expr);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message(), Catch::Contains(c.needle));
        CHECK_THAT(r.error().message(), Catch::Contains(c.expr));
    }
}

TEST_CASE("hostlist: compress sorts, merges runs and keeps widths", "[hostlist]") {
    CHECK(compress_hostlist({"node003", "node001", "node002", "gpu1"}) == "gpu1,node[001-003]");
    CHECK(compress_hostlist({"node001", "node003"}) == "node[001,003]");
    CHECK(compress_hostlist({"n9", "n10", "n11"}) == "n[9-11]");
    CHECK(compress_hostlist({"node099", "node100"}) == "node[099-100]");
    CHECK(compress_hostlist({"login", "node1", "node1"}) == "login,node1");
    CHECK(compress_hostlist({}).empty());
}

TEST_CASE("hostlist: compress then expand is the sorted unique set", "[hostlist]") {
    const V names{"a-gpu012", "a-gpu003", "b7", "a-gpu004", "a-gpu005", "b8", "c"};
    auto back = expand_hostlist(compress_hostlist(names));
    REQUIRE(back);
    V sorted = names;
    std::sort(sorted.begin(), sorted.end());
    V got = *back;
    std::sort(got.begin(), got.end());
    CHECK(got == sorted);
}

TEST_CASE("hostlist: hostile expressions fail fast, before any name is built", "[hostlist]") {
    // A step's node list reaches slurmstepd (root) from the client's environment.
    struct Case {
        std::string expr;
        const char* needle;
    };
    const Case cases[] = {
        // used to loop past UINT64_MAX
        {"n[18446744073709551615]", ""},
        {"n[18446744073709551614-18446744073709551615]", ""},
        {"n[0-18446744073709551615]", "more than 1000000 names"},
        // used to build the 10^10-name product (a million names first) before the size check;
        // the whole term is counted before any name is made
        {"a[0-999999]b[0-9999]", "'a[0-999999]b[0-9999]' makes more than 1000000 names"},
        {"a[0-999999]b[1-2]", "'a[0-999999]b[1-2]' makes more than 1000000 names"},
        {"a[0-999]b[0-999]c[0-1]", "more than 1000000 names"},
        // a number too large for 64 bits
        {"n[" + std::string(200000, '1') + "]", "not N or N-M"},
        {"x" + std::string(switchyard::kMaxHostlistText, 'y'), "longer than"},
    };
    for (const auto& c : cases) {
        INFO(c.expr.substr(0, 60));
        auto r = expand_hostlist(c.expr);
        if (*c.needle == '\0') {  // one name: fine
            REQUIRE(r);
            CHECK(r->size() <= 2);
            continue;
        }
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message(), Catch::Contains(c.needle));
    }
    std::string many = "n[";
    for (int i = 0; i < 2000; ++i) {
        many += std::to_string(i * 1000) + "-" + std::to_string(i * 1000 + 999) + ",";
    }
    many.back() = ']';
    auto r = expand_hostlist(many);  // 2,000,000 names in one bracket, 1000 at a time
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message(), Catch::Contains("more than 1000000 names"));
    // The bound itself is reachable.
    auto at_bound = expand_hostlist("a[0-999]b[0-999]");
    REQUIRE(at_bound);
    CHECK(at_bound->size() == 1'000'000);
}

TEST_CASE("hostlist: 98,000 names of mixed-width numbers compress and expand back", "[hostlist]") {
    // Found by the fuzzer: compressing numbers of several widths moved them one by one
    // (quadratic; 517,452 names took 27 s). Blanks around a bound are trimmed.
    auto names = switchyard::expand_hostlist("o[000-1610,1]52[0-60\t]");
    REQUIRE(names);
    REQUIRE(names->size() == 1612 * 61);
    const auto text = switchyard::compress_hostlist(*names);
    auto back = switchyard::expand_hostlist(text);
    REQUIRE(back);
    std::sort(names->begin(), names->end());
    std::sort(back->begin(), back->end());
    CHECK(*back == *names);
}
