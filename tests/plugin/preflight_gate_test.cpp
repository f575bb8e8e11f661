// SPDX-License-Identifier: Apache-2.0
// The --preflight job option in the prolog: which jobs are measured, the command line and
// environment the prolog gives `switchyard preflight --prolog`, and what its exit does.
#include "preflight_gate.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "catch.hpp"
#include "fake_spank_api.hpp"

using namespace switchyard;
using namespace switchyard::spank;
using switchyard::spank::test::FakeSpankApi;

namespace {

/// A prolog's environment as slurmd gives it.
FakeSpankApi prolog_api() {
    FakeSpankApi api;
    api.ctx = Context::JobScript;
    api.node = "node003";
    api.job = 4711;
    api.partition = "batch";
    api.prolog = {{"SLURM_NODELIST", "node[001-008]"},
                  {"SLURM_CONF", "/etc/slurm/slurm.conf"},
                  {"SLURM_JOB_ID", "4711"}};
    return api;
}

/// A stand-in for the switchyard command: a script that exits `rc` (or hangs) and says so.
struct Command {
    std::filesystem::path dir;
    std::string path;
    explicit Command(const std::string& body) {
        char tmpl[] = "/tmp/switchyard-pfgate.XXXXXX";
        REQUIRE(::mkdtemp(tmpl) != nullptr);
        dir = tmpl;
        path = (dir / "switchyard").string();
        std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
        REQUIRE(::chmod(path.c_str(), 0755) == 0);
    }
    ~Command() { std::filesystem::remove_all(dir); }
    Command(const Command&) = delete;
    Command& operator=(const Command&) = delete;
};

}  // namespace

TEST_CASE(
    "preflight gate: measured when the job asks, else as its partition or the policy "
    "says",
    "[preflight]") {
    policy::Policy pol;
    auto api = prolog_api();
    SECTION("nobody asked: nothing runs, nothing is logged") {
        const auto l = preflight_launch(pol, "/etc/slurm/switchyard.yaml", "node003", api);
        CHECK(l.argv.empty());
        CHECK(l.quiet);
        CapturingLogger log;
        CHECK(run_preflight_gate(l, "node003", log) == 0);
        CHECK(log.lines.empty());
    }
    SECTION("--preflight alone: quick, with the job's nodes, id and cluster") {
        api.prolog[std::string(kPreflightOptionEnv)] = "";
        const auto l = preflight_launch(pol, "/etc/slurm/switchyard.yaml", "node003", api);
        CHECK(l.skip.empty());
        CHECK(l.argv == std::vector<std::string>{
                            "/usr/local/bin/switchyard", "preflight", "--prolog", "--policy",
                            "/etc/slurm/switchyard.yaml", "--job", "4711", "--hosts",
                            "node[001-008]", "--me", "node003", "--mode", "quick"});
        CHECK(std::find(l.env.begin(), l.env.end(), "SLURM_CONF=/etc/slurm/slurm.conf") !=
              l.env.end());
        CHECK(l.env.size() == clean_environment().size() + 1);  // nothing else of the job's
        CHECK(l.timeout_s == pol.preflight.prolog_budget_s() + 15);
    }
    SECTION("the partition's default, and the user's off over it") {
        pol.preflight.partitions = {{"batch", preflight::Mode::Full}};
        auto l = preflight_launch(pol, "/p.yaml", "node003", api);
        CHECK(l.mode == "full");
        api.prolog[std::string(kPreflightOptionEnv)] = "off";
        l = preflight_launch(pol, "/p.yaml", "node003", api);
        CHECK(l.argv.empty());
    }
    SECTION("a value the client check did not see (the environment fallback) is refused") {
        api.prolog[std::string(kPreflightOptionEnv)] = "always";
        const auto l = preflight_launch(pol, "/p.yaml", "node003", api);
        CHECK(l.argv.empty());
        CHECK(l.skip ==
              "--preflight: expected quick, full or off, got 'always' (the job's option; not "
              "measured)");
        CapturingLogger log;
        CHECK(run_preflight_gate(l, "node003", log) == 0);
        CHECK(log.contains(Level::Warning, "preflight on node003 skipped: --preflight:"));
    }
    SECTION("no policy file, no node list: said, and the job goes on") {
        api.prolog[std::string(kPreflightOptionEnv)] = "quick";
        CHECK(preflight_launch(pol, "", "node003", api).skip ==
              "no policy file (config=): the preflight needs its probes and port");
        api.prolog.erase("SLURM_NODELIST");
        CHECK(preflight_launch(pol, "/p.yaml", "node003", api).skip ==
              "the prolog has no SLURM_NODELIST");
    }
}

TEST_CASE("preflight gate: exit 5 fails the prolog, any other end lets the job go on",
          "[preflight]") {
    PreflightLaunch l;
    l.env = clean_environment();
    l.timeout_s = 10;
    CapturingLogger log;
    SECTION("at fault") {
        const Command c(
            "echo 'switchyard preflight: job 1 on node003: at fault: switchyard: "
            "preflight: mlx5_2: 11.2 us to 6 peers (limit 5)'; exit 5");
        l.argv = {c.path};
        CHECK(run_preflight_gate(l, "node003", log) == -1);
        CHECK(log.contains(Level::Info, "at fault: switchyard: preflight: mlx5_2"));
        CHECK(log.contains(Level::Error, "node003 is at fault and drained"));
    }
    SECTION("a pass, a problem, a missing command") {
        const Command ok("echo ok; exit 0");
        l.argv = {ok.path};
        CHECK(run_preflight_gate(l, "node003", log) == 0);
        const Command problem("exit 1");
        l.argv = {problem.path};
        CHECK(run_preflight_gate(l, "node003", log) == 0);
        CHECK(log.contains(Level::Warning, "preflight on node003: exit 1; the job goes on"));
        l.argv = {"/nonexistent/switchyard"};
        CHECK(run_preflight_gate(l, "node003", log) == 0);
        CHECK(log.contains(Level::Error, "cannot run /nonexistent/switchyard; the job goes on"));
    }
    SECTION("a hang is killed at the deadline") {
        const Command hang("exec sleep 600");
        l.argv = {hang.path};
        l.timeout_s = 1;
        const auto t0 = std::chrono::steady_clock::now();
        CHECK(run_preflight_gate(l, "node003", log) == 0);
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
        CHECK(log.contains(Level::Error, "no end within 1 s (killed); the job goes on"));
    }
    SECTION("output from outside is printable before it reaches the log") {
        const Command esc("printf 'a\\033[2Jb\\n'");
        l.argv = {esc.path};
        CHECK(run_preflight_gate(l, "node003", log) == 0);
        REQUIRE_FALSE(log.lines.empty());
        CHECK(log.lines[0].message.find('\033') == std::string::npos);
    }
}
