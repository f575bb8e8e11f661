// SPDX-License-Identifier: Apache-2.0
// run_process: the deadline bounds the whole run, root-run commands get a clean environment,
// no stdin and an absolute path, and nothing of the command's process group outlives it.
#include "switchyard/common/process.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "catch.hpp"

using namespace switchyard;

namespace {

/// Whether a process is still running (not gone, not a zombie waiting to be reaped).
bool running(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) {
        return false;
    }
    const auto close = line.rfind(')');
    return close != std::string::npos && line.size() > close + 2 && line[close + 2] != 'Z' &&
           line[close + 2] != 'X';
}

}  // namespace

TEST_CASE("process: a command that closes its output and sleeps is killed at the deadline",
          "[process]") {
    // It used to be waited for after EOF: 30 s with a 1 s timeout.
    const auto r =
        run_process({"/bin/sh", "-c", "exec >&- 2>&-; sleep 30"}, 1, &clean_environment());
    CHECK(r.timed_out);
    CHECK(r.exit_code == -1);
}

TEST_CASE("process: root-run commands get only the clean environment", "[process]") {
    setenv("SWITCHYARD_TEST_SECRET", "from-the-job", 1);
    const auto r = run_process({"/usr/bin/env"}, 5, &clean_environment());
    unsetenv("SWITCHYARD_TEST_SECRET");
    REQUIRE(r.exit_code == 0);
    CHECK(r.output == "PATH=/usr/sbin:/usr/bin:/sbin:/bin\nLANG=C\nLC_ALL=C\n");
    // The CLI's own calls (env == nullptr) inherit, e.g. the user's SLURM_CONF.
    setenv("SWITCHYARD_TEST_SECRET", "inherited", 1);
    const auto inherited = run_process({"env"}, 5);
    unsetenv("SWITCHYARD_TEST_SECRET");
    CHECK_THAT(inherited.output, Catch::Contains("SWITCHYARD_TEST_SECRET=inherited"));
}

TEST_CASE("process: stdin is /dev/null", "[process]") {
    const auto r =
        run_process({"/bin/sh", "-c", "read x; echo \"read:$?:$x\""}, 5, &clean_environment());
    CHECK(r.output == "read:1:\n");  // end of input at once, never the caller's stdin
}

TEST_CASE("process: a root-run command needs an absolute path", "[process]") {
    const auto r = run_process({"sleep", "1"}, 5, &clean_environment());
    CHECK(r.error == "'sleep' is not an absolute path");
    CHECK(r.exit_code == -1);
}

TEST_CASE("process: what the command leaves in its group does not outlive it", "[process]") {
    const auto r = run_process({"/bin/sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"}, 5,
                               &clean_environment());
    REQUIRE(r.exit_code == 0);
    const int pid = std::atoi(r.output.c_str());
    REQUIRE(pid > 0);
    bool gone = false;
    for (int i = 0; i < 200 && !gone; ++i) {  // SIGKILL is asynchronous; reaping is init's
        gone = !running(pid);
        if (!gone) {
            usleep(10000);
        }
    }
    CHECK(gone);
    if (!gone) {
        kill(pid, SIGKILL);
    }
}

TEST_CASE("process: output past the cap is drained, dropped and reported", "[process]") {
    // 3 MiB from a command that would block on a full pipe if the rest were not read.
    const auto r = run_process({"/bin/sh", "-c", "head -c 3145728 /dev/zero | tr '\\0' x; echo"},
                               10, &clean_environment(), 1000);
    CHECK(r.exit_code == 0);
    CHECK(r.output.size() == 1000);
    CHECK(r.truncated);
    const auto small = run_process({"/bin/echo", "ok"}, 5, &clean_environment(), 3);
    CHECK(small.output == "ok\n");
    CHECK_FALSE(small.truncated);
}
