// SPDX-License-Identifier: Apache-2.0
// Tests that guard() turns every exception into an error code and one report line.
#include "guard.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"
#include "fake_spank_api.hpp"
#include "hooks.hpp"

namespace {
std::vector<std::string> g_lines;  // the sink must be a plain function pointer
void capture(const char* line) noexcept {
    g_lines.emplace_back(line);
}
}  // namespace

using switchyard::spank::guard;

TEST_CASE("guard: passes through the body's return code", "[guard]") {
    g_lines.clear();
    CHECK(guard("init", capture, -1, [] { return 0; }) == 0);
    CHECK(guard("init", capture, -1, [] { return -1; }) == -1);
    CHECK(g_lines.empty());
}

TEST_CASE("guard: std::exception becomes error_rc and a line", "[guard]") {
    g_lines.clear();
    const int rc =
        guard("task_init", capture, -1, []() -> int { throw std::runtime_error("boom"); });
    CHECK(rc == -1);
    REQUIRE(g_lines.size() == 1);
    CHECK(g_lines[0] == "switchyard: task_init: internal error: boom");
}

TEST_CASE("guard: bad_alloc and foreign exceptions", "[guard]") {
    g_lines.clear();
    CHECK(guard("user_init", capture, -1, []() -> int { throw std::bad_alloc(); }) == -1);
    CHECK(guard("job_prolog", capture, 0, []() -> int { throw 42; }) == 0);  // fail-open rc
    REQUIRE(g_lines.size() == 2);
    CHECK(g_lines[0] == "switchyard: user_init: internal error: out of memory");
    CHECK(g_lines[1] == "switchyard: job_prolog: internal error: unknown exception");
}

TEST_CASE("guard: a throw inside real hook logic is contained", "[guard]") {
    g_lines.clear();
    switchyard::spank::test::FakeSpankApi api;
    api.throw_on_get_option = true;
    switchyard::CapturingLogger log;
    const int rc = guard("user_init", capture, -1,
                         [&] { return switchyard::spank::hooks::user_init(api, log, {}); });
    CHECK(rc == -1);
    REQUIRE(g_lines.size() == 1);
    CHECK(g_lines[0] == "switchyard: user_init: internal error: injected failure in get_option");
}
