// SPDX-License-Identifier: Apache-2.0
// NCCL versions and version ranges (profiles' nccl_versions), which had no tests of their own.
#include "switchyard/policy/policy.hpp"

#include "catch.hpp"
#include "switchyard/health/health.hpp"
#include "switchyard/nccl/params.hpp"

using namespace switchyard::policy;
using namespace switchyard;
using namespace switchyard::health;
using namespace switchyard::nccl;

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

TEST_CASE("policy: node.cache is a path with %n, or off", "[policy]") {
    auto load = [](const std::string& node) {
        return load_policy("version: 1\nnode:\n" + node, "p.yaml");
    };
    auto dflt = load("  sysfs_root: /sys\n");
    REQUIRE(dflt.policy);
    CHECK(dflt.policy->node_cache == "/var/cache/switchyard/%n.node");
    auto set = load("  cache: /run/sy/%n.facts\n");
    REQUIRE(set.policy);
    CHECK(set.policy->node_cache == "/run/sy/%n.facts");
    for (const char* off : {"off", "false", "no"}) {
        auto o = load(std::string("  cache: ") + off + "\n");
        REQUIRE(o.policy);
        CHECK(o.policy->node_cache.empty());
    }
    auto relative = load("  cache: cache/%n\n");
    CHECK_FALSE(relative.policy);
    REQUIRE(relative.problems.size() == 1);
    CHECK_THAT(relative.problems[0].to_string(),
               Catch::Contains("node.cache: expected an absolute path (%n = node name), got "
                               "'cache/%n'"));
}

TEST_CASE("policy: placement.stripe_stages is auto or never, and reaches the planner", "[policy]") {
    auto load = [](const std::string& line) {
        return load_policy("version: 1\nplacement:\n" + line, "p.yaml");
    };
    auto dflt = load("  micro_batches: 8\n");
    REQUIRE(dflt.policy);
    CHECK_FALSE(dflt.policy->placement.stripe_stages);  // never, unless the admin asks
    CHECK_FALSE(placement::cost_params(dflt.policy->placement).stripe);
    auto never = load("  stripe_stages: never\n");
    REQUIRE(never.policy);
    CHECK_FALSE(never.policy->placement.stripe_stages);
    CHECK_FALSE(placement::cost_params(never.policy->placement).stripe);
    auto aut = load("  stripe_stages: auto\n");
    REQUIRE(aut.policy);
    CHECK(aut.policy->placement.stripe_stages);
    CHECK(placement::cost_params(aut.policy->placement).stripe);
    for (const char* bad : {"yes", "true", "[auto]"}) {
        INFO(bad);
        auto b = load(std::string("  stripe_stages: ") + bad + "\n");
        CHECK_FALSE(b.policy);
        REQUIRE(b.problems.size() == 1);
        CHECK_THAT(b.problems[0].to_string(),
                   Catch::Contains("placement.stripe_stages: expected auto or never"));
    }
}

TEST_CASE("policy: the preflight section, its defaults and its problems", "[policy]") {
    auto dflt = load_policy("version: 1\n", "p.yaml");
    REQUIRE(dflt.policy);
    const auto& d = dflt.policy->preflight;
    CHECK(d.mode == preflight::Mode::Off);
    CHECK(d.deadline_s == 60);
    CHECK(d.limits.max_latency_us == 5);
    CHECK(d.limits.min_bandwidth_share == Approx(0.9));
    CHECK(d.on_link_fault == preflight::OnLinkFault::Warn);
    CHECK(d.latency.front() == "/usr/bin/ib_write_lat");

    auto ok = load_policy(R"(version: 1
preflight:
  mode: off
  partitions: {gpu: quick, train: full}
  deadline_s: 45
  max_latency_us: 4.5
  min_bandwidth_share: 0.85
  link_rate_gbps: 400
  on_link_fault: requeue
  latency: [/opt/perftest/bin/ib_write_lat, -d, "{hca}", "{peer}"]
  all_reduce_limits:
    - {bytes: 536870912, gpus: 64, max_time_us: 10000}
)",
                          "p.yaml");
    REQUIRE(ok.problems.empty());
    const auto& p = ok.policy->preflight;
    CHECK(p.mode_for("gpu", std::nullopt) == preflight::Mode::Quick);
    CHECK(p.mode_for("train", std::nullopt) == preflight::Mode::Full);
    CHECK(p.mode_for("debug", std::nullopt) == preflight::Mode::Off);
    CHECK(p.mode_for("gpu", preflight::Mode::Off) == preflight::Mode::Off);  // the job's word
    CHECK(p.deadline_s == 45);
    CHECK(p.limits.max_latency_us == Approx(4.5));
    CHECK(p.limits.link_rate_gbps == 400);
    CHECK(p.on_link_fault == preflight::OnLinkFault::Requeue);
    CHECK(p.latency.front() == "/opt/perftest/bin/ib_write_lat");
    REQUIRE(p.all_reduce_limits.size() == 1);
    CHECK(p.all_reduce_limits[0].gpus == 64);
    CHECK(d.port == 960);
    CHECK(d.ports == 16);
    CHECK(d.command == "/usr/local/bin/switchyard");
    CHECK(d.reports == "/var/lib/switchyard/preflight");
    CHECK(d.prolog_budget_s() == 15 + 60 + 45);

    for (const auto& [yaml, want] :
         {std::pair{"preflight:\n  mode: always\n",
                    "p.yaml:3:9: preflight.mode: expected off, quick or full, got 'always'"},
          std::pair{"preflight:\n  on_link_fault: drain\n",
                    "preflight.on_link_fault: expected warn or requeue, got 'drain'"},
          std::pair{"preflight:\n  latency: [ib_write_lat, -d]\n",
                    "preflight.latency[0]: expected an absolute path"},
          std::pair{"preflight:\n  min_bandwidth_share: 1.5\n",
                    "preflight.min_bandwidth_share: expected a number above 0 and at most 1"},
          std::pair{"preflight:\n  all_reduce_limits: [{bytes: 1}]\n",
                    "expected bytes, gpus and max_time_us, all three"},
          std::pair{"preflight:\n  rounds: 3\n", "preflight.rounds: unknown key"},
          std::pair{"preflight:\n  port: 2000\n",
                    "preflight.port: expected a whole number from 1 to 1023"},
          std::pair{"preflight:\n  port: 1020\n",
                    "preflight.ports: port + ports must stay under 1024 (root's ports), got "
                    "1020 + 16"},
          std::pair{"preflight:\n  command: switchyard\n",
                    "preflight.command: expected an absolute path (the prolog runs it without "
                    "PATH), got 'switchyard'"},
          std::pair{"preflight:\n  reports: var/preflight\n",
                    "preflight.reports: expected an absolute directory"},
          std::pair{"nccl:\n  inspector: {partitions: [train]}\n",
                    "nccl.inspector.plugin: expected the Inspector library's absolute path"},
          std::pair{"nccl:\n  inspector: {plugin: libinspector.so}\n",
                    "nccl.inspector.plugin: expected an absolute path, got 'libinspector.so'"},
          std::pair{"nccl:\n  inspector: {partition: train}\n",
                    "nccl.inspector.partition: unknown key"},
          std::pair{"nccl:\n  ras_ports: 28100-80000\n",
                    "nccl.ras_ports: expected a port range such as 28100-28999 (1024-65535, "
                    "first <= last), or '' to not set NCCL_RAS_ADDR, got '28100-80000'"},
          std::pair{"nccl:\n  ras_ports: 29000-28100\n", "got '29000-28100'"},
          std::pair{"nccl:\n  ras_ports: 80\n", "got '80'"}}) {
        INFO(yaml);
        auto r = load_policy(std::string("version: 1\n") + yaml, "p.yaml");
        CHECK_FALSE(r.policy);
        REQUIRE_FALSE(r.problems.empty());
        CHECK_THAT(r.problems[0].to_string(), Catch::Contains(want));
    }
}

TEST_CASE("policy: nccl.ras_ports, a range or '' for none", "[policy]") {
    auto ports = [](const std::string& v) {
        auto r = load_policy("version: 1\nnccl:\n  ras_ports: " + v + "\n", "p.yaml");
        REQUIRE(r.policy);
        return std::pair{r.policy->nccl.ras_port_first, r.policy->nccl.ras_port_last};
    };
    CHECK(ports("30000-30099") == std::pair{30000U, 30099U});
    CHECK(ports("30000") == std::pair{30000U, 30000U});
    CHECK(ports("''") == std::pair{0U, 0U});
    auto defaults = load_policy("version: 1\n", "p.yaml");
    REQUIRE(defaults.policy);
    CHECK(defaults.policy->nccl.ras_port_first == 28100);
}

TEST_CASE("policy: health.on_error speaks the plugin's fail|warn", "[policy]") {
    auto load = [](const std::string& v) {
        return load_policy("version: 1\nhealth:\n  on_error: " + v + "\n", "p.yaml");
    };
    REQUIRE(load("fail").policy);
    CHECK(load("fail").policy->health.on_error == OnError::Fail);
    CHECK(load("warn").policy->health.on_error == OnError::Warn);
    CHECK(load_policy("version: 1\nhealth: {}\n", "p.yaml").policy->health.on_error ==
          OnError::Warn);  // the gate's own errors pass the node by default
    for (const auto& [old, hint] :
         {std::pair{"open", " (open is now warn)"}, std::pair{"closed", " (closed is now fail)"},
          std::pair{"maybe", ""}}) {
        auto r = load(old);
        CHECK_FALSE(r.policy);
        REQUIRE(r.problems.size() == 1);
        CHECK(r.problems[0].to_string() == std::string("p.yaml:3:13: health.on_error: expected "
                                                       "one of fail, warn, got '") +
                                               old + "'" + hint);
    }
}

TEST_CASE("policy: the health checks of compute ports use nccl.compute_hca unless they name one",
          "[policy]") {
    const auto loaded = load_policy(
        "version: 1\nnccl:\n  compute_hca: \"mlx5_[0-3]\"\nhealth:\n  rdma_ports: {count: 4}\n"
        "  link_errors: {max_growth: 2, hca: \"mlx5_[01]\"}\n  sets:\n"
        "    - {name: a, match: {partition: a}, rdma_ports: {count: 2}}\n",
        "p.yaml");
    REQUIRE(loaded.policy);
    const auto& h = loaded.policy->health.checks;
    const auto& sets = loaded.policy->health.sets;
    CHECK(h.rdma_ports->hca.text() == "mlx5_[0-3]");
    CHECK(h.rdma_ports->hca.matches("mlx5_3"));
    CHECK_FALSE(h.rdma_ports->hca.matches("mlx5_4"));  // the storage HCA is not a compute port
    CHECK(h.link_errors->hca.text() == "mlx5_[01]");   // its own
    REQUIRE(sets.size() == 1);
    CHECK(sets[0].checks.rdma_ports->hca.text() == "mlx5_[0-3]");
    CHECK(sets[0].checks.rdma_ports->count == 2);
    // Without nccl.compute_hca every HCA counts, as before.
    const auto all = load_policy("version: 1\nhealth:\n  rdma_ports: {count: 4}\n", "p.yaml");
    REQUIRE(all.policy);
    CHECK(all.policy->health.checks.rdma_ports->hca.empty());
}

TEST_CASE("policy: every check of the gate's table is read by the loader, in sections and sets",
          "[policy]") {
    // A value no check accepts under each key the gate runs: the loader must read the key (a
    // problem naming it), not merely allow it.
    for (const auto key : health_check_keys()) {
        const std::string k(key);
        for (const auto& [yaml, where] :
             {std::pair("version: 1\nhealth:\n  " + k + ": [[]]\n", "health." + k),
              std::pair("version: 1\nhealth:\n  sets:\n    - name: a\n      match: {partition: "
                        "a}\n      " +
                            k + ": [[]]\n",
                        "health.sets[0]." + k)}) {
            const auto loaded = load_policy(yaml, "p.yaml");
            INFO(yaml);
            CHECK_FALSE(loaded.policy);
            REQUIRE_FALSE(loaded.problems.empty());
            CHECK(loaded.problems[0].key.rfind(where, 0) == 0);
        }
    }
}

TEST_CASE("policy: Pattern::compile bounds every pattern a user or admin gives", "[policy]") {
    CHECK(Pattern::compile("mlx5_[0-7]"));
    CHECK(Pattern::compile("")->empty());
    CHECK(Pattern::compile("a{77777777777777777777}").error().message() ==
          "repetition {77777777777777777777} is above 1000 in 'a{77777777777777777777}'");
    // \\ is a backslash, not an escape: the digits after it are plain characters.
    CHECK(Pattern::compile(R"((a)\1)"));
    CHECK(Pattern::compile(R"(x\\11111111111111111111)"));
    CHECK(Pattern::compile(R"(x\\\11111111111111111111)").error().message() ==
          R"(back-reference \11111111111111111111 has more than 3 digits in )"
          R"('x\\\11111111111111111111')");
    // \c takes the next character, a backslash too: what follows is a back-reference (found by
    // the policy fuzzer after 1 M executions; std::regex overflowed under UBSan).
    CHECK(Pattern::compile(R"(\c\\11111111111111111111)").error().message() ==
          R"(back-reference \11111111111111111111 has more than 3 digits in )"
          R"('\c\\11111111111111111111')");
    CHECK(Pattern::compile(R"((a)\c\\1)"));  // \c\ then \1: up to three digits are fine
    CHECK(Pattern::compile(std::string(300, 'a')).error().message() ==
          "expected a regular expression of at most 256 characters, got 300");
    CHECK_THAT(Pattern::compile("mlx5_[").error().message(),
               Catch::StartsWith("expected a regular expression, got 'mlx5_[' ("));
}

TEST_CASE("policy: NCCL's own table of variables per release", "[policy][nccl-params]") {
    // Defaults as NCCL's source declares them (NCCL_PARAM), per release.
    CHECK(nccl_param("NCCL_IB_TIMEOUT", v("2.21"))->default_value == "18");
    CHECK(nccl_param("NCCL_IB_TIMEOUT", v("2.23.4"))->default_value == "20");
    CHECK(nccl_param("NCCL_NET_GDR_C2C", v("2.26"))->default_value == "0");
    CHECK(nccl_param("NCCL_NET_GDR_C2C", v("2.27"))->default_value == "1");
    CHECK(nccl_param("NCCL_NET_GDR_C2C", v("2.25")) == nullptr);  // not read before 2.26
    CHECK(nccl_param("NCCL_IB_TIMEOUT", v("3.0")) == nullptr);    // outside the table
    // Misspelt: refused with the nearest name.
    CHECK(*nccl_name_problem("NCCL_IB_TIMOUT", v("2.21"), {}) ==
          "NCCL reads no variable NCCL_IB_TIMOUT (releases 2.18 to 2.30); did you mean "
          "NCCL_IB_TIMEOUT?");
    // Three edits away is still a suggestion; four (or a name four longer) is none, and a long
    // name is answered without comparing it letter by letter.
    CHECK(nccl_name_problem("NCCL_IB_TIMEOUTXYZ", v("2.21"), {})->ends_with("NCCL_IB_TIMEOUT?"));
    CHECK(nccl_name_problem("NCCL_IB_TIMEOUTWXYZ", v("2.21"), {})
              ->ends_with("(releases 2.18 to 2.30)"));
    CHECK(nccl_name_problem("NCCL_" + std::string(100000, 'X'), v("2.21"), {})
              ->ends_with("(releases 2.18 to 2.30)"));
    // Retired before the configured release: refused; for an older release it is fine.
    CHECK(*nccl_name_problem("NCCL_AGG_CHANNEL_SIZE", v("2.21"), {}) ==
          "NCCL_AGG_CHANNEL_SIZE is not read by NCCL 2.21 or later (the last release that read "
          "it is 2.19)");
    CHECK_FALSE(nccl_name_problem("NCCL_AGG_CHANNEL_SIZE", v("2.18"), {}));
    // A variable that only newer releases read: fine unless the profile is for older ones.
    CHECK_FALSE(nccl_name_problem("NCCL_NET_GDR_C2C", v("2.21"), {}));
    CHECK(nccl_name_problem("NCCL_NET_GDR_C2C", v("2.21"), *parse_version_range("<2.26")));
    CHECK_FALSE(nccl_name_problem("NCCL_NET_GDR_C2C", v("2.21"), *parse_version_range(">=2.27")));
}

TEST_CASE("policy: a profile setting a variable its NCCL releases do not read is refused",
          "[policy][nccl-params]") {
    const auto loaded = load_policy(
        "version: 1\nnccl:\n  min_version: \"2.21\"\n  profiles:\n"
        "    - {name: a, set: {NCCL_IB_TIMOUT: \"22\"}}\n"
        "    - {name: b, nccl_versions: \"<2.26\", set: {NCCL_NET_GDR_C2C: \"1\"}}\n"
        "    - {name: c, nccl_versions: \">=2.27\", set: {NCCL_NET_GDR_C2C: \"1\"}}\n",
        "p.yaml");
    REQUIRE(loaded.problems.size() == 2);
    CHECK(loaded.problems[0].to_string() ==
          "p.yaml:5:23: nccl.profiles[0].set.NCCL_IB_TIMOUT: NCCL reads no variable "
          "NCCL_IB_TIMOUT (releases 2.18 to 2.30); did you mean NCCL_IB_TIMEOUT?");
    CHECK_THAT(loaded.problems[1].to_string(),
               Catch::Contains("nccl.profiles[1].set.NCCL_NET_GDR_C2C: NCCL_NET_GDR_C2C is not "
                               "read by NCCL 2.21 or later in the profile's nccl_versions"));
}
