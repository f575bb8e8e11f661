// SPDX-License-Identifier: Apache-2.0
// Health steers placement: how degraded each node's place in the fabric is (an SU short of
// uplinks, a Dragonfly+ group short of global cables), turned into Slurm's own preference knob,
// the node Weight (Slurm fills lower weights first), without ever changing a weight an admin
// set: Switchyard records the weights it sets and lets go of any node whose weight someone
// else changed. Pure decisions; `switchyard steer` reads Slurm and carries them out.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/fabric/fabric_map.hpp"

namespace switchyard::placement {

/// How much less fit a node is for pipeline stages than its peers: 0 healthy, 1 worst.
struct Degradation {
    double score = 0;
    std::string why;  ///< "SU su02 has 8 uplinks per rail, the usual SU 16"
};

/// The fabric's part, per host of the map with a score above 0: its SU's uplinks per rail
/// against the fabric's usual (the median SU's), and on Dragonfly+ its group's global cables
/// against the usual group's; and its NVLink domain: degraded (0.5), or short of hosts against
/// the usual domain (its shortfall); the worst of these. The cable parts need a map with cable
/// counts (version 4 on) and more than one SU.
[[nodiscard]] std::map<std::string, Degradation> fabric_degradation(const fabric::FabricMap& map);

/// Adds the health gate's part for `node`: the soft signal of its passing checks (0..1, how near
/// one came to failing: CheckResult::soft) times `weight`, named "<source>: <why>"; the worse of
/// it and what `scores` already holds for the node stays. The preflight's link faults come the
/// same way (source "preflight", soft 1 for every host behind the part at fault).
void add_soft_signal(std::map<std::string, Degradation>& scores,
                     const std::string& node,
                     double soft,
                     double weight,
                     const std::string& why,
                     const std::string& source = "health");

/// Weights Switchyard may set: base for a healthy node, up to base + max_penalty for the worst.
struct SteerPolicy {
    unsigned base_weight = 1;     ///< the weight of a node no one has customised
    unsigned max_penalty = 1000;  ///< added at score 1
    double min_interval_s = 300;  ///< between two changes of one node's weight
};

/// base_weight + round(score × max_penalty), score clamped to [0, 1].
[[nodiscard]] unsigned wanted_weight(const SteerPolicy& p, double score);

/// A weight Switchyard set, and when.
struct OwnedWeight {
    unsigned weight = 0;
    double at = 0;
};

/// What to do with one node's weight.
struct WeightDecision {
    enum class Action {
        Set,         ///< set `weight` (and record it)
        Keep,        ///< already right
        TooSoon,     ///< changed less than min_interval_s ago
        AdminOwned,  ///< someone else set this weight: leave it (and forget any record)
    } action = Action::Keep;
    unsigned weight = 0;
    std::string message;
};

/// Decides for `node` whose weight is `current` now, `owned` what Switchyard last set there
/// (nullopt: nothing), `wanted` what it wants now. A weight that is neither the base nor
/// Switchyard's last is an admin's and is never changed.
[[nodiscard]] WeightDecision decide_weight(const std::string& node,
                                           unsigned current,
                                           const std::optional<OwnedWeight>& owned,
                                           unsigned wanted,
                                           const SteerPolicy& p,
                                           double now);

/// The weights Switchyard set, one "node weight epoch-seconds" line each (a state file).
class WeightRecord {
public:
    /// Lines that do not read are dropped (the state is advisory: at worst a node is treated
    /// as not set by Switchyard, so its weight is left alone until it is the base again).
    [[nodiscard]] static WeightRecord parse(std::string_view text);
    [[nodiscard]] std::string text() const;
    [[nodiscard]] std::optional<OwnedWeight> find(const std::string& node) const;
    void set(const std::string& node, unsigned weight, double at);
    void erase(const std::string& node);

private:
    std::map<std::string, OwnedWeight> owned_;
};

/// Nodes switchyard drained that Slurm later returned to service, as successive `steer --apply`
/// runs saw them: "flap <node> <drained-seen> <resumed-seen>" lines of the state file (a node
/// that flapped is likely to again: steer gives it a soft score for a window after its resume).
class DrainHistory {
public:
    /// Only "flap" lines are read (the state file holds the WeightRecord's lines too); lines
    /// that do not read are dropped.
    [[nodiscard]] static DrainHistory parse(std::string_view text);
    [[nodiscard]] std::string text() const;
    /// One look at Slurm: whether the node is held with a reason switchyard owns right now.
    void observe(const std::string& node, bool owned_drain, double now);
    /// When the node was seen back in service, if within `window_s` of now.
    [[nodiscard]] std::optional<double> resumed_within(const std::string& node,
                                                       double now,
                                                       double window_s) const;
    /// Forgets resumes older than the window.
    void expire(double now, double window_s);

private:
    struct Entry {
        double drained = 0;
        double resumed = 0;  ///< 0 while still drained
    };
    std::map<std::string, Entry> nodes_;
};

}  // namespace switchyard::placement
