// SPDX-License-Identifier: Apache-2.0
#include "switchyard/preflight/measure.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>

#include "switchyard/common/strings.hpp"

namespace switchyard::preflight {
namespace {

/// A line's words (a result row has a dozen; more are not read).
std::vector<std::string_view> words(std::string_view line) {
    return split_words(line, 64);
}

bool number(std::string_view w, double& v) {
    const auto* end = w.data() + w.size();
    const auto r = std::from_chars(w.data(), end, v);
    return r.ec == std::errc{} && r.ptr == end && std::isfinite(v) && v >= 0 && v < 1e12;
}

bool count(std::string_view w, std::uint64_t& v) {
    const auto* end = w.data() + w.size();
    const auto r = std::from_chars(w.data(), end, v);
    return r.ec == std::errc{} && r.ptr == end;
}

std::string excerpt(std::string_view out) {
    // The last non-empty line: what a failing probe said last.
    std::string_view last;
    std::size_t pos = 0;
    while (pos <= out.size()) {
        auto nl = out.find('\n', pos);
        if (nl == std::string_view::npos) {
            nl = out.size();
        }
        auto line = out.substr(pos, nl - pos);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) {
            line.remove_suffix(1);
        }
        if (!line.empty()) {
            last = line;
        }
        pos = nl + 1;
    }
    if (last.empty()) {
        return "nothing";
    }
    std::string s(last.substr(0, 160));
    for (auto& c : s) {
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) {
            c = '?';
        }
    }
    return "'" + s + "'";
}

/// perftest's table: the " #bytes ..." header, then the first row that starts with a number.
struct Table {
    std::string_view header;
    std::vector<std::string_view> row;
    std::uint32_t line = 0;
};

Result<Table> perftest_table(std::string_view out, std::string_view source, std::string_view what) {
    if (out.size() > kMaxProbeOutput) {
        return fail(Error::parse(SourceLoc{std::string(source), 0, 0},
                                 std::string(what) + " printed more than 1 MiB; expected its "
                                                     "result table"));
    }
    Table t;
    std::size_t pos = 0;
    std::uint32_t line_no = 0;
    bool in_table = false;
    while (pos < out.size()) {
        auto nl = out.find('\n', pos);
        if (nl == std::string_view::npos) {
            nl = out.size();
        }
        const auto line = out.substr(pos, nl - pos);
        pos = nl + 1;
        ++line_no;
        const auto w = words(line);
        if (w.empty()) {
            continue;
        }
        if (w[0] == "#bytes") {
            t.header = line;
            in_table = true;
            continue;
        }
        if (in_table) {
            double first = 0;
            if (!number(w[0], first)) {
                continue;
            }
            t.row = w;
            t.line = line_no;
            return t;
        }
    }
    return fail(Error::parse(
        SourceLoc{std::string(source), 0, 0},
        "no result table of " + std::string(what) +
            " (a '#bytes' header and a row of numbers); its last line: " + excerpt(out)));
}

Error bad_row(std::string_view source, std::uint32_t line, std::string_view what) {
    return Error::parse(SourceLoc{std::string(source), line, 0},
                        "the result row has no " + std::string(what) +
                            " (expected non-negative numbers under the '#bytes' header)");
}

}  // namespace

Result<LatencyReading> parse_ib_write_lat(std::string_view out, std::string_view source) {
    auto t = perftest_table(out, source, "ib_write_lat");
    if (!t) {
        return fail(t.error());
    }
    LatencyReading r;
    const auto& w = t->row;
    // Iterations mode: bytes iterations t_min t_max t_typical t_avg ...; duration mode (-D):
    // bytes iterations t_avg tps.
    const bool typical = t->header.find("t_typical") != std::string_view::npos;
    const std::size_t want = typical ? 6 : 3;
    if (w.size() < want || !count(w[0], r.bytes)) {
        return fail(bad_row(source, t->line, "latency columns"));
    }
    if (typical) {
        if (!number(w[4], r.typical_us) || !number(w[5], r.avg_us)) {
            return fail(bad_row(source, t->line, "t_typical and t_avg"));
        }
    } else {
        if (!number(w[2], r.avg_us)) {
            return fail(bad_row(source, t->line, "t_avg"));
        }
        r.typical_us = r.avg_us;
    }
    return r;
}

Result<BandwidthReading> parse_ib_write_bw(std::string_view out, std::string_view source) {
    auto t = perftest_table(out, source, "ib_write_bw");
    if (!t) {
        return fail(t.error());
    }
    BandwidthReading r;
    const auto& w = t->row;
    if (w.size() < 4 || !count(w[0], r.bytes) || !number(w[2], r.peak_gbps) ||
        !number(w[3], r.avg_gbps)) {
        return fail(bad_row(source, t->line, "BW peak and BW average"));
    }
    if (t->header.find("Gb/sec") == std::string_view::npos) {
        if (t->header.find("MB/sec") == std::string_view::npos) {
            return fail(Error::parse(SourceLoc{std::string(source), t->line, 0},
                                     "the result table names no unit (expected Gb/sec or "
                                     "MB/sec in its header)"));
        }
        constexpr double kMbToGb = 1048576.0 * 8 / 1e9;
        r.peak_gbps *= kMbToGb;
        r.avg_gbps *= kMbToGb;
    }
    return r;
}

Result<std::vector<AllReduceRow>> parse_all_reduce_perf(std::string_view out,
                                                        std::string_view source) {
    if (out.size() > kMaxProbeOutput) {
        return fail(Error::parse(SourceLoc{std::string(source), 0, 0},
                                 "all_reduce_perf printed more than 1 MiB; expected its table"));
    }
    std::vector<AllReduceRow> rows;
    std::size_t time_col = 0;
    std::size_t busbw_col = 0;
    std::size_t pos = 0;
    std::uint32_t line_no = 0;
    while (pos < out.size() && rows.size() < 4096) {
        auto nl = out.find('\n', pos);
        if (nl == std::string_view::npos) {
            nl = out.size();
        }
        const auto line = out.substr(pos, nl - pos);
        pos = nl + 1;
        ++line_no;
        auto w = words(line);
        if (w.empty()) {
            continue;
        }
        if (w[0] == "#" && w.size() > 2 && w[1] == "size" && time_col == 0) {
            // "#  size  count  type  redop  root  time  algbw  busbw  #wrong ...": the first
            // time and busbw are out of place. Columns counted without the '#'.
            for (std::size_t i = 1; i < w.size(); ++i) {
                if (w[i] == "time" && time_col == 0) {
                    time_col = i - 1;
                } else if (w[i] == "busbw" && busbw_col == 0) {
                    busbw_col = i - 1;
                }
            }
            continue;
        }
        if (w[0].front() == '#' || time_col == 0 || busbw_col == 0) {
            continue;
        }
        AllReduceRow r;
        if (w.size() <= std::max(time_col, busbw_col) || !count(w[0], r.bytes)) {
            continue;  // nccl-tests' own lines between rows (warnings, device list)
        }
        if (!number(w[time_col], r.time_us) || !number(w[busbw_col], r.busbw_gbs)) {
            return fail(Error::parse(SourceLoc{std::string(source), line_no, 0},
                                     "a size row without a time and bus bandwidth (expected "
                                     "numbers in the 'time' and 'busbw' columns)"));
        }
        rows.push_back(r);
    }
    if (rows.empty()) {
        return fail(Error::parse(SourceLoc{std::string(source), 0, 0},
                                 "all_reduce_perf printed no size rows (a '# size ... time "
                                 "algbw busbw' header and rows under it); its last line: " +
                                     excerpt(out)));
    }
    return rows;
}

std::string_view to_string(Outcome o) {
    switch (o) {
        case Outcome::Ok:
            return "ok";
        case Outcome::Slow:
            return "slow";
        case Outcome::ProbeFailed:
            return "probe-failed";
    }
    return "unknown";
}

Verdict judge(std::uint32_t probe, double latency_us, double bandwidth_gbps, const Limits& limits) {
    Verdict v;
    v.probe = probe;
    v.latency_us = latency_us;
    v.bandwidth_gbps = bandwidth_gbps;
    char buf[160];
    if (latency_us >= 0 && latency_us > limits.max_latency_us) {
        v.outcome = Outcome::Slow;
        std::snprintf(buf, sizeof buf, "%.1f us (limit %g)", latency_us, limits.max_latency_us);
        v.detail = buf;
    }
    const double floor = limits.link_rate_gbps * limits.min_bandwidth_share;
    if (bandwidth_gbps >= 0 && limits.link_rate_gbps > 0 && bandwidth_gbps < floor) {
        v.outcome = Outcome::Slow;
        std::snprintf(buf, sizeof buf, "%s%.0f Gb/s (limit %.0f: %.0f%% of %g)",
                      v.detail.empty() ? "" : ", ", bandwidth_gbps, floor,
                      limits.min_bandwidth_share * 100, limits.link_rate_gbps);
        v.detail += buf;
    }
    return v;
}

}  // namespace switchyard::preflight

namespace switchyard::preflight {

Result<std::vector<PairResult>> parse_pair_results(std::string_view text, std::string_view source) {
    std::vector<PairResult> out;
    std::size_t pos = 0;
    std::uint32_t line_no = 0;
    auto bad = [&](std::string message) {
        return Error::parse(SourceLoc{std::string(source), line_no, 0}, std::move(message));
    };
    while (pos < text.size()) {
        auto nl = text.find('\n', pos);
        if (nl == std::string_view::npos) {
            nl = text.size();
        }
        const auto line = text.substr(pos, nl - pos);
        pos = nl + 1;
        ++line_no;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
            continue;
        }
        if (line.size() > 4096) {
            return fail(bad("a line over 4 KiB (a result is one short JSON object)"));
        }
        if (out.size() >= kMaxPairResults) {
            return fail(bad("more than 2,000,000 results"));
        }
        const auto doc = nlohmann::json::parse(line, nullptr, false);
        if (doc.is_discarded() || !doc.is_object()) {
            return fail(
                bad("not a JSON object; expected {\"client\": ..., \"server\": ..., "
                    "\"rail\": ..., \"latency_us\": ..., \"bandwidth_gbps\": ...}"));
        }
        PairResult r;
        r.line = line_no;
        for (const auto& [key, field] : {std::pair<const char*, std::string*>{"client", &r.client},
                                         {"server", &r.server},
                                         {"rail", &r.rail}}) {
            auto it = doc.find(key);
            if (it == doc.end() || !it->is_string() || it->get_ref<const std::string&>().empty() ||
                it->get_ref<const std::string&>().size() > 255) {
                return fail(bad(std::string("\"") + key + "\": expected a name"));
            }
            *field = it->get<std::string>();
        }
        if (auto it = doc.find("error"); it != doc.end()) {
            if (!it->is_string()) {
                return fail(bad("\"error\": expected a text"));
            }
            r.error = it->get<std::string>().substr(0, 512);
            if (r.error.empty()) {
                r.error = "failed";
            }
        }
        for (const auto& [key, field] :
             {std::pair<const char*, double*>{"latency_us", &r.latency_us},
              {"bandwidth_gbps", &r.bandwidth_gbps}}) {
            auto it = doc.find(key);
            if (it == doc.end() || it->is_null()) {
                continue;
            }
            const double v = it->is_number() ? it->get<double>() : -1;
            if (!std::isfinite(v) || v < 0 || v > 1e9) {
                return fail(bad(std::string("\"") + key + "\": expected a number of at least 0"));
            }
            *field = v;
        }
        if (r.error.empty() && r.latency_us < 0 && r.bandwidth_gbps < 0) {
            return fail(bad("neither a measurement (latency_us, bandwidth_gbps) nor an error"));
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::string pair_result_line(const PairResult& r) {
    nlohmann::json j;
    j["client"] = r.client;
    j["server"] = r.server;
    j["rail"] = r.rail;
    if (!r.error.empty()) {
        j["error"] = r.error;
    }
    if (r.latency_us >= 0) {
        j["latency_us"] = r.latency_us;
    }
    if (r.bandwidth_gbps >= 0) {
        j["bandwidth_gbps"] = r.bandwidth_gbps;
    }
    return j.dump();
}

}  // namespace switchyard::preflight
