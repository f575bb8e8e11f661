// SPDX-License-Identifier: Apache-2.0
// run_process: fork/exec with a pipe, poll until EOF or the deadline, kill the process group.
#include "switchyard/common/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace switchyard {

using Clock = std::chrono::steady_clock;

ProcessRun run_process(const std::vector<std::string>& argv, double timeout_s) {
    ProcessRun r;
    if (argv.empty()) {
        r.error = "empty argv";
        return r;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        r.error = std::string("pipe: ") + std::strerror(errno);
        return r;
    }
    std::vector<char*> args;
    for (const auto& a : argv) {
        args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
        r.error = std::string("fork: ") + std::strerror(errno);
        close(fds[0]);
        close(fds[1]);
        return r;
    }
    if (pid == 0) {  // child: own process group so a timeout kills its children too
        setpgid(0, 0);
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        execvp(args[0], args.data());
        _exit(127);
    }
    close(fds[1]);
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
    char buf[4096];
    while (true) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
            r.timed_out = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
        if (ready < 0 && errno != EINTR) {
            break;
        }
        if (ready > 0) {
            const auto n = read(fds[0], buf, sizeof buf);
            if (n <= 0) {
                break;  // EOF: the command closed its output
            }
            if (r.output.size() < (1U << 20)) {
                r.output.append(buf, static_cast<std::size_t>(n));
            }
        }
    }
    close(fds[0]);
    if (r.timed_out) {
        kill(-pid, SIGKILL);
    }
    int status = 0;
    // After EOF the child may still be exiting; after a kill it is gone shortly.
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!r.timed_out) {
        r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    return r;
}

}  // namespace switchyard
