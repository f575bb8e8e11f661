// SPDX-License-Identifier: Apache-2.0
// Tests of the multi-node NVLink checks (fabric state and health, the map's domain, IMEX and its
// channel device), the XID and clock-event checks, and their parsers; IMEX through the fake
// nvidia-imex-ctl (a real process: clean environment, deadline), NVML through the fake library.
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "catch.hpp"
#include "fake_probe.hpp"
#include "fake_sysfs.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/health/health.hpp"

using namespace switchyard;
using namespace switchyard::health;
using switchyard::test::FakeProbe;
using switchyard::test::FakeSysfs;

namespace {

constexpr const char* kKey = "8c6f0a52-1f3e-4c1b-9d7a-0e2f4b6c8d10.32766";

NvmlFacts gb200(unsigned gpus, std::uint32_t mask = 0x1aa, std::uint64_t clocks = 0) {
    NvmlFacts f;
    f.state = NvmlFacts::State::Read;
    for (unsigned i = 0; i < gpus; ++i) {
        NvmlGpu g;
        g.index = i;
        g.fabric = node::GpuFabric{"8c6f0a52-1f3e-4c1b-9d7a-0e2f4b6c8d10", 32766,
                                   node::GpuFabricState::Completed, 0, mask};
        g.clock_events = clocks;
        f.gpus.push_back(g);
    }
    return f;
}

/// `nvidia-imex-ctl -N -j -H` of a domain: `status`, node001 (this node) and node002.
std::string imex_json(const std::string& status,
                      const std::string& node2 = "READY",
                      const std::string& link = "CONNECTED") {
    return R"({"nodes": {"0": {"status": "READY", "host": "10.0.0.1", "hostName": "node001",
  "connections": {"0": {"host": "10.0.0.1", "status": "CONNECTED", "changed": true},
                  "1": {"host": "10.0.0.2", "status": ")" +
           link + R"(", "changed": true}}, "changed": true, "version": "580.95.05"},
 "1": {"status": ")" +
           node2 + R"(", "host": "10.0.0.2", "hostName": "node002", "connections": {},
  "version": "580.95.05"}}, "timestamp": "9/4/2026 00:37:39.905", "status": ")" +
           status + R"("})";
}

ImexCheck imex_check() {
    ImexCheck c;
    c.command = "/usr/bin/nvidia-imex-ctl";
    c.channel = "/dev/nvidia-caps-imex-channels/channel0";
    c.node_name = "node001";
    return c;
}

FakeProbe with_channel(std::uint32_t mode = 0666) {
    FakeProbe p;
    p.files["/dev/nvidia-caps-imex-channels/channel0"] = {true, true, 0, mode, ""};
    return p;
}

}  // namespace

TEST_CASE("fabric checks: nvlink fabric state, health and the map's domain", "[health][nvlink]") {
    FakeProbe p;
    p.nvml_facts = gb200(4);
    NvlinkCheck c;
    CHECK(check_nvlink(p, c).status == HealthStatus::Pass);
    c.expected_domain = kKey;
    const auto ok = check_nvlink(p, c);
    CHECK(ok.status == HealthStatus::Pass);
    CHECK(ok.detail == std::string("4 GPU(s) completed in domain ") + kKey);

    c.expected_domain = "8c6f0a52-1f3e-4c1b-9d7a-0e2f4b6c8d10.1";
    const auto moved = check_nvlink(p, c);
    CHECK(moved.status == HealthStatus::Fail);
    CHECK(moved.detail.find("the fabric map says 8c6f0a52-1f3e-4c1b-9d7a-0e2f4b6c8d10.1") !=
          std::string::npos);

    p.nvml_facts = gb200(4, 0x1a9);  // bandwidth degraded on every GPU
    const auto degraded = check_nvlink(p, NvlinkCheck{});
    CHECK(degraded.status == HealthStatus::Fail);
    CHECK(degraded.detail ==
          "GPU 0: bandwidth degraded; GPU 1: bandwidth degraded; GPU 2: bandwidth degraded; GPU "
          "3: bandwidth degraded");

    p.nvml_facts = gb200(2);
    p.nvml_facts.gpus[1].fabric->state = node::GpuFabricState::InProgress;
    CHECK(check_nvlink(p, NvlinkCheck{}).detail ==
          "GPU 1: fabric state in-progress, expected completed");

    p.nvml_facts = gb200(2);
    p.nvml_facts.gpus[0].fabric = node::GpuFabric{};  // NOT_SUPPORTED: an H100 node
    p.nvml_facts.gpus[1].fabric = node::GpuFabric{};
    CHECK(check_nvlink(p, NvlinkCheck{}).status == HealthStatus::Pass);
    c.expected_domain = kKey;
    CHECK(check_nvlink(p, c).status == HealthStatus::Fail);

    p.nvml_facts = NvmlFacts{};
    p.nvml_facts.why = "libnvidia-ml.so.1: cannot open shared object file";
    CHECK(check_nvlink(p, NvlinkCheck{}).status == HealthStatus::Fail);
}

TEST_CASE("fabric checks: nvlink through the fake libnvidia-ml", "[health][nvlink][nvml]") {
    FakeSysfs fs;
    const auto config = fs.root() / "nvml.conf";
    std::ofstream(config) << "gpu uuid=GPU-0 fabric=completed cluster=8c6f0a52-1f3e-4c1b-9d7a-"
                             "0e2f4b6c8d10 clique=32766 health=0x1aa\n"
                             "gpu uuid=GPU-1 fabric=completed cluster=8c6f0a52-1f3e-4c1b-9d7a-"
                             "0e2f4b6c8d10 clique=32766 health=0x19a clocks=0x48\n";
    setenv("SWITCHYARD_FAKE_NVML", config.c_str(), 1);
    node::NodeTopology node;
    SystemProbe probe(node, "/");
    NvlinkCheck c;
    c.library = FAKE_NVML;
    c.expected_domain = kKey;
    const auto r = check_nvlink(probe, c);
    CHECK(r.status == HealthStatus::Fail);
    CHECK(r.detail == "GPU 1: route unhealthy");
    ClockEventsCheck clocks;
    clocks.library = FAKE_NVML;
    const auto ce = check_clock_events(probe, clocks);  // the same NVML answer, not asked again
    CHECK(ce.status == HealthStatus::Fail);
    CHECK(ce.detail == "GPU 1: hardware slowdown, hardware thermal slowdown");
}

TEST_CASE("fabric checks: the IMEX channel device", "[health][imex]") {
    auto p = with_channel();
    p.commands["/usr/bin/nvidia-imex-ctl"] = {imex_json("UP"), 0, false, ""};
    auto c = imex_check();
    c.channel_uid = 0;
    c.channel_mode = 0666;
    const auto ok = check_imex(p, c);
    CHECK(ok.status == HealthStatus::Pass);
    CHECK(ok.detail ==
          "IMEX domain UP, 2 node(s) READY; channel /dev/nvidia-caps-imex-channels/channel0");

    auto tight = with_channel(0600);
    tight.commands = p.commands;
    const auto mode = check_imex(tight, c);
    CHECK(mode.status == HealthStatus::Fail);
    CHECK(mode.detail ==
          "/dev/nvidia-caps-imex-channels/channel0 has mode 0600, expected 0666 "
          "(CUDA error 800 for jobs that cannot open it)");
    p.files.begin()->second.uid = 1000;
    CHECK(check_imex(p, c).detail ==
          "/dev/nvidia-caps-imex-channels/channel0 belongs to uid 1000, expected 0");
    p.files.begin()->second.char_device = false;
    CHECK(check_imex(p, c).detail ==
          "/dev/nvidia-caps-imex-channels/channel0 is not a character device");
    FakeProbe none;
    CHECK(check_imex(none, c).detail.rfind("no IMEX channel /dev/nvidia-caps-imex-channels/"
                                           "channel0",
                                           0) == 0);
    CHECK(none.ran.empty());  // no channel: the daemon is not asked
}

TEST_CASE("fabric checks: the IMEX domain as nvidia-imex-ctl reports it", "[health][imex]") {
    auto p = with_channel();
    const auto c = imex_check();
    auto answer = [&](std::string out, int rc = 0, bool timed_out = false) {
        p.commands["/usr/bin/nvidia-imex-ctl"] = {std::move(out), rc, timed_out, ""};
        return check_imex(p, c);
    };
    const auto down = answer(imex_json("DOWN", "UNAVAILABLE"));
    CHECK(down.status == HealthStatus::Fail);
    CHECK(down.detail == "IMEX domain DOWN: node002 UNAVAILABLE");
    const auto cut = answer(imex_json("UP", "READY", "DISCONNECTED"));
    CHECK(cut.status == HealthStatus::Fail);
    CHECK(cut.detail == "this node is READY, not connected to 10.0.0.2");
    const auto peer = answer(imex_json("UP", "UNAVAILABLE"));
    CHECK(peer.status == HealthStatus::Warn);  // the domain is up; another node is not
    CHECK(answer("{", 0).detail.find("not JSON; expected the JSON of 'nvidia-imex-ctl -N -j'") !=
          std::string::npos);
    CHECK(answer(R"({"nodes": {}})").detail.find("no \"status\" string") != std::string::npos);
    CHECK(answer("", 1).detail == "/usr/bin/nvidia-imex-ctl -N: exit 1 (is nvidia-imex running?)");
    CHECK(answer("", 0, true).detail == "/usr/bin/nvidia-imex-ctl did not answer within 5 s");
    auto relative = c;
    relative.command = "nvidia-imex-ctl";
    CHECK(check_imex(p, relative).detail ==
          "imex.command 'nvidia-imex-ctl' is not an absolute path");
}

TEST_CASE("fabric checks: IMEX through the fake nvidia-imex-ctl, a real process",
          "[health][imex]") {
    FakeSysfs fs;
    const auto dir = fs.root() / "imex";
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(
        std::string(SWITCHYARD_SOURCE_DIR) + "/tests/support/fake-nvidia-imex-ctl",
        dir / "nvidia-imex-ctl");
    std::ofstream(dir / "imex.json") << imex_json("UP");
    // The channel: any character device will do (/dev/null), as the policy names it.
    node::NodeTopology node;
    SystemProbe probe(node, "/");
    ImexCheck c;
    c.command = (dir / "nvidia-imex-ctl").string();
    c.channel = "/dev/null";
    c.node_name = "node001";
    c.timeout_s = 0.5;
    CHECK(check_imex(probe, c).status == HealthStatus::Pass);
    std::ofstream(dir / "imex.mode") << "hang";
    const auto start = std::chrono::steady_clock::now();
    const auto hung = check_imex(probe, c);
    const auto took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start);
    CHECK(hung.status == HealthStatus::Fail);
    CHECK(hung.detail.find("did not answer within 0.5 s") != std::string::npos);
    CHECK(took.count() < 5.0);  // killed at its deadline, not waited for (1 h)
    std::ofstream(dir / "imex.mode") << "garbage";
    CHECK(check_imex(probe, c).detail.find("not JSON") != std::string::npos);
    std::ofstream(dir / "imex.mode") << "exit:7";
    CHECK(check_imex(probe, c).detail.find("exit 7: Connection refused") != std::string::npos);
    c.channel = (dir / "imex.json").string();  // a regular file, not a device
    CHECK(check_imex(probe, c).detail.find("is not a character device") != std::string::npos);
}

TEST_CASE("fabric checks: parse_imex_status refuses what is not the domain's JSON",
          "[health][imex]") {
    const auto ok = parse_imex_status(imex_json("UP"), "imex");
    REQUIRE(ok);
    CHECK(ok->status == "UP");
    REQUIRE(ok->nodes.size() == 2);
    CHECK(ok->nodes[0].host_name == "node001");
    auto error = [](const std::string& text) {
        auto r = parse_imex_status(text, "imex");
        REQUIRE_FALSE(r);
        return r.error().to_string();
    };
    CHECK(error("[]") == "imex: not a JSON object; expected the JSON of 'nvidia-imex-ctl -N -j'");
    CHECK(error(R"({"status": "UP"})").find("no \"nodes\" object") != std::string::npos);
    CHECK(error(R"({"status": "UP", "nodes": {"0": 1}})").find("node \"0\" is not an object") !=
          std::string::npos);
    CHECK(error(R"({"status": "UP", "nodes": {"0": {}}})").find("has no \"status\" string") !=
          std::string::npos);
    CHECK(error(std::string(40, '[') + std::string(40, ']')).find("deeper than 32") !=
          std::string::npos);
    CHECK(error(std::string(kMaxImexOutput + 1, ' ')).find("larger than") != std::string::npos);
}

TEST_CASE("fabric checks: XID errors since boot", "[health][xid]") {
    const std::string kmsg =
        "6,1234,5678901,-;NVRM: loading NVIDIA UNIX Open Kernel Module\n"
        "4,1300,6000000,-;NVRM: Xid (PCI:0000:1b:00): 79, pid=0, GPU has fallen off the bus.\n"
        "4,1301,6000001,-;NVRM: Xid (PCI:0000:1b:00): 79, pid=0, GPU has fallen off the bus.\n"
        "4,1302,6000002,-;NVRM: Xid (PCI:0000:43:00): 13, pid=4242, Graphics Exception\n"
        "[ 7.1] NVRM: Xid (PCI:0000:52:00): 94, pid=11, Contained: SM (0x1).\n"
        "NVRM: Xid (PCI:0000:52:00): bogus\n";
    const auto events = parse_xids(kmsg);
    REQUIRE(events.size() == 4);
    CHECK(events[0].code == 79);
    CHECK(events[0].device == "PCI:0000:1b:00");
    CHECK(events[3].code == 94);

    FakeProbe p;
    p.logs["/dev/kmsg"] = kmsg;
    const auto r = check_xid(p, XidCheck{});
    CHECK(r.status == HealthStatus::Fail);
    CHECK(r.detail == "Xid 79 on PCI:0000:1b:00 x2; Xid 94 on PCI:0000:52:00 since boot");
    p.logs["/dev/kmsg"] = "4,1302,6000002,-;NVRM: Xid (PCI:0000:43:00): 13, pid=4242, x\n";
    const auto app = check_xid(p, XidCheck{});
    CHECK(app.status == HealthStatus::Pass);
    CHECK(app.detail == "no XID error since boot but 1 that applications cause");
    XidCheck elsewhere;
    elsewhere.source = "/var/log/kern.fake";
    CHECK(check_xid(p, elsewhere).status == HealthStatus::Fail);  // unreadable: not "healthy"
}

TEST_CASE("fabric checks: the kernel log read from a file by the real probe", "[health][xid]") {
    FakeSysfs fs;
    const auto log = fs.root() / "kmsg";
    std::ofstream(log) << "NVRM: Xid (PCI:0000:1b:00): 48, pid=1, DBE\n";
    node::NodeTopology node;
    SystemProbe probe(node, "/");
    XidCheck c;
    c.source = log.string();
    CHECK(check_xid(probe, c).detail == "Xid 48 on PCI:0000:1b:00 since boot");
    c.source = fs.root().string();  // a directory: refused, named
    CHECK(check_xid(probe, c).detail.find("not the kernel log") != std::string::npos);
}

TEST_CASE("fabric checks: clock-event reasons", "[health][clocks]") {
    FakeProbe p;
    p.nvml_facts = gb200(2, 0x1aa, 0x4);  // software power cap: not a fault
    CHECK(check_clock_events(p, ClockEventsCheck{}).status == HealthStatus::Pass);
    p.nvml_facts.gpus[1].clock_events = kClockSwThermal;
    const auto warm = check_clock_events(p, ClockEventsCheck{});
    CHECK(warm.status == HealthStatus::Warn);
    CHECK(warm.detail == "GPU 1: software thermal slowdown");
    p.nvml_facts.gpus[0].clock_events = kClockHwPowerBrake | kClockHwSlowdown;
    const auto brake = check_clock_events(p, ClockEventsCheck{});
    CHECK(brake.status == HealthStatus::Fail);
    CHECK(brake.detail ==
          "GPU 0: hardware slowdown, power brake; GPU 1: software thermal slowdown");
    p.nvml_facts.gpus[0].clock_events.reset();
    p.nvml_facts.gpus[1].clock_events.reset();
    CHECK(check_clock_events(p, ClockEventsCheck{}).detail ==
          "no GPU held down (2 GPU(s) could not say)");
}

TEST_CASE("fabric checks: run in the gate's order, with the map's domain and node paths",
          "[health][nvlink]") {
    HealthChecks checks;
    checks.nvlink = NvlinkCheck{};
    checks.imex = imex_check();
    checks.imex->channel = "/srv/%n/channel0";
    checks.xid = XidCheck{};
    checks.xid->source = "/srv/%n/kmsg";
    const auto named = with_node_paths(checks, "node007");
    CHECK(named.imex->channel == "/srv/node007/channel0");
    CHECK(named.imex->node_name == "node007");
    CHECK(named.xid->source == "/srv/node007/kmsg");
    fabric::FabricMap map;
    map.sus = {{"su1", 0, {}, {0}, 0}};
    map.hosts = {{"node007", 0, 0, 0, 0}};
    map.domains = {{"nvl_8c6f0a52_32766", kKey, 0, fabric::DomainState::Ok, {"node007"}}};
    CHECK(with_fabric(named, &map, "node007").nvlink->expected_domain == kKey);
    CHECK(with_fabric(named, &map, "node008").nvlink->expected_domain.empty());
    CHECK(with_fabric(named, nullptr, "node007").nvlink->expected_domain.empty());
    FakeProbe p;
    p.nvml_facts = gb200(4);
    const auto report = run_health_checks(with_fabric(named, &map, "node007"), p, 30);
    REQUIRE(report.checks.size() == 3);
    CHECK(report.checks[0].name == "nvlink");
    CHECK(report.checks[0].status == HealthStatus::Pass);
    CHECK(report.checks[1].name == "imex");
    CHECK(report.reason() ==
          "switchyard: imex: no IMEX channel /srv/node007/channel0 "
          "(NVreg_CreateImexChannel0=1, or Slurm's switch/nvidia_imex, makes "
          "it)");
}

namespace {

/// This process's threads (/proc/self/task).
std::size_t threads() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) {
        ++n;
    }
    return n;
}

}  // namespace

TEST_CASE("fabric checks: an NVML that hangs is waited for once per run, not once per check",
          "[health][nvlink][nvml]") {
    FakeSysfs fs;
    const auto config = fs.root() / "nvml.conf";
    std::ofstream(config) << "hang=3600\ngpu uuid=GPU-0 fabric=completed\n";
    setenv("SWITCHYARD_FAKE_NVML", config.c_str(), 1);
    node::NodeTopology node;
    SystemProbe probe(node, "/");
    NvmlCheck nvml;
    nvml.library = FAKE_NVML;
    nvml.timeout_s = 0.2;
    NvlinkCheck nvlink;
    nvlink.library = FAKE_NVML;
    nvlink.timeout_s = 0.2;
    ClockEventsCheck clocks;
    clocks.library = FAKE_NVML;
    clocks.timeout_s = 0.2;
    const auto before = threads();
    const auto a = check_nvml(probe, nvml);
    const auto left = threads();
    CHECK(left == before + 1);  // the hung query's thread, left behind
    const auto b = check_nvlink(probe, nvlink);
    const auto c = check_clock_events(probe, clocks);
    for (const auto* r : {&a, &b, &c}) {
        INFO(r->name);
        CHECK(r->status == HealthStatus::Fail);
        CHECK(r->detail == "NVML did not answer within 0.2 s (driver or GPU hung)");
    }
    CHECK(threads() == left);  // the other checks did not ask again: no thread more
    unsetenv("SWITCHYARD_FAKE_NVML");
}

TEST_CASE(
    "fabric checks: what a command says reaches logs and the reason as one bounded "
    "printable line",
    "[health][imex]") {
    // nvidia-imex-ctl's status word with a terminal escape and a newline.
    auto p = with_channel();
    p.commands["/usr/bin/nvidia-imex-ctl"] = {imex_json("\\u001b[2J\\nDOWN"), 0, false, ""};
    HealthChecks checks;
    checks.imex = imex_check();
    auto report = run_health_checks(checks, p, 30);
    REQUIRE(report.checks.size() == 1);
    CHECK(report.verdict == HealthStatus::Fail);
    CHECK(report.checks[0].detail == "IMEX domain \\x1b[2J\\x0aDOWN");
    CHECK(report.reason() ==
          std::string(kOwnedReasonPrefix) + " imex: IMEX domain \\x1b[2J\\x0aDOWN");
    // A site command that fails with 800 KB of escapes and lines.
    checks.imex.reset();
    checks.commands.push_back({"site", {"/usr/bin/site-check"}, 5, 0, {}, std::nullopt});
    p.commands["/usr/bin/site-check"] = {"\x1b[31mbad\n" + std::string(800000, 'y') + "\n", 1,
                                         false, ""};
    report = run_health_checks(checks, p, 30);
    REQUIRE(report.checks.size() == 1);
    const auto& detail = report.checks[0].detail;
    CHECK(report.verdict == HealthStatus::Fail);
    CHECK(detail.size() <= kMaxDetail);
    CHECK(detail.find('\x1b') == std::string::npos);
    CHECK(detail.find('\n') == std::string::npos);
    const auto reason = report.reason();
    CHECK(reason.size() <= kMaxDrainReason);
    CHECK(reason.starts_with(std::string(kOwnedReasonPrefix) + " command:site: "));
    CHECK(reason.ends_with("..."));
}
