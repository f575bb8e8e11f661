// SPDX-License-Identifier: Apache-2.0
// Tests of plugstack.conf argument parsing.
#include "plugin_args.hpp"

#include "catch.hpp"

using namespace switchyard;
using namespace switchyard::spank;

TEST_CASE("plugin_args: defaults with no words", "[plugin_args]") {
    auto r = parse_plugin_args({});
    REQUIRE(r);
    CHECK(r->config == "/etc/slurm/switchyard.yaml");
    CHECK(r->on_error == OnError::Fail);
    CHECK_FALSE(r->defaults.stage_scope);
}

TEST_CASE("plugin_args: every key", "[plugin_args]") {
    auto r = parse_plugin_args({"config=/opt/sy/policy.yaml", "stage_scope=group",
                                "rank_order=topology", "nccl_env=off", "on_error=warn"});
    REQUIRE(r);
    CHECK(r->config == "/opt/sy/policy.yaml");
    CHECK(r->defaults.stage_scope == StageScope::Group);
    CHECK(r->defaults.rank_order == RankOrder::Topology);
    CHECK(r->defaults.nccl_env->kind == NcclEnvChoice::Kind::Off);
    CHECK(r->on_error == OnError::Warn);
}

TEST_CASE("plugin_args: errors name the word, the key and what was expected", "[plugin_args]") {
    struct Case {
        const char* word;
        const char* message;
    };
    const Case cases[] = {
        {"verbose", "plugstack.conf argument 'verbose': expected key=value"},
        {"conf=/x",
         "plugstack.conf argument 'conf=/x': unknown key 'conf'; valid keys: config, stage_scope, "
         "rank_order, nccl_env, on_error, step_cache"},
        {"step_cache=relative",
         "plugstack.conf argument 'step_cache=relative': expected an absolute path (%n: the "
         "node's name) or off, got 'relative'"},
        {"config=relative.yaml",
         "plugstack.conf argument 'config=relative.yaml': expected an absolute path, got "
         "'relative.yaml'"},
        {"on_error=ignore",
         "plugstack.conf argument 'on_error=ignore': expected one of fail, warn, got 'ignore'"},
        {"stage_scope=rack",
         "plugstack.conf argument 'stage_scope=rack': --stage-scope: expected one of leaf, group, "
         "any, got 'rack'"},
    };
    for (const auto& c : cases) {
        INFO(c.word);
        auto r = parse_plugin_args({c.word});
        REQUIRE_FALSE(r);
        CHECK(r.error().message() == c.message);
    }
    auto twice = parse_plugin_args({"config=/a", "config=/b"});
    REQUIRE_FALSE(twice);
    CHECK(twice.error().message() ==
          "plugstack.conf argument 'config=/b': key 'config' given twice");
}
