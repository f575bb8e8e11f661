// SPDX-License-Identifier: Apache-2.0
// The multi-node NVLink checks (fabric registration and health, the NVLink domain, IMEX) and
// the XID and clock-event checks, over the NodeProbe.
#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "check_result.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/health/health.hpp"
#include "switchyard/node/nvlink.hpp"

namespace switchyard::health {
namespace {

/// At most this many names in a detail, then "(N in all)".
constexpr std::size_t kListed = 4;

std::string listed(const std::vector<std::string>& items) {
    std::vector<std::string> head(
        items.begin(),
        items.begin() + static_cast<std::ptrdiff_t>(std::min(items.size(), kListed)));
    auto out = join(head, "; ");
    if (items.size() > kListed) {
        out += "; ... (" + std::to_string(items.size()) + " in all)";
    }
    return out;
}

/// NVML's answer as a check result when there is none: a node without NVML fails the checks
/// that need it (they are asked for on GPU nodes only).
std::optional<CheckResult> nvml_missing(const std::string& name, const NvmlFacts& f) {
    switch (f.state) {
        case NvmlFacts::State::Unavailable:
            return result(name, HealthStatus::Fail, "NVML not available (" + f.why + ")");
        case NvmlFacts::State::Failed:
        case NvmlFacts::State::TimedOut:
            return result(name, HealthStatus::Fail, f.why);
        case NvmlFacts::State::Read:
            break;
    }
    return std::nullopt;
}

/// Deepest nesting of `text`'s brackets outside strings: checked before JSON is parsed.
std::size_t nesting(std::string_view text) {
    std::size_t depth = 0;
    std::size_t most = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = false;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            most = std::max(most, ++depth);
        } else if ((c == '}' || c == ']') && depth > 0) {
            --depth;
        }
    }
    return most;
}

std::string text_of(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>().substr(0, 256) : std::string();
}

}  // namespace

Result<ImexStatus> parse_imex_status(std::string_view text, std::string_view source) {
    auto bad = [&](const std::string& what) {
        return fail(Error::parse(SourceLoc{std::string(source), 0, 0},
                                 what + "; expected the JSON of 'nvidia-imex-ctl -N -j'"));
    };
    if (text.size() > kMaxImexOutput) {
        return bad("larger than " + std::to_string(kMaxImexOutput) + " bytes");
    }
    if (nesting(text) > 32) {
        return bad("nested deeper than 32 levels");
    }
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) {
        return bad("not JSON");
    }
    if (!j.is_object()) {
        return bad("not a JSON object");
    }
    ImexStatus out;
    const auto status = j.find("status");
    if (status == j.end() || !status->is_string() ||
        status->get_ref<const std::string&>().empty()) {
        return bad("no \"status\" string");
    }
    out.status = status->get<std::string>().substr(0, 64);
    const auto nodes = j.find("nodes");
    if (nodes == j.end() || !nodes->is_object()) {
        return bad("no \"nodes\" object");
    }
    if (nodes->size() > 4096) {
        return bad("more than 4096 nodes");
    }
    for (const auto& [key, n] : nodes->items()) {
        if (!n.is_object()) {
            return bad("node \"" + key.substr(0, 64) + "\" is not an object");
        }
        ImexNode node{key.substr(0, 64),
                      text_of(n, "host"),
                      text_of(n, "hostName"),
                      text_of(n, "status"),
                      {}};
        if (node.status.empty()) {
            return bad("node \"" + node.key + "\" has no \"status\" string");
        }
        if (const auto c = n.find("connections"); c != n.end() && c->is_object()) {
            for (const auto& [peer, conn] : c->items()) {
                if (conn.is_object() && text_of(conn, "status") != "CONNECTED") {
                    const auto host = text_of(conn, "host");
                    node.not_connected.push_back(host.empty() ? peer.substr(0, 64) : host);
                }
            }
        }
        out.nodes.push_back(std::move(node));
    }
    return out;
}

std::vector<XidEvent> parse_xids(std::string_view log) {
    constexpr std::string_view kMark = "NVRM: Xid (";
    constexpr std::size_t kMaxEvents = 100000;
    std::vector<XidEvent> out;
    for (const auto line : split(log, '\n')) {
        const auto at = line.find(kMark);
        if (at == std::string_view::npos || out.size() >= kMaxEvents) {
            continue;
        }
        auto rest = line.substr(at + kMark.size());
        const auto close = rest.find("): ");
        if (close == std::string_view::npos || close > 64) {
            continue;
        }
        const auto device = rest.substr(0, close);
        rest.remove_prefix(close + 3);
        const auto digits = rest.substr(0, rest.find_first_not_of("0123456789"));
        const auto code = parse_uint(digits);
        if (!code || *code > 100000) {
            continue;
        }
        out.push_back({static_cast<unsigned>(*code), std::string(device)});
    }
    return out;
}

CheckResult check_nvlink(NodeProbe& probe, const NvlinkCheck& c) {
    const auto facts = probe.nvml(c.library, false, c.timeout_s);
    if (auto missing = nvml_missing("nvlink", facts)) {
        return *missing;
    }
    const auto n = node::node_nvlink(facts.gpus);
    if (!n.multi_node) {
        if (!c.expected_domain.empty()) {
            return result("nvlink", HealthStatus::Fail,
                          "no GPU takes part in a multi-node NVLink fabric, but the fabric map "
                          "puts this node in domain " +
                              c.expected_domain);
        }
        return result("nvlink", HealthStatus::Pass,
                      "no multi-node NVLink fabric on this node's " +
                          std::to_string(facts.gpus.size()) + " GPU(s)");
    }
    if (!n.healthy) {
        return result("nvlink", HealthStatus::Fail, listed(n.problems));
    }
    if (!c.expected_domain.empty() && n.domain != c.expected_domain) {
        return result("nvlink", HealthStatus::Fail,
                      "GPUs in NVLink domain " + n.domain + ", the fabric map says " +
                          c.expected_domain +
                          " (rack moved or fabric re-partitioned: re-run "
                          "discover)");
    }
    return result("nvlink", HealthStatus::Pass,
                  std::to_string(facts.gpus.size()) + " GPU(s) completed in domain " + n.domain);
}

CheckResult check_imex(NodeProbe& probe, const ImexCheck& c) {
    const auto dev = probe.file_status(c.channel);
    if (!dev.error.empty()) {
        return result("imex", HealthStatus::Fail, c.channel + ": " + dev.error);
    }
    if (!dev.exists) {
        return result("imex", HealthStatus::Fail,
                      "no IMEX channel " + c.channel +
                          " (NVreg_CreateImexChannel0=1, or Slurm's switch/nvidia_imex, makes it)");
    }
    if (!dev.char_device) {
        return result("imex", HealthStatus::Fail, c.channel + " is not a character device");
    }
    if (c.channel_uid && dev.uid != *c.channel_uid) {
        return result("imex", HealthStatus::Fail,
                      c.channel + " belongs to uid " + std::to_string(dev.uid) + ", expected " +
                          std::to_string(*c.channel_uid));
    }
    if (c.channel_mode && dev.mode != *c.channel_mode) {
        char buf[96];
        std::snprintf(buf, sizeof buf, " has mode %04o, expected %04o", dev.mode, *c.channel_mode);
        return result("imex", HealthStatus::Fail,
                      c.channel + buf + " (CUDA error 800 for jobs that cannot open it)");
    }
    if (c.command.empty() || c.command.front() != '/') {
        return result("imex", HealthStatus::Fail,
                      "imex.command '" + c.command + "' is not an absolute path");
    }
    const auto run = probe.run({c.command, "-N", "-j", "-H"}, c.timeout_s);
    if (run.timed_out) {
        return result("imex", HealthStatus::Fail,
                      c.command + " did not answer within " + short_number(c.timeout_s) + " s");
    }
    if (run.exit_code != 0) {
        auto first = run.output.substr(0, run.output.find('\n')).substr(0, 200);
        return result("imex", HealthStatus::Fail,
                      c.command + " -N: exit " + std::to_string(run.exit_code) +
                          (first.empty() ? "" : ": " + first) + " (is nvidia-imex running?)");
    }
    auto status = parse_imex_status(run.output, c.command + " -N -j");
    if (!status) {
        return result("imex", HealthStatus::Fail, status.error().to_string());
    }
    std::vector<std::string> problems;
    const ImexNode* me = nullptr;
    for (const auto& n : status->nodes) {
        if (!c.node_name.empty() && (n.host_name == c.node_name || n.host == c.node_name)) {
            me = &n;
        }
        const auto who = n.host_name.empty() ? n.host : n.host_name;
        if (n.status != "READY") {
            problems.push_back(who + " " + n.status);
        }
        if (!n.not_connected.empty()) {
            problems.push_back(who + " not connected to " + join(n.not_connected, ","));
        }
    }
    if (status->status != "UP") {
        return result(
            "imex", HealthStatus::Fail,
            "IMEX domain " + status->status + (problems.empty() ? "" : ": " + listed(problems)));
    }
    if (me != nullptr && (me->status != "READY" || !me->not_connected.empty())) {
        return result(
            "imex", HealthStatus::Fail,
            "this node is " + me->status +
                (me->not_connected.empty() ? ""
                                           : ", not connected to " + join(me->not_connected, ",")));
    }
    if (!problems.empty()) {
        return result("imex", HealthStatus::Warn, "IMEX domain UP; " + listed(problems));
    }
    return result("imex", HealthStatus::Pass,
                  "IMEX domain UP, " + std::to_string(status->nodes.size()) +
                      " node(s) READY; channel " + c.channel);
}

CheckResult check_xid(NodeProbe& probe, const XidCheck& c) {
    const auto log = probe.kernel_log(c.source);
    if (!log) {
        return result("xid", HealthStatus::Fail,
                      "kernel log: " + log.error().message() + " (the gate runs as root)");
    }
    std::map<unsigned, std::map<std::string, unsigned>> by_code;
    std::size_t ignored = 0;
    for (const auto& e : parse_xids(*log)) {
        if (std::find(c.ignore.begin(), c.ignore.end(), e.code) != c.ignore.end()) {
            ++ignored;
            continue;
        }
        ++by_code[e.code][e.device];
    }
    if (by_code.empty()) {
        return result("xid", HealthStatus::Pass,
                      ignored == 0 ? "no XID error since boot"
                                   : "no XID error since boot but " + std::to_string(ignored) +
                                         " that applications cause");
    }
    std::vector<std::string> parts;
    for (const auto& [code, devices] : by_code) {
        std::vector<std::string> where;
        for (const auto& [device, count] : devices) {
            where.push_back(device + (count > 1 ? " x" + std::to_string(count) : ""));
        }
        parts.push_back("Xid " + std::to_string(code) + " on " + join(where, ", "));
    }
    return result("xid", HealthStatus::Fail, listed(parts) + " since boot");
}

CheckResult check_clock_events(NodeProbe& probe, const ClockEventsCheck& c) {
    const auto facts = probe.nvml(c.library, false, c.timeout_s);
    if (auto missing = nvml_missing("clock-events", facts)) {
        return *missing;
    }
    struct Reason {
        std::uint64_t bit;
        const char* what;
        HealthStatus status;
    };
    static constexpr Reason kReasons[] = {
        {kClockHwSlowdown, "hardware slowdown", HealthStatus::Fail},
        {kClockHwThermal, "hardware thermal slowdown", HealthStatus::Fail},
        {kClockHwPowerBrake, "power brake", HealthStatus::Fail},
        {kClockSwThermal, "software thermal slowdown", HealthStatus::Warn},
    };
    HealthStatus worst = HealthStatus::Pass;
    std::vector<std::string> seen;
    std::size_t unknown = 0;
    for (const auto& g : facts.gpus) {
        if (!g.clock_events) {
            ++unknown;
            continue;
        }
        std::vector<std::string> why;
        for (const auto& r : kReasons) {
            if ((*g.clock_events & r.bit) != 0) {
                why.emplace_back(r.what);
                worst = std::max(worst, r.status);
            }
        }
        if (!why.empty()) {
            seen.push_back("GPU " + std::to_string(g.index) + ": " + join(why, ", "));
        }
    }
    if (seen.empty()) {
        return result("clock-events", HealthStatus::Pass,
                      "no GPU held down" + (unknown == 0 ? std::string()
                                                         : " (" + std::to_string(unknown) +
                                                               " GPU(s) could not say)"));
    }
    return result("clock-events", worst, listed(seen));
}

}  // namespace switchyard::health
