// SPDX-License-Identifier: Apache-2.0
// The prolog health gate: run the policy's checks; on failure drain the node with an owned
// reason and fail the prolog (Slurm requeues the job) — unless another reason already holds the
// node, or the circuit breaker says too many nodes were drained lately.
#pragma once

#include <string>

#include "node_control.hpp"
#include "spank_api.hpp"
#include "switchyard/common/log.hpp"
#include "switchyard/policy/policy.hpp"

namespace switchyard::spank {

/// Records drains in a small file shared by concurrent prologs (flock), and says whether one
/// more drain is allowed within the window. The file serialises the prologs of one host (or of
/// every host, on a shared filesystem); `cluster_recent` adds what slurmctld already shows, so a
/// node-local file still sees the drains made from other nodes.
class DrainBreaker {
public:
    /// `path` holds the record (replaced atomically), `path`.lock serialises this host's
    /// prologs; both in a directory only the running user can write (made 0700 when missing).
    DrainBreaker(std::string path, unsigned max_nodes, double window_s)
        : path_(std::move(path)), max_nodes_(max_nodes), window_s_(window_s) {}
    /// True (and recorded) when `node` may be drained now; false when the breaker is open.
    /// \return Error::io naming the state file when it cannot be used.
    [[nodiscard]] Result<bool> try_record(const std::string& node,
                                          double now,
                                          unsigned cluster_recent = 0);
    /// Why the last try_record ignored the record it found (planted, a link, a FIFO, someone
    /// else's), or "" when it trusted it.
    [[nodiscard]] const std::string& ignored() const { return ignored_; }

private:
    std::string ignored_;
    std::string path_;
    unsigned max_nodes_;
    double window_s_;
};

/// The gate itself; returns the prolog's return code. `partition` (the job's, maybe a comma
/// list) chooses the policy's check set.
int run_health_gate(const policy::Policy& pol,
                    const std::string& node_name,
                    const std::string& partition,
                    NodeControl& control,
                    Logger& log,
                    double now);

}  // namespace switchyard::spank
