// SPDX-License-Identifier: Apache-2.0
// squeue, sacct and sacctmgr: the command lines the audit and `why` run, through a Client.
#include <cstdio>

#include "switchyard/common/strings.hpp"
#include "switchyard/slurm/client/slurm_jobs.hpp"

namespace switchyard::slurm {

namespace {

/// Largest node count a SegmentSize may hold (Slurm's own limits are far above any cluster).
constexpr unsigned kMaxSegment = 1U << 20;

}  // namespace

bool squeue_has_segment(Client& client) {
    const auto r = client.run({Tool::Squeue, {"--version"}});
    unsigned major = 0;
    unsigned minor = 0;
    return r && std::sscanf(r->c_str(), "slurm %u.%u", &major, &minor) == 2 &&
           (major > 25 || (major == 25 && minor >= 5));
}

Result<std::vector<SlurmJob>> running_jobs(Client& client,
                                           const std::string& ids,
                                           bool segment_size,
                                           std::vector<std::string>& problems) {
    Call call{Tool::Squeue,
              {"--noheader", "--states=RUNNING", "--Format=" + squeue_job_format(segment_size)}};
    if (!ids.empty()) {
        call.args.push_back("--jobs=" + ids);
    }
    auto text = client.run(call);
    if (!text) {
        // For jobs asked by id, Slurm's words ("Invalid job id specified") say it all.
        return fail(ids.empty() ? text.error()
                                : Error::io("squeue: " + slurm_words(text.error(), call)));
    }
    auto jobs = parse_squeue_jobs(*text, "squeue", segment_size, problems);
    if (!jobs) {
        return fail(jobs.error());
    }
    call.args[2] = "--Format=" + std::string(kSqueuePreferFormat);
    if (auto prefer = client.run(call)) {
        read_squeue_prefer(*prefer, *jobs);
    } else {
        problems.push_back(prefer.error().message() + "; preferences not checked");
    }
    return jobs;
}

Result<std::vector<SlurmJob>> job_request(Client& client,
                                          const std::string& id,
                                          double timeout_s,
                                          std::vector<std::string>& problems) {
    Call call{Tool::Squeue,
              {"--noheader", "--jobs=" + id, "--Format=" + squeue_job_format(false)},
              timeout_s};
    auto text = client.run(call);
    if (!text) {
        return fail(Error::io("squeue: " + slurm_words(text.error(), call)));
    }
    auto jobs = parse_squeue_jobs(*text, "squeue", false, problems);
    if (!jobs || jobs->empty()) {
        return jobs;
    }
    call.args[2] = "--Format=" + std::string(kSqueueNodeCountFormat);
    if (auto counts = client.run(call)) {
        read_squeue_node_counts(*counts, *jobs);
    }
    return jobs;
}

unsigned job_segment_size(Client& client, const std::string& id, double timeout_s) {
    auto seg = client.run(
        {Tool::Squeue, {"--noheader", "--jobs=" + id, "--Format=SegmentSize:"}, timeout_s});
    if (seg) {
        if (const auto n = parse_uint(trim(*seg)); n && *n > 0 && *n < kMaxSegment) {
            return static_cast<unsigned>(*n);
        }
    }
    return 0;
}

Result<std::vector<SlurmJob>> accounted_jobs(Client& client,
                                             const std::string& since,
                                             std::vector<std::string>& problems) {
    auto text = client.run(
        {Tool::Sacct,
         {"--allusers", "--allocations", "--noheader", "--parsable2", "--delimiter=\t",
          "--starttime=" + since, "--endtime=now", "--format=" + std::string(kSacctJobFormat)}});
    if (!text) {
        return fail(text.error());
    }
    return parse_sacct_jobs(*text, "sacct", problems);
}

Result<std::vector<Reservation>> reservations(Client& client,
                                              const std::string& since,
                                              std::vector<std::string>& problems) {
    auto text = client.run({Tool::Sacctmgr,
                            {"--noheader", "--parsable2", "show", "reservation", "Start=" + since,
                             "format=" + std::string(kSacctmgrReservationFormat)}});
    if (!text) {
        return fail(text.error());
    }
    return parse_reservations(*text, "sacctmgr show reservation", problems);
}

Result<std::vector<NodeEvent>> node_events(Client& client,
                                           const std::string& since,
                                           std::vector<std::string>& problems) {
    auto text = client.run({Tool::Sacctmgr,
                            {"--noheader", "--parsable2", "show", "event", "Event=Node",
                             "Start=" + since, "format=" + std::string(kSacctmgrEventFormat)}});
    if (!text) {
        return fail(text.error());
    }
    return parse_node_events(*text, "sacctmgr show event", problems);
}

}  // namespace switchyard::slurm
