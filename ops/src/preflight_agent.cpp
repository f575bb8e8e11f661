// SPDX-License-Identifier: Apache-2.0
// `switchyard preflight --agent`: one node's share of the rounds. Every node of the job runs it
// with the same hosts, map and start time, so each computes the same pairs and rounds; round k
// is the window [start + k W, start + (k+1) W). In its window a node serves the pairs whose
// server it is (the probe without the peer's word) and, 0.3 s in, runs as the client of its
// others, then prints one JSON line per pair it was the client of. A probe that hangs is killed
// at the window's end and reported as failed: nobody's fault but its own.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <ostream>
#include <thread>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/process.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/ops/inputs.hpp"
#include "switchyard/ops/preflight.hpp"
#include "switchyard/policy/loaders.hpp"

namespace switchyard::ops {
namespace {

constexpr double kServerHeadStart = 0.3;  ///< the server listens before the client connects

/// The probe's words for one side: {hca} the rail, {host} this node, {peer} the other node
/// (the client's; the server drops that word).
std::vector<std::string> words(const std::vector<std::string>& argv,
                               const std::string& hca,
                               const std::string& host,
                               const std::string* peer) {
    std::vector<std::string> out;
    for (const auto& w : argv) {
        if (w == "{peer}") {
            if (peer != nullptr) {
                out.push_back(*peer);
            }
            continue;
        }
        std::string s = w;
        for (const auto& [key, value] :
             {std::pair<std::string, const std::string*>{"{hca}", &hca}, {"{host}", &host}}) {
            for (auto at = s.find(key); at != std::string::npos; at = s.find(key, at)) {
                s.replace(at, key.size(), *value);
                at += value->size();
            }
        }
        out.push_back(std::move(s));
    }
    return out;
}

void sleep_until_epoch(double t) {
    const auto now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    if (t > now) {
        std::this_thread::sleep_for(std::chrono::duration<double>(t - now));
    }
}

double epoch_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// One probe run: its output parsed by `parse`, or why it failed.
template <typename Parse>
auto run_probe(const std::vector<std::string>& argv,
               double timeout_s,
               const std::string& what,
               Parse parse) -> decltype(parse(std::string_view{}, std::string_view{})) {
    const auto run = run_process(argv, timeout_s, &clean_environment(), preflight::kMaxProbeOutput);
    if (run.timed_out) {
        char b[32];
        std::snprintf(b, sizeof b, "%.1f", timeout_s);
        return fail(Error::io(what + ": no result within " + b + " s (killed)"));
    }
    if (!run.error.empty()) {
        return fail(Error::io(what + ": " + run.error));
    }
    if (run.exit_code == 127) {
        return fail(Error::io(what + ": cannot run " + argv.front()));
    }
    return parse(run.output, what);
}

}  // namespace

PreflightReport run_preflight_agent(const PreflightRequest& a, Deps& deps) {
    PreflightRequest plan = a;
    plan.results.clear();
    PreflightReport r = run_preflight(plan, deps);
    if (!r.error.empty()) {
        return r;
    }
    const auto me = std::find(r.model.hosts.begin(), r.model.hosts.end(), a.me);
    if (me == r.model.hosts.end()) {
        r.rc = kExitUsage;
        r.error = "--me: '" + a.me + "' is not one of the job's hosts on the map";
        return r;
    }
    const auto my = static_cast<std::uint32_t>(me - r.model.hosts.begin());
    const auto& pol = r.policy;
    const auto rounds = std::max<std::uint32_t>(1, r.schedule.rounds);
    const double window = std::max(1.0, std::min(pol.probe_timeout_s, pol.deadline_s / rounds));
    const double now = epoch_now();
    const double start = a.start > 0 ? a.start : now;
    if (start > now + 600 || start < now - pol.deadline_s) {
        r.rc = kExitUsage;
        r.error = "--start: expected a time within 10 minutes from now (epoch seconds), not " +
                  std::to_string(static_cast<long long>(start));
        return r;
    }
    // The deadline holds: rounds that would end after it are not run (said once).
    const auto runnable = static_cast<std::uint32_t>(std::floor(pol.deadline_s / window));
    if (runnable < r.schedule.rounds) {
        r.notes.push_back(std::to_string(r.schedule.rounds - runnable) + " of " +
                          std::to_string(r.schedule.rounds) + " rounds of " +
                          std::to_string(static_cast<int>(window)) +
                          " s do not fit in preflight.deadline_s; their pairs are not measured");
    }
    for (const auto& p : r.model.planes) {
        if (p.nvlink) {
            r.notes.push_back(
                "the NVLink pairs are planned but not measured by the agent: no "
                "GPU probe is configured for them");
            break;
        }
    }
    std::mutex out_mutex;
    for (std::uint32_t round = 0; round < std::min(r.schedule.rounds, runnable); ++round) {
        const double begin = start + round * window;
        const double end = begin + window;
        if (epoch_now() >= end) {
            continue;  // a window already gone (started late): its pairs are the others' to miss
        }
        sleep_until_epoch(begin);
        std::vector<std::thread> sides;
        for (const auto& p : r.schedule.probes) {
            if (p.round != round) {
                continue;
            }
            const auto& ca = r.model.attachments[p.a];
            const auto& sa = r.model.attachments[p.b];
            if (ca.host != my && sa.host != my) {
                continue;
            }
            const bool client = ca.host == my;
            const auto& plane = r.model.planes[ca.plane];
            if (plane.nvlink) {
                continue;  // NVLink pairs need a GPU probe; none is configured (see the note)
            }
            const std::string hca = plane.name;
            const std::string peer = r.model.hosts[client ? sa.host : ca.host];
            sides.emplace_back([&, client, hca, peer, end] {
                // Nothing may leave a thread: a failure is the pair's, never the agent's.
                try {
                    const auto& host = a.me;
                    const double half = (end - epoch_now()) / 2;
                    if (!client) {
                        (void)run_process(words(pol.latency, hca, host, nullptr), half,
                                          &clean_environment(), preflight::kMaxProbeOutput);
                        (void)run_process(words(pol.bandwidth, hca, host, nullptr),
                                          std::max(0.1, end - epoch_now()), &clean_environment(),
                                          preflight::kMaxProbeOutput);
                        return;
                    }
                    preflight::PairResult res;
                    res.client = host;
                    res.server = peer;
                    res.rail = hca;
                    std::this_thread::sleep_for(std::chrono::duration<double>(kServerHeadStart));
                    auto lat = run_probe(words(pol.latency, hca, host, &peer),
                                         std::max(0.1, half - kServerHeadStart), "ib_write_lat",
                                         preflight::parse_ib_write_lat);
                    if (lat) {
                        res.latency_us = lat->typical_us;
                        std::this_thread::sleep_for(
                            std::chrono::duration<double>(kServerHeadStart));
                        auto bw = run_probe(words(pol.bandwidth, hca, host, &peer),
                                            std::max(0.1, end - epoch_now()), "ib_write_bw",
                                            preflight::parse_ib_write_bw);
                        if (bw) {
                            res.bandwidth_gbps = bw->avg_gbps;
                        } else {
                            res.error = bw.error().to_string();
                        }
                    } else {
                        res.error = lat.error().to_string();
                    }
                    const std::lock_guard<std::mutex> lock(out_mutex);
                    deps.out << preflight::pair_result_line(res) << '\n' << std::flush;
                } catch (const std::exception& e) {
                    const std::lock_guard<std::mutex> lock(out_mutex);
                    deps.err << "switchyard preflight: " << peer << " on " << hca << ": "
                             << e.what() << '\n';
                } catch (...) {
                    const std::lock_guard<std::mutex> lock(out_mutex);
                    deps.err << "switchyard preflight: " << peer << " on " << hca
                             << ": unknown error\n";
                }
            });
        }
        for (auto& t : sides) {
            t.join();
        }
    }
    return r;
}

}  // namespace switchyard::ops
