// SPDX-License-Identifier: Apache-2.0
#include "switchyard/preflight/inspector.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

namespace switchyard::preflight {
namespace {

constexpr std::size_t kMaxObject = std::size_t{64} * 1024;

Error at(std::string_view source, std::uint32_t line, std::string message) {
    return Error::parse(SourceLoc{std::string(source), line, 0}, std::move(message));
}

double median(std::vector<double>& v) {
    if (v.empty()) {
        return 0;
    }
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    double m = *mid;
    if (v.size() % 2 == 0) {
        m = (m + *std::max_element(v.begin(), mid)) / 2;
    }
    return m;
}

}  // namespace

Result<InspectorFile> parse_inspector(std::string_view text, std::string_view source) {
    InspectorFile file;
    auto& out = file.records;
    std::size_t i = 0;
    std::uint32_t line = 1;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '\n') {
            ++line;
            ++i;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == ',') {
            ++i;
            continue;
        }
        if (c != '{') {
            return fail(
                at(source, line,
                   "expected a JSON object ('{'), found '" +
                       std::string(1, std::isprint(static_cast<unsigned char>(c)) != 0 ? c : '?') +
                       "'"));
        }
        // The object's extent: braces outside strings.
        const std::uint32_t start_line = line;
        std::size_t depth = 0;
        bool in_string = false;
        std::size_t j = i;
        for (; j < text.size(); ++j) {
            const char d = text[j];
            if (d == '\n') {
                ++line;
            }
            if (in_string) {
                if (d == '\\') {
                    ++j;
                } else if (d == '"') {
                    in_string = false;
                }
            } else if (d == '"') {
                in_string = true;
            } else if (d == '{') {
                ++depth;
            } else if (d == '}' && --depth == 0) {
                break;
            }
            if (j - i > kMaxObject) {
                return fail(at(source, start_line,
                               "a JSON object over 64 KiB (an Inspector "
                               "record is under 1 KiB, 4 KiB verbose)"));
            }
        }
        if (j >= text.size()) {
            return fail(at(source, start_line, "a JSON object that does not end (cut short?)"));
        }
        const auto object = text.substr(i, j + 1 - i);
        i = j + 1;
        const auto doc = nlohmann::json::parse(object, nullptr, false);
        if (doc.is_discarded() || !doc.is_object()) {
            return fail(at(source, start_line, "not valid JSON"));
        }
        const auto* header = doc.contains("header") ? &doc["header"] : nullptr;
        const auto* meta = doc.contains("metadata") ? &doc["metadata"] : nullptr;
        const auto* perf = doc.contains("coll_perf") ? &doc["coll_perf"] : nullptr;
        if (perf == nullptr) {
            // Not a collective: Inspector's dump statistics, a point-to-point record.
            ++file.other;
            continue;
        }
        if (header == nullptr || meta == nullptr || !header->is_object() || !meta->is_object() ||
            !perf->is_object()) {
            return fail(at(source, start_line,
                           "a \"coll_perf\" record without \"header\" and "
                           "\"metadata\" objects (NCCL Inspector's record)"));
        }
        auto text_of = [](const nlohmann::json& o, const char* key) -> const std::string* {
            auto it = o.find(key);
            return it != o.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
        };
        auto number_of = [](const nlohmann::json& o, const char* key, double& v) {
            auto it = o.find(key);
            if (it == o.end() || !it->is_number()) {
                return false;
            }
            v = it->get<double>();
            return std::isfinite(v) && v >= 0;
        };
        CollRecord r;
        const auto* host = text_of(*meta, "hostname");
        const auto* coll = text_of(*perf, "coll");
        const auto* id = text_of(*header, "id");
        double rank = 0;
        double ranks = 0;
        double bytes = 0;
        if (host == nullptr || coll == nullptr || id == nullptr || host->size() > 255 ||
            coll->size() > 64 || id->size() > 64 || !number_of(*header, "rank", rank) ||
            !number_of(*header, "n_ranks", ranks) || rank >= ranks || ranks > 1e7 ||
            !number_of(*perf, "coll_msg_size_bytes", bytes) ||
            !number_of(*perf, "coll_exec_time_us", r.exec_time_us) ||
            !number_of(*perf, "coll_busbw_gbs", r.busbw_gbs)) {
            return fail(at(source, start_line,
                           "a record without metadata.hostname, header.id, header.rank < "
                           "header.n_ranks, coll_perf.coll, coll_msg_size_bytes, "
                           "coll_exec_time_us and coll_busbw_gbs as Inspector writes them"));
        }
        r.host = *host;
        r.coll = *coll;
        r.comm = *id;
        r.rank = static_cast<std::uint32_t>(rank);
        r.ranks = static_cast<std::uint32_t>(ranks);
        r.bytes = static_cast<std::uint64_t>(bytes);
        if (out.size() >= kMaxInspectorRecords) {
            return fail(at(source, start_line, "more than 4,000,000 records in one file"));
        }
        out.push_back(std::move(r));
    }
    return file;
}

RankReport slow_ranks(std::span<const CollRecord> records, double threshold) {
    RankReport rep;
    // The collective and size most records have.
    std::map<std::pair<std::string, std::uint64_t>, std::size_t> classes;
    for (const auto& r : records) {
        ++classes[{r.coll, r.bytes}];
    }
    if (classes.empty()) {
        return rep;
    }
    const auto top =
        std::max_element(classes.begin(), classes.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    rep.coll = top->first.first;
    rep.bytes = top->first.second;
    // Each rank's median (a rank is a host and a rank number: one per communicator's rank).
    std::map<std::pair<std::string, std::uint32_t>, std::vector<double>> per_rank;
    for (const auto& r : records) {
        if (r.coll == rep.coll && r.bytes == rep.bytes) {
            per_rank[{r.host, r.rank}].push_back(r.busbw_gbs);
        }
    }
    std::vector<std::pair<std::pair<std::string, std::uint32_t>, double>> medians;
    std::vector<double> all;
    for (auto& [key, values] : per_rank) {
        const double med = median(values);
        medians.emplace_back(key, med);
        all.push_back(med);
    }
    rep.ranks = static_cast<std::uint32_t>(medians.size());
    std::vector<double> tmp = all;
    rep.median_gbs = median(tmp);
    std::vector<double> dev;
    dev.reserve(all.size());
    for (double v : all) {
        dev.push_back(std::fabs(v - rep.median_gbs));
    }
    double mad = median(dev);
    if (mad <= 0) {
        mad = 0.01 * rep.median_gbs;
    }
    if (mad <= 0) {
        return rep;
    }
    for (const auto& [key, med] : medians) {
        const double z = 0.6745 * (med - rep.median_gbs) / mad;
        if (z <= -threshold) {
            rep.slow.push_back(SlowRank{key.first, key.second, med, z});
        }
    }
    std::sort(rep.slow.begin(), rep.slow.end(),
              [](const SlowRank& a, const SlowRank& b) { return a.z < b.z; });
    return rep;
}

std::vector<PlacedFault> place_slow_hosts(const Model& m, std::span<const std::string> slow_hosts) {
    std::vector<PlacedFault> out;
    // The first plane's leaf of each job host.
    std::map<std::uint32_t, std::vector<std::string>> job_on_leaf;
    std::map<std::string, std::uint32_t> leaf_of;
    for (const auto& a : m.attachments) {
        if (a.plane != 0 || m.planes[0].nvlink) {
            continue;
        }
        job_on_leaf[a.leaf].push_back(m.hosts[a.host]);
        leaf_of[m.hosts[a.host]] = a.leaf;
    }
    std::vector<std::string> slow(slow_hosts.begin(), slow_hosts.end());
    std::sort(slow.begin(), slow.end());
    slow.erase(std::unique(slow.begin(), slow.end()), slow.end());
    std::vector<std::string> nodes;
    std::map<std::uint32_t, std::vector<std::string>> slow_on_leaf;
    for (const auto& h : slow) {
        auto it = leaf_of.find(h);
        if (it == leaf_of.end()) {
            nodes.push_back(h);
        } else {
            slow_on_leaf[it->second].push_back(h);
        }
    }
    for (auto& [leaf, hosts] : slow_on_leaf) {
        if (hosts.size() >= 2 && hosts.size() == job_on_leaf[leaf].size()) {
            out.push_back(PlacedFault{m.leaves[leaf].part, "", hosts});
        } else {
            nodes.insert(nodes.end(), hosts.begin(), hosts.end());
        }
    }
    std::sort(nodes.begin(), nodes.end());
    for (const auto& h : nodes) {
        out.push_back(PlacedFault{kNone, h, {h}});
    }
    return out;
}

}  // namespace switchyard::preflight
