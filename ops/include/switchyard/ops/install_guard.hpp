// SPDX-License-Identifier: Apache-2.0
// Whether a new fabric capture may replace the installed one without an admin's word. An
// ibnetdiscover run taken while a subnet manager fails over, or with a leaf's ports down, sees
// part of the fabric; installed, it would take nodes out of their SUs and groups and Slurm
// would place jobs on a fabric that is not there. Pure: two maps and their diff in, reasons out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/fabric/map_diff.hpp"

namespace switchyard::ops {

struct InstallLimits {
    /// Largest share of the installed fabric's hosts a new capture may lose (percent).
    double max_hosts_lost_percent = 5.0;
    /// Largest share of them that may change company: put in another SU or group than the one
    /// the rest of their old SU or group went to, or with their SU merged into another.
    double max_hosts_moved_percent = 10.0;
};

/// Why `next` is probably a wrong capture of the fabric `installed` describes, one sentence
/// each naming what would be lost: more than the set share of the hosts gone, a whole SU or
/// group gone (none of its hosts left anywhere: a renamed or re-cabled SU whose hosts are still
/// there is a change, not a loss), the fabric kind changed; and the structure: more than the
/// set share of the hosts moved to other SUs or groups (SUs or groups merged, or split), more
/// than half of the SUs or groups renamed with their hosts (a discover run without the GUID
/// map), more than the lost share of the hosts with fewer rails (HCAs left out).
/// Empty: it may be installed.
[[nodiscard]] std::vector<std::string> install_refusals(const fabric::FabricMap& installed,
                                                        const fabric::FabricMap& next,
                                                        const fabric::MapDiff& diff,
                                                        const InstallLimits& limits);

/// What `switchyard install` keeps between runs (its --state file), for the metrics: lines
/// "refused N", "last_run T", "last_change T", "last_result WORD"; anything else is ignored.
struct InstallRecord {
    std::uint64_t refused = 0;      ///< captures the guard refused
    std::uint64_t last_run = 0;     ///< epoch seconds
    std::uint64_t last_change = 0;  ///< epoch seconds of the last install or rollback
    std::string last_result = "none";

    [[nodiscard]] static InstallRecord parse(std::string_view text);
    [[nodiscard]] std::string text() const;
};

}  // namespace switchyard::ops
