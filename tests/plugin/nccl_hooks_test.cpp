// SPDX-License-Identifier: Apache-2.0
// The plugin's NCCL part against FakeSpankApi, a policy file and a fake sysfs tree.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "catch.hpp"
#include "fake_spank_api.hpp"
#include "fake_sysfs.hpp"
#include "health_gate.hpp"
#include "hooks.hpp"
#include "plugin_state.hpp"
#include "step_cache.hpp"
#include "switchyard/policy/loaders.hpp"

using namespace switchyard;
using namespace switchyard::spank;
using switchyard::spank::test::FakeSpankApi;
using switchyard::test::FakeSysfs;

namespace {

/// node001: mlx5_0 ACTIVE, mlx5_1 DOWN/Polling (compute), mlx5_2 ACTIVE (storage).
struct NcclFixture {
    FakeSysfs fs;
    std::string policy_path;
    NcclFixture() {
        const auto node = std::string("nodes/node001/sys");
        for (int i = 0; i < 3; ++i) {
            const auto nic = fs.pci(node + "/devices/pci0000:00/0000:00:0" + std::to_string(i + 1) +
                                        ".0/0000:0" + std::to_string(i + 1) + ":00.0",
                                    "0x15b3", "0x1021", "0x020700", 0);
            FakeSysfs::Port p;
            if (i == 1) {
                p.state = "1: DOWN";
                p.phys_state = "2: Polling";
            }
            fs.port(fs.rdma("mlx5_" + std::to_string(i), nic, "guid"), 1, p);
        }
        policy_path = (fs.root() / "switchyard.yaml").string();
        config_word = "config=" + policy_path;
        std::ofstream(policy_path)
            << "version: 1\nnode:\n  sysfs_root: " << fs.root().string()
            << "\nnccl:\n  compute_hca: \"mlx5_[0-1]\"\n"
               "  profiles:\n    - name: debug\n      user_selectable: true\n"
               "      set: {NCCL_DEBUG: INFO}\n    - name: site\n      set: {NCCL_IB_SL: \"1\"}\n";
    }
    std::string config_word;
};

}  // namespace

TEST_CASE("nccl hooks: NCCL_IB_HCA holds the ACTIVE compute ports of this node", "[nccl-hooks]") {
    NcclFixture fx;
    FakeSpankApi api;
    CapturingLogger log;
    REQUIRE(hooks::user_init(api, log, {fx.config_word}) == 0);
    CHECK(api.env.at("NCCL_IB_HCA") == "=mlx5_0:1");  // mlx5_1 is down, mlx5_2 is storage
    CHECK_THAT(api.env.at("SWITCHYARD_NCCL_SET"), Catch::Contains("NCCL_IB_HCA"));
    CHECK(api.env.at("NCCL_DEBUG") == "WARN");
    CHECK(plugin_state().node.has_value());
    release_plugin_state();
}

TEST_CASE("nccl hooks: a user's value wins and is reported", "[nccl-hooks]") {
    NcclFixture fx;
    FakeSpankApi api;
    api.env["NCCL_IB_HCA"] = "mine";
    CapturingLogger log;
    REQUIRE(hooks::user_init(api, log, {fx.config_word}) == 0);
    CHECK(api.env.at("NCCL_IB_HCA") == "mine");
    CHECK(log.contains(Level::Warning,
                       "NCCL_IB_HCA: your value is kept; switchyard would set '=mlx5_0:1'"));
    CHECK_THAT(api.env.at("SWITCHYARD_NCCL_SET"), !Catch::Contains("NCCL_IB_HCA"));
    release_plugin_state();
}

TEST_CASE("nccl hooks: --nccl-env=off sets nothing, a profile adds its variables", "[nccl-hooks]") {
    NcclFixture fx;
    FakeSpankApi off;
    off.options["nccl-env"] = "off";
    CapturingLogger log;
    REQUIRE(hooks::user_init(off, log, {fx.config_word}) == 0);
    CHECK(off.env.count("NCCL_IB_HCA") == 0);
    CHECK(off.env.count("SWITCHYARD_NCCL_SET") == 0);
    FakeSpankApi debug;
    debug.options["nccl-env"] = "debug";
    REQUIRE(hooks::user_init(debug, log, {fx.config_word}) == 0);
    CHECK(debug.env.at("NCCL_DEBUG") == "INFO");
    release_plugin_state();
}

TEST_CASE("nccl hooks: obsolete user variables are warned about", "[nccl-hooks]") {
    NcclFixture fx;
    FakeSpankApi api;
    api.env["NCCL_IB_CUDA_SUPPORT"] = "1";
    CapturingLogger log;
    REQUIRE(hooks::user_init(api, log, {fx.config_word}) == 0);
    CHECK(log.contains(Level::Warning,
                       "NCCL_IB_CUDA_SUPPORT=1 has no effect: removed in NCCL 2.4.0"));
    release_plugin_state();
}

TEST_CASE("nccl hooks: unknown or private profiles are refused in the client", "[nccl-hooks]") {
    NcclFixture fx;
    CapturingLogger log;
    const int val = static_cast<int>(OptionId::NcclEnv);
    // A client: no init ran in the step module; the plugstack words give config=.
    CHECK(hooks::option(val, "debug", 0, log, {fx.config_word}) == 0);
    CHECK(hooks::option(val, "nosuch", 0, log) == -1);
    CHECK(log.contains(Level::Error,
                       "--nccl-env: unknown profile 'nosuch'; allowed: auto, off, debug"));
    CHECK(hooks::option(val, "site", 0, log) == -1);
    CHECK(log.contains(
        Level::Error,
        "--nccl-env: profile 'site' is not user-selectable; allowed: auto, off, debug"));
    release_plugin_state();
}

TEST_CASE("nccl hooks: a named policy that is missing fails the step, naming it", "[nccl-hooks]") {
    FakeSpankApi api;
    CapturingLogger log;
    CHECK(hooks::user_init(api, log, {"config=/nonexistent/switchyard.yaml"}) == -1);
    CHECK(log.contains(Level::Error, "policy /nonexistent/switchyard.yaml: cannot read"));
    CHECK(hooks::user_init(api, log, {"config=/nonexistent/switchyard.yaml", "on_error=warn"}) ==
          0);
    release_plugin_state();
}

TEST_CASE("nccl hooks: task_init sets NCCL_IGNORE_CPU_AFFINITY when the task is far from its GPUs",
          "[nccl-hooks]") {
    FakeSpankApi api;
    CapturingLogger log;
    node::NodeTopology node;
    node.numa = {{0, "0-3"}, {1, "4-7"}};
    node::Gpu g;
    g.place.numa = 1;
    node.gpus.push_back(g);
    plugin_state().node = node;
    api.cpus = {0, 1};
    api.env["SWITCHYARD_NCCL_SET"] = "NCCL_IB_HCA";
    REQUIRE(hooks::task_init(api, log, {}) == 0);
    CHECK(api.env.at("NCCL_IGNORE_CPU_AFFINITY") == "1");
    CHECK(api.env.at("SWITCHYARD_NCCL_SET") == "NCCL_IB_HCA,NCCL_IGNORE_CPU_AFFINITY");
    FakeSpankApi near;
    near.cpus = {5};
    REQUIRE(hooks::task_init(near, log, {}) == 0);
    CHECK(near.env.count("NCCL_IGNORE_CPU_AFFINITY") == 0);
    release_plugin_state();
}

TEST_CASE("nccl hooks: a job holding some of a node's GPUs: NVLS off, its own RAS port",
          "[nccl-hooks]") {
    // The plugin never marked a job as sharing its node, so R10 fired only from the CLI.
    NcclFixture fx;
    const auto node = std::string("nodes/node001/sys");
    for (int g = 0; g < 4; ++g) {
        fx.fs.pci(node + "/devices/pci0000:10/0000:10:0" + std::to_string(g + 1) + ".0/0000:1" +
                      std::to_string(g + 1) + ":00.0",
                  "0x10de", "0x2330", "0x030200", 0);
    }
    {
        FakeSpankApi api;
        CapturingLogger log;
        api.env["SLURM_JOB_GPUS"] = "0,1";
        api.job = 1234;
        REQUIRE(hooks::init(api, log, {fx.config_word}) == 0);
        REQUIRE(hooks::user_init(api, log, {fx.config_word}) == 0);
        REQUIRE(api.env.count("NCCL_NVLS_ENABLE") == 1);
        CHECK(api.env.at("NCCL_NVLS_ENABLE") == "0");
        // R19: the job's own RAS port (28100 + 1234 % 900); the step, its own, is not cached.
        REQUIRE(api.env.count("NCCL_RAS_ADDR") == 1);
        CHECK(api.env.at("NCCL_RAS_ADDR") == "localhost:28434");
        CHECK(plugin_state().cache_entry.empty());
        release_plugin_state();
    }
    {
        FakeSpankApi api;  // all four GPUs: the node is the job's
        CapturingLogger log;
        api.env["SLURM_JOB_GPUS"] = "0,1,2,3";
        api.job = 1234;
        REQUIRE(hooks::init(api, log, {fx.config_word}) == 0);
        REQUIRE(hooks::user_init(api, log, {fx.config_word}) == 0);
        CHECK(api.env.count("NCCL_NVLS_ENABLE") == 0);
        CHECK(api.env.count("NCCL_RAS_ADDR") == 0);
        CHECK_FALSE(plugin_state().cache_entry.empty());  // the job's id was not read
        release_plugin_state();
    }
}

TEST_CASE("nccl hooks: a step's init, still root, makes the node cache fresh for user_init",
          "[nccl-hooks]") {
    // There is no job prolog in this module (slurmd would run one per job): the step's
    // slurmstepd refreshes node.cache in init, before it drops to the user's ids.
    NcclFixture fx;
    const auto cache_dir = fx.fs.root() / "cache";
    std::filesystem::create_directories(cache_dir);
    std::filesystem::permissions(cache_dir, std::filesystem::perms::owner_all);
    std::ofstream(fx.policy_path) << "version: 1\nnode:\n  sysfs_root: " << fx.fs.root().string()
                                  << "\n  cache: " << (cache_dir / "%n.node").string()
                                  << "\nnccl:\n  compute_hca: \"mlx5_[0-1]\"\n";
    FakeSpankApi api;
    CapturingLogger log;
    REQUIRE(hooks::init(api, log, {fx.config_word}) == 0);
    const auto cache = cache_dir / "node001.node";
    REQUIRE(std::filesystem::exists(cache));
    std::ifstream in(cache);
    std::string first;
    std::getline(in, first);
    CHECK(first == "switchyard-node-facts 1");
    CHECK(plugin_state().policy.has_value());  // read once, for user_init too
    REQUIRE(hooks::user_init(api, log, {fx.config_word}) == 0);
    CHECK(api.env.at("NCCL_IB_HCA") == "=mlx5_0:1");
    release_plugin_state();
}

TEST_CASE("nccl hooks: slurmd says when the policy's gate is on but its module is not listed",
          "[nccl-hooks]") {
    NcclFixture fx;
    std::ofstream(fx.policy_path) << "version: 1\nhealth:\n  enabled: true\n  gpus: 8\n";
    FakeSpankApi api;
    api.ctx = Context::Slurmd;
    CapturingLogger log;
    CHECK(hooks::init(api, log, {fx.config_word}) == 0);
    CHECK(log.contains(Level::Error, "health.enabled is true in " + fx.policy_path +
                                         ", but plugstack.conf does not list "
                                         "spank_switchyard_gate.so: the health gate does not run"));
    CapturingLogger listed;
    api.gate = true;
    CHECK(hooks::init(api, listed, {fx.config_word}) == 0);
    CHECK_FALSE(listed.contains(Level::Error, "spank_switchyard_gate.so"));
    std::ofstream(fx.policy_path) << "version: 1\nhealth:\n  enabled: false\n";
    CapturingLogger off;
    api.gate = false;
    CHECK(hooks::init(api, off, {fx.config_word}) == 0);
    CHECK_FALSE(off.contains(Level::Error, "spank_switchyard_gate.so"));
    release_plugin_state();
}

namespace {

/// The entry's lines of one kind ("stat", "text", ...).
std::vector<std::string> entry_lines(const std::string& entry, const std::string& kind) {
    std::vector<std::string> out;
    std::istringstream in(entry);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(kind + " ", 0) == 0) {
            out.push_back(line);
        }
    }
    return out;
}

/// user_init after init, as slurmstepd runs them; \return the step cache entry it left.
std::string step_entry(FakeSpankApi& api, const std::string& config_word) {
    CapturingLogger log;
    REQUIRE(hooks::init(api, log, {config_word}) == 0);
    REQUIRE(hooks::user_init(api, log, {config_word}) == 0);
    auto entry = plugin_state().cache_entry;
    release_plugin_state();
    return entry;
}

}  // namespace

TEST_CASE("step cache: a plain step's decision is kept with everything it read",
          "[nccl-hooks][step-cache]") {
    NcclFixture fx;
    FakeSpankApi api;
    api.env["SLURM_STEP_NODELIST"] = "node[001-002]";
    const auto entry = step_entry(api, fx.config_word);
    REQUIRE_THAT(entry, Catch::StartsWith("entry\nwords config=" + fx.policy_path + "\n"));
    CHECK_THAT(entry, Catch::EndsWith("end\n"));
    // The job's inputs, the variables set (in order) and the CPU affinity rule.
    CHECK_THAT(entry, Catch::Contains("\nnode node001\n") && Catch::Contains("\ntasks 1\n") &&
                          Catch::Contains("\nenv SLURM_STEP_NODELIST =node[001-002]\n") &&
                          Catch::Contains("\nenv NCCL_IB_HCA -\n") &&
                          Catch::Contains("\nenv SLURM_JOB_GPUS -\n"));
    CHECK_THAT(entry, Catch::Contains("\nset 0 SWITCHYARD_VERSION =") &&
                          Catch::Contains("\nset 0 NCCL_IB_HCA ==mlx5_0:1\n") &&
                          Catch::Contains("\nset 1 SWITCHYARD_NCCL_SET =") &&
                          Catch::Contains("\naffinity NCCL_IGNORE_CPU_AFFINITY 1 "));
    // The files: the policy, the node cache (the default path: none here), the boot id, the
    // device directories, each port's files.
    const auto stats = entry_lines(entry, "stat");
    REQUIRE(stats.size() == 2);
    CHECK_THAT(stats[0], Catch::StartsWith("stat " + fx.policy_path + " "));
    CHECK(stats[1] == "stat /var/cache/switchyard/node001.node -");
    const auto lists = entry_lines(entry, "list");
    CHECK(lists.size() == 4);  // kDeviceKeyDirs
    const auto texts = entry_lines(entry, "text");
    CHECK(texts.size() == 1 + 3 * 2);  // the boot id, each port's state and link layer
    const auto state = fx.fs.root() / "class/infiniband/mlx5_0/ports/1/state";
    CHECK(std::count(texts.begin(), texts.end(), "text " + state.string() + " =4:%20ACTIVE%0A") ==
          1);
    for (const auto& kind : {"stat", "text", "list"}) {
        for (const auto& line : entry_lines(entry, kind)) {
            INFO(line);
            CHECK(step_cache::file_input_holds(line.data(), line.size()));
        }
    }
    // A port that goes down is seen by the next step.
    fx.fs.file("class/infiniband/mlx5_0/ports/1/state", "1: DOWN");
    const auto line = "text " + state.string() + " =4:%20ACTIVE%0A";
    CHECK_FALSE(step_cache::file_input_holds(line.data(), line.size()));
}

TEST_CASE("step cache: a step that cannot be repeated as it was leaves no entry",
          "[nccl-hooks][step-cache]") {
    NcclFixture fx;
    const std::pair<const char*, void (*)(FakeSpankApi&)> cases[] = {
        {"an option given", [](FakeSpankApi& a) { a.options["nccl-env"] = "debug"; }},
        {"a user's value kept, and said so",
         [](FakeSpankApi& a) { a.env["NCCL_IB_HCA"] = "mine"; }},
        {"a pipeline job: each task has its place in the plan",
         [](FakeSpankApi& a) { a.options["pipeline-stages"] = "2"; }},
        {"a special step (batch, extern): the step module refreshes the node cache there",
         [](FakeSpankApi& a) { a.step = 0xfffffffbU; }},
        {"a warning for the user (an obsolete variable): every step must show it",
         [](FakeSpankApi& a) { a.env["NCCL_IB_CUDA_SUPPORT"] = "1"; }},
    };
    for (const auto& [why, setup] : cases) {
        INFO(why);
        FakeSpankApi api;
        setup(api);
        CHECK(step_entry(api, fx.config_word).empty());
    }
    SECTION("a node described by hwloc XML") {
        std::ofstream(fx.policy_path) << "version: 1\nnode:\n  hwloc_xml: /nonexistent/%n.xml\n";
        FakeSpankApi api;
        CapturingLogger log;
        REQUIRE(hooks::init(api, log, {fx.config_word}) == 0);
        hooks::user_init(api, log, {fx.config_word});
        CHECK(plugin_state().cache_entry.empty());
        release_plugin_state();
    }
}

TEST_CASE("step cache: a port's rate, LID and physical state change no variable",
          "[nccl-hooks][step-cache]") {
    // What the step cache leaves unchecked (kRulePortFiles has the rest) must not matter.
    NcclFixture fx;
    FakeSpankApi before;
    const auto first = step_entry(before, fx.config_word);
    REQUIRE_FALSE(first.empty());
    for (int i = 0; i < 3; ++i) {
        const auto port = "class/infiniband/mlx5_" + std::to_string(i) + "/ports/1/";
        fx.fs.file(port + "rate", "100 Gb/sec (4X EDR)");
        fx.fs.file(port + "lid", "0x99");
        fx.fs.file(port + "phys_state", "3: Disabled");
    }
    FakeSpankApi after;
    const auto second = step_entry(after, fx.config_word);
    CHECK(after.env == before.env);
    CHECK(entry_lines(second, "set") == entry_lines(first, "set"));
}

TEST_CASE("nccl hooks: NCCL Inspector in the jobs of a partition that opted in, uncached",
          "[nccl-hooks][step-cache]") {
    NcclFixture fx;
    {
        std::ofstream(fx.policy_path, std::ios::app)
            << "  inspector:\n    partitions: [train]\n"
               "    plugin: /usr/lib/nccl/libnccl-profiler-inspector.so\n"
               "    dump_dir: /shared/inspector/%j\n";
    }
    FakeSpankApi train;
    train.env["SLURM_JOB_PARTITION"] = "train";
    train.job = 4711;
    const auto entry = step_entry(train, fx.config_word);
    CHECK(train.env["NCCL_INSPECTOR_ENABLE"] == "1");
    CHECK(train.env["NCCL_PROFILER_PLUGIN"] == "/usr/lib/nccl/libnccl-profiler-inspector.so");
    CHECK(train.env["NCCL_INSPECTOR_DUMP_DIR"] == "/shared/inspector/4711");
    CHECK(entry.empty());  // a directory per job: the next step must not reuse this one's
    FakeSpankApi debug;
    debug.env["SLURM_JOB_PARTITION"] = "debug";
    (void)step_entry(debug, fx.config_word);
    CHECK(debug.env.count("NCCL_INSPECTOR_ENABLE") == 0);
    // A user's own value is kept.
    FakeSpankApi mine;
    mine.env["SLURM_JOB_PARTITION"] = "train";
    mine.env["NCCL_INSPECTOR_DUMP_DIR"] = "/home/me/insp";
    (void)step_entry(mine, fx.config_word);
    CHECK(mine.env["NCCL_INSPECTOR_DUMP_DIR"] == "/home/me/insp");
}

TEST_CASE("nccl hooks: MNNVL off on a node whose prolog found its NVLink fabric unclean",
          "[nccl-hooks][nvlink]") {
    // A rack whose trays all report a degraded fabric health mask (NVIDIA/nccl#2186's 0xaa):
    // the breaker keeps the gate from draining them, the jobs run, and MNNVL must be off there.
    NcclFixture fx;
    fx.fs.pci("nodes/node001/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0", "0x10de", "0x2941",
              "0x030200", 0);
    const auto cache = fx.fs.shared_dir("cache");
    std::ofstream(fx.policy_path) << "version: 1\nnode:\n  sysfs_root: " << fx.fs.root().string()
                                  << "\n  cache: " << (cache / "%n.node").string()
                                  << "\nfabric:\n  map: " << SWITCHYARD_SOURCE_DIR
                                  << "/tests/golden/discover/nvl-dfp16/fabric.map.expected\n"
                                  << "nccl:\n  min_version: \"2.27\"\n  imex_channel: ''\n";
    // 0x0: clean, the step in one healthy domain; 0x1: bandwidth degraded.
    const auto [mask, expected] =
        GENERATE(table<std::string, std::string>({{"0x0", "1"}, {"0x1", "0"}}));
    INFO("health mask " << mask);
    const auto nvml = (fx.fs.root() / "nvml.conf").string();
    std::ofstream(nvml) << "gpu uuid=GPU-1 fabric=completed "
                           "cluster=a1b2c3d1-5a1e-4c0d-9b2f-6e7d8c9b0a1f clique=32766 health="
                        << mask << "\n";
    setenv("SWITCHYARD_FAKE_NVML", nvml.c_str(), 1);
    auto pol = policy::load_policy_file(fx.policy_path);
    REQUIRE(pol);
    pol->health.enabled = true;
    pol->health.checks.nvlink = health::NvlinkCheck{FAKE_NVML, 5, ""};
    pol->health.breaker.state = (fx.fs.root() / "breaker").string();
    class Control final : public NodeControl {  // slurmctld shows many recent drains
    public:
        Result<unsigned> partition_size(const std::string&) override { return 16U; }
        Result<unsigned> recent_owned_drains(double, double) override { return 100U; }
        Result<std::string> reason(const std::string&) override { return std::string(); }
        Result<void> drain(const std::string&, const std::string&) override { return {}; }
    } control;
    CapturingLogger log;
    REQUIRE(run_health_gate(*pol, "node001", "", control, log, 1000) == 0);
    unsetenv("SWITCHYARD_FAKE_NVML");
    FakeSpankApi api;
    api.env["SLURM_STEP_NODELIST"] = "node[001-002]";
    REQUIRE(hooks::init(api, log, {fx.config_word}) == 0);
    REQUIRE(hooks::user_init(api, log, {fx.config_word}) == 0);
    REQUIRE(api.env.count("NCCL_MNNVL_ENABLE") == 1);
    CHECK(api.env.at("NCCL_MNNVL_ENABLE") == expected);
    CHECK(api.env.count("NCCL_NVLS_ENABLE") == (expected == "0" ? 1U : 0U));
    // The state file is an input of the step cache: the prolog's next word is seen.
    CHECK_THAT(plugin_state().cache_entry,
               Catch::Contains("\nstat " + (cache / "node001.node.nvlink").string() + " "));
    release_plugin_state();
}
