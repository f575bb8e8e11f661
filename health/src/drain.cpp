// SPDX-License-Identifier: Apache-2.0
// The drain and resume decisions and the circuit breaker's arithmetic (no I/O).
#include "switchyard/health/drain.hpp"

#include <algorithm>
#include <cctype>
#include <iomanip>
#include <optional>
#include <set>
#include <sstream>

#include "switchyard/common/strings.hpp"

namespace switchyard::health {

bool owned_reason(std::string_view reason) {
    return reason.starts_with(kOwnedReasonPrefix);
}

BreakerLimit breaker_limit(const BreakerPolicy& b, unsigned partition_size) {
    BreakerLimit out{b.max_nodes, "max_nodes " + std::to_string(b.max_nodes)};
    if (partition_size == 0) {
        return out;
    }
    const auto by_percent = std::max(
        1U, static_cast<unsigned>(static_cast<double>(partition_size) * b.max_percent / 100.0));
    if (by_percent < out.nodes) {
        std::ostringstream why;
        why << b.max_percent << "% of a " << partition_size << "-node partition";
        out = {by_percent, why.str()};
    }
    return out;
}

BreakerRecord BreakerRecord::parse(std::string_view text, double now, double window_s) {
    BreakerRecord r;
    std::istringstream in{std::string(text)};
    double when = 0;
    std::string who;
    while (in >> when >> who) {
        if (now - when <= window_s) {
            r.entries_.push_back({when, who});
        }
    }
    return r;
}

std::size_t BreakerRecord::recent_nodes() const {
    std::set<std::string_view> nodes;
    for (const auto& e : entries_) {
        nodes.insert(e.node);
    }
    return nodes.size();
}

bool BreakerRecord::has(std::string_view node) const {
    return std::any_of(entries_.begin(), entries_.end(),
                       [&](const Entry& e) { return e.node == node; });
}

bool BreakerRecord::allows(std::string_view node,
                           unsigned cluster_recent,
                           unsigned max_nodes) const {
    return has(node) || std::max<std::size_t>(recent_nodes(), cluster_recent) < max_nodes;
}

std::string BreakerRecord::text() const {
    std::ostringstream out;
    out << std::fixed << std::setprecision(0);
    for (const auto& e : entries_) {
        out << e.when << ' ' << e.node << '\n';
    }
    return out.str();
}

DrainDecision decide_drain(const std::string& node,
                           const HealthReport& report,
                           const std::string& current_reason) {
    if (report.verdict != HealthStatus::Fail) {
        return {DrainDecision::Action::Pass, node, "", ""};
    }
    const auto reason = report.reason();
    if (!current_reason.empty() && !owned_reason(current_reason)) {
        return {DrainDecision::Action::HeldElsewhere, node, reason,
                node + " fails (" + reason + ") but is held for another reason ('" +
                    current_reason + "'); not touching it"};
    }
    return {DrainDecision::Action::Drain, node, reason, "drained " + node + ": " + reason};
}

DrainDecision apply_breaker(DrainDecision d,
                            bool allowed,
                            const BreakerLimit& limit,
                            double window_s) {
    if (d.action != DrainDecision::Action::Drain || allowed) {
        return d;
    }
    d.action = DrainDecision::Action::BreakerOpen;
    d.message = "CIRCUIT BREAKER OPEN: " + std::to_string(limit.nodes) +
                " nodes were drained in the last " + std::to_string(static_cast<int>(window_s)) +
                " s (limit: " + limit.why + "); not draining " + d.node + " (" + d.reason +
                ") — check the health policy";
    return d;
}

ResumeDecision decide_resume(const std::string& node, const std::string& current_reason) {
    if (current_reason.empty()) {
        return {};
    }
    if (!owned_reason(current_reason)) {
        return {false,
                "not resuming " + node + ": held for another reason ('" + current_reason + "')"};
    }
    return {true, "resumed " + node + " (was: " + current_reason + ")"};
}

}  // namespace switchyard::health
