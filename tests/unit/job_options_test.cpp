// SPDX-License-Identifier: Apache-2.0
// Tests of the per-job option table and value validation.
#include "switchyard/common/job_options.hpp"

#include <set>

#include "catch.hpp"

using namespace switchyard;

TEST_CASE("job_options: the seven options of the design, with unique names and vals",
          "[job_options]") {
    std::set<std::string_view> names;
    std::set<int> vals;
    for (const auto& s : kJobOptions) {
        names.insert(s.name);
        vals.insert(static_cast<int>(s.id));
        CHECK(option_from_val(static_cast<int>(s.id)) == s.id);
        CHECK(option_spec(s.id).name == s.name);
        CHECK(s.has_arg == !s.arginfo.empty());
    }
    CHECK(names == std::set<std::string_view>{"pipeline-stages", "stage-scope", "rank-order",
                                              "nccl-env", "topo-report", "nvl-group", "preflight"});
    CHECK(vals.size() == 7);
    CHECK_FALSE(option_from_val(0));
    CHECK_FALSE(option_from_val(99));
}

TEST_CASE("job_options: --preflight alone is quick, then full or off, nothing else",
          "[job_options]") {
    CHECK(*parse_preflight("") == "quick");
    CHECK(*parse_preflight("quick") == "quick");
    CHECK(*parse_preflight("(null)") == "quick");  // a bare --preflight, as slurmd passes it on
    CHECK(*parse_preflight("full") == "full");
    CHECK(*parse_preflight("off") == "off");
    CHECK(option_spec(OptionId::Preflight).arg_optional);
    for (const auto* bad : {"Quick", "yes", "1", " full", "quick,full"}) {
        auto r = parse_preflight(bad);
        REQUIRE_FALSE(r);
        CHECK(r.error().message() ==
              std::string("--preflight: expected quick, full or off, got '") + bad + "'");
    }
    JobOptions o;
    REQUIRE(apply_option(o, OptionId::Preflight, ""));
    CHECK(o.preflight == "quick");
    CHECK_FALSE(apply_option(o, OptionId::Preflight, "always"));
    CHECK(o.preflight == "quick");
}

TEST_CASE("job_options: an NVLink group is 1..4096 nodes", "[job_options]") {
    CHECK(*parse_nvl_group("18") == 18U);
    CHECK(*parse_nvl_group("1") == 1U);
    CHECK(*parse_nvl_group("4096") == 4096U);
    for (const auto* bad : {"0", "4097", "-1", "18x", "", " 4"}) {
        auto r = parse_nvl_group(bad);
        REQUIRE_FALSE(r);
        CHECK(r.error().message() == std::string("--nvl-group: expected a whole number of nodes "
                                                 "from 1 to 4096, got '") +
                                         bad + "'");
    }
    JobOptions o;
    REQUIRE(apply_option(o, OptionId::NvlGroup, "4"));
    CHECK(o.nvl_group == 4U);
}

TEST_CASE("job_options: pipeline stages accept 1..1024 only", "[job_options]") {
    CHECK(*parse_pipeline_stages("1") == 1U);
    CHECK(*parse_pipeline_stages("4") == 4U);
    CHECK(*parse_pipeline_stages("1024") == 1024U);
    for (const char* bad :
         {"0", "1025", "abc", "-2", "2.5", "", " 4", "4x", "99999999999999999999"}) {
        INFO(bad);
        auto r = parse_pipeline_stages(bad);
        REQUIRE_FALSE(r);
        CHECK(r.error().message() ==
              std::string("--pipeline-stages: expected a whole number of stages from 1 to 1024, "
                          "got '") +
                  bad + "'");
    }
}

TEST_CASE("job_options: enumerated values list their choices", "[job_options]") {
    CHECK(*parse_stage_scope("leaf") == StageScope::Leaf);
    CHECK(*parse_stage_scope("group") == StageScope::Group);
    CHECK(*parse_stage_scope("any") == StageScope::Any);
    CHECK(parse_stage_scope("Leaf").error().message() ==
          "--stage-scope: expected one of leaf, group, any, got 'Leaf'");
    CHECK(*parse_rank_order("topology") == RankOrder::Topology);
    CHECK(*parse_rank_order("slurm") == RankOrder::Slurm);
    CHECK(parse_rank_order("megatron").error().message() ==
          "--rank-order: expected one of topology, slurm, got 'megatron'");
}

TEST_CASE("job_options: nccl-env takes auto, off or a profile name", "[job_options]") {
    CHECK(parse_nccl_env("auto")->kind == NcclEnvChoice::Kind::Auto);
    CHECK(parse_nccl_env("off")->kind == NcclEnvChoice::Kind::Off);
    auto p = parse_nccl_env("h100-ndr.v2_debug");
    REQUIRE(p);
    CHECK(p->kind == NcclEnvChoice::Kind::Profile);
    CHECK(p->profile == "h100-ndr.v2_debug");
    CHECK(to_string(*p) == "h100-ndr.v2_debug");
    for (const char* bad : {"", "Debug", "-x", "a b", "a/b", "x;rm"}) {
        INFO(bad);
        auto r = parse_nccl_env(bad);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message(), Catch::StartsWith("--nccl-env: expected auto, off, or"));
    }
    CHECK_FALSE(parse_nccl_env(std::string(65, 'a')));
}

TEST_CASE("job_options: apply_option fills the right field", "[job_options]") {
    JobOptions o;
    REQUIRE(apply_option(o, OptionId::PipelineStages, "8"));
    REQUIRE(apply_option(o, OptionId::StageScope, "group"));
    REQUIRE(apply_option(o, OptionId::RankOrder, "topology"));
    REQUIRE(apply_option(o, OptionId::NcclEnv, "off"));
    REQUIRE(apply_option(o, OptionId::TopoReport, ""));
    CHECK(o.pipeline_stages == 8U);
    CHECK(o.stage_scope == StageScope::Group);
    CHECK(o.rank_order == RankOrder::Topology);
    CHECK(o.nccl_env == NcclEnvChoice{NcclEnvChoice::Kind::Off, {}});
    CHECK(o.topo_report);
    auto bad = apply_option(o, OptionId::PipelineStages, "zero");
    REQUIRE_FALSE(bad);
    CHECK(o.pipeline_stages == 8U);  // a rejected value leaves the previous one
}
