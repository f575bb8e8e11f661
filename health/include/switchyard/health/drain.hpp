// SPDX-License-Identifier: Apache-2.0
// What to do with a node after its health checks: drain it, leave it, or (with --resume) bring
// it back — decided here from facts, with no I/O. The prolog gate (plugin, through libslurm)
// and `switchyard health --resume` (CLI, through scontrol) only carry the decision out.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/result.hpp"
#include "switchyard/health/health.hpp"

namespace switchyard::health {

/// Whether a drain/down reason is one Switchyard set ("switchyard: ..."): the only kind it may
/// change or clear.
[[nodiscard]] bool owned_reason(std::string_view reason);

/// How many nodes the circuit breaker lets be drained within its window, and why that many.
struct BreakerLimit {
    unsigned nodes = 0;
    std::string why;  ///< "max_nodes 2" or "10% of a 64-node partition"
};

/// The fewer of health.breaker.max_nodes and max_percent of the node's (smallest) partition,
/// never below one node; max_nodes alone when the partition's size is 0 (unknown).
[[nodiscard]] BreakerLimit breaker_limit(const BreakerPolicy& b, unsigned partition_size);

/// The breaker's record of recent drains ("<epoch seconds> <node>" lines), as kept in its
/// state file: parsed, pruned to the window, asked, extended, written back.
class BreakerRecord {
public:
    /// The entries of `text` within `window_s` of `now` (older ones are dropped).
    static BreakerRecord parse(std::string_view text, double now, double window_s);
    /// Nodes drained within the window, each once.
    [[nodiscard]] std::size_t recent_nodes() const;
    [[nodiscard]] bool has(std::string_view node) const;
    /// Whether `node` may be drained now: it is already in the record (a repeat costs nothing),
    /// or fewer than `max_nodes` nodes were drained within the window, counting those seen from
    /// here and `cluster_recent` (owned drains slurmctld shows), whichever is more.
    [[nodiscard]] bool allows(std::string_view node,
                              unsigned cluster_recent,
                              unsigned max_nodes) const;
    void add(std::string node, double now) { entries_.push_back({now, std::move(node)}); }
    /// The record's text; whole seconds in fixed notation (a default-formatted epoch time,
    /// "1.79646e+09", loses up to an hour and made recent drains look expired).
    [[nodiscard]] std::string text() const;

private:
    struct Entry {
        double when;
        std::string node;
    };
    std::vector<Entry> entries_;
};

/// What the gate does with a node whose checks ran.
struct DrainDecision {
    enum class Action {
        Pass,           ///< not failing: nothing to do (the prolog succeeds)
        HeldElsewhere,  ///< failing, but held for another reason: left alone, the prolog fails
        BreakerOpen,    ///< failing, but too many drains lately: not drained, the prolog succeeds
        Drain,          ///< drain with `reason` (recorded in the breaker), the prolog fails
    };
    Action action = Action::Pass;
    std::string node;
    std::string reason;   ///< the owned drain reason ("switchyard: <check>: <detail>")
    std::string message;  ///< one line for the log, naming the node and why
};

/// The gate's decision for `node` from its report and the reason Slurm holds it for now ("" if
/// none): Pass, HeldElsewhere, or Drain (before the breaker is asked).
[[nodiscard]] DrainDecision decide_drain(const std::string& node,
                                         const HealthReport& report,
                                         const std::string& current_reason);

/// A Drain decision after the breaker's answer: BreakerOpen when it does not allow one more.
[[nodiscard]] DrainDecision apply_breaker(DrainDecision d,
                                          bool allowed,
                                          const BreakerLimit& limit,
                                          double window_s);

/// What --resume does with a node that passes its checks again.
struct ResumeDecision {
    bool resume = false;
    std::string message;  ///< "" when Slurm does not hold the node
};
[[nodiscard]] ResumeDecision decide_resume(const std::string& node,
                                           const std::string& current_reason);

}  // namespace switchyard::health
