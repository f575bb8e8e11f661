// SPDX-License-Identifier: Apache-2.0
// The real and the fake Slurm client.
#include "switchyard/slurm/client/client.hpp"

#include <unistd.h>

#include <cstdlib>

#include "switchyard/common/strings.hpp"

namespace switchyard::slurm {

std::string_view tool_name(Tool tool) {
    switch (tool) {
        case Tool::Scontrol:
            return "scontrol";
        case Tool::Sinfo:
            return "sinfo";
        case Tool::Squeue:
            return "squeue";
        case Tool::Sacct:
            return "sacct";
        case Tool::Sacctmgr:
            return "sacctmgr";
    }
    return "scontrol";
}

std::string Call::command_line() const {
    std::string out(tool_name(tool));
    for (const auto& a : args) {
        out += " " + a;
    }
    return out;
}

std::string Call::brief() const {
    std::string out(tool_name(tool));
    for (const auto& a : args) {
        // A long format (--Format=, --format=, format=) says nothing an operator acts on; node
        // lists and reasons are kept whole.
        constexpr std::size_t kShortFormat = 24;
        const auto eq = a.find('=');
        const auto key = std::string_view(a).substr(0, eq == std::string::npos ? 0 : eq + 1);
        const bool format = a.find('\t') != std::string::npos ||
                            ((key == "--Format=" || key == "--format=" || key == "format=") &&
                             a.size() - key.size() > kShortFormat);
        out += " " + (format && eq != std::string::npos ? a.substr(0, eq + 1) + "…" : a);
    }
    return out;
}

std::string slurm_words(const Error& e, const Call& call) {
    const auto& m = e.message();
    const auto head = call.brief() + ": ";
    return m.rfind(head, 0) == 0 ? m.substr(head.size()) : m;
}

namespace {
constexpr std::string_view kNoAnswer = "no answer in time (is slurmctld up?)";
}  // namespace

Result<std::string> BoundedClient::run(const Call& call) {
    if (!gave_up_.empty()) {
        return fail(Error::io(call.brief() + ": not run: " + gave_up_ +
                              " got no answer in time (is slurmctld up?)"));
    }
    Call bounded = call;
    bounded.timeout_s = std::min(call.timeout_s, per_call_s_);
    auto r = inner_.run(bounded);
    if (!r && r.error().message().ends_with(kNoAnswer)) {
        gave_up_ = call.brief();
    }
    return r;
}

std::string slurm_problem(const ProcessRun& r, std::string_view command) {
    if (r.timed_out) {
        return std::string(kNoAnswer);
    }
    if (r.exit_code == 127) {
        return "cannot run " + std::string(command) + " (install slurm-client, or put it on PATH)";
    }
    return std::string(trim(r.output));
}

namespace {

/// `name`'s absolute path in the caller's PATH, as execvp would find it; nullopt when none.
std::optional<std::string> find_in_path(std::string_view name) {
    const char* path = std::getenv("PATH");
    for (const auto dir : split(path != nullptr ? path : "/usr/bin:/bin", ':')) {
        if (dir.empty() || dir.front() != '/') {
            continue;  // a relative PATH entry would make the command depend on the cwd
        }
        std::string candidate = std::string(dir) + "/" + std::string(name);
        if (::access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
    }
    return std::nullopt;
}

}  // namespace

RealClient::RealClient() : env_{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C", "LC_ALL=C"} {
    if (const char* conf = std::getenv("SLURM_CONF"); conf != nullptr) {
        env_.push_back(std::string("SLURM_CONF=") + conf);
    }
}

Result<std::string> RealClient::run(const Call& call) {
    const auto name = tool_name(call.tool);
    auto [it, added] = paths_.try_emplace(call.tool);
    if (added) {
        it->second = find_in_path(name);
    }
    ProcessRun r;
    if (it->second) {
        std::vector<std::string> argv{*it->second};
        argv.insert(argv.end(), call.args.begin(), call.args.end());
        r = run_process(argv, call.timeout_s, &env_, call.max_bytes);
    } else {
        r.exit_code = 127;
    }
    if (r.exit_code != 0) {
        return fail(Error::io(call.brief() + ": " + slurm_problem(r, name)));
    }
    if (r.truncated) {
        return fail(Error::io(call.brief() + ": more than " + std::to_string(call.max_bytes >> 20) +
                              " MiB of output; not read"));
    }
    return std::move(r.output);
}

void FakeClient::answer(const std::string& command_line, std::string output) {
    answers_.insert_or_assign(command_line, Result<std::string>(std::move(output)));
}

void FakeClient::refuse(const std::string& command_line, std::string why) {
    // The command line is put in front when it is called, as the real client does (brief).
    answers_.insert_or_assign(command_line, Result<std::string>(fail(Error::io(std::move(why)))));
}

Result<std::string> FakeClient::run(const Call& call) {
    const auto line = call.command_line();
    calls_.push_back(line);
    const auto it = answers_.find(line);
    if (it == answers_.end()) {
        return fail(Error::io(line + ": the fake client has no answer for this call"));
    }
    if (!it->second) {
        return fail(Error::io(call.brief() + ": " + it->second.error().message()));
    }
    return it->second;
}

}  // namespace switchyard::slurm
