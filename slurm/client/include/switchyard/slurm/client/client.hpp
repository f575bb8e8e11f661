// SPDX-License-Identifier: Apache-2.0
// The one way switchyard runs a Slurm command (scontrol, sinfo, squeue, sacct, sacctmgr): a
// Client runs one Call and gives its output or why there is none. The real client runs the
// command by absolute path, in a clean environment, with a deadline and a bound on what it
// reads; the fake answers from a table, for the unit tests. The command lines themselves and
// the parsers of what they print are in this folder's other headers, and nowhere else.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/process.hpp"
#include "switchyard/common/result.hpp"

namespace switchyard::slurm {

/// The Slurm commands switchyard runs.
enum class Tool { Scontrol, Sinfo, Squeue, Sacct, Sacctmgr };

/// "scontrol", "sinfo", ...
[[nodiscard]] std::string_view tool_name(Tool tool);

/// Most a call's answer may hold: 64 MiB, about a million nodes or jobs.
inline constexpr std::size_t kMaxAnswerBytes = std::size_t{64} << 20;

/// One run of a Slurm command.
struct Call {
    Tool tool = Tool::Scontrol;
    std::vector<std::string> args;
    double timeout_s = 30;  ///< the whole run, exit included; then the command is killed
    std::size_t max_bytes = kMaxAnswerBytes;

    /// "squeue --noheader ...": how messages name the call.
    [[nodiscard]] std::string command_line() const;
    /// The command line as a message shows it: a long format argument (--Format=, --format=,
    /// format=; or any argument holding a tab) shown as `--Format=…`.
    [[nodiscard]] std::string brief() const;
};

/// What a failed run of `call` said, without the command line in front: Slurm's own words.
[[nodiscard]] std::string slurm_words(const Error& e, const Call& call);

/// Why a run of `command` failed, in words an operator can act on.
[[nodiscard]] std::string slurm_problem(const ProcessRun& r, std::string_view command);

class Client {
public:
    Client() = default;
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;
    virtual ~Client() = default;

    /// The call's output (stdout and stderr), or Error::io "<command line>: <why>" when the
    /// command could not be run, did not answer in time, exited non-zero or printed more than
    /// its bound.
    [[nodiscard]] virtual Result<std::string> run(const Call& call) = 0;
};

/// The real client. Each command is found once in the caller's PATH (a missing one is "cannot
/// run sinfo (install slurm-client, or put it on PATH)") and run by that absolute path with
/// only PATH=/usr/sbin:/usr/bin:/sbin:/bin, LANG=C and the caller's SLURM_CONF (which cluster):
/// nothing else of the caller's environment (SLURM_TIME_FORMAT, SQUEUE_FORMAT, ...) can change
/// what the parsers read.
class RealClient final : public Client {
public:
    RealClient();
    [[nodiscard]] Result<std::string> run(const Call& call) override;

private:
    std::vector<std::string> env_;
    std::map<Tool, std::optional<std::string>> paths_;
};

/// A client over another whose calls take at most `per_call_s` each, and which starts no call
/// once one went unanswered in time: with slurmctld down, every later call would wait as long.
/// For commands that make many calls (audit: a refresh round waits for it).
class BoundedClient final : public Client {
public:
    BoundedClient(Client& inner, double per_call_s) : inner_(inner), per_call_s_(per_call_s) {}
    [[nodiscard]] Result<std::string> run(const Call& call) override;

private:
    Client& inner_;
    double per_call_s_;
    std::string gave_up_;  ///< the call that timed out; "" while none did
};

/// A client that answers from a table, for the unit tests: each answer is keyed by the call's
/// command line; a call with none is an error naming it. Every call is recorded.
class FakeClient final : public Client {
public:
    /// The answer to `command_line` (exactly as Call::command_line() gives it).
    void answer(const std::string& command_line, std::string output);
    /// The call fails with `why` (as the real client says it).
    void refuse(const std::string& command_line, std::string why);

    [[nodiscard]] Result<std::string> run(const Call& call) override;
    [[nodiscard]] const std::vector<std::string>& calls() const { return calls_; }

private:
    std::map<std::string, Result<std::string>> answers_;
    std::vector<std::string> calls_;
};

}  // namespace switchyard::slurm
