// SPDX-License-Identifier: Apache-2.0
// Tests of the health checks on fake sysfs trees, captured command output and real commands.
#include "switchyard/health/health.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "catch.hpp"
#include "fake_probe.hpp"
#include "fake_sysfs.hpp"
#include "paths.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/node/node_readers.hpp"
#include "typical_node.hpp"

using namespace switchyard;
using namespace switchyard::health;
using switchyard::test::FakeSysfs;

namespace {

/// Two GPUs (gpu1's link trained at x8 Gen4 when `degraded`) and four HCAs, mlx5_2 DOWN.
node::NodeTopology node_with(FakeSysfs& fs, bool degraded) {
    for (int i = 0; i < 2; ++i) {
        const auto dir = fs.pci("pci0000:00/0000:00:0" + std::to_string(i + 1) + ".0/0000:0" +
                                    std::to_string(i + 1) + ":00.0",
                                "0x10de", "0x2330", "0x030200", 0);
        fs.file(dir + "/max_link_width", "16");
        fs.file(dir + "/max_link_speed", "32.0 GT/s PCIe");
        fs.file(dir + "/current_link_width", degraded && i == 1 ? "8" : "16");
        fs.file(dir + "/current_link_speed",
                degraded && i == 1 ? "16.0 GT/s PCIe" : "32.0 GT/s PCIe");
    }
    for (int i = 0; i < 4; ++i) {
        const auto nic = fs.pci("pci0000:10/0000:10:0" + std::to_string(i + 1) + ".0/0000:1" +
                                    std::to_string(i + 1) + ":00.0",
                                "0x15b3", "0x1021", "0x020700", 0);
        FakeSysfs::Port p;
        if (i == 2) {
            p.state = "1: DOWN";
            p.phys_state = "2: Polling";
        }
        if (i == 3) {
            p.rate = "200 Gb/sec (4X HDR)";
        }
        fs.port(fs.rdma("mlx5_" + std::to_string(i), nic, "guid"), 1, p);
    }
    return *node::read_sysfs_node(fs.root());
}

/// The real probe (SystemProbe) over a copy of `node`, whose sysfs tree is at `root`: the
/// checks' I/O as the prolog gate does it. Used as `Sys(node).p()` within one expression.
struct Sys {
    node::NodeTopology node;
    SystemProbe probe;
    explicit Sys(node::NodeTopology n = {}, std::filesystem::path root = "/")
        : node(std::move(n)), probe(node, std::move(root)) {}
    Sys(const Sys&) = delete;
    Sys& operator=(const Sys&) = delete;
    NodeProbe& p() { return probe; }
};

}  // namespace

TEST_CASE("health: RDMA ports count, state, rate and link layer", "[health]") {
    FakeSysfs fs;
    const auto node = node_with(fs, false);
    auto r = check_rdma_ports(Sys(node).p(), {4, 400, "InfiniBand", "mlx5_[0-3]"});
    CHECK(r.status == HealthStatus::Fail);
    CHECK(r.detail ==
          "2 of 4 compute ports usable; mlx5_2:1 DOWN/Polling, mlx5_3:1 at 200 Gb/s < 400");
    r = check_rdma_ports(Sys(node).p(), {2, 400, "InfiniBand", "mlx5_[0-3]"});
    CHECK(r.status == HealthStatus::Warn);
    r = check_rdma_ports(Sys(node).p(), {2, 0, "InfiniBand", "mlx5_[01]"});
    CHECK(r.status == HealthStatus::Pass);
    CHECK(check_rdma_ports(Sys(node).p(), {2, 0, "Ethernet", "mlx5_[01]"}).status ==
          HealthStatus::Fail);
}

TEST_CASE("health: link errors growing between runs (flaps)", "[health]") {
    FakeSysfs dir;  // only for a scratch directory
    node::NodeTopology node;
    for (int i = 0; i < 2; ++i) {
        node::Nic nic;
        nic.name = "mlx5_" + std::to_string(i);
        node::RdmaPort p;
        p.port = 1;
        p.counters = {{"link_downed", 5}, {"symbol_error", 100}, {"port_xmit_data", 1}};
        nic.ports.push_back(p);
        node.nics.push_back(nic);
    }
    LinkErrorsCheck c{2, "mlx5_[0-1]", (dir.root() / "snapshot").string()};
    const auto first = check_link_errors(Sys(node).p(), c);
    CHECK(first.status == HealthStatus::Pass);
    CHECK_THAT(first.detail, Catch::StartsWith("baseline recorded"));
    CHECK(check_link_errors(Sys(node).p(), c).detail == "4 counters steady");
    CHECK(check_link_errors(Sys(node).p(), c).soft == 0);  // steady: no soft signal
    node.nics[1].ports[0].counters["link_downed"] += 1;    // below the threshold: a soft signal
    const auto growing = check_link_errors(Sys(node).p(), c);
    CHECK(growing.status == HealthStatus::Pass);
    CHECK(growing.soft == Approx(0.5));
    CHECK(growing.detail == "3 counters steady, 1 growing (largest +1, max 2)");
    node.nics[1].ports[0].counters["link_downed"] += 2;  // at the threshold: still passing
    const auto at_limit = check_link_errors(Sys(node).p(), c);
    CHECK(at_limit.status == HealthStatus::Pass);
    CHECK(at_limit.soft == Approx(1.0));
    node.nics[1].ports[0].counters["link_downed"] += 3;
    node.nics[0].ports[0].counters["symbol_error"] += 40;
    node.nics[0].ports[0].counters["port_xmit_data"] += 1000000;  // traffic, not an error
    const auto flapped = check_link_errors(Sys(node).p(), c);
    CHECK(flapped.status == HealthStatus::Fail);
    CHECK(flapped.detail ==
          "mlx5_0:1/symbol_error +40, mlx5_1:1/link_downed +3 since the last run (max 2)");
    // A reset (reboot, counters cleared) is a new baseline, not a failure.
    node.nics[1].ports[0].counters["link_downed"] = 0;
    node.nics[0].ports[0].counters["symbol_error"] = 0;
    CHECK(check_link_errors(Sys(node).p(), c).status == HealthStatus::Pass);
    // A snapshot that cannot be written warns and names the path.
    c.state = "/nonexistent/dir/snapshot";
    const auto unwritable = check_link_errors(Sys(node).p(), c);
    CHECK(unwritable.status == HealthStatus::Warn);
    CHECK_THAT(unwritable.detail,
               Catch::Contains("cannot create state directory /nonexistent/dir: No such file"));
}

TEST_CASE("health: GPUs present and links not degraded", "[health]") {
    FakeSysfs good;
    const auto healthy = node_with(good, false);
    CHECK(check_gpus(Sys(healthy, good.root()).p(), 2).status == HealthStatus::Pass);
    CHECK(check_gpus(Sys(healthy, good.root()).p(), 4).detail == "2 of 4 GPUs on PCI");
    FakeSysfs bad;
    const auto r = check_gpus(Sys(node_with(bad, true), bad.root()).p(), 2);
    CHECK(r.status == HealthStatus::Fail);
    CHECK(r.detail ==
          "PCIe link degraded: gpu1 0000:02:00.0 x8 16.0 GT/s PCIe (max x16 32.0 GT/s PCIe)");
}

TEST_CASE("health: topology shape equals the policy's", "[health]") {
    FakeSysfs full;
    switchyard::test::build_typical_gpu_node(full);
    const auto typical = *node::read_sysfs_node(full.root());
    const std::string expected = "gpu:8x10de:2330 nic:10xinfiniband numa:2 best:8xPIX";
    CHECK(check_shape(Sys(typical).p(), expected).status == HealthStatus::Pass);
    // The same machine with one NIC gone: one GPU loses its PIX partner.
    FakeSysfs broken;
    switchyard::test::build_typical_gpu_node(broken);
    std::filesystem::remove_all(broken.root() / "class" / "infiniband" / "mlx5_3");
    const auto r = check_shape(Sys(*node::read_sysfs_node(broken.root())).p(), expected);
    CHECK(r.status == HealthStatus::Fail);
    CHECK_THAT(r.detail, Catch::StartsWith("shape 'gpu:8x10de:2330 nic:9xinfiniband"));
    CHECK_THAT(r.detail, Catch::EndsWith("expected '" + expected + "'"));
}

TEST_CASE("health: memory from /proc/meminfo text", "[health]") {
    CHECK(check_memory("MemTotal:       2097152 kB\nMemFree: 1 kB\n", 1.5).status ==
          HealthStatus::Pass);
    CHECK(check_memory("MemTotal:       1048576 kB\n", 1.5).detail == "1.0 GiB (minimum 1.5)");
    CHECK(check_memory("nothing\n", 1).status == HealthStatus::Fail);
}

TEST_CASE("health: filesystems", "[health]") {
    FakeSysfs fs;
    CHECK(check_filesystem(Sys().p(), {fs.root().string(), 0.001, true}).status ==
          HealthStatus::Pass);
    CHECK(check_filesystem(Sys().p(), {fs.root().string(), 1e12, false}).status ==
          HealthStatus::Fail);
    const auto missing = check_filesystem(Sys().p(), {"/nonexistent/scratch", 0, false});
    CHECK(missing.status == HealthStatus::Fail);
    CHECK_THAT(missing.detail, Catch::StartsWith("not available"));
}

TEST_CASE("health: external commands without a shell, with a timeout", "[health]") {
    CHECK(check_command(Sys().p(), {"ok", {"/bin/true"}, 5, 0, "", {}}).status ==
          HealthStatus::Pass);
    const auto exit1 = check_command(
        Sys().p(),
        {"sh", {"/bin/sh", "-c", "echo first; echo 'GPU 3 missing'; exit 1"}, 5, 0, "", {}});
    CHECK(exit1.status == HealthStatus::Fail);
    CHECK(exit1.detail == "exit 1: GPU 3 missing");
    const auto pattern =
        check_command(Sys().p(), {"p", {"/bin/echo", "XID 79 seen"}, 5, 0, "XID [0-9]+", {}});
    CHECK(pattern.detail == "output matches 'XID [0-9]+': XID 79");
    const auto hang = check_command(Sys().p(), {"hang", {"/bin/sleep", "30"}, 0.3, 0, "", {}});
    CHECK(hang.status == HealthStatus::Fail);
    CHECK(hang.detail == "killed after the 0.3 s timeout");
    CHECK(check_command(Sys().p(), {"nope", {"/nonexistent/nhc"}, 5, 0, "", {}}).detail ==
          "cannot run '/nonexistent/nhc'");
}

TEST_CASE("health: a pattern sees output line by line, each line bounded", "[health]") {
    // A 200k-character line used to overflow the prolog's stack inside std::regex (a signal).
    const std::vector<std::string> long_line = {
        "/bin/sh", "-c", "head -c 200000 /dev/zero | tr '\\0' a; echo; echo 'XID 79 seen'"};
    const auto found =
        check_command(Sys().p(), {"long", long_line, 10, 0, "(a|b)*c|XID [0-9]+", {}});
    CHECK(found.status == HealthStatus::Fail);
    CHECK(found.detail == "output matches '(a|b)*c|XID [0-9]+': XID 79");
    const auto clean = check_command(Sys().p(), {"long", long_line, 10, 0, "(a|b)*c", {}});
    CHECK(clean.status == HealthStatus::Pass);
    // A match past the bound of a line is not seen: the bound is the contract.
    const std::vector<std::string> late = {"/bin/sh", "-c",
                                           "head -c 5000 /dev/zero | tr '\\0' a; echo FATAL"};
    CHECK(check_command(Sys().p(), {"late", late, 10, 0, "FATAL", {}}).status ==
          HealthStatus::Pass);
}

TEST_CASE("health: nccl-tests output parser and bandwidth floor", "[health]") {
    const std::string out =
        "#                                                              out-of-place               "
        "        in-place\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
        "time   algbw   busbw #wrong\n"
        "  8589934592    2147483648     float     sum      -1    40531  211.94  370.89      0    "
        "40521  211.99  370.98      0\n"
        "# Out of bounds values : 0 OK\n"
        "# Avg bus bandwidth    : 370.935 \n";
    CHECK(parse_nccl_tests_busbw(out) == Approx(370.935));
    CHECK_FALSE(parse_nccl_tests_busbw("no summary"));
    // Found by the fuzzer: "nan" passed any floor (NaN < floor is false); negative is nonsense.
    CHECK_FALSE(parse_nccl_tests_busbw("# Avg bus bandwidth    : nan\n"));
    CHECK_FALSE(parse_nccl_tests_busbw("# Avg bus bandwidth    : inf\n"));
    CHECK_FALSE(parse_nccl_tests_busbw("# Avg bus bandwidth    : -1\n"));
    FakeSysfs fs;
    const auto file = fs.root() / "allreduce.out";
    std::ofstream(file) << out;
    CHECK(check_command(Sys().p(), {"ar", {"/bin/cat", file.string()}, 5, 0, "", 360.0}).status ==
          HealthStatus::Pass);
    const auto slow =
        check_command(Sys().p(), {"ar", {"/bin/cat", file.string()}, 5, 0, "", 460.0});
    CHECK(slow.detail == "bus bandwidth 370.9 GB/s (minimum 460.0)");
}

TEST_CASE("health: report, reason and time budget", "[health]") {
    FakeSysfs fs;
    const auto node = node_with(fs, false);
    HealthChecks p;
    p.rdma_ports = RdmaPortsCheck{4, 0, "", "mlx5_[0-3]"};
    p.commands = {{"slow", {"/bin/sleep", "5"}, 10, 0, "", {}},
                  {"after", {"/bin/true"}, 10, 0, "", {}}};
    const auto r = run_health_checks(p, Sys(node, fs.root()).p(), 0.2);
    CHECK(r.verdict == HealthStatus::Fail);
    CHECK(r.reason() ==
          "switchyard: rdma-ports: 3 of 4 compute ports usable; mlx5_2:1 DOWN/Polling");
    REQUIRE(r.checks.size() == 3);
    CHECK(r.checks[1].status == HealthStatus::Fail);  // bounded by the budget, not its own 10 s
    CHECK(r.checks[1].duration_ms < 2000);
    CHECK(r.checks[2].detail == "not run: the gate's time budget is spent");
}

namespace {

/// Points the fake NVML library at `config` (read at nvmlInit) and returns the check for it.
NvmlCheck fake_nvml(const std::filesystem::path& config) {
    setenv("SWITCHYARD_FAKE_NVML", config.c_str(), 1);
    NvmlCheck c;
    c.library = FAKE_NVML;
    return c;
}

/// A fake NVML config from captured `nvidia-smi -q -d PAGE_RETIREMENT` output: one line per
/// GPU with its retired single/double-bit pages and pending flag.
std::string nvml_config_from_nvsmi(const std::string& text) {
    std::ostringstream out;
    std::istringstream in(text);
    std::string line;
    std::string gpu;
    auto value = [](const std::string& l) { return std::string(trim(l.substr(l.find(':') + 1))); };
    while (std::getline(in, line)) {
        if (line.starts_with("GPU ")) {
            gpu = "gpu uuid=" + line.substr(4);
        } else if (line.find("Single Bit ECC") != std::string::npos) {
            gpu += " sbe=" + value(line);
        } else if (line.find("Double Bit ECC") != std::string::npos) {
            gpu += " dbe=" + value(line);
        } else if (line.find("Pending Page Blacklist") != std::string::npos) {
            out << gpu << " pending=" << (value(line) == "Yes" ? 1 : 0) << " remap=unsupported\n";
        }
    }
    return out.str();
}

}  // namespace

TEST_CASE("health: NVML retired pages from captured nvidia-smi output", "[health][real]") {
    const auto dir = test::real_fixtures() / "health-data";
    FakeSysfs fs;
    const auto config = fs.root() / "nvml.conf";
    auto c = fake_nvml(config);
    c.gpus = 8;

    std::ofstream(config) << nvml_config_from_nvsmi(
        test::slurp(dir / "aznhc-orig_nvsmi8_output.txt"));
    const auto good = check_nvml(Sys().p(), c);
    CHECK(good.status == HealthStatus::Pass);
    CHECK(good.detail == "8 GPUs healthy");

    std::ofstream(config) << nvml_config_from_nvsmi(
        test::slurp(dir / "aznhc-bad_nvsmi8_output.txt"));
    const auto bad = check_nvml(Sys().p(), c);
    CHECK(bad.status == HealthStatus::Fail);
    // GPU 0: 60 + 5 pages; GPU 1: 63 and pending; GPU 3: pending; GPU 5: 65, pending; GPU 7:
    // 64, pending. GPUs 2, 4, 6 are clean.
    CHECK(bad.detail ==
          "GPU 0 (00000001:00:00.0): 65 retired pages (5 double-bit) > 60; "
          "GPU 1 (00000002:00:00.0): 63 retired pages (61 double-bit) > 60, page retirement "
          "pending (reset the GPU); "
          "GPU 3 (00000004:00:00.0): page retirement pending (reset the GPU); "
          "GPU 5 (00000006:00:00.0): 65 retired pages (45 double-bit) > 60, page retirement "
          "pending (reset the GPU); "
          "GPU 7 (00000008:00:00.0): 64 retired pages (56 double-bit) > 60, page retirement "
          "pending (reset the GPU)");
    c.max_retired_pages = 65;  // a looser budget: GPU 0 passes, the pending retirements remain
    const auto loose = check_nvml(Sys().p(), c);
    CHECK(loose.detail.find("GPU 0 ") == std::string::npos);
    CHECK(loose.detail.find("retired pages") == std::string::npos);
    CHECK(loose.detail.find("GPU 7 (00000008:00:00.0): page retirement pending") !=
          std::string::npos);
}

TEST_CASE("health: NVML NVLinks from captured nvidia-smi nvlink --status", "[health][real]") {
    const auto dir = test::real_fixtures() / "health-data";
    // Each "GPU n: ..." line, then one "Link i: 25 GB/s" line per active link.
    auto config = [](const std::string& text) {
        std::ostringstream out;
        std::istringstream in(text);
        std::string line;
        int links = -1;
        std::string uuid;
        auto flush = [&] {
            if (links >= 0) {
                out << "gpu uuid=" << uuid << " nvlinks=" << links << "\n";
            }
        };
        while (std::getline(in, line)) {
            if (line.starts_with("GPU ")) {
                flush();
                uuid = line.substr(line.find("UUID: ") + 6);
                uuid.pop_back();  // ')'
                links = 0;
            } else if (line.find("Link ") != std::string::npos &&
                       line.find("GB/s") != std::string::npos) {
                ++links;
            }
        }
        flush();
        return out.str();
    };
    FakeSysfs fs;
    const auto file = fs.root() / "nvml.conf";
    auto c = fake_nvml(file);
    c.nvlinks = 12;
    std::ofstream(file) << config(test::slurp(dir / "aznhc-good_nvlink_status.txt"));
    CHECK(check_nvml(Sys().p(), c).status == HealthStatus::Pass);
    std::ofstream(file) << config(test::slurp(dir / "aznhc-bad_nvlink_status.txt"));
    const auto bad = check_nvml(Sys().p(), c);
    CHECK(bad.status == HealthStatus::Fail);
    CHECK(bad.detail == "GPU 0 (GPU-9667d95e-6d22-0c22-1f57-c481f13e7c44): 0 of 12 NVLinks active");
}

TEST_CASE("health: NVML row remapping, ECC, GPU count, errors and a hung driver", "[health]") {
    FakeSysfs fs;
    const auto file = fs.root() / "nvml.conf";
    auto c = fake_nvml(file);
    std::ofstream(file) << "gpu uuid=GPU-a remap_failed=1 remap_unc=3\n"
                           "gpu uuid=GPU-b remap_pending=1\n"
                           "gpu uuid=GPU-c ecc_unc=2\n"
                           "gpu uuid=GPU-d\n";
    auto r = check_nvml(Sys().p(), c);
    CHECK(r.status == HealthStatus::Fail);
    CHECK(r.detail ==
          "GPU 0 (GPU-a): row remapping failed (3 uncorrectable rows): replace the GPU; "
          "GPU 1 (GPU-b): row remapping pending (reset the GPU); "
          "GPU 2 (GPU-c): 2 uncorrected ECC errors since the driver loaded");
    c.max_uncorrected_ecc = 2;
    c.gpus = 8;
    r = check_nvml(Sys().p(), c);
    CHECK(r.detail.starts_with("NVML sees 4 of 8 GPUs; GPU 0 (GPU-a)"));
    CHECK(r.detail.find("GPU-c") == std::string::npos);

    std::ofstream(file) << "init=9\n";
    CHECK(check_nvml(Sys().p(), c).detail == "nvmlInit: Driver Not Loaded");

    NvmlCheck missing;
    missing.library = (fs.root() / "libnvidia-ml.so.1").string();
    r = check_nvml(Sys().p(), missing);
    CHECK(r.status == HealthStatus::Warn);  // no driver and no GPUs expected: only a warning
    CHECK(r.detail.starts_with("NVML not available ("));
    missing.gpus = 8;
    CHECK(check_nvml(Sys().p(), missing).status == HealthStatus::Fail);
    missing.library = "/bin/true";  // a file, but no library
    CHECK(check_nvml(Sys().p(), missing).status == HealthStatus::Fail);

    std::ofstream(file) << "hang=3600\ngpu uuid=GPU-a\n";
    c.timeout_s = 0.3;
    const auto t0 = std::chrono::steady_clock::now();
    r = check_nvml(Sys().p(), c);
    CHECK(r.status == HealthStatus::Fail);
    CHECK(r.detail == "NVML did not answer within 0.3 s (driver or GPU hung)");
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
}

TEST_CASE("health: NVML persistence mode off warns by default and fails when asked", "[health]") {
    FakeSysfs fs;
    const auto file = fs.root() / "nvml.conf";
    auto c = fake_nvml(file);
    std::ofstream(file) << "gpu uuid=GPU-a\ngpu uuid=GPU-b persistence=0\n"
                           "gpu uuid=GPU-c persistence=unsupported\ngpu uuid=GPU-d persistence=0\n";
    auto r = check_nvml(Sys().p(), c);
    CHECK(r.status == HealthStatus::Warn);
    CHECK(r.detail ==
          "persistence mode off on GPU 1, 3 (nvidia-persistenced not running?): each job waits "
          "for the driver");
    c.persistence_off = HealthStatus::Fail;
    r = check_nvml(Sys().p(), c);
    CHECK(r.status == HealthStatus::Fail);
    CHECK(r.detail == "GPU 1 (GPU-b): persistence mode off; GPU 3 (GPU-d): persistence mode off");
    c.persistence_off = HealthStatus::Pass;  // ignore
    CHECK(check_nvml(Sys().p(), c).status == HealthStatus::Pass);
    // A GPU whose NVML cannot say (GPU-c) is not judged.
    std::ofstream(file) << "gpu uuid=GPU-c persistence=unsupported\n";
    c.persistence_off = HealthStatus::Fail;
    CHECK(check_nvml(Sys().p(), c).status == HealthStatus::Pass);
}

TEST_CASE("health: check sets by shape and partition", "[health]") {
    HealthPolicy general;
    general.checks.gpus = 8;
    HealthSet h100{"h100", "gpu:8x10de:2330.*", "", general.checks};
    h100.checks.nvml = NvmlCheck{};
    HealthSet debug{"debug", "", "debug|test", general.checks};
    debug.checks.gpus.reset();
    general.sets = {debug, h100};
    std::string name;
    CHECK(&general.for_node("gpu:8x10de:2330 nic:8xinfiniband", "batch", &name) ==
          &general.sets[1].checks);
    CHECK(name == "h100");
    CHECK(&general.for_node("gpu:8x10de:2330", "batch,debug", &name) == &general.sets[0].checks);
    CHECK(name == "debug");  // the first set that matches wins; any partition of the list
    CHECK(&general.for_node("gpu:4x10de:20b5", "batch", &name) == &general.checks);
    CHECK(name.empty());
    // The shape regex is searched, as in NCCL profiles; the partition regex matches whole names.
    general.sets[1].shape = "gpu:8x10de:2330";
    CHECK(&general.for_node("gpu:8x10de:2330 nic:8xinfiniband", "batch") ==
          &general.sets[1].checks);
    CHECK(&general.for_node("gpu:4x10de:20b5", "debugger") == &general.checks);
}

TEST_CASE("health: %n in state paths keeps nodes sharing a filesystem apart", "[health]") {
    HealthChecks p;
    p.link_errors = LinkErrorsCheck{0, "", "/shared/link-errors.%n"};
    const auto q = with_node_paths(p, "node007");
    CHECK(q.link_errors->state == "/shared/link-errors.node007");
    CHECK(node::expand_node_path("/var/tmp/breaker-%n-100%%", "node007") ==
          "/var/tmp/breaker-node007-100%");  // the gate's breaker.state
}

TEST_CASE("health: as root, an NVML library path another user could write is not loaded",
          "[health]") {
    if (geteuid() != 0) {
        WARN("not root: the owner rule for libraries applies to root only and was not run");
        return;
    }
    FakeSysfs fs;
    const auto file = fs.root() / "nvml.conf";
    std::ofstream(file) << "gpu uuid=GPU-a\n";
    auto c = fake_nvml(file);
    const auto lib = fs.root() / "lib" / "libnvidia-ml.so.1";
    std::filesystem::create_directories(lib.parent_path());
    std::filesystem::copy_file(FAKE_NVML, lib);
    chmod(fs.root().c_str(), 0755);
    chmod(lib.parent_path().c_str(), 0755);
    c.library = lib.string();
    CHECK(check_nvml(Sys().p(), c).status == HealthStatus::Pass);  // root's own copy loads

    REQUIRE(chown(lib.c_str(), 65534, 65534) == 0);
    auto theirs = check_nvml(Sys().p(), c);
    CHECK(theirs.status != HealthStatus::Pass);
    CHECK_THAT(theirs.detail, Catch::Contains("owner uid 65534"));
    CHECK_THAT(theirs.detail, Catch::Contains(lib.string()));

    REQUIRE(chown(lib.c_str(), 0, 0) == 0);
    chmod(lib.parent_path().c_str(), 0777);  // anyone could swap the file
    auto open_dir = check_nvml(Sys().p(), c);
    CHECK(open_dir.status != HealthStatus::Pass);
    CHECK_THAT(open_dir.detail, Catch::Contains("mode 0777"));
}

TEST_CASE("health: the checks judge what the probe reports, and nothing else", "[health]") {
    // Every fact from a fake probe: no file, process, library or clock of this machine is used.
    switchyard::test::FakeProbe probe;
    node::Gpu gpu;
    gpu.place.busid = "0000:07:00.0";
    probe.facts.gpus = {gpu};
    probe.pci = {{"0000:07:00.0/current_link_width", "8"},
                 {"0000:07:00.0/max_link_width", "16"},
                 {"0000:07:00.0/current_link_speed", "32.0 GT/s PCIe"},
                 {"0000:07:00.0/max_link_speed", "32.0 GT/s PCIe"}};
    probe.meminfo_text = "MemTotal:       1048576 kB\n";
    probe.free_gb = {{"/scratch", 0.5}};
    probe.unwritable = {{"/scratch", "Read-only file system"}};
    probe.commands = {{"/usr/sbin/nhc", {"checks ok\n", 0, false, ""}},
                      {"/usr/bin/dcgmi", {"", 0, false, ""}}};
    probe.seconds_per_command = 2;
    probe.nvml_facts.state = NvmlFacts::State::TimedOut;
    probe.nvml_facts.why = "NVML did not answer within 3 s (driver or GPU hung)";

    HealthChecks p;
    p.gpus = 1;
    p.nvml = NvmlCheck{};
    p.min_memory_gb = 2;
    p.filesystems = {{"/scratch", 0.1, true}, {"/missing", 0, false}};
    p.commands = {{"nhc", {"/usr/sbin/nhc"}, 10, 0, "", {}},
                  {"dcgm", {"/usr/bin/dcgmi"}, 10, 0, "", {}}};
    const auto r = run_health_checks(p, probe, 3);
    std::vector<std::string> seen;
    for (const auto& c : r.checks) {
        seen.push_back(c.name + " " + std::string(to_string(c.status)) + ": " + c.detail);
    }
    CHECK(seen ==
          std::vector<std::string>{
              "gpus fail: PCIe link degraded: gpu0 0000:07:00.0 x8 32.0 GT/s PCIe (max x16 32.0 "
              "GT/s PCIe)",
              "nvml fail: NVML did not answer within 3 s (driver or GPU hung)",
              "memory fail: 1.0 GiB (minimum 2.0)",
              "filesystem:/scratch fail: not writable: /scratch: Read-only file system",
              "filesystem:/missing fail: not available: No such file or directory",
              "command:nhc pass: exit 0",                           // 2 s of the 3 s budget
              "command:dcgm fail: killed after the 1 s timeout"});  // bounded by what is left
    CHECK(probe.ran == std::vector<std::string>{"/usr/sbin/nhc", "/usr/bin/dcgmi"});
    probe.ran.clear();  // with 2 s, the first command spends it all: the second is not run
    CHECK(run_health_checks(p, probe, 2).checks.back().detail ==
          "not run: the gate's time budget is spent");
    CHECK(probe.ran == std::vector<std::string>{"/usr/sbin/nhc"});
    CHECK(r.reason() ==
          "switchyard: gpus: PCIe link degraded: gpu0 0000:07:00.0 x8 32.0 GT/s "
          "PCIe (max x16 32.0 GT/s PCIe)");

    // NVML facts judged against the policy: a GPU short of NVLinks, one with pages pending.
    NvmlFacts facts;
    facts.state = NvmlFacts::State::Read;
    NvmlGpu a;
    a.index = 0;
    a.uuid = "GPU-a";
    a.nvlinks_active = 12;
    NvmlGpu b;
    b.index = 1;
    b.retired_sbe = 10;
    b.retired_dbe = 2;
    b.retirement_pending = true;
    facts.gpus = {a, b};
    probe.nvml_facts = facts;
    NvmlCheck c;
    c.gpus = 4;
    c.nvlinks = 18;
    CHECK(check_nvml(probe, c).detail ==
          "NVML sees 2 of 4 GPUs; GPU 0 (GPU-a): 12 of 18 NVLinks active; GPU 1: page "
          "retirement pending (reset the GPU)");
    probe.nvml_facts = NvmlFacts{};
    probe.nvml_facts.why = "libnvidia-ml.so.1: cannot open shared object file";
    c.gpus.reset();
    const auto none = check_nvml(probe, c);
    CHECK(none.status == HealthStatus::Warn);  // no driver and no GPUs expected: a warning
}
