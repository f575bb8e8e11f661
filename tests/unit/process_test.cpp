// SPDX-License-Identifier: Apache-2.0
// run_process: the deadline bounds the whole run, root-run commands get a clean environment,
// no stdin and an absolute path, and nothing of the command's process group outlives it.
#include "switchyard/common/process.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

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

namespace {

/// Host pids of the processes with `arg` among their arguments (/proc/*/cmdline): a command run
/// in a PID namespace of its own sees other pids than the host's.
std::vector<int> with_argument(const std::string& arg) {
    std::vector<int> out;
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
        const auto name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) {
            continue;
        }
        std::ifstream in(e.path() / "cmdline");
        std::string all((std::istreambuf_iterator<char>(in)), {});
        std::string part;
        for (std::size_t at = 0; at < all.size(); at += part.size() + 1) {
            part = all.substr(at, all.find('\0', at) - at);
            if (part == arg && running(std::stoi(name))) {
                out.push_back(std::stoi(name));
                break;
            }
        }
    }
    return out;
}

/// Waits up to 2 s for no running process to have `arg`; kills what is left.
bool all_gone(const std::string& arg) {
    for (int i = 0; i < 200; ++i) {  // SIGKILL is asynchronous; reaping is init's
        if (with_argument(arg).empty()) {
            return true;
        }
        usleep(10000);
    }
    for (const int pid : with_argument(arg)) {
        kill(pid, SIGKILL);
    }
    return false;
}

}  // namespace

TEST_CASE("process: what the command leaves in its group does not outlive it", "[process]") {
    const auto r = run_process({"/bin/sh", "-c", "sleep 60.125 >/dev/null 2>&1 & echo $!"}, 5,
                               &clean_environment());
    REQUIRE(r.exit_code == 0);
    CHECK(all_gone("60.125"));
}

TEST_CASE("process: a root-run command's setsid daemon does not outlive it", "[process]") {
    // setsid() leaves the process group, so killing the group missed it: a child left running
    // as root after the deadline. Run by root, the command is its own PID namespace's init.
    if (geteuid() != 0) {
        WARN(
            "not root: commands run without a PID namespace, only their process group is "
            "killed; this case is run by root (CI)");
        return;
    }
    auto r =
        run_process({"/bin/sh", "-c", "setsid sleep 60.25 >/dev/null 2>&1 < /dev/null & sleep 30"},
                    0.5, &clean_environment());
    CHECK(r.timed_out);
    CHECK(all_gone("60.25"));
    // Also when the command ends in time and leaves the daemon behind (it waits until the
    // daemon has left its group: the daemon writes the file after setsid()).
    const auto mark =
        std::filesystem::temp_directory_path() / ("sy-setsid-" + std::to_string(getpid()));
    std::filesystem::remove(mark);
    r = run_process({"/bin/sh", "-c",
                     "setsid /bin/sh -c 'echo x > \"$1\"; exec sleep 60.375' sh \"$0\" "
                     ">/dev/null 2>&1 < /dev/null & "
                     "while [ ! -s \"$0\" ]; do sleep 0.01; done; echo ok",
                     mark.string()},
                    5, &clean_environment());
    std::filesystem::remove(mark);
    CHECK(r.exit_code == 0);
    CHECK(r.output == "ok\n");
    CHECK(all_gone("60.375"));
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
