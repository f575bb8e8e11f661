// SPDX-License-Identifier: Apache-2.0
// What slurmctld says of jobs and of its own topology, for `switchyard audit`: squeue's fields
// (the allocation, what the job asked, Switchyard's record in its AdminComment; no field a user
// writes but the constraints, each last on its line) and `scontrol show topology`, compared
// with the units the installed map gives. Pure text in, data out: the calls are the CLI's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/result.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/slurm/client/client.hpp"

namespace switchyard::slurm {

/// The word job_submit.lua writes into a job's AdminComment: "switchyard:stages=4,scope=leaf,
/// segment=2,nvl=4,switches=4@60,prefer=[g1|g2]" (each after scope only when set; switches:
/// the leaf switch count and its wait in seconds, prefer: the preference the filters set, both
/// of which sacct does not keep).
inline constexpr std::string_view kJobMarker = "switchyard:";
/// Longest preference the record may carry (MARKER_PREFER_MAX in switchyard_stages.lua), and
/// the characters it may hold.
inline constexpr std::size_t kMaxMarkerPrefer = 1024;
inline constexpr std::string_view kMarkerPreferChars =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-|&[]";

/// Largest number of job lines one answer may hold (a cluster's running and pending jobs).
inline constexpr std::size_t kMaxJobLines = 1'000'000;

/// One job as squeue prints it: the fields the audit reads.
struct SlurmJob {
    std::string id;  ///< JobID ("123", "123_4" for an array task, "123+0" for a het component)
    std::string state;
    std::string partition;
    std::string reason;
    std::vector<std::string> nodes;           ///< NodeList expanded (empty before it starts)
    std::string features;                     ///< the job's constraint ("" for none)
    std::string prefer;                       ///< its soft constraint (23.11+; "" for none)
    unsigned switches = 0;                    ///< leaf switches asked (--switches; 0: none)
    std::optional<double> switch_wait_s;      ///< how long Slurm may wait for them
    unsigned segment = 0;                     ///< SegmentSize (25.05+), else the record's; 0: none
    unsigned node_count = 0;                  ///< NumNodes (kSqueueNodeCountFormat; 0: not read)
    std::optional<std::int64_t> submit_time;  ///< seconds (local time read as UTC)
    std::optional<std::int64_t> start_time;
    std::optional<std::int64_t> end_time;  ///< sacct's End (nullopt: still running)
    std::string reservation;               ///< sacct's Reservation: the one it ran in ("": none)
    /// Switchyard's record (the AdminComment word, see kJobMarker).
    unsigned stages = 0;  ///< 0: not a pipeline job
    std::string scope;    ///< leaf, group, any; "" when not recorded
    unsigned nvl_group = 0;
};

/// The `squeue --noheader --Format` the audit asks for: each field ended by a tab, the job's
/// constraint last (a user's text: it takes the rest of the line). SegmentSize only from 25.05.
[[nodiscard]] std::string squeue_job_format(bool segment_size);
/// The second ask, for the preference (also a user's text): JobID and Prefer.
inline constexpr std::string_view kSqueuePreferFormat = "JobID:\t,Prefer:";

/// Reads what squeue printed with squeue_job_format(segment_size). A line that cannot be read
/// (a node list, time or number Slurm would not print) is left out and described in `problems`
/// (source:line and the field); the others are kept.
/// \return the jobs, or Error::parse when there are more than kMaxJobLines lines.
[[nodiscard]] Result<std::vector<SlurmJob>> parse_squeue_jobs(std::string_view text,
                                                              std::string_view source,
                                                              bool segment_size,
                                                              std::vector<std::string>& problems);

/// Reads kSqueuePreferFormat's answer into the jobs of `jobs` it names (over the record's).
void read_squeue_prefer(std::string_view text, std::vector<SlurmJob>& jobs);

/// A third ask, for `switchyard why`: JobID and NumNodes (a pending job's: the least it asks).
inline constexpr std::string_view kSqueueNodeCountFormat = "JobID:\t,NumNodes:";
/// Reads kSqueueNodeCountFormat's answer into the jobs of `jobs` it names ("4" or "4-8": the
/// first number; anything else leaves 0).
void read_squeue_node_counts(std::string_view text, std::vector<SlurmJob>& jobs);

/// `sacct --format` for finished jobs (with --parsable2, a tab as --delimiter, --allocations):
/// only fields no user writes, then the constraint (a user's text) last.
inline constexpr std::string_view kSacctJobFormat =
    "JobID,State,Partition,NodeList,Submit,Start,End,Reservation,AdminComment,Constraints";
/// Reads what sacct printed with kSacctJobFormat: jobs that held nodes (a job never started,
/// "None assigned", is skipped). A line that cannot be read is left out and described in
/// `problems`. \return the jobs, or Error::parse when there are more than kMaxJobLines lines.
[[nodiscard]] Result<std::vector<SlurmJob>> parse_sacct_jobs(std::string_view text,
                                                             std::string_view source,
                                                             std::vector<std::string>& problems);

/// A time when nodes could not run jobs: a node event of accounting (drained, down, failing,
/// or not yet registered).
struct NodeEvent {
    std::vector<std::string> nodes;
    std::int64_t start = 0;
    std::optional<std::int64_t> end;  ///< nullopt: it still holds
    std::string state;                ///< DRAIN, DOWN, FAIL, UNK, ...
};
/// `sacctmgr --noheader --parsable2 show event Event=Node` format (no reason: an admin's text).
inline constexpr std::string_view kSacctmgrEventFormat = "NodeName,TimeStart,TimeEnd,State";
/// Reads kSacctmgrEventFormat's answer. A line that cannot be read is left out and described
/// in `problems`. \return the events, or Error::parse past kMaxJobLines lines.
[[nodiscard]] Result<std::vector<NodeEvent>> parse_node_events(std::string_view text,
                                                               std::string_view source,
                                                               std::vector<std::string>& problems);

/// A reservation of accounting: its nodes were held for the jobs that ran in it.
struct Reservation {
    std::string name;
    std::vector<std::string> nodes;
    std::int64_t start = 0;
    std::optional<std::int64_t> end;  ///< nullopt: not known
};
/// `sacctmgr --noheader --parsable2 show reservation` format (the name, an admin's word, last).
inline constexpr std::string_view kSacctmgrReservationFormat = "NodeNames,Start,End,Name";
/// Reads kSacctmgrReservationFormat's answer; a reservation without nodes is skipped. A line
/// that cannot be read is left out and described in `problems`. \return the reservations, or
/// Error::parse past kMaxJobLines lines.
[[nodiscard]] Result<std::vector<Reservation>> parse_reservations(
    std::string_view text, std::string_view source, std::vector<std::string>& problems);

/// `sinfo --noheader --Node --format` for the partitions of each node.
inline constexpr std::string_view kSinfoPartitionsFormat = "%N|%R";
/// Reads kSinfoPartitionsFormat's answer: partition → its nodes.
[[nodiscard]] std::map<std::string, std::set<std::string>> parse_partition_nodes(
    std::string_view text);

/// Reads Switchyard's word out of an AdminComment into `job` (other words are the site's).
/// \return Error::invalid_argument naming the key or value when the word is malformed.
[[nodiscard]] Result<void> read_job_marker(std::string_view admin_comment, SlurmJob& job);

/// A time Slurm prints for a limit or wait ("1:00", "00:01:00", "2-00:00:00") in seconds.
[[nodiscard]] std::optional<double> parse_slurm_duration(std::string_view s);

/// A time Slurm prints for an event ("2026-12-05T15:10:59") as seconds since the epoch read
/// as UTC (differences are right whatever the zone); nullopt for "N/A", "Unknown", "None".
[[nodiscard]] std::optional<std::int64_t> parse_slurm_time(std::string_view s);

/// `sinfo --noheader --Node --format` for each node's active features.
inline constexpr std::string_view kSinfoFeaturesFormat = "%N|%b";
/// Reads kSinfoFeaturesFormat's answer: node → features ("(null)" is none). A line without
/// '|' is left out.
[[nodiscard]] std::map<std::string, std::set<std::string>> parse_node_features(
    std::string_view text);

/// `sinfo --noheader --Node --format` for each node's state.
inline constexpr std::string_view kSinfoStatesFormat = "%N|%t";
/// The nodes kSinfoStatesFormat's answer shows usable now: idle, or idle and powered down
/// (Slurm allocates those and powers them up); not drained, down, reserved, planned, allocated
/// or mixed. Each node once, sorted (sinfo lists a node once per partition).
[[nodiscard]] std::vector<std::string> parse_usable_nodes(std::string_view text);

/// One unit of `scontrol show topology`: a switch (tree) or a base block (block).
struct ShownUnit {
    std::string name;
    std::set<std::string> nodes;     ///< Nodes= expanded (a tree switch: all below it)
    std::set<std::string> children;  ///< Switches= (tree)
    bool block = false;
};

/// Reads `scontrol show topology` (either plugin; aggregated blocks are Slurm's own sums and
/// are left out). \return the units in order, or Error::parse naming `source` and the line.
[[nodiscard]] Result<std::vector<ShownUnit>> parse_shown_topology(std::string_view text,
                                                                  std::string_view source);

/// The units the installed map gives a topology of `kind` ("tree": one switch per SU and one
/// per group when there are several; "block": discover's base blocks), as discover writes them.
[[nodiscard]] std::vector<ShownUnit> expected_units(const fabric::FabricMap& map,
                                                    std::string_view kind);

/// Where slurmctld's units and the installed map's disagree, one sentence each: a unit missing
/// or unknown, a node in another unit or in none. Only nodes slurmctld has (`slurm_nodes`) are
/// compared; a node of the map that Slurm does not run is not a disagreement.
[[nodiscard]] std::vector<std::string> topology_disagreements(
    const std::vector<ShownUnit>& expected,
    const std::vector<ShownUnit>& shown,
    const std::set<std::string>& slurm_nodes,
    std::string_view topology);

/// The leaf unit of each node: its SU switch (tree) or its base block (block).
[[nodiscard]] std::map<std::string, std::string> leaf_unit_of(const std::vector<ShownUnit>& units);

// The calls, through a Client (each with the 30 s deadline and 64 MiB bound unless given).

/// squeue's release ("slurm 24.11.5") is at least 25.05: it prints SegmentSize.
[[nodiscard]] bool squeue_has_segment(Client& client);

/// The running jobs (all, or those of `ids`, comma-separated ids; "" all) as squeue shows them,
/// with their preference (a second ask; when it fails, `problems` says so). Lines that cannot
/// be read are described in `problems`.
[[nodiscard]] Result<std::vector<SlurmJob>> running_jobs(Client& client,
                                                         const std::string& ids,
                                                         bool segment_size,
                                                         std::vector<std::string>& problems);

/// One job's request as squeue shows it, for `why` (within `timeout_s` per call): the job
/// lines with NumNodes read in; an empty list when squeue does not show it.
[[nodiscard]] Result<std::vector<SlurmJob>> job_request(Client& client,
                                                        const std::string& id,
                                                        double timeout_s,
                                                        std::vector<std::string>& problems);

/// A job's SegmentSize as squeue (25.05+) prints it; 0 when it has none or it cannot be read.
[[nodiscard]] unsigned job_segment_size(Client& client, const std::string& id, double timeout_s);

/// The jobs that held nodes from `since` on (sacct --allusers --allocations, running and ended).
[[nodiscard]] Result<std::vector<SlurmJob>> accounted_jobs(Client& client,
                                                           const std::string& since,
                                                           std::vector<std::string>& problems);

/// Accounting's reservations from `since` on (sacctmgr show reservation).
[[nodiscard]] Result<std::vector<Reservation>> reservations(Client& client,
                                                            const std::string& since,
                                                            std::vector<std::string>& problems);

/// Accounting's node events from `since` on (sacctmgr show event Event=Node).
[[nodiscard]] Result<std::vector<NodeEvent>> node_events(Client& client,
                                                         const std::string& since,
                                                         std::vector<std::string>& problems);

}  // namespace switchyard::slurm
