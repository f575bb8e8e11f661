// SPDX-License-Identifier: Apache-2.0
// Which part is at fault, from the pairs' verdicts: the fewest parts that explain every slow
// pair, each with its evidence and the parts the pairs cannot tell it apart from.
//
// A pair that measured well clears every part on its path that it crosses whole (ports,
// leaves, the rail, a domain, and with exact paths each cable and spine); a set ("one of
// g1-leaf3's uplinks") is never cleared by one good pair, as that pair used one member only.
// Then, greedily, the part on the most unexplained slow pairs is blamed; on a tie the one whose
// slow pairs are the likelier share of its traffic (a set of 16 uplinks with one bad member
// slows about 1 in 16 of its pairs; a port or leaf at fault slows all of its pairs), then the
// most specific one (fewest pairs through it), then a cable before a switch (cables and optics
// fail more often). The others tied with it are its alternatives.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "switchyard/preflight/measure.hpp"
#include "switchyard/preflight/model.hpp"

namespace switchyard::preflight {

struct Blame {
    std::uint32_t part = 0;
    /// Parts that explain the same slow pairs as plausibly: the answer is one of these.
    std::vector<std::uint32_t> alternatives;
    std::vector<std::uint32_t> slow;  ///< probe indices: the slow pairs it explains
    std::uint32_t through = 0;        ///< measured pairs through it, slow or not
    /// A node's own fault (its HCA, cable or NVLink) with no other part as likely: drained.
    [[nodiscard]] bool drain(const Model& m) const;
};

struct Location {
    std::vector<Blame> faults;
    /// Probes whose every measurement failed (hung, errored, printed garbage): the probe's
    /// fault, never a node's.
    std::vector<std::uint32_t> probe_failures;
    /// Slow pairs every part of whose path a good pair cleared: a slow moment, not a part.
    std::vector<std::uint32_t> unexplained;
    std::uint32_t measured = 0;  ///< probes with at least one measurement
    std::uint32_t slow = 0;      ///< probes slow on every measurement
};

/// Locates from `verdicts` (any number per probe, in any order) of `probes`.
[[nodiscard]] Location locate(const Model& m,
                              std::span<const Probe> probes,
                              std::span<const Verdict> verdicts);

}  // namespace switchyard::preflight

namespace switchyard::preflight {

/// Results of pairs, as probes of the model and their verdicts (one probe per client, server
/// and rail, any number of results each). A result whose hosts or rail the model lacks is
/// left out with a note; so is a pair whose two hosts are one.
struct Measured {
    std::vector<Probe> probes;
    std::vector<Verdict> verdicts;
    std::vector<std::string> notes;
};
[[nodiscard]] Measured measured(const Model& m,
                                std::span<const PairResult> results,
                                const Limits& limits);

}  // namespace switchyard::preflight
