// SPDX-License-Identifier: Apache-2.0
// The --preflight job option in the job prolog.
#include "preflight_gate.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "switchyard/common/job_options.hpp"
#include "switchyard/common/process.hpp"
#include "switchyard/common/strings.hpp"

namespace switchyard::spank {
namespace {

constexpr std::size_t kLoggedLines = 40;  ///< of the command's output, into slurmd's log

}  // namespace

PreflightLaunch preflight_launch(const policy::Policy& pol,
                                 const std::string& config,
                                 const std::string& node,
                                 SpankApi& api) {
    PreflightLaunch l;
    std::optional<preflight::Mode> asked;
    if (const auto v = api.prolog_env(kPreflightOptionEnv)) {
        if (auto m = parse_preflight(*v)) {
            asked = preflight::mode_from_string(*m);
        } else {
            l.skip = m.error().message() + " (the job's option; not measured)";
            return l;
        }
    }
    const auto mode = pol.preflight.mode_for(api.job_partition(), asked);
    if (mode == preflight::Mode::Off) {
        l.skip = "off";
        l.quiet = true;
        return l;
    }
    l.mode = std::string(preflight::to_string(mode));
    auto hosts = api.prolog_env("SLURM_NODELIST");
    if (!hosts || hosts->empty()) {
        hosts = api.prolog_env("SLURM_JOB_NODELIST");
    }
    if (!hosts || hosts->empty()) {
        l.skip = "the prolog has no SLURM_NODELIST";
        return l;
    }
    std::string job = api.job_id() != 0 ? std::to_string(api.job_id()) : "";
    if (job.empty()) {
        job = api.prolog_env("SLURM_JOB_ID").value_or("");
    }
    if (job.empty()) {
        l.skip = "the prolog has no job id";
        return l;
    }
    if (config.empty()) {
        l.skip = "no policy file (config=): the preflight needs its probes and port";
        return l;
    }
    l.argv = {pol.preflight.command,
              "preflight",
              "--prolog",
              "--policy",
              config,
              "--job",
              job,
              "--hosts",
              *hosts,
              "--me",
              node,
              "--mode",
              l.mode};
    l.env = clean_environment();
    if (const auto conf = api.prolog_env("SLURM_CONF"); conf && conf->starts_with('/')) {
        l.env.push_back("SLURM_CONF=" + *conf);  // which cluster the drains go to
    }
    l.timeout_s = pol.preflight.prolog_budget_s() + 15;
    return l;
}

int run_preflight_gate(const PreflightLaunch& launch, const std::string& node, Logger& log) {
    if (!launch.skip.empty()) {
        if (!launch.quiet) {
            log.warning(Component::Health, "preflight on " + node + " skipped: " + launch.skip);
        }
        return 0;
    }
    const auto run = run_process(launch.argv, launch.timeout_s, &launch.env);
    std::istringstream lines(run.output);
    std::size_t n = 0;
    for (std::string line; std::getline(lines, line) && n < kLoggedLines; ++n) {
        log.info(Component::Health, printable(line));
    }
    if (run.timed_out || !run.error.empty() || run.exit_code == 127) {
        char b[32];
        std::snprintf(b, sizeof b, "%.0f", launch.timeout_s);
        log.error(Component::Health,
                  "preflight on " + node + ": " +
                      (run.timed_out ? std::string("no end within ") + b + " s (killed)"
                                     : (run.error.empty() ? "cannot run " + launch.argv.front()
                                                          : run.error)) +
                      "; the job goes on");
        return 0;
    }
    if (run.exit_code == kPreflightNodeAtFault) {
        log.error(Component::Health, "preflight: " + node +
                                         " is at fault and drained; the job goes back to the "
                                         "queue");
        return -1;
    }
    if (run.exit_code != 0) {
        log.warning(Component::Health, "preflight on " + node + ": exit " +
                                           std::to_string(run.exit_code) + "; the job goes on");
    }
    return 0;
}

}  // namespace switchyard::spank
