// SPDX-License-Identifier: Apache-2.0
// `switchyard preflight`: a job's pairs and rounds from the fabric map (what each node's
// probes measure), and from the pairs' results the parts at fault, with their evidence, as
// text, JSON or node_exporter metrics; with --act, a node at fault is drained (the owned
// reason "switchyard: preflight: ...", within the health breaker's limit), a cable or switch
// at fault drains nobody. `switchyard locate`: a running job's slow ranks from NCCL Inspector,
// placed on the map the same way.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "switchyard/ops/deps.hpp"
#include "switchyard/preflight/inspector.hpp"
#include "switchyard/preflight/locate.hpp"
#include "switchyard/preflight/preflight_policy.hpp"
#include "switchyard/preflight/schedule.hpp"

namespace switchyard::ops {

struct PreflightRequest {
    std::string policy;              ///< "" = /etc/slurm/switchyard.yaml when it exists
    std::string map;                 ///< "" = the policy's fabric.map
    std::string hosts;               ///< the job's nodes, a Slurm host list
    std::string results;             ///< a file of pair results (JSON lines); "" = the plan only
    std::vector<std::string> rails;  ///< only these rails ("" all)
    std::string job;                 ///< the job id, for the log and the reasons
    bool act = false;
    // --agent: this node's share of the rounds.
    std::string me;              ///< this node, one of the hosts
    double start = 0;            ///< the rounds' common start (epoch seconds; 0: now)
    std::string mode = "quick";  ///< --prolog: quick or full
    /// The results themselves (the first node's gathering), instead of the file `results`.
    std::optional<std::string> results_text;
};

/// What was done about a part at fault.
struct PreflightAction {
    std::string node;     ///< the node drained (or not), "" for a part that is no node
    std::string what;     ///< "drained", "held elsewhere", "breaker open", "warned", "requeue"
    std::string reason;   ///< the owned drain reason
    std::string message;  ///< one line for the log
};

struct PreflightReport {
    int rc = 0;
    std::string error;  ///< why nothing was done ("" otherwise)
    preflight::Model model;
    preflight::PreflightPolicy policy;
    preflight::Schedule schedule;  ///< the plan (without results)
    std::optional<preflight::Measured> measured;
    std::optional<preflight::Location> location;
    std::vector<PreflightAction> actions;
    /// Per fault of `location`: the map's hosts behind a cable or switch at fault (a leaf's, its
    /// uplinks', an NVLink domain's), for `steer --preflight`; empty for a node's own fault and
    /// for parts a whole group or plane shares.
    std::vector<std::vector<std::string>> behind;
    std::vector<std::string> notes;
    /// --prolog: what this node's prolog does ("" when not run that way): "ok", or the reason
    /// it fails (kExitNodeAtFault: this node was drained, the job goes back to the queue).
    std::string verdict;
};

[[nodiscard]] PreflightReport run_preflight(const PreflightRequest& request, Deps& deps);

/// --act --job, after the report is printed: the job goes back to the queue when a node of it
/// was drained, and under on_link_fault: requeue when a cable or switch is at fault, kept off
/// the hosts behind it (requeuehold, ExcNodeList, release). Says "requeuing job ..." on
/// deps.err first (the requeue may end the caller: a job's own step; standard output stays the
/// report's, JSON included). Adds the action; true when there was one.
bool requeue_after(const PreflightRequest& request, PreflightReport& report, Deps& deps);

/// --agent: this node (request.me) runs its share of every round in its window (the probes of
/// the policy, absolute paths, a clean environment, killed at the window's end) and writes one
/// result line (preflight/measure.hpp) per pair it was the client of to deps.out. The report is
/// the plan's.
[[nodiscard]] PreflightReport run_preflight_agent(const PreflightRequest& request, Deps& deps);

/// The drain reason for a node at fault: "switchyard: preflight: mlx5_2: 11.2 us to 2 peers
/// (limit 5)".
[[nodiscard]] std::string preflight_reason(const preflight::Model& m,
                                           const preflight::Blame& b,
                                           const preflight::Measured& measured,
                                           const preflight::Limits& limits);

/// --prolog (the gate's prolog, on every node of a job that asked for --preflight): the job's
/// first node listens on the policy's port (under 1024) for the others' hello, gives everyone
/// the rounds' start, runs its own agent, gathers every node's result lines, locates and acts as
/// --act --job does, writes its reports, and answers each node "ok" or the reason it was
/// drained; the other nodes connect from a port under 1024, run their agent from that start and
/// send their lines. Nothing hangs: every wait has its deadline (preflight.join_s, deadline_s);
/// a node that hears nothing goes on (rc 0, a note says why). rc kExitNodeAtFault when this
/// node was drained.
[[nodiscard]] PreflightReport run_preflight_prolog(const PreflightRequest& request, Deps& deps);

enum class PreflightFormat { Text, Json, Metrics };
void print_preflight(const PreflightReport& report,
                     PreflightFormat format,
                     std::ostream& out,
                     std::ostream& err);

struct LocateRequest {
    std::string policy;
    std::string map;
    std::string inspector;   ///< NCCL Inspector's dump directory of the job
    double threshold = 3.5;  ///< robust z at or under minus this is slow
};

struct LocateReport {
    int rc = 0;
    std::string error;
    preflight::Model model;
    preflight::RankReport ranks;
    std::vector<preflight::PlacedFault> placed;
    std::size_t records = 0;
    std::size_t other = 0;  ///< records of other kinds read past
    std::size_t files = 0;
    std::vector<std::string> notes;
};

[[nodiscard]] LocateReport run_locate(const LocateRequest& request, Deps& deps);
void print_locate(const LocateReport& report,
                  PreflightFormat format,
                  std::ostream& out,
                  std::ostream& err);

}  // namespace switchyard::ops
