// SPDX-License-Identifier: Apache-2.0
// Tests of the node cache through the policy's loaders: the prolog writes it, a step served from
// it sees what a live read sees (ports included), and a cache others could write is not trusted.
#include "switchyard/policy/loaders.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "catch.hpp"
#include "fake_sysfs.hpp"
#include "switchyard/node/node_facts.hpp"
#include "switchyard/policy/step_input.hpp"
#include "typical_node.hpp"

using namespace switchyard;
using switchyard::test::FakeSysfs;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), {}};
}

/// A policy whose node facts come from `fs` and are cached in `<fs>/cache/%n.node`.
policy::Policy policy_for(const FakeSysfs& fs) {
    policy::Policy p;
    p.sysfs_root = fs.root().string();
    p.node_cache = (fs.root() / "cache" / "%n.node").string();
    return p;
}

policy::NodeSources step_sources(std::vector<std::string>* notes) {
    return {"node007", "", "", policy::NodeCache::Read, notes};
}

}  // namespace

TEST_CASE("node cache: the prolog writes it, steps read it, ports stay live", "[node-facts]") {
    FakeSysfs fs;
    switchyard::test::build_typical_gpu_node(fs);
    const auto pol = policy_for(fs);
    const auto cache = (fs.root() / "cache" / "node007.node").string();
    std::vector<std::string> notes;
    // No cache directory: nothing written, nothing said (caching is off on this node).
    REQUIRE(policy::load_node(pol, {"node007", "", "", policy::NodeCache::Write, &notes}));
    CHECK(notes.empty());
    CHECK_FALSE(std::filesystem::exists(cache));
    fs.shared_dir("cache");
    REQUIRE(policy::load_node(pol, {"node007", "", "", policy::NodeCache::Write, &notes}));
    CHECK(notes.empty());
    struct stat st {};
    REQUIRE(stat(cache.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0644);
    CHECK(st.st_uid == geteuid());

    // A value the cache holds changes without a device coming or going: a step still sees the
    // cached value (so it did not walk the PCI tree), while a port that went down is seen.
    fs.file("bus/pci/devices/0000:14:00.0/device", "0x2331");
    fs.file("class/infiniband/mlx5_3/ports/1/state", "1: DOWN");
    auto step = policy::load_node(pol, step_sources(&notes));
    REQUIRE(step);
    CHECK(notes.empty());
    CHECK(step->gpus[0].device_id == 0x2330);
    CHECK(step->nics[3].ports[0].state == "DOWN");
    CHECK(step->nics[3].ports[0].counters.empty());  // a step reads no counters
    auto live = policy::load_node(pol, {"node007", "", "", policy::NodeCache::None, nullptr});
    REQUIRE(live);
    CHECK(live->gpus[0].device_id == 0x2331);
    CHECK_FALSE(live->nics[3].ports[0].counters.empty());

    // A new device: the cache is stale, the step reads the node and says why.
    fs.pci("pci0000:f0/0000:f0:01.0", "0x10de", "0x2330", "0x030200", 1);
    step = policy::load_node(pol, step_sources(&notes));
    REQUIRE(step);
    CHECK(step->gpus.size() == 9);
    REQUIRE(notes.size() == 1);
    CHECK_THAT(
        notes[0],
        Catch::StartsWith("node cache not used, the node is read instead: " + cache + " is stale"));
    // The next prolog refreshes it.
    notes.clear();
    REQUIRE(policy::load_node(pol, {"node007", "", "", policy::NodeCache::Write, &notes}));
    REQUIRE(policy::load_node(pol, step_sources(&notes)));
    CHECK(notes.empty());
}

TEST_CASE("node cache: a cache others could write is not trusted", "[node-facts]") {
    FakeSysfs fs;
    switchyard::test::build_typical_gpu_node(fs);
    const auto pol = policy_for(fs);
    const auto dir = fs.root() / "cache";
    const auto cache = (dir / "node007.node").string();
    fs.shared_dir("cache");
    std::vector<std::string> notes;
    REQUIRE(policy::load_node(pol, {"node007", "", "", policy::NodeCache::Write, &notes}));
    const auto good = slurp(cache);

    chmod(cache.c_str(), 0666);
    REQUIRE(policy::load_node(pol, step_sources(&notes)));
    REQUIRE(notes.size() == 1);
    CHECK_THAT(notes[0], Catch::Contains(cache + " is writable by others (mode 0666); not "
                                                 "trusted"));
    std::filesystem::remove(cache);

    // A link in its place (to a file with the right content) is not followed.
    std::ofstream(dir / "elsewhere") << good;
    std::filesystem::create_symlink(dir / "elsewhere", cache);
    notes.clear();
    REQUIRE(policy::load_node(pol, step_sources(&notes)));
    REQUIRE(notes.size() == 1);
    CHECK_THAT(notes[0], Catch::Contains(cache + " is a symbolic link; not trusted"));
    // ... and the prolog replaces it rather than writing through it.
    notes.clear();
    REQUIRE(policy::load_node(pol, {"node007", "", "", policy::NodeCache::Write, &notes}));
    CHECK_FALSE(std::filesystem::is_symlink(cache));
    CHECK(slurp((dir / "elsewhere").string()) == good);

    // A directory others can write: neither read nor written.
    chmod(dir.c_str(), 0777);
    notes.clear();
    REQUIRE(policy::load_node(pol, step_sources(&notes)));
    REQUIRE(notes.size() == 1);
    CHECK_THAT(notes[0], Catch::Contains("can be written by others than uid"));
    notes.clear();
    REQUIRE(policy::load_node(pol, {"node007", "", "", policy::NodeCache::Write, &notes}));
    REQUIRE(notes.size() == 1);
    CHECK_THAT(notes[0], Catch::StartsWith("node cache not written: "));
    chmod(dir.c_str(), 0755);
}

TEST_CASE("node cache: the prolog reads the node only when the cache is missing or stale",
          "[node-facts]") {
    FakeSysfs fs;
    switchyard::test::build_typical_gpu_node(fs);
    const auto pol = policy_for(fs);
    const auto cache = fs.root() / "cache" / "node007.node";
    std::vector<std::string> notes;
    policy::refresh_node_cache(pol, "node007", &notes);  // no cache directory: nothing
    CHECK_FALSE(std::filesystem::exists(cache));
    fs.shared_dir("cache");
    policy::refresh_node_cache(pol, "node007", &notes);
    REQUIRE(std::filesystem::exists(cache));
    struct stat first {};
    REQUIRE(stat(cache.c_str(), &first) == 0);
    // Fresh: the key matches, the file is not replaced (same inode), whatever a value says.
    fs.file("bus/pci/devices/0000:14:00.0/device", "0x2331");
    policy::refresh_node_cache(pol, "node007", &notes);
    struct stat again {};
    REQUIRE(stat(cache.c_str(), &again) == 0);
    CHECK(again.st_ino == first.st_ino);
    // A new device: stale, read again and replaced.
    fs.pci("pci0000:f0/0000:f0:01.0", "0x10de", "0x2330", "0x030200", 1);
    policy::refresh_node_cache(pol, "node007", &notes);
    REQUIRE(stat(cache.c_str(), &again) == 0);
    CHECK(again.st_ino != first.st_ino);
    CHECK(notes.empty());
    auto step = policy::load_node(pol, step_sources(&notes));
    REQUIRE(step);
    CHECK(step->gpus.size() == 9);
    CHECK(notes.empty());
}

TEST_CASE("step input: the map, the node and the IMEX channel, loaded once for all callers",
          "[step-input]") {
    FakeSysfs fs;
    switchyard::test::build_typical_gpu_node(fs);
    auto pol = policy_for(fs);
    const std::string src = SWITCHYARD_SOURCE_DIR;
    const auto nvl_map = src + "/tests/golden/discover/nvl-dfp16/fabric.map.expected";
    pol.nccl.imex_channel = (fs.root() / "imex" / "%n" / "channel0").string();
    policy::StepInputRequest req{"node001", {"node001", "node002"}, nvl_map, false, true, "", ""};
    auto in = policy::load_step_input(pol, req);
    REQUIRE(in.map);
    CHECK_FALSE(in.map_error);
    CHECK_FALSE(in.map->domains.empty());
    REQUIRE(in.node);
    CHECK_FALSE(in.node->gpus.empty());
    // A map with NVLink domains: the channel is looked at, %n expanded, and found missing.
    REQUIRE(in.imex.present.has_value());
    CHECK_FALSE(*in.imex.present);
    CHECK(in.imex.path == (fs.root() / "imex" / "node001" / "channel0").string());
    std::filesystem::create_directories(fs.root() / "imex" / "node001");
    std::ofstream(fs.root() / "imex" / "node001" / "channel0") << "";
    CHECK(policy::load_step_input(pol, req).imex.present == std::optional<bool>(true));
    // A step reads only its hosts' part of the map (through the index when there is one).
    req.step = true;
    in = policy::load_step_input(pol, req);
    REQUIRE(in.map);
    CHECK(in.map->find_host("node001") != nullptr);
    // Without NVLink domains in the map the channel is not looked at.
    req.map_path = src + "/tests/golden/discover/dfp16/fabric.map.expected";
    CHECK_FALSE(policy::load_step_input(pol, req).imex.present.has_value());
    // A map that cannot be read is the caller's to judge: the node is still read.
    req.map_path = (fs.root() / "no-such.map").string();
    in = policy::load_step_input(pol, req);
    CHECK_FALSE(in.map);
    REQUIRE(in.map_error);
    CHECK(in.map_error->to_string().find("no-such.map") != std::string::npos);
    CHECK(in.node);
    CHECK_FALSE(in.imex.present.has_value());
    // Without the node: none read, no error.
    req.node = false;
    in = policy::load_step_input(pol, req);
    CHECK_FALSE(in.node);
    CHECK_FALSE(in.node_error);
}

TEST_CASE("nvlink state: the prolog records its nvlink check, a step reads it back",
          "[node-facts][nvlink]") {
    FakeSysfs fs;
    auto pol = policy_for(fs);
    const auto path = policy::nvlink_state_path(pol, "node007");
    CHECK(path == (fs.root() / "cache" / "node007.node.nvlink").string());
    std::vector<std::string> notes;
    const std::vector<health::CheckResult> failed = {
        {"gpus", health::HealthStatus::Pass, "8 GPUs", 0},
        {"nvlink", health::HealthStatus::Fail, "GPU 3: bandwidth degraded\nGPU 5: route unhealthy",
         0}};
    // No cache directory: nothing written (and nothing known to a step).
    policy::record_nvlink_state(pol, "node007", failed, &notes);
    CHECK_FALSE(std::filesystem::exists(path));
    CHECK_FALSE(policy::read_nvlink_state(path));
    fs.shared_dir("cache");
    policy::record_nvlink_state(pol, "node007", failed, &notes);
    CHECK(notes.empty());
    struct stat st {};
    REQUIRE(stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0644);  // steps read it with the user's ids
    // Control characters become spaces: one line.
    CHECK(policy::read_nvlink_state(path) == "GPU 3: bandwidth degraded GPU 5: route unhealthy");
    // A pass: clean. A report without the nvlink check leaves the last word as it was.
    policy::record_nvlink_state(pol, "node007", {{"nvlink", health::HealthStatus::Pass, "ok", 0}},
                                &notes);
    CHECK(policy::read_nvlink_state(path) == "");
    policy::record_nvlink_state(pol, "node007", {failed[0]}, &notes);
    CHECK(policy::read_nvlink_state(path) == "");
    // A long answer is cut, still one line.
    policy::record_nvlink_state(pol, "node007",
                                {{"nvlink", health::HealthStatus::Fail, std::string(5000, 'x'), 0}},
                                &notes);
    CHECK(policy::read_nvlink_state(path)->size() == 400);
    // Not trusted, not known: writable by others, damaged, or a link.
    chmod(path.c_str(), 0666);
    CHECK_FALSE(policy::read_nvlink_state(path));
    std::filesystem::remove(path);
    std::ofstream(path) << "switchyard-nvlink 1 maybe\n";
    chmod(path.c_str(), 0644);
    CHECK_FALSE(policy::read_nvlink_state(path));
    std::filesystem::remove(path);
    std::filesystem::create_symlink(fs.root() / "elsewhere", path);
    std::ofstream(fs.root() / "elsewhere") << "switchyard-nvlink 1 clean\n";
    CHECK_FALSE(policy::read_nvlink_state(path));
    // No node cache: no state.
    pol.node_cache.clear();
    CHECK(policy::nvlink_state_path(pol, "node007").empty());
}
