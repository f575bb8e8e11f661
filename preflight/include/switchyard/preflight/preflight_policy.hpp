// SPDX-License-Identifier: Apache-2.0
// The preflight: settings of the policy file (loaded by policy/), with their defaults.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "switchyard/preflight/measure.hpp"

namespace switchyard::preflight {

enum class Mode : std::uint8_t {
    Off,
    Quick,  ///< pairs: ib_write_lat and ib_write_bw per rail, NVLink inside a domain
    Full,   ///< the pairs, then all_reduce_perf over the job's nodes
};
[[nodiscard]] std::string_view to_string(Mode m);
[[nodiscard]] std::optional<Mode> mode_from_string(std::string_view s);

/// What a cable or switch at fault does to the job (a node at fault is drained and the job
/// requeued, as the health gate does).
enum class OnLinkFault : std::uint8_t {
    Warn,     ///< the job goes on; the admin is told, steer weights the hosts behind the part
    Requeue,  ///< the job is requeued away from the part
};
[[nodiscard]] std::string_view to_string(OnLinkFault o);

/// The job-wide all-reduce limit for one size and GPU count ("a 512 MB all-reduce on 64 GPUs
/// over 10 ms means the network is broken").
struct AllReduceLimit {
    std::uint64_t bytes = 0;
    std::uint32_t gpus = 0;
    double max_time_us = 0;
};

/// Where this build installs the switchyard command (CMAKE_INSTALL_FULL_BINDIR): the default of
/// `preflight.command`, /usr/local/bin/switchyard from source, /usr/bin/switchyard in the package.
[[nodiscard]] std::string installed_command();

struct PreflightPolicy {
    /// For jobs that do not ask, and per partition: the gate's prolog measures a job whose
    /// --preflight, else partition, else this mode is not off.
    Mode mode = Mode::Off;
    std::vector<std::pair<std::string, Mode>> partitions;  ///< per-partition defaults
    double deadline_s = 60;                                ///< the whole preflight, rounds and all
    double probe_timeout_s = 10;  ///< one probe (a hang is the probe's fault)
    Limits limits;
    OnLinkFault on_link_fault = OnLinkFault::Warn;
    /// The probes (no shell; absolute paths). {hca} is the rail's device, {peer} the other host
    /// (the client side; the server side runs the same command without {peer}'s word).
    std::vector<std::string> latency{
        "/usr/bin/ib_write_lat", "-d", "{hca}", "-F", "-n", "1000", "{peer}"};
    std::vector<std::string> bandwidth{"/usr/bin/ib_write_bw", "-d", "{hca}", "-F",
                                       "--report_gbits",       "-D", "1",     "{peer}"};
    /// `full`'s job-wide all-reduce and its limits: not run yet (the reader exists).
    std::vector<std::string> all_reduce{
        "/usr/bin/all_reduce_perf", "-b", "512M", "-e", "512M", "-g", "1"};
    std::vector<AllReduceLimit> all_reduce_limits;

    // The --preflight job option: the gate's prolog on every node of the job runs `command
    // preflight --prolog` (absolute path, clean environment, prolog_budget_s()); the job's first
    // node gathers the others' results over TCP on port + job id % ports, a port under 1024 on
    // both ends (only root binds one), locates and acts, and answers each node its verdict.
    std::string command = installed_command();
    std::uint16_t port = 960;
    std::uint16_t ports = 16;
    double join_s = 15;  ///< how long the first node waits for the others to say hello
    /// The first node's reports: job-<id>-<start>.json (for `steer --preflight`) and preflight.prom
    /// (a node_exporter textfile), in a root-owned 0700 directory; "" writes none.
    std::string reports = "/var/lib/switchyard/preflight";

    /// The prolog's whole run: the join, the rounds, the gathering and the acting.
    [[nodiscard]] double prolog_budget_s() const { return join_s + deadline_s + 45; }

    /// The mode for a job in `partition` that asked for `asked` (nullopt: nothing asked).
    [[nodiscard]] Mode mode_for(std::string_view partition, std::optional<Mode> asked) const;
};

}  // namespace switchyard::preflight
