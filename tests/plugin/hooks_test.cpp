// SPDX-License-Identifier: Apache-2.0
// Tests of the SPANK hook logic against FakeSpankApi.
#include "hooks.hpp"

#include "catch.hpp"
#include "fake_spank_api.hpp"
#include "plugin_state.hpp"

using namespace switchyard;
using namespace switchyard::spank;
using switchyard::spank::test::FakeSpankApi;

TEST_CASE("hooks: init in slurmd names the build, in slurmstepd it is quiet", "[hooks]") {
    // The front (spank_switchyard.so) registers the options and calls init in these two only.
    for (auto ctx : {Context::Remote, Context::Slurmd}) {
        INFO(to_string(ctx));
        FakeSpankApi api;
        api.ctx = ctx;
        CapturingLogger log;
        CHECK(hooks::init(api, log, {"config=/etc/slurm/switchyard.yaml"}) == 0);
        if (ctx == Context::Slurmd) {  // slurmd says once which build it loaded, for which Slurm
            REQUIRE(log.lines.size() == 1);
            CHECK(log.contains(Level::Info,
                               "switchyard " SWITCHYARD_VERSION_STRING
                               " loaded (built for Slurm " SWITCHYARD_SLURM_RELEASE ")"));
        } else {
            CHECK(log.lines.empty());
        }
    }
}

TEST_CASE("hooks: a bad plugstack argument fails the step and a client's option, never slurmd",
          "[hooks]") {
    FakeSpankApi api;
    CapturingLogger log;
    api.ctx = Context::Remote;
    CHECK(hooks::init(api, log, {"cofnig=/x"}) == -1);
    CHECK(log.contains(Level::Error, "unknown key 'cofnig'; valid keys: config,"));
    release_plugin_state();

    // A client runs no init here: the words are read when an option is given.
    CapturingLogger clog;
    const int stages = static_cast<int>(OptionId::PipelineStages);
    CHECK(hooks::option(stages, "4", 0, clog, {"cofnig=/x"}) == -1);
    CHECK(clog.contains(Level::Error, "unknown key 'cofnig'"));
    release_plugin_state();

    api.ctx = Context::Slurmd;
    CapturingLogger dlog;
    CHECK(hooks::init(api, dlog, {"cofnig=/x"}) == 0);
    CHECK(dlog.contains(Level::Error, "cofnig"));
}

TEST_CASE("hooks: user_init exports version and stages", "[hooks]") {
    FakeSpankApi api;
    CapturingLogger log;
    api.options["pipeline-stages"] = "4";
    REQUIRE(hooks::user_init(api, log, {}) == 0);
    CHECK(api.env.at("SWITCHYARD_STAGES") == "4");
    CHECK(api.env.at("SWITCHYARD_VERSION") == SWITCHYARD_VERSION_STRING);
}

TEST_CASE("hooks: user_init without --pipeline-stages exports only the version", "[hooks]") {
    FakeSpankApi api;
    CapturingLogger log;
    REQUIRE(hooks::user_init(api, log, {}) == 0);
    CHECK(api.env.count("SWITCHYARD_STAGES") == 0);
    CHECK(api.env.count("SWITCHYARD_VERSION") == 1);
}

TEST_CASE("hooks: a user's value is kept and reported", "[hooks]") {
    FakeSpankApi api;
    CapturingLogger log;
    api.options["pipeline-stages"] = "4";
    api.env["SWITCHYARD_STAGES"] = "mine";
    REQUIRE(hooks::user_init(api, log, {}) == 0);
    CHECK(api.env.at("SWITCHYARD_STAGES") == "mine");
    CHECK(log.contains(Level::Verbose, "SWITCHYARD_STAGES: kept the value set by the user"));
}

TEST_CASE("hooks: special steps (batch script, extern) get nothing", "[hooks]") {
    FakeSpankApi api;
    CapturingLogger log;
    api.options["pipeline-stages"] = "2";
    api.step = 0xfffffffbU;  // SLURM_BATCH_SCRIPT
    REQUIRE(hooks::user_init(api, log, {}) == 0);
    CHECK(api.env.empty());
}

TEST_CASE("hooks: user_init does nothing outside the remote context", "[hooks]") {
    FakeSpankApi api;
    CapturingLogger log;
    api.ctx = Context::Local;
    api.options["pipeline-stages"] = "2";
    REQUIRE(hooks::user_init(api, log, {}) == 0);
    CHECK(api.env.empty());
}

TEST_CASE("hooks: setenv failure fails the step unless on_error=warn", "[hooks]") {
    FakeSpankApi api;
    api.fail_setenv = true;
    CapturingLogger log;
    CHECK(hooks::user_init(api, log, {}) == -1);
    CHECK(log.contains(Level::Error, "spank_setenv"));
    CapturingLogger wlog;
    CHECK(hooks::user_init(api, wlog, {"on_error=warn"}) == 0);
    CHECK(wlog.contains(Level::Error, "spank_setenv"));
}

TEST_CASE("hooks: admin defaults sit under user options", "[hooks]") {
    FakeSpankApi api;
    CapturingLogger log;
    api.options["pipeline-stages"] = "abc";  // slipped past the client: refused remotely too
    CHECK(hooks::user_init(api, log, {"stage_scope=group"}) == -1);
    CHECK(log.contains(Level::Error, "--pipeline-stages: expected a whole number"));
}

TEST_CASE("hooks: option callback validates values", "[hooks]") {
    CapturingLogger log;
    const int stages = static_cast<int>(OptionId::PipelineStages);
    CHECK(hooks::option(stages, "8", 0, log) == 0);
    CHECK(hooks::option(stages, "abc", 0, log) == -1);
    CHECK(log.contains(
        Level::Error,
        "--pipeline-stages: expected a whole number of stages from 1 to 1024, got 'abc'"));
    CHECK(hooks::option(stages, nullptr, 0, log) == -1);
    CHECK(log.contains(Level::Error, "--pipeline-stages: a value is required"));
    CHECK(hooks::option(static_cast<int>(OptionId::TopoReport), nullptr, 0, log) == 0);
    CHECK(hooks::option(static_cast<int>(OptionId::StageScope), "rack", 1, log) == -1);
    CHECK(
        log.contains(Level::Error, "--stage-scope: expected one of leaf, group, any, got 'rack'"));
    CHECK(hooks::option(42, "x", 0, log) == -1);
    CHECK(log.contains(Level::Error, "unknown option number 42"));
}
