// SPDX-License-Identifier: Apache-2.0
// `preflight --prolog` on this machine: eight nodes' prologs as threads of one process, over
// the real wire (TCP on 127.0.0.1, ports under 1024: run as root, as CI does), the probes a real
// process answering from a fault table (tests/support/fake-perftest). Slurm is the fake client:
// the first node's address (NodeAddr) and the drain.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/ops/preflight.hpp"
#include "switchyard/slurm/client/client.hpp"

using namespace switchyard;
using namespace switchyard::ops;

namespace {

// The policy's port (job 42 % 1 port): one per test case, which ctest may run side by side.
constexpr std::uint16_t kGatherPort = 977;
constexpr std::uint16_t kStrangersPort = 978;

const std::string kDrain =
    "scontrol update NodeName=node007 State=DRAIN Reason=switchyard: preflight: mlx5_0: "
    "11.2 us to 2 peers (limit 5)";

/// One node's prolog: its own Slurm client, console and report.
struct Node {
    std::string name;
    slurm::FakeClient slurm;
    FixedClock clock{1'800'000'000};
    std::ostringstream out;
    std::ostringstream err;
    Deps deps{slurm, clock, "", out, err};
    PreflightReport report;
};

struct Cluster {
    std::filesystem::path dir;
    std::vector<std::unique_ptr<Node>> nodes;
    explicit Cluster(std::uint16_t port = kGatherPort) {
        char tmpl[] = "/tmp/switchyard-prolog-test.XXXXXX";
        REQUIRE(::mkdtemp(tmpl) != nullptr);
        dir = tmpl;
        const std::string src = SWITCHYARD_SOURCE_DIR;
        std::ofstream(dir / "table") << "node007 mlx5_0 slow\n";
        std::ofstream(dir / "policy.yaml")
            << "version: 1\npreflight:\n  probe_timeout_s: 1\n  join_s: 3\n  port: " << port
            << "\n  ports: 1\n  link_rate_gbps: 400\n  reports: " << (dir / "reports").string()
            << "\n  latency: [" << src << "/tests/support/fake-perftest, lat, "
            << (dir / "table").string() << ", \"{hca}\", \"{host}\", \"{peer}\"]\n"
            << "  bandwidth: [" << src << "/tests/support/fake-perftest, bw, "
            << (dir / "table").string() << ", \"{hca}\", \"{host}\", \"{peer}\"]\n";
    }
    ~Cluster() { std::filesystem::remove_all(dir); }
    Cluster(const Cluster&) = delete;
    Cluster& operator=(const Cluster&) = delete;

    /// Runs the prologs of `names` at once; returns when all are done.
    void run(const std::vector<std::string>& names) {
        std::vector<std::thread> threads;
        for (const auto& n : names) {
            auto node = std::make_unique<Node>();
            node->name = n;
            node->slurm.answer("scontrol show node -o node001",
                               "NodeName=node001 Arch=x86_64 NodeAddr=127.0.0.1 "
                               "NodeHostName=node001 Version=22.05\n");
            node->slurm.answer("sinfo --all --noheader --Node --format=%N|%w|%T|%E --nodes=node007",
                               "node007|1|idle|none\n");
            node->slurm.answer(kDrain, "");
            nodes.push_back(std::move(node));
        }
        for (auto& node : nodes) {
            threads.emplace_back([this, n = node.get()] {
                PreflightRequest a;
                a.policy = (dir / "policy.yaml").string();
                a.map = SWITCHYARD_SOURCE_DIR "/tests/golden/discover/dfp16/fabric.map.expected";
                a.hosts = "node[001-008]";
                a.job = "42";
                a.me = n->name;
                n->report = run_preflight_prolog(a, n->deps);
            });
        }
        for (auto& t : threads) {
            t.join();
        }
    }
    Node& node(const std::string& name) {
        for (auto& n : nodes) {
            if (n->name == name) {
                return *n;
            }
        }
        FAIL("no node " << name);
        return *nodes.front();
    }
};

std::string notes_of(const PreflightReport& r) {
    std::string s;
    for (const auto& n : r.notes) {
        s += n + "\n";
    }
    return s + r.error;
}

/// Connects to the first node from an ordinary port (as any user could) and says hello.
bool impostor(const std::string& hello, std::uint16_t port) {
    for (int i = 0; i < 100; ++i) {
        const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0) {
            (void)!write(fd, hello.data(), hello.size());
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            close(fd);
            return true;
        }
        close(fd);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

}  // namespace

TEST_CASE("preflight --prolog: the first node gathers, drains the node at fault and tells it",
          "[preflight][prolog]") {
    REQUIRE(geteuid() == 0);  // ports under 1024; CI and the README's command run as root
    Cluster c;
    c.run({"node001", "node002", "node003", "node004", "node005", "node006", "node007", "node008"});
    auto& first = c.node("node001");
    INFO(notes_of(first.report));
    REQUIRE(first.report.measured.has_value());
    // Every node's lines arrived: 8 results, none failed, 2 slow (node007's pairs).
    const auto& verdicts = first.report.measured->verdicts;
    CHECK(verdicts.size() == 8);
    CHECK(std::count_if(verdicts.begin(), verdicts.end(),
                        [](const auto& v) { return v.outcome == preflight::Outcome::Slow; }) == 2);
    CHECK(std::count_if(verdicts.begin(), verdicts.end(),
                        [](const auto& v) { return v.outcome == preflight::Outcome::Ok; }) == 6);
    REQUIRE(first.report.actions.size() == 1);
    CHECK(first.report.actions[0].what == "drained");
    CHECK(first.report.actions[0].node == "node007");
    // The drain is the first node's; the others only asked where it is.
    CHECK(first.slurm.calls() ==
          std::vector<std::string>{
              "sinfo --all --noheader --Node --format=%N|%w|%T|%E --nodes=node007", kDrain});
    CHECK(first.report.rc == kExitOk);
    CHECK(first.report.verdict == "ok");
    auto& bad = c.node("node007");
    INFO(notes_of(bad.report));
    CHECK(bad.report.rc == kExitNodeAtFault);
    CHECK(bad.report.verdict == "switchyard: preflight: mlx5_0: 11.2 us to 2 peers (limit 5)");
    CHECK(bad.slurm.calls() == std::vector<std::string>{"scontrol show node -o node001"});
    for (const char* n : {"node002", "node003", "node008"}) {
        INFO(n << ": " << notes_of(c.node(n).report));
        CHECK(c.node(n).report.rc == kExitOk);
        CHECK(c.node(n).report.verdict == "ok");
    }
    // The reports: the job's JSON for steer --preflight, the metrics for node_exporter.
    std::filesystem::path report;
    for (const auto& e : std::filesystem::directory_iterator(c.dir / "reports")) {
        if (e.path().filename().string().starts_with("job-42-")) {
            report = e.path();  // job-<id>-<start>.json: a requeued run keeps the first's
        }
    }
    std::ifstream json(report);
    std::stringstream j;
    j << json.rdbuf();
    CHECK_THAT(j.str(), Catch::Contains("\"node007 mlx5_0\""));
    CHECK(std::filesystem::status(c.dir / "reports").permissions() ==
          std::filesystem::perms::owner_all);
    CHECK(std::filesystem::exists(c.dir / "reports/preflight.prom"));
}

TEST_CASE(
    "preflight --prolog: a node that never comes, and one that poses as it, are no "
    "node's fault",
    "[preflight][prolog]") {
    REQUIRE(geteuid() == 0);
    Cluster c(kStrangersPort);
    std::filesystem::remove(c.dir / "table");
    std::ofstream(c.dir / "table") << "\n";
    bool posed = false;
    std::thread fake([&] { posed = impostor("hello 42 node008\n", kStrangersPort); });
    const auto t0 = std::chrono::steady_clock::now();
    c.run({"node001", "node002", "node003", "node004", "node005", "node006", "node007"});
    fake.join();
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(posed);
    auto& first = c.node("node001");
    const auto notes = notes_of(first.report);
    INFO(notes);
    CHECK_THAT(notes, Catch::Contains("(not a port under 1024): refused"));
    CHECK_THAT(notes, Catch::Contains("1 node(s) sent no results (node008): their pairs count "
                                      "as failed probes, nobody's fault"));
    REQUIRE(first.report.measured.has_value());
    CHECK(first.report.actions.empty());
    CHECK(first.slurm.calls().empty());
    for (const auto& n : c.nodes) {
        CHECK(n->report.rc == kExitOk);
        CHECK(n->report.verdict == "ok");
    }
    // The join waited its 3 s for node008, then the rounds ran: well within the budget.
    CHECK(took < 3 + 60);
}

TEST_CASE("preflight --prolog: bad requests stop before anyone waits", "[preflight][prolog]") {
    Cluster c;
    Node n;
    PreflightRequest a;
    a.policy = (c.dir / "policy.yaml").string();
    a.map = SWITCHYARD_SOURCE_DIR "/tests/golden/discover/dfp16/fabric.map.expected";
    a.hosts = "node[001-008]";
    a.me = "node009";
    a.job = "42";
    auto r = run_preflight_prolog(a, n.deps);
    CHECK(r.rc == kExitUsage);
    CHECK(r.error == "--me: 'node009' is not one of the job's nodes");
    a.me = "node001";
    a.job = "42;rm";
    r = run_preflight_prolog(a, n.deps);
    CHECK(r.error == "--job: expected a job id (digits), got '42;rm'");
    a.job = "99999999999999999999";  // past 64 bits: refused, not thrown
    r = run_preflight_prolog(a, n.deps);
    CHECK(r.error == "--job: expected a job id (digits), got '99999999999999999999'");
    // A host the map does not know: every node finds it, nobody waits, the job goes on.
    a.job = "42";
    a.hosts = "node[001-002],gpu999";
    a.me = "gpu999";
    const auto t0 = std::chrono::steady_clock::now();
    r = run_preflight_prolog(a, n.deps);
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
    CHECK(r.rc == kExitOk);
    CHECK(r.verdict == "ok");
    CHECK_THAT(notes_of(r), Catch::Contains("this node is not on the fabric map: not measured"));
    CHECK(n.slurm.calls().empty());
}
