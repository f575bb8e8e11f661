// SPDX-License-Identifier: Apache-2.0
// Health checks: each compares facts a NodeProbe gives with the policy; one table runs the
// configured ones within the gate's time budget.
#include "switchyard/health/health.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>

#include "check_result.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/node/node_readers.hpp"

namespace switchyard::health {

std::string_view to_string(HealthStatus s) {
    switch (s) {
        case HealthStatus::Pass:
            return "pass";
        case HealthStatus::Warn:
            return "warn";
        case HealthStatus::Fail:
            return "fail";
    }
    return "?";
}

const HealthChecks& HealthPolicy::for_node(const std::string& node_shape,
                                           const std::string& partition,
                                           std::string* set_name) const {
    for (const auto& s : sets) {
        const auto parts = split(partition, ',');
        const bool partition_ok =
            s.partition.empty() || std::any_of(parts.begin(), parts.end(), [&](std::string_view p) {
                return s.partition.matches(p);
            });
        // Shape: found anywhere in the fingerprint, as in NCCL profiles' match.shape.
        const bool shape_ok = s.shape.found_in(node_shape);
        if (shape_ok && partition_ok) {
            if (set_name != nullptr) {
                *set_name = s.name;
            }
            return s.checks;
        }
    }
    if (set_name != nullptr) {
        set_name->clear();
    }
    return checks;
}

HealthChecks with_node_paths(HealthChecks c, std::string_view node_name) {
    if (c.link_errors) {
        c.link_errors->state = node::expand_node_path(c.link_errors->state, node_name);
    }
    if (c.imex) {
        c.imex->channel = node::expand_node_path(c.imex->channel, node_name);
        c.imex->command = node::expand_node_path(c.imex->command, node_name);
        c.imex->node_name = std::string(node_name);
    }
    if (c.xid) {
        c.xid->source = node::expand_node_path(c.xid->source, node_name);
    }
    // NVML's library may be named per node too (a test cluster of emulated nodes).
    if (c.nvml) {
        c.nvml->library = node::expand_node_path(c.nvml->library, node_name).string();
    }
    if (c.nvlink) {
        c.nvlink->library = node::expand_node_path(c.nvlink->library, node_name).string();
    }
    if (c.clock_events) {
        c.clock_events->library =
            node::expand_node_path(c.clock_events->library, node_name).string();
    }
    return c;
}

HealthChecks with_fabric(HealthChecks c, const fabric::FabricMap* map, std::string_view node_name) {
    if (c.nvlink && map != nullptr) {
        const auto* h = map->find_host(node_name);
        if (h != nullptr && h->domain != fabric::kNoDomain) {
            c.nvlink->expected_domain = map->domains[h->domain].key;
        }
    }
    return c;
}

std::string HealthReport::reason() const {
    for (const auto& c : checks) {
        if (c.status == HealthStatus::Fail) {
            return bounded_line(std::string(kOwnedReasonPrefix) + " " + c.name + ": " + c.detail,
                                kMaxDrainReason);
        }
    }
    return {};
}

CheckResult check_rdma_ports(NodeProbe& probe, const RdmaPortsCheck& c) {
    const auto& node = probe.node();
    const Pattern& compute = c.hca;
    unsigned good = 0;
    std::vector<std::string> bad;
    for (const auto& nic : node.nics) {
        if (!compute.matches(nic.name)) {
            continue;
        }
        for (const auto& p : nic.ports) {
            const auto id = nic.name + ":" + std::to_string(p.port);
            if (p.state_code != 4) {
                bad.push_back(id + " " + p.state + "/" + p.phys_state);
            } else if (p.rate_gbps < c.min_rate_gbps) {
                bad.push_back(id + " at " + std::to_string(static_cast<int>(p.rate_gbps)) +
                              " Gb/s < " + std::to_string(static_cast<int>(c.min_rate_gbps)));
            } else if (!c.link_layer.empty() && p.link_layer != c.link_layer) {
                bad.push_back(id + " link layer " + p.link_layer);
            } else {
                ++good;
            }
        }
    }
    if (good < c.count) {
        return result("rdma-ports", HealthStatus::Fail,
                      std::to_string(good) + " of " + std::to_string(c.count) +
                          " compute ports usable" +
                          (bad.empty() ? std::string() : "; " + join(bad, ", ")));
    }
    if (!bad.empty()) {
        return result("rdma-ports", HealthStatus::Warn, join(bad, ", "));
    }
    return result("rdma-ports", HealthStatus::Pass, std::to_string(good) + " compute ports ACTIVE");
}

const std::vector<std::string>& link_error_counters() {
    static const std::vector<std::string> names{
        "link_downed",     "link_error_recovery",         "symbol_error",
        "port_rcv_errors", "local_link_integrity_errors", "excessive_buffer_overrun_errors",
    };
    return names;
}

CheckResult check_link_errors(NodeProbe& probe, const LinkErrorsCheck& c) {
    const auto& node = probe.node();
    std::map<std::string, std::uint64_t> before;
    // A snapshot someone else planted (zero baselines would drain a healthy node), a link, a
    // directory or a FIFO is ignored and replaced; this run is the baseline then.
    std::string ignored;
    auto saved = probe.read_state(c.state);
    if (!saved) {
        ignored = saved.error().message() + "; ignored and replaced";
        saved = std::string();
    }
    {
        std::istringstream in(*saved);
        std::string key;
        std::uint64_t value = 0;
        while (in >> key >> value) {
            before[key] = value;
        }
    }
    const Pattern& compute = c.hca;
    std::ostringstream snapshot;
    std::vector<std::string> grown;
    std::size_t compared = 0;
    std::size_t growing = 0;    // counters that grew, within the maximum
    std::uint64_t largest = 0;  // their largest growth
    for (const auto& nic : node.nics) {
        if (!compute.matches(nic.name)) {
            continue;
        }
        for (const auto& p : nic.ports) {
            for (const auto& name : link_error_counters()) {
                const auto it = p.counters.find(name);
                if (it == p.counters.end()) {
                    continue;
                }
                const auto key = nic.name + ":" + std::to_string(p.port) + "/" + name;
                snapshot << key << ' ' << it->second << '\n';
                const auto prev = before.find(key);
                if (prev == before.end() || it->second < prev->second) {
                    continue;  // no baseline yet, or reset: this run is the baseline
                }
                ++compared;
                if (const auto growth = it->second - prev->second; growth > c.max_growth) {
                    grown.push_back(key + " +" + std::to_string(growth));
                } else if (growth > 0) {
                    ++growing;
                    largest = std::max(largest, growth);
                }
            }
        }
    }
    std::string write_problem;
    if (auto w = probe.write_state(c.state, snapshot.str()); !w) {
        write_problem = w.error().message();
    }
    if (!grown.empty()) {
        return result(
            "link-errors", HealthStatus::Fail,
            join(grown, ", ") + " since the last run (max " + std::to_string(c.max_growth) + ")");
    }
    if (!write_problem.empty() || !ignored.empty()) {
        return result("link-errors", HealthStatus::Warn,
                      write_problem.empty() ? ignored
                      : ignored.empty()     ? write_problem
                                            : ignored + "; " + write_problem);
    }
    if (growing > 0) {  // passing, but flapping: how near the maximum, for steer
        auto r =
            result("link-errors", HealthStatus::Pass,
                   std::to_string(compared - growing) + " counters steady, " +
                       std::to_string(growing) + " growing (largest +" + std::to_string(largest) +
                       ", max " + std::to_string(c.max_growth) + ")");
        r.soft = static_cast<double>(largest) / static_cast<double>(c.max_growth);
        return r;
    }
    return result("link-errors", HealthStatus::Pass,
                  compared == 0 ? "baseline recorded in " + c.state
                                : std::to_string(compared) + " counters steady");
}

CheckResult check_gpus(NodeProbe& probe, unsigned expected) {
    const auto& node = probe.node();
    if (node.gpus.size() < expected) {
        return result(
            "gpus", HealthStatus::Fail,
            std::to_string(node.gpus.size()) + " of " + std::to_string(expected) + " GPUs on PCI");
    }
    std::vector<std::string> degraded;
    for (const auto& g : node.gpus) {
        const auto cw = probe.pci_attribute(g.place.busid, "current_link_width");
        const auto mw = probe.pci_attribute(g.place.busid, "max_link_width");
        const auto cs = probe.pci_attribute(g.place.busid, "current_link_speed");
        const auto ms = probe.pci_attribute(g.place.busid, "max_link_speed");
        if ((!cw.empty() && !mw.empty() && cw != mw) || (!cs.empty() && !ms.empty() && cs != ms)) {
            degraded.push_back("gpu" + std::to_string(g.index) + " " + g.place.busid + " x" + cw +
                               " " + cs + " (max x" + mw + " " + ms + ")");
        }
    }
    if (!degraded.empty()) {
        return result("gpus", HealthStatus::Fail, "PCIe link degraded: " + join(degraded, ", "));
    }
    return result("gpus", HealthStatus::Pass,
                  std::to_string(node.gpus.size()) + " GPUs, links at full width and speed");
}

CheckResult check_shape(NodeProbe& probe, const std::string& expected) {
    const auto& node = probe.node();
    if (node.shape == expected) {
        return result("shape", HealthStatus::Pass, node.shape);
    }
    return result("shape", HealthStatus::Fail,
                  "shape '" + node.shape + "', expected '" + expected + "'");
}

CheckResult check_memory(std::string_view meminfo, double min_gb) {
    for (auto line : split(meminfo, '\n')) {
        if (line.starts_with("MemTotal:")) {
            auto rest = trim(line.substr(9));
            const auto kb = parse_uint(rest.substr(0, rest.find(' ')));
            if (!kb) {
                break;
            }
            const double gb = static_cast<double>(*kb) / (1024.0 * 1024.0);
            char buf[96];
            std::snprintf(buf, sizeof buf, "%.1f GiB (minimum %.1f)", gb, min_gb);
            return result("memory", gb < min_gb ? HealthStatus::Fail : HealthStatus::Pass, buf);
        }
    }
    return result("memory", HealthStatus::Fail, "no MemTotal line in /proc/meminfo");
}

CheckResult check_filesystem(NodeProbe& probe, const FilesystemCheck& c) {
    const auto name = "filesystem:" + c.path;
    const auto space = probe.filesystem(c.path);
    if (!space) {
        return result(name, HealthStatus::Fail, space.error().message());
    }
    const double free_gb = space->free_gb;
    if (free_gb < c.min_free_gb) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%.1f GB free < %.1f GB", free_gb, c.min_free_gb);
        return result(name, HealthStatus::Fail, buf);
    }
    if (c.writable) {
        // An unnamed file: no predictable name in a shared directory to plant a link at.
        if (auto w = probe.writable(c.path); !w) {
            return result(name, HealthStatus::Fail, "not writable: " + w.error().message());
        }
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f GB free", free_gb);
    return result(name, HealthStatus::Pass, buf);
}

std::optional<double> parse_nccl_tests_busbw(std::string_view output) {
    for (auto line : split(output, '\n')) {
        const auto at = line.find("Avg bus bandwidth");
        if (at == std::string_view::npos) {
            continue;
        }
        const auto colon = line.find(':', at);
        if (colon == std::string_view::npos) {
            return std::nullopt;
        }
        const std::string value(trim(line.substr(colon + 1)));
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        // "nan" compared below any floor as false, and so passed the check; a bandwidth is a
        // finite number, never negative.
        return end != value.c_str() && std::isfinite(v) && v >= 0 ? std::optional(v) : std::nullopt;
    }
    return std::nullopt;
}

CheckResult check_command(NodeProbe& probe, const CommandCheck& c) {
    const auto name = "command:" + c.name;
    const auto r = probe.run(c.argv, c.timeout_s);
    if (!r.error.empty()) {
        return result(name, HealthStatus::Fail, r.error);
    }
    if (r.timed_out) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "killed after the %g s timeout", c.timeout_s);
        return result(name, HealthStatus::Fail, buf);
    }
    if (r.exit_code == 127) {
        return result(name, HealthStatus::Fail, "cannot run '" + c.argv.front() + "'");
    }
    if (r.exit_code != c.ok_exit) {
        // The output's last line (a view into `tail`, which must outlive it).
        const std::string tail = r.output.substr(
            r.output.rfind('\n', r.output.size() > 1 ? r.output.size() - 2 : 0) + 1);
        const auto last = trim(tail);
        return result(
            name, HealthStatus::Fail,
            "exit " + std::to_string(r.exit_code) + (last.empty() ? "" : ": " + std::string(last)));
    }
    if (!c.fail_pattern.empty()) {
        // Line by line, each line cut at kMaxPatternText: std::regex recurses per character,
        // and a 200k-character line overflowed the prolog's stack (a signal, not an error).
        for (auto line : split(r.output, '\n')) {
            if (const auto m = c.fail_pattern.first_match(line)) {
                return result(name, HealthStatus::Fail,
                              "output matches '" + c.fail_pattern.text() + "': " + *m);
            }
        }
    }
    if (c.min_busbw_gbps) {
        const auto bw = parse_nccl_tests_busbw(r.output);
        const double floor = *c.min_busbw_gbps;
        if (!bw) {
            return result(name, HealthStatus::Fail, "no 'Avg bus bandwidth' line in the output");
        }
        char buf[96];
        std::snprintf(buf, sizeof buf, "bus bandwidth %.1f GB/s (minimum %.1f)", *bw, floor);
        return result(name, *bw < floor ? HealthStatus::Fail : HealthStatus::Pass, buf);
    }
    return result(name, HealthStatus::Pass, "exit " + std::to_string(r.exit_code));
}

CheckResult check_nvml(NodeProbe& probe, const NvmlCheck& c) {
    const auto facts = probe.nvml(c.library, c.nvlinks.has_value(), c.timeout_s);
    switch (facts.state) {
        case NvmlFacts::State::Unavailable:
            // Expecting GPUs that NVML cannot see (no driver) fails; otherwise only a warning.
            return result("nvml", c.gpus ? HealthStatus::Fail : HealthStatus::Warn,
                          "NVML not available (" + facts.why + "); GPU memory not checked");
        case NvmlFacts::State::Failed:
        case NvmlFacts::State::TimedOut:
            return result("nvml", HealthStatus::Fail, facts.why);
        case NvmlFacts::State::Read:
            break;
    }
    std::vector<std::string> bad;
    std::vector<std::string> no_persistence;
    if (c.gpus && facts.gpus.size() < *c.gpus) {
        bad.push_back("NVML sees " + std::to_string(facts.gpus.size()) + " of " +
                      std::to_string(*c.gpus) + " GPUs");
    }
    for (const auto& g : facts.gpus) {
        if (!g.error.empty()) {
            bad.push_back("GPU " + std::to_string(g.index) + ": " + g.error);
            continue;
        }
        std::vector<std::string> problems;
        if (g.retired_sbe && g.retired_dbe &&
            *g.retired_sbe + *g.retired_dbe > c.max_retired_pages) {
            problems.push_back(std::to_string(*g.retired_sbe + *g.retired_dbe) +
                               " retired pages (" + std::to_string(*g.retired_dbe) +
                               " double-bit) > " + std::to_string(c.max_retired_pages));
        }
        if (g.retirement_pending) {
            problems.emplace_back("page retirement pending (reset the GPU)");
        }
        if (g.remap_failed) {
            problems.emplace_back("row remapping failed (" + std::to_string(g.uncorrectable_rows) +
                                  " uncorrectable rows): replace the GPU");
        } else if (g.remap_pending) {
            problems.emplace_back("row remapping pending (reset the GPU)");
        }
        if (g.uncorrected_ecc && *g.uncorrected_ecc > c.max_uncorrected_ecc) {
            problems.push_back(std::to_string(*g.uncorrected_ecc) +
                               " uncorrected ECC errors since the driver loaded");
        }
        if (g.persistence && !*g.persistence && c.persistence_off != HealthStatus::Pass) {
            no_persistence.push_back(std::to_string(g.index));
            if (c.persistence_off == HealthStatus::Fail) {
                problems.emplace_back("persistence mode off");
            }
        }
        if (c.nvlinks && g.nvlinks_active && *g.nvlinks_active < *c.nvlinks) {
            problems.push_back(std::to_string(*g.nvlinks_active) + " of " +
                               std::to_string(*c.nvlinks) + " NVLinks active");
        }
        if (!problems.empty()) {
            bad.push_back("GPU " + std::to_string(g.index) +
                          (g.uuid.empty() ? "" : " (" + g.uuid + ")") + ": " +
                          join(problems, ", "));
        }
    }
    if (!bad.empty()) {
        return result("nvml", HealthStatus::Fail, join(bad, "; "));
    }
    if (!no_persistence.empty()) {
        return result("nvml", HealthStatus::Warn,
                      "persistence mode off on GPU " + join(no_persistence, ", ") +
                          " (nvidia-persistenced not running?): each job waits for the driver");
    }
    return result("nvml", HealthStatus::Pass, std::to_string(facts.gpus.size()) + " GPUs healthy");
}

namespace {

/// One configured check: its name in the report, and how to run it given the seconds the
/// gate's budget still allows (a check that can wait, a command or NVML, stops by then).
struct PlannedCheck {
    std::string name;
    std::function<CheckResult(NodeProbe&, double seconds_left)> run;
};
/// A kind of check: its key in the policy (the loader's list of health keys comes from here)
/// and how its configured instances become planned checks.
struct CheckKind {
    std::string_view key;
    void (*plan)(const HealthChecks&, std::vector<PlannedCheck>&);
};

/// The kinds of check, one row each, in the order they run and report. A new check is a spec
/// in HealthChecks, read by the loader (policy_health.cpp), a check_ function over the probe's
/// facts, and one row here.
const CheckKind kCheckKinds[] = {
    {"rdma_ports",
     [](const HealthChecks& p, std::vector<PlannedCheck>& out) {
         if (p.rdma_ports) {
             out.push_back({"rdma-ports", [c = *p.rdma_ports](NodeProbe& probe, double) {
                                return check_rdma_ports(probe, c);
                            }});
         }
     }},
    {"link_errors",
     [](const HealthChecks& p, std::vector<PlannedCheck>& out) {
         if (p.link_errors) {
             out.push_back({"link-errors", [c = *p.link_errors](NodeProbe& probe, double) {
                                return check_link_errors(probe, c);
                            }});
         }
     }},
    {"gpus",
     [](const HealthChecks& p, std::vector<PlannedCheck>& out) {
         if (p.gpus) {
             out.push_back({"gpus", [n = *p.gpus](NodeProbe& probe, double) {
                                return check_gpus(probe, n);
                            }});
         }
     }},
    {"nvml",
     [](const HealthChecks& p, std::vector<PlannedCheck>& out) {
         if (p.nvml) {
             out.push_back({"nvml", [c = *p.nvml](NodeProbe& probe, double left) {
                                auto bounded = c;
                                bounded.timeout_s = std::min(c.timeout_s, left);
                                return check_nvml(probe, bounded);
                            }});
         }
     }},
    {"nvlink",
     [](const HealthChecks& p, std::vector<PlannedCheck>& out) {
         if (p.nvlink) {
             out.push_back({"nvlink", [c = *p.nvlink](NodeProbe& probe, double left) {
                                auto bounded = c;
                                bounded.timeout_s = std::min(c.timeout_s, left);
                                return check_nvlink(probe, bounded);
                            }});
         }
     }},
    {"imex",
     [](const HealthChecks& p, std::vector<PlannedCheck>& out) {
         if (p.imex) {
             out.push_back({"imex", [c = *p.imex](NodeProbe& probe, double left) {
                                auto bounded = c;
                                bounded.timeout_s = std::min(c.timeout_s, left);
                                return check_imex(probe, bounded);
                            }});
         }
     }},
    {"xid",
     [](const HealthChecks& p, std::vector<PlannedCheck>& out) {
         if (p.xid) {
             out.push_back(
                 {"xid", [c = *p.xid](NodeProbe& probe, double) { return check_xid(probe, c); }});
         }
     }},
    {"clock_events",
     [](const HealthChecks& p, std::vector<PlannedCheck>& out) {
         if (p.clock_events) {
             out.push_back({"clock-events", [c = *p.clock_events](NodeProbe& probe, double left) {
                                auto bounded = c;
                                bounded.timeout_s = std::min(c.timeout_s, left);
                                return check_clock_events(probe, bounded);
                            }});
         }
     }},
    {"shape",
     [](const HealthChecks& p, std::vector<PlannedCheck>& out) {
         if (p.shape) {
             out.push_back({"shape", [s = *p.shape](NodeProbe& probe, double) {
                                return check_shape(probe, s);
                            }});
         }
     }},
    {"min_memory_gb",
     [](const HealthChecks& p, std::vector<PlannedCheck>& out) {
         if (p.min_memory_gb) {
             out.push_back({"memory", [gb = *p.min_memory_gb](NodeProbe& probe, double) {
                                return check_memory(probe.meminfo(), gb);
                            }});
         }
     }},
    {"filesystems",
     [](const HealthChecks& p, std::vector<PlannedCheck>& out) {
         for (const auto& f : p.filesystems) {
             out.push_back({"filesystem:" + f.path,
                            [f](NodeProbe& probe, double) { return check_filesystem(probe, f); }});
         }
     }},
    {"commands",
     [](const HealthChecks& p, std::vector<PlannedCheck>& out) {
         for (const auto& c : p.commands) {
             out.push_back({"command:" + c.name, [c](NodeProbe& probe, double left) {
                                auto bounded = c;
                                bounded.timeout_s = std::min(c.timeout_s, left);
                                return check_command(probe, bounded);
                            }});
         }
     }},
};

}  // namespace

std::vector<std::string_view> health_check_keys() {
    std::vector<std::string_view> keys;
    for (const auto& kind : kCheckKinds) {
        keys.push_back(kind.key);
    }
    return keys;
}

HealthReport run_health_checks(const HealthChecks& checks, NodeProbe& probe, double budget_s) {
    std::vector<PlannedCheck> planned;
    for (const auto& kind : kCheckKinds) {
        kind.plan(checks, planned);
    }
    HealthReport report;
    const double start = probe.seconds();
    for (const auto& check : planned) {
        const double t0 = probe.seconds();
        const double left = budget_s - (t0 - start);
        // Less than 50 ms left is spent: a check could not do anything useful in it.
        CheckResult r = left < 0.05 ? result(check.name, HealthStatus::Fail,
                                             "not run: the gate's time budget is spent")
                                    : check.run(probe, std::max(0.1, left));
        r.duration_ms = (probe.seconds() - t0) * 1000.0;
        // A check's words can carry a command's output (nvidia-imex-ctl, a site command): on
        // their way to slurmd's log, a terminal, JSON and the drain reason they are one line,
        // printable, and bounded.
        r.detail = bounded_line(r.detail, kMaxDetail);
        report.verdict = std::max(report.verdict, r.status);
        report.checks.push_back(std::move(r));
    }
    return report;
}

}  // namespace switchyard::health
