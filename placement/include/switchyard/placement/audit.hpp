// SPDX-License-Identifier: Apache-2.0
// The placement audit: one job's real allocation against the fabric map. Its stages as its
// ranks ran them (the planner's order of its nodes, which cli_filter.lua and the plugin give
// every step), the SUs, groups and NVLink domains each spans, and whether what the job asked
// (--segment, --switches, a constraint, a preference, its stage scope and NVLink group) was
// honoured. Plain data in and out: what Slurm said is read by the caller.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "switchyard/common/job_options.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/placement/planner.hpp"

namespace switchyard::placement {

/// A job as Slurm runs it and what it asked for.
struct AuditedJob {
    std::string id;
    std::string partition;
    std::string topology;  ///< the kind its partition runs: tree, block, flat, other
    std::vector<std::string> nodes;
    unsigned stages = 0;  ///< pipeline stages (0: not a pipeline job)
    std::optional<StageScope> scope;
    unsigned nvl_group = 0;
    unsigned segment = 0;                    ///< --segment (block)
    unsigned switches = 0;                   ///< --switches (tree)
    std::optional<double> switch_wait_s;     ///< nullopt: not known (the job gave none)
    std::optional<double> waited_s;          ///< from submission to start
    std::optional<std::int64_t> start_time;  ///< seconds (for what was free then)
    bool finished = false;                   ///< it ended (read from sacct)
    std::string features;                    ///< its constraint
    std::string prefer;                      ///< its preference
    std::string reservation;                 ///< the reservation it ran in ("": none)
};

/// One stage as the job's ranks ran it.
struct StageSpan {
    unsigned index = 0;
    std::vector<std::string> nodes;    ///< in rank order
    std::vector<std::string> sus;      ///< distinct, "?" for a node not in the map
    std::vector<std::string> groups;   ///< distinct
    std::vector<std::string> domains;  ///< distinct NVLink domains ("-" for a node in none)
};

/// One request of the job and what became of it.
struct RequestCheck {
    enum class Verdict {
        Honoured,
        Broken,     ///< worse than the request promised
        Relaxed,    ///< not met, as Slurm may: a preference, a switch count after its wait
        Unchecked,  ///< cannot be told (an expression the audit does not read)
    };
    std::string request;  ///< as the user would write it: "--segment=4", "--stage-scope=leaf"
    Verdict verdict = Verdict::Honoured;
    std::string detail;
};

[[nodiscard]] std::string_view to_string(RequestCheck::Verdict v);

/// A job's nodes and when it held them, or a node event's (drained, down): what was not free
/// when another job started.
struct Holding {
    std::string id;
    std::vector<std::string> nodes;
    std::int64_t start = 0;
    std::optional<std::int64_t> end;  ///< nullopt: it still holds them
    /// A reservation's name: its nodes are held from the jobs that did not run in it.
    std::string reservation;
};

/// The holdings and partitions of one audit with their nodes as ids, made once
/// (index_holdings) so that each job's free nodes cost O(holdings + nodes), no name lookups.
/// Ids below `mapped` are the map's host indices; the others name nodes outside the map.
struct HoldingIndex {
    std::size_t mapped = 0;
    std::map<std::string, std::uint32_t, std::less<>> other;
    std::vector<std::vector<std::uint32_t>> holdings;  ///< each holding's node ids, in order
    std::map<std::string, std::vector<std::uint32_t>> partitions;
    std::vector<std::uint32_t> every_host;  ///< for a job whose partition is not known
};

/// Indexes `holdings` (kept in order) and `partitions` against `map`.
[[nodiscard]] HoldingIndex index_holdings(
    const std::vector<Holding>& holdings,
    const std::map<std::string, std::set<std::string>>& partitions,
    const fabric::FabricMap& map);

/// The best the free nodes at a job's start allowed: its partition's nodes that no other
/// holding (another job, a node event) held at that second, its own among them.
struct BestAtStart {
    unsigned free_nodes = 0;
    unsigned fewest_sus = 0;        ///< the fewest SUs whose free nodes could hold the job
    unsigned stages_in_one_su = 0;  ///< of a pipeline job's stages, how many could sit in one SU
};

struct JobAudit {
    std::string id;
    std::string partition;
    std::vector<StageSpan> stages;  ///< empty for a job without pipeline stages
    unsigned stages_in_one_su = 0;
    unsigned best_stages_in_one_su = 0;  ///< the best order of the same nodes
    /// The plan striped its stages over its nodes (StagePlan::striped): they span SUs and
    /// groups by the planner's choice, not by Slurm's allocation.
    bool striped = false;
    unsigned sus = 0;                   ///< SUs the job's nodes touch
    unsigned fewest_sus = 0;            ///< the fewest SUs that could hold as many nodes
    std::vector<std::string> unmapped;  ///< its nodes the map does not hold
    bool finished = false;
    std::optional<BestAtStart> at_start;  ///< when the context has the holdings
    std::vector<RequestCheck> checks;
    /// Whether some request was broken: placed worse than it promised.
    [[nodiscard]] bool broken() const;
    /// Whether, none broken, some request was relaxed as Slurm may (a preference, a switch
    /// count or a leaf scope after the --switches wait).
    [[nodiscard]] bool relaxed() const;
};

/// What the audit knows of the cluster besides the map.
struct AuditContext {
    const fabric::FabricMap* map = nullptr;
    /// A node's base block in the installed block topology (for --segment); empty: the SU.
    std::map<std::string, std::string> block_of;
    /// Each node's features as slurmctld has them (for constraints and preferences).
    std::map<std::string, std::set<std::string>> features;
    CostParams params;
    /// Every job's holding in the audited window (sacct and squeue), for BestAtStart; null:
    /// not known (no accounting asked).
    const std::vector<Holding>* holdings = nullptr;
    /// Each partition's nodes (sinfo); a job's free nodes are its partition's. A partition not
    /// here: every node of the map.
    std::map<std::string, std::set<std::string>> partition_nodes;
    /// index_holdings(*holdings, partition_nodes, *map); null: made for each job (slower).
    const HoldingIndex* holding_index = nullptr;
};

/// Audits one job. Never fails: what cannot be told is an Unchecked request.
[[nodiscard]] JobAudit audit_job(const AuditedJob& job, const AuditContext& ctx);

/// What the free nodes at `start` allowed `job` (its nodes and stages): `candidates` less what
/// the other holdings (by id) held at that second, and its own nodes, counted per SU of `map`.
/// A reservation holds its nodes from every job but those that ran in it.
[[nodiscard]] BestAtStart best_at_start(const AuditedJob& job,
                                        std::int64_t start,
                                        const std::set<std::string>& candidates,
                                        const std::vector<Holding>& holdings,
                                        const fabric::FabricMap& map);
/// The same with the index of `holdings`: `candidates` are ids of `index`.
[[nodiscard]] BestAtStart best_at_start(const AuditedJob& job,
                                        std::int64_t start,
                                        const std::vector<std::uint32_t>& candidates,
                                        const std::vector<Holding>& holdings,
                                        const HoldingIndex& index,
                                        const fabric::FabricMap& map);

/// Whether Slurm's feature expression `expr` holds for `nodes`: a matching OR "[a|b]" (every
/// node has one same feature), "a", "a&b" (each node every one), "a|b" (each node one).
/// nullopt for other forms (counts, parentheses, "!").
[[nodiscard]] std::optional<bool> features_hold(
    const std::string& expr,
    const std::vector<std::string>& nodes,
    const std::map<std::string, std::set<std::string>>& features);

}  // namespace switchyard::placement
