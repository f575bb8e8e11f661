// SPDX-License-Identifier: Apache-2.0
// The prolog health gate and its circuit breaker.
#include "health_gate.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iomanip>
#include <set>
#include <sstream>

#include "switchyard/common/file.hpp"
#include "switchyard/common/state_file.hpp"
#include "switchyard/policy/nccl_context.hpp"
#include "switchyard/topology/node_readers.hpp"

namespace switchyard::spank {

namespace {

/// Closes a file descriptor (and drops its lock) on every path.
struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) {
            close(fd);
        }
    }
};

struct BreakerLimit {
    unsigned nodes;
    std::string why;
};

/// The fewer of health.breaker.max_nodes and max_percent of the node's (smallest) partition,
/// never below one node; the node count alone when the partition size is unknown.
BreakerLimit breaker_limit(const policy::HealthPolicy& h,
                           NodeControl& control,
                           const std::string& node,
                           Logger& log) {
    BreakerLimit out{h.breaker_max_nodes, "max_nodes " + std::to_string(h.breaker_max_nodes)};
    auto size = control.partition_size(node);
    if (!size) {
        log.info(Component::Health,
                 "circuit breaker: " + size.error().message() + "; using max_nodes alone");
        return out;
    }
    if (*size == 0) {
        return out;
    }
    const auto by_percent = std::max(
        1U, static_cast<unsigned>(static_cast<double>(*size) * h.breaker_max_percent / 100.0));
    if (by_percent < out.nodes) {
        std::ostringstream why;
        why << h.breaker_max_percent << "% of a " << *size << "-node partition";
        out = {by_percent, why.str()};
    }
    return out;
}

}  // namespace

Result<bool> DrainBreaker::try_record(const std::string& node,
                                      double now,
                                      unsigned cluster_recent) {
    ignored_.clear();
    // The lock has its own file: the record is replaced by rename, which a lock on the record
    // itself would not survive.
    auto lock = open_owned_lock(path_ + ".lock");
    if (!lock) {
        return fail(Error::io("circuit-breaker state: " + lock.error().message()));
    }
    const Fd f{*lock};
    if (flock(f.fd, LOCK_EX) != 0) {
        return fail(Error::io("circuit-breaker state " + path_ + ".lock: " + std::strerror(errno)));
    }
    auto text = read_owned_file(path_);
    if (!text) {  // planted, a link, a FIFO: its entries are no one's drains
        ignored_ = text.error().message() + "; ignored and replaced";
        text = std::string();
    }
    // Whole seconds in fixed notation: a default-formatted epoch time ("1.79646e+09") loses
    // up to an hour and made recent drains look expired.
    std::ostringstream kept;
    kept << std::fixed << std::setprecision(0);
    std::set<std::string> recent;
    std::istringstream in(*text);
    double when = 0;
    std::string who;
    while (in >> when >> who) {
        if (now - when <= window_s_) {
            kept << when << ' ' << who << '\n';
            recent.insert(who);
        }
    }
    const bool allowed = recent.count(node) != 0 ||
                         std::max<std::size_t>(recent.size(), cluster_recent) < max_nodes_;
    if (allowed) {
        kept << now << ' ' << node << '\n';
    }
    if (auto w = replace_owned_file(path_, kept.str()); !w) {
        return fail(Error::io("circuit-breaker state: " + w.error().message()));
    }
    return allowed;
}

int run_health_gate(const policy::Policy& pol,
                    const std::string& node_name,
                    const std::string& partition,
                    NodeControl& control,
                    Logger& log,
                    double now) {
    const auto& h = pol.health;
    const int internal_error_rc = h.fail_closed ? -1 : 0;
    std::vector<std::string> notes;  // the node's facts are cached for the job's steps
    auto node = policy::load_node(pol, {node_name, "", "", policy::NodeCache::Write, &notes});
    for (const auto& n : notes) {
        log.warning(Component::Health, n);
    }
    if (!node) {
        log.error(Component::Health, "health gate on " + node_name +
                                         ": node facts: " + node.error().to_string() +
                                         (h.fail_closed ? " (fail-closed)" : " (fail-open)"));
        return internal_error_rc;
    }
    policy::SystemProbe probe(*node, topology::expand_sysfs_root(pol.sysfs_root, node_name));
    std::string set;
    const auto checks =
        policy::with_node_paths(h.for_node(node->shape, partition, &set), node_name);
    if (!set.empty()) {
        log.info(Component::Health, node_name + ": check set '" + set + "'");
    }
    const auto report = policy::run_health_checks(checks, probe);
    for (const auto& c : report.checks) {
        if (c.status != policy::HealthStatus::Pass) {
            log.info(Component::Health, node_name + ": " + c.name + " " +
                                            std::string(policy::to_string(c.status)) + ": " +
                                            c.detail);
        }
    }
    if (report.verdict != policy::HealthStatus::Fail) {
        return 0;
    }
    const auto reason = report.reason();
    auto current = control.reason(node_name);
    if (!current) {
        log.error(Component::Health, current.error().message());
        return internal_error_rc;
    }
    if (!current->empty() && !current->starts_with(kOwnedReasonPrefix)) {
        log.error(Component::Health, node_name + " fails (" + reason +
                                         ") but is held for another reason ('" + *current +
                                         "'); not touching it");
        return -1;
    }
    const auto limit = breaker_limit(h, control, node_name, log);
    auto cluster_recent = control.recent_owned_drains(h.breaker_window_s, now);
    if (!cluster_recent) {
        log.info(Component::Health, "circuit breaker: " + cluster_recent.error().message() +
                                        "; counting this host's drains alone");
    }
    DrainBreaker breaker(checks.breaker_state, limit.nodes, h.breaker_window_s);
    auto allowed = breaker.try_record(node_name, now, cluster_recent ? *cluster_recent : 0);
    if (!breaker.ignored().empty()) {
        log.warning(Component::Health, "circuit breaker: " + breaker.ignored());
    }
    if (!allowed) {
        log.error(Component::Health, allowed.error().message());
        return internal_error_rc;
    }
    if (!*allowed) {
        log.error(Component::Health, "CIRCUIT BREAKER OPEN: " + std::to_string(limit.nodes) +
                                         " nodes were drained in the last " +
                                         std::to_string(static_cast<int>(h.breaker_window_s)) +
                                         " s (limit: " + limit.why + "); not draining " +
                                         node_name + " (" + reason + ") — check the health policy");
        return 0;
    }
    if (auto d = control.drain(node_name, reason); !d) {
        log.error(Component::Health, d.error().message());
        return internal_error_rc;
    }
    log.error(Component::Health, "drained " + node_name + ": " + reason);
    return -1;
}

}  // namespace switchyard::spank
