// SPDX-License-Identifier: Apache-2.0
// The stage plan in the plugin: per-task stage and rank variables, errors that fail tasks.
#include "plan_hooks.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "catch.hpp"
#include "fake_spank_api.hpp"
#include "hooks.hpp"
#include "plugin_state.hpp"

using namespace switchyard;
using namespace switchyard::spank;
using switchyard::spank::test::FakeSpankApi;

namespace {

/// user_init on `node` of a 4-node step without a fabric map (plan = name order), 2 tasks/node.
FakeSpankApi step(const std::string& node, std::uint32_t task) {
    FakeSpankApi api;
    api.node = node;
    api.tasks = 2;
    api.task_id = task;
    api.node_idx = node == "n1" ? 0 : 1;
    api.env["SLURM_STEP_NODELIST"] = "n[1-4]";
    api.env["SLURM_STEP_TASKS_PER_NODE"] = "2(x4)";
    api.options["pipeline-stages"] = "2";
    api.options["nccl-env"] = "off";
    return api;
}

}  // namespace

TEST_CASE("plan hooks: stage and rank variables follow the plan", "[plan-hooks]") {
    auto api = step("n3", 1);
    api.options["rank-order"] = "topology";
    CapturingLogger log;
    REQUIRE(hooks::user_init(api, log, {}) == 0);
    REQUIRE(hooks::task_init(api, log, {}) == 0);
    CHECK(api.env.at("SWITCHYARD_STAGES") == "2");
    CHECK(api.env.at("SWITCHYARD_STAGE") == "1");       // n3 is the first node of stage 1
    CHECK(api.env.at("SWITCHYARD_STAGE_RANK") == "1");  // its second task
    CHECK(api.env.at("SWITCHYARD_RANK") == "5");        // node 2 of the order × 2 tasks + 1
    CHECK(api.env.at("SWITCHYARD_SU") == "unknown");
    CHECK(api.env.at("RANK") == "5");
    CHECK(api.env.at("WORLD_SIZE") == "8");
    CHECK(api.env.at("LOCAL_RANK") == "1");
    CHECK(api.env.at("LOCAL_WORLD_SIZE") == "2");
    CHECK(api.env.at("MASTER_ADDR") == "n1");
    CHECK(api.env.at("MASTER_PORT") == "21234");
    release_plugin_state();
}

TEST_CASE("plan hooks: without --rank-order=topology torch variables are left alone",
          "[plan-hooks]") {
    auto api = step("n2", 0);
    api.env["RANK"] = "mine";
    CapturingLogger log;
    REQUIRE(hooks::user_init(api, log, {}) == 0);
    REQUIRE(hooks::task_init(api, log, {}) == 0);
    CHECK(api.env.at("RANK") == "mine");
    CHECK(api.env.count("WORLD_SIZE") == 0);
    CHECK(api.env.at("SWITCHYARD_RANK") == "2");
    release_plugin_state();
}

TEST_CASE("plan hooks: Slurm's ranks come from the task's global id, not the node index",
          "[plan-hooks]") {
    // Slurm 26.05 numbers tasks in topology order: n3 (node index 2 in name order) may hold
    // ranks 0 and 1. The stage is the block of Slurm's ranks the task is in.
    for (const auto& [global, stage, stage_rank] :
         {std::tuple{0U, "0", "0"}, std::tuple{3U, "0", "3"}, std::tuple{6U, "1", "2"}}) {
        auto api = step("n3", 1);
        api.node_idx = 2;
        api.global_id = global;
        api.total_tasks = 8;
        CapturingLogger log;
        REQUIRE(hooks::user_init(api, log, {}) == 0);
        REQUIRE(hooks::task_init(api, log, {}) == 0);
        CHECK(api.env.at("SWITCHYARD_RANK") == std::to_string(global));
        CHECK(api.env.at("SWITCHYARD_STAGE") == stage);
        CHECK(api.env.at("SWITCHYARD_STAGE_RANK") == stage_rank);
        CHECK(api.env.count("RANK") == 0);
        release_plugin_state();
    }
}

TEST_CASE("plan hooks: with --rank-order=topology the plan numbers the ranks, whatever Slurm's",
          "[plan-hooks]") {
    auto api = step("n3", 1);
    api.options["rank-order"] = "topology";
    api.global_id = 0;  // Slurm's first task: ignored, RANK follows the plan
    api.total_tasks = 8;
    CapturingLogger log;
    REQUIRE(hooks::user_init(api, log, {}) == 0);
    REQUIRE(hooks::task_init(api, log, {}) == 0);
    CHECK(api.env.at("RANK") == "5");
    CHECK(api.env.at("SWITCHYARD_RANK") == "5");
    CHECK(api.env.at("SWITCHYARD_STAGE") == "1");
    release_plugin_state();
}

TEST_CASE("plan hooks: a global id beyond the step's tasks fails the task", "[plan-hooks]") {
    auto api = step("n3", 1);
    api.total_tasks = 8;
    api.global_id = 8;
    CapturingLogger log;
    REQUIRE(hooks::user_init(api, log, {}) == 0);
    CHECK(hooks::task_init(api, log, {}) == -1);
    CHECK(log.contains(Level::Error, "task 8 on n3 is beyond the step's 8 tasks"));
    release_plugin_state();
}

TEST_CASE("plan hooks: node 0 prints the report when asked", "[plan-hooks]") {
    auto api = step("n1", 0);
    api.options["topo-report"] = "";
    CapturingLogger log;
    REQUIRE(hooks::user_init(api, log, {}) == 0);
    CHECK(log.contains(Level::Notice, "stage plan: 2 stages x 2 nodes"));
    CHECK(log.contains(Level::Warning, "no fabric map"));
    release_plugin_state();
}

TEST_CASE("plan hooks: a node count the stages do not divide fails every task", "[plan-hooks]") {
    auto api = step("n1", 0);
    api.options["pipeline-stages"] = "3";
    CapturingLogger log;
    REQUIRE(hooks::user_init(api, log, {}) == 0);
    CHECK(hooks::task_init(api, log, {}) == -1);
    CHECK(log.contains(Level::Error,
                       "--pipeline-stages=3: 4 nodes do not split into 3 equal stages"));
    release_plugin_state();
}

TEST_CASE("plan hooks: uneven tasks per node are refused", "[plan-hooks]") {
    auto api = step("n1", 0);
    api.env["SLURM_STEP_TASKS_PER_NODE"] = "2(x3),1";
    CapturingLogger log;
    REQUIRE(hooks::user_init(api, log, {}) == 0);
    CHECK(hooks::task_init(api, log, {}) == -1);
    CHECK(log.contains(Level::Error, "same number of tasks on every node (got 2(x3),1)"));
    release_plugin_state();
}

TEST_CASE("plan hooks: the tasks-per-node layout is read by hand, hostile ones refused",
          "[plan-hooks]") {
    // It comes from the client's environment into slurmstepd: std::regex overflowed the stack
    // on 100k digits (a signal guard() cannot catch).
    struct Case {
        std::string layout;
        bool uniform;
    };
    const Case cases[] = {
        {"2(x4)", true},
        {"2", true},
        {"2(x4),1", false},
        {"2(x)", false},
        {"(x4)", false},
        {"2(y4)", false},
        {"2(x4", false},
        {"", false},
        {std::string(100000, '7'), false},
        {"2(x" + std::string(100000, '4') + ")", false},
    };
    for (const auto& c : cases) {
        INFO(c.layout.substr(0, 40));
        auto api = step("n1", 0);
        api.env["SLURM_STEP_TASKS_PER_NODE"] = c.layout;
        CapturingLogger log;
        REQUIRE(hooks::user_init(api, log, {}) == 0);
        CHECK(hooks::task_init(api, log, {}) == (c.uniform ? 0 : -1));
        if (!c.uniform && c.layout.size() > 64) {
            CHECK(log.contains(Level::Error, "characters)"));
        }
        release_plugin_state();
    }
}

TEST_CASE("plan hooks: Slurm's leaf from SLURM_TOPOLOGY_ADDR", "[plan-hooks]") {
    struct Case {
        const char* addr;
        const char* pattern;
        std::optional<std::string> leaf;
    };
    const Case cases[] = {
        {"b3.node009", "block.node", "b3"},                           // topology/block
        {"root.g1.su2.node009", "switch.switch.switch.node", "su2"},  // topology/tree
        {"su2.node009.cluster.local", "switch.node", "su2"},          // a node name with dots
        {"node009", "node", std::nullopt},                            // no topology
        {"b3", "block.node", std::nullopt},                           // no node part
        {"b3.", "block.node", std::nullopt},
        {".node009", "block.node", std::nullopt},
        {"b3.node009", "block.host", std::nullopt},            // not a pattern we know
        {"root.node009", "switch.switch.node", std::nullopt},  // fewer levels than the pattern
    };
    for (const auto& c : cases) {
        INFO(c.addr << " / " << c.pattern);
        CHECK(slurm_leaf(c.addr, c.pattern) == c.leaf);
    }
}

TEST_CASE("plan hooks: without a map entry the SU is Slurm's block", "[plan-hooks]") {
    auto api = step("n3", 0);
    api.env["SLURM_TOPOLOGY_ADDR"] = "b2.n3";
    api.env["SLURM_TOPOLOGY_ADDR_PATTERN"] = "block.node";
    CapturingLogger log;
    REQUIRE(hooks::user_init(api, log, {}) == 0);
    REQUIRE(hooks::task_init(api, log, {}) == 0);
    CHECK(api.env.at("SWITCHYARD_SU") == "b2");
    CHECK(api.env.at("SWITCHYARD_GROUP") == "unknown");
    release_plugin_state();
}

TEST_CASE("plan hooks: the map's SU is kept and a different Slurm leaf is named", "[plan-hooks]") {
    // dfp16's map puts node001 in g1-leaf1 (tests/golden/discover/dfp16).
    const auto dir = std::filesystem::temp_directory_path() /
                     ("switchyard-plan-hooks-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto policy = (dir / "switchyard.yaml").string();
    std::ofstream(policy) << "version: 1\nfabric:\n  map: " SWITCHYARD_SOURCE_DIR
                             "/tests/golden/discover/dfp16/fabric.map.expected\n";
    const std::string config = "config=" + policy;
    for (const auto& [addr, warned] :
         {std::pair{"g1-leaf1.node001", false}, std::pair{"b7.node001", true}}) {
        INFO(addr);
        auto api = step("node001", 0);
        api.env["SLURM_STEP_NODELIST"] = "node[001-004]";
        api.env["SLURM_STEP_TASKS_PER_NODE"] = "2(x4)";
        api.env["SLURM_TOPOLOGY_ADDR"] = addr;
        api.env["SLURM_TOPOLOGY_ADDR_PATTERN"] = "block.node";
        CapturingLogger log;
        REQUIRE(hooks::user_init(api, log, {config}) == 0);
        REQUIRE(hooks::task_init(api, log, {config}) == 0);
        CHECK(api.env.at("SWITCHYARD_SU") == "g1-leaf1");
        CHECK(api.env.at("SWITCHYARD_GROUP") == "g1");
        CHECK(log.contains(Level::Warning,
                           "Slurm places node001 under 'b7' (SLURM_TOPOLOGY_ADDR=b7.node001) but "
                           "the fabric map puts it in SU 'g1-leaf1'") == warned);
        release_plugin_state();
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("plan hooks: the step reads its hosts from the map's index, a stale index is refused",
          "[plan-hooks]") {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("switchyard-plan-index-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto golden =
        std::filesystem::path(SWITCHYARD_SOURCE_DIR) / "tests/golden/discover/dfp16";
    const auto map = dir / "fabric.map";
    const auto index = dir / "fabric.map.index";
    std::filesystem::copy_file(golden / "fabric.map.index.expected", index);
    // The map's comment changed without its digest: a full read refuses it, so a step that
    // succeeds has read the index (which checks only the map's first line and size).
    std::ifstream in(golden / "fabric.map.expected");
    std::string text((std::istreambuf_iterator<char>(in)), {});
    text.replace(text.find("# written"), 9, "# Written");
    std::ofstream(map) << text;
    const auto policy = (dir / "switchyard.yaml").string();
    std::ofstream(policy) << "version: 1\nfabric:\n  map: " << map.string() << "\n";
    const std::string config = "config=" + policy;
    auto run = [&](CapturingLogger& log) {
        auto api = step("node005", 0);
        api.env["SLURM_STEP_NODELIST"] = "node[005-008]";
        api.env["SLURM_STEP_TASKS_PER_NODE"] = "2(x4)";
        REQUIRE(hooks::user_init(api, log, {config}) == 0);
        REQUIRE(hooks::task_init(api, log, {config}) == 0);
        release_plugin_state();
        return api.env.count("SWITCHYARD_SU") != 0 ? api.env.at("SWITCHYARD_SU") : "";
    };
    {
        CapturingLogger log;
        CHECK(run(log) == "g1-leaf2");
        CHECK_FALSE(log.contains(Level::Info, "fabric map"));
        CHECK_FALSE(log.contains(Level::Warning, "fabric map"));
    }
    {  // an index made from another map: refused by name, and the (edited) map is read instead
        std::ofstream(map, std::ios::app) << "# one more line\n";
        CapturingLogger log;
        run(log);
        CHECK(log.contains(Level::Info, "fabric map: index not used, the map is read instead: " +
                                            index.string() + " is stale"));
        CHECK(log.contains(Level::Warning, "does not match the digest on its first line"));
    }
    std::filesystem::remove_all(dir);
}
