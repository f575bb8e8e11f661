// SPDX-License-Identifier: Apache-2.0
// The prolog health gate and its circuit breaker.
#include "health_gate.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "switchyard/common/file.hpp"
#include "switchyard/common/state_file.hpp"
#include "switchyard/health/drain.hpp"
#include "switchyard/node/node_readers.hpp"
#include "switchyard/policy/loaders.hpp"

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

/// The breaker's limit for `node`: its partition's size from slurmctld (0 when unknown).
health::BreakerLimit breaker_limit(const health::BreakerPolicy& b,
                                   NodeControl& control,
                                   const std::string& node,
                                   Logger& log) {
    auto size = control.partition_size(node);
    if (!size) {
        log.info(Component::Health,
                 "circuit breaker: " + size.error().message() + "; using max_nodes alone");
    }
    return health::breaker_limit(b, size ? *size : 0);
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
    auto record = health::BreakerRecord::parse(*text, now, window_s_);
    const bool allowed = record.allows(node, cluster_recent, max_nodes_);
    if (allowed) {
        record.add(node, now);
    }
    if (auto w = replace_owned_file(path_, record.text()); !w) {
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
    const int internal_error_rc = h.on_error == OnError::Fail ? -1 : 0;
    std::vector<std::string> notes;  // the node's facts are cached for the job's steps
    auto node = policy::load_node(pol, {node_name, "", "", policy::NodeCache::Write, &notes});
    for (const auto& n : notes) {
        log.warning(Component::Health, n);
    }
    if (!node) {
        log.error(Component::Health, "health gate on " + node_name +
                                         ": node facts: " + node.error().to_string() + " " +
                                         std::string(on_error_outcome(h.on_error)));
        return internal_error_rc;
    }
    health::SystemProbe probe(*node, node::expand_node_path(pol.sysfs_root, node_name));
    std::string set;
    notes.clear();
    const auto checks =
        policy::node_checks(pol, h.for_node(node->shape, partition, &set), node_name, &notes);
    for (const auto& n : notes) {
        log.warning(Component::Health, n);
    }
    if (!set.empty()) {
        log.info(Component::Health, node_name + ": check set '" + set + "'");
    }
    const auto report = health::run_health_checks(checks, probe, h.budget_s);
    notes.clear();  // R17 in the job's steps reads what the nvlink check found
    policy::record_nvlink_state(pol, node_name, report.checks, &notes);
    for (const auto& n : notes) {
        log.warning(Component::Health, n);
    }
    for (const auto& c : report.checks) {
        if (c.status != health::HealthStatus::Pass) {
            log.info(Component::Health, node_name + ": " + c.name + " " +
                                            std::string(health::to_string(c.status)) + ": " +
                                            c.detail);
        }
    }
    if (report.verdict != health::HealthStatus::Fail) {
        return 0;
    }
    auto current = control.reason(node_name);
    if (!current) {
        log.error(Component::Health, current.error().message());
        return internal_error_rc;
    }
    auto decision = health::decide_drain(node_name, report, *current);
    if (decision.action == health::DrainDecision::Action::HeldElsewhere) {
        log.error(Component::Health, decision.message);
        return -1;
    }
    const auto limit = breaker_limit(h.breaker, control, node_name, log);
    auto cluster_recent = control.recent_owned_drains(h.breaker.window_s, now);
    if (!cluster_recent) {
        log.info(Component::Health, "circuit breaker: " + cluster_recent.error().message() +
                                        "; counting this host's drains alone");
    }
    DrainBreaker breaker(node::expand_node_path(h.breaker.state, node_name), limit.nodes,
                         h.breaker.window_s);
    auto allowed = breaker.try_record(node_name, now, cluster_recent ? *cluster_recent : 0);
    if (!breaker.ignored().empty()) {
        log.warning(Component::Health, "circuit breaker: " + breaker.ignored());
    }
    if (!allowed) {
        log.error(Component::Health, allowed.error().message());
        return internal_error_rc;
    }
    decision = health::apply_breaker(decision, *allowed, limit, h.breaker.window_s);
    if (decision.action == health::DrainDecision::Action::BreakerOpen) {
        log.error(Component::Health, decision.message);
        return 0;
    }
    if (auto d = control.drain(node_name, decision.reason); !d) {
        log.error(Component::Health, d.error().message());
        return internal_error_rc;
    }
    log.error(Component::Health, decision.message);
    return -1;
}

}  // namespace switchyard::spank
