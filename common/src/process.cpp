// SPDX-License-Identifier: Apache-2.0
// run_process: fork/exec with a pipe, poll until EOF and the exit or the deadline, kill the
// process group (and, run by root, the command's PID namespace: everything it started).
#include "switchyard/common/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace switchyard {

using Clock = std::chrono::steady_clock;

namespace {

/// For a root-run command (`contain`: an absolute path, execve, nothing that allocates before
/// the exec) fork() with the child in a PID namespace of its own where the kernel allows it
/// (root, or CAP_SYS_ADMIN): the command is that namespace's init, and when it ends or is
/// killed the kernel kills every process it left behind, a setsid() daemon that escaped its
/// process group included. Elsewhere (an unprivileged user, or execvp's PATH search, which may
/// allocate) a plain fork: the process group only. The raw clone skips glibc's fork handlers
/// (malloc's locks among them), so the child calls only async-signal-safe functions.
pid_t fork_contained(bool contain) {
    if (contain) {
        const long pid =
            syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
        if (pid >= 0) {
            return static_cast<pid_t>(pid);
        }
    }
    return fork();  // EPERM without the capability, EINVAL in some containers
}

}  // namespace

const std::vector<std::string>& clean_environment() {
    static const std::vector<std::string> env{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C",
                                              "LC_ALL=C"};
    return env;
}

ProcessRun run_process(const std::vector<std::string>& argv,
                       double timeout_s,
                       const std::vector<std::string>* env,
                       std::size_t max_output) {
    ProcessRun r;
    if (argv.empty()) {
        r.error = "empty argv";
        return r;
    }
    if (env != nullptr && !argv.front().starts_with('/')) {
        r.error = "'" + argv.front() + "' is not an absolute path";
        return r;
    }
    std::vector<char*> envp;
    if (env != nullptr) {
        for (const auto& e : *env) {
            envp.push_back(const_cast<char*>(e.c_str()));
        }
        envp.push_back(nullptr);
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
    const pid_t pid = fork_contained(env != nullptr);
    if (pid < 0) {
        r.error = std::string("fork: ") + std::strerror(errno);
        close(fds[0]);
        close(fds[1]);
        return r;
    }
    if (pid == 0) {  // child: own process group so a timeout kills its children too
        setpgid(0, 0);
        const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
        }
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        if (env != nullptr) {
            execve(args[0], args.data(), envp.data());
        } else {
            execvp(args[0], args.data());
        }
        _exit(127);
    }
    setpgid(pid, pid);  // also from here: no race with a kill before the child ran setpgid
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
            const auto room = max_output - std::min(max_output, r.output.size());
            const auto got = static_cast<std::size_t>(n);
            r.output.append(buf, std::min(room, got));
            r.truncated = r.truncated || got > room;
        }
    }
    close(fds[0]);
    // After EOF the command may still run (it closed its output and sleeps): wait for it only
    // until the deadline. WNOWAIT leaves the exited leader unreaped, so its pid, and with it the
    // process group's id, cannot be reused before the group is killed below.
    while (!r.timed_out) {
        siginfo_t info{};
        const int w = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
        if ((w == 0 && info.si_pid == pid) || (w < 0 && errno != EINTR)) {
            break;
        }
        if (Clock::now() >= deadline) {
            r.timed_out = true;
            break;
        }
        usleep(5000);
    }
    // The deadline passed, or what the command left behind in its group; the namespace's init
    // killed, the kernel kills the rest of the namespace.
    kill(-pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!r.timed_out) {
        r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    return r;
}

}  // namespace switchyard
