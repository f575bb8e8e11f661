// SPDX-License-Identifier: Apache-2.0
// sacct's finished jobs for `switchyard audit --since`, accounting's node events and
// reservations, and which nodes each partition holds.
#include <array>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/slurm/client/slurm_jobs.hpp"
#include "switchyard/slurm/files/slurm_text.hpp"

namespace switchyard::slurm {
namespace {

using detail::shown;
using detail::unset_word;

/// The fields of kSacctJobFormat, in order (Constraints last: it takes the rest of the line).
enum Field : std::size_t {
    kId,
    kState,
    kPartition,
    kNodes,
    kSubmit,
    kStart,
    kEnd,
    kReservation,
    kAdminComment,
    kConstraints,
    kFieldCount
};

constexpr std::array<std::string_view, kFieldCount> kFieldNames{
    "JobID", "State", "Partition",   "NodeList",     "Submit",
    "Start", "End",   "Reservation", "AdminComment", "Constraints"};

/// Reads one line's fields; "" when it is fine, else what was wrong.
std::string read_line(const std::vector<std::string_view>& f, SlurmJob& job) {
    job.id = std::string(f[kId]);
    if (!detail::valid_job_id(job.id)) {
        return "JobID '" + shown(f[kId]) + "' is not a job id";
    }
    // "CANCELLED by 0": the state is the first word.
    job.state = std::string(f[kState].substr(0, f[kState].find(' ')));
    job.partition = unset_word(f[kPartition]) ? "" : std::string(f[kPartition]);
    auto nodes = expand_hostlist(f[kNodes]);
    if (!nodes) {
        return "NodeList: " + nodes.error().message();
    }
    job.nodes = std::move(*nodes);
    for (const auto& [field, out] :
         {std::pair{kSubmit, &job.submit_time}, std::pair{kStart, &job.start_time},
          std::pair{kEnd, &job.end_time}}) {
        if (!unset_word(f[field])) {
            *out = parse_slurm_time(f[field]);
            if (!*out) {
                return std::string(kFieldNames[field]) + " '" + shown(f[field]) +
                       "' is not a time (expected YYYY-MM-DDTHH:MM:SS)";
            }
        }
    }
    if (!job.start_time) {
        return "it holds nodes but has no Start time";
    }
    job.reservation = unset_word(f[kReservation]) ? "" : std::string(f[kReservation]);
    if (!unset_word(f[kAdminComment])) {
        if (auto m = read_job_marker(f[kAdminComment], job); !m) {
            return "AdminComment: " + m.error().message();
        }
    }
    job.features = unset_word(f[kConstraints]) ? "" : std::string(f[kConstraints]);
    return {};
}

}  // namespace

Result<std::vector<SlurmJob>> parse_sacct_jobs(std::string_view text,
                                               std::string_view source,
                                               std::vector<std::string>& problems) {
    std::vector<SlurmJob> jobs;
    std::size_t line_no = 0;
    for (auto line : split(text, '\n')) {
        ++line_no;
        if (line_no > kMaxJobLines) {
            return fail(
                Error::parse({std::string(source), static_cast<std::uint32_t>(line_no), 0},
                             "more than " + std::to_string(kMaxJobLines) + " jobs; not read"));
        }
        if (trim(line).empty()) {
            continue;
        }
        const auto f = detail::tab_fields(line, kFieldCount);
        const auto where = std::string(source) + ":" + std::to_string(line_no) + ": ";
        if (f.size() != kFieldCount) {
            problems.push_back(where + "expected " + std::to_string(kFieldCount) +
                               " tab-separated fields, got " + std::to_string(f.size()) +
                               "; job left out");
            continue;
        }
        if (f[kNodes] == "None assigned" || unset_word(f[kNodes])) {
            continue;  // never started: nothing placed
        }
        SlurmJob job;
        if (const auto why = read_line(f, job); !why.empty()) {
            problems.push_back(where + "job " + shown(f[kId]) + ": " + why + "; job left out");
            continue;
        }
        jobs.push_back(std::move(job));
    }
    return jobs;
}

namespace {

/// One line of sacctmgr's "NODES|START|END|WORD" (events, reservations): the word takes the
/// rest of the line.
struct Interval {
    std::vector<std::string> nodes;
    std::int64_t start = 0;
    std::optional<std::int64_t> end;
    std::string word;
};

/// Reads such lines; `fields` names the four for messages, `what` one line's thing. Lines
/// without nodes (a cluster's own event, a reservation of licences) are skipped.
Result<std::vector<Interval>> parse_intervals(std::string_view text,
                                              std::string_view source,
                                              const std::array<std::string_view, 4>& fields,
                                              const std::string& what,
                                              std::vector<std::string>& problems) {
    std::vector<Interval> out;
    std::size_t line_no = 0;
    for (auto line : split(text, '\n')) {
        ++line_no;
        if (line_no > kMaxJobLines) {
            return fail(Error::parse(
                {std::string(source), static_cast<std::uint32_t>(line_no), 0},
                "more than " + std::to_string(kMaxJobLines) + " " + what + "s; not read"));
        }
        if (trim(line).empty()) {
            continue;
        }
        const auto where = std::string(source) + ":" + std::to_string(line_no) + ": ";
        auto f = split(line, '|');
        if (f.size() > 4) {  // the word may hold '|'
            f[3] = line.substr(static_cast<std::size_t>(f[3].data() - line.data()));
            f.resize(4);
        }
        if (f.size() != 4) {
            problems.push_back(where + "expected 4 fields separated by '|', got " +
                               std::to_string(f.size()) + "; " + what + " left out");
            continue;
        }
        if (unset_word(trim(f[0]))) {
            continue;
        }
        auto nodes = expand_hostlist(trim(f[0]));
        const auto start = parse_slurm_time(trim(f[1]));
        const auto end =
            unset_word(trim(f[2])) ? std::optional<std::int64_t>() : parse_slurm_time(trim(f[2]));
        if (!nodes || !start || (!unset_word(trim(f[2])) && !end)) {
            problems.push_back(where +
                               (!nodes ? std::string(fields[0]) + ": " + nodes.error().message()
                                       : std::string(fields[1]) + " '" + shown(trim(f[1])) +
                                             "' or " + std::string(fields[2]) + " '" +
                                             shown(trim(f[2])) + "' is not a time") +
                               "; " + what + " left out");
            continue;
        }
        out.push_back({std::move(*nodes), *start, end, std::string(trim(f[3]))});
    }
    return out;
}

}  // namespace

Result<std::vector<NodeEvent>> parse_node_events(std::string_view text,
                                                 std::string_view source,
                                                 std::vector<std::string>& problems) {
    auto lines = parse_intervals(text, source, {"NodeName", "TimeStart", "TimeEnd", "State"},
                                 "event", problems);
    if (!lines) {
        return fail(lines.error());
    }
    std::vector<NodeEvent> events;
    for (auto& l : *lines) {
        events.push_back({std::move(l.nodes), l.start, l.end, std::move(l.word)});
    }
    return events;
}

Result<std::vector<Reservation>> parse_reservations(std::string_view text,
                                                    std::string_view source,
                                                    std::vector<std::string>& problems) {
    auto lines = parse_intervals(text, source, {"NodeNames", "Start", "End", "Name"}, "reservation",
                                 problems);
    if (!lines) {
        return fail(lines.error());
    }
    std::vector<Reservation> out;
    for (auto& l : *lines) {
        out.push_back({std::move(l.word), std::move(l.nodes), l.start, l.end});
    }
    return out;
}

std::map<std::string, std::set<std::string>> parse_partition_nodes(std::string_view text) {
    std::map<std::string, std::set<std::string>> out;
    for (const auto line : split(text, '\n')) {
        const auto bar = line.find('|');
        if (bar == std::string_view::npos) {
            continue;
        }
        const auto node = trim(line.substr(0, bar));
        const auto partition = trim(line.substr(bar + 1));
        if (!node.empty() && !unset_word(partition)) {
            out[std::string(partition)].emplace(node);
        }
    }
    return out;
}

}  // namespace switchyard::slurm
