// SPDX-License-Identifier: Apache-2.0
// squeue's jobs and scontrol's topology read for the audit, and the installed map's units.
#include "switchyard/slurm/client/slurm_jobs.hpp"

#include <algorithm>
#include <array>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/slurm/files/slurm_text.hpp"
#include "switchyard/slurm/files/slurm_writers.hpp"

namespace switchyard::slurm {
namespace {

using detail::shown;
using detail::small_count;
using detail::unset_word;
using detail::valid_job_id;

/// The fields of squeue_job_format, in order (Feature last, SegmentSize before it when asked).
enum Field : std::size_t {
    kId,
    kState,
    kPartition,
    kNodes,
    kSwitches,
    kSwitchWait,
    kSubmit,
    kStart,
    kAdminComment,
    kReason,
    kFieldCount
};

constexpr std::array<std::string_view, kFieldCount> kFieldNames{
    "JobID",       "State",      "Partition", "NodeList",      "ReqSwitch",
    "Wait4Switch", "SubmitTime", "StartTime", "admin_comment", "Reason"};

/// Reads one line's fields; "" when it is fine, else what was wrong.
std::string read_line(const std::vector<std::string_view>& f, bool segment, SlurmJob& job) {
    job.id = std::string(f[kId]);
    if (!valid_job_id(job.id)) {
        return "JobID '" + shown(f[kId]) + "' is not a job id";
    }
    job.state = std::string(f[kState]);
    job.partition = unset_word(f[kPartition]) ? "" : std::string(f[kPartition]);
    job.reason = unset_word(f[kReason]) ? "" : std::string(f[kReason]);
    if (!unset_word(f[kNodes])) {
        auto nodes = expand_hostlist(f[kNodes]);
        if (!nodes) {
            return "NodeList: " + nodes.error().message();
        }
        job.nodes = std::move(*nodes);
    }
    if (!unset_word(f[kSwitches])) {
        const auto n = small_count(f[kSwitches], 1u << 20);
        if (!n) {
            return "ReqSwitch '" + shown(f[kSwitches]) + "' is not a switch count";
        }
        job.switches = *n;
    }
    if (!unset_word(f[kSwitchWait])) {
        const auto w = parse_slurm_duration(f[kSwitchWait]);
        if (!w) {
            return "Wait4Switch '" + shown(f[kSwitchWait]) + "' is not a duration";
        }
        job.switch_wait_s = *w;
    } else if (job.switches > 0) {
        job.switch_wait_s = 0;  // squeue shows no wait: none
    }
    for (const auto& [field, out] :
         {std::pair{kSubmit, &job.submit_time}, std::pair{kStart, &job.start_time}}) {
        if (!unset_word(f[field])) {
            *out = parse_slurm_time(f[field]);
            if (!*out) {
                return std::string(kFieldNames[field]) + " '" + shown(f[field]) +
                       "' is not a time (expected YYYY-MM-DDTHH:MM:SS)";
            }
        }
    }
    if (!unset_word(f[kAdminComment])) {
        if (auto m = read_job_marker(f[kAdminComment], job); !m) {
            return "admin_comment: " + m.error().message();
        }
    }
    if (segment && !unset_word(f[kFieldCount])) {
        const auto n = small_count(f[kFieldCount], 1u << 20);
        if (!n) {
            return "SegmentSize '" + shown(f[kFieldCount]) + "' is not a node count";
        }
        if (*n != 0) {
            job.segment = *n;
        }
    }
    const auto features = f.back();
    job.features = unset_word(features) ? "" : std::string(features);
    return {};
}

}  // namespace

std::string squeue_job_format(bool segment_size) {
    std::string out;
    for (const auto name : kFieldNames) {
        out += std::string(name) + ":\t,";
    }
    if (segment_size) {
        out += "SegmentSize:\t,";
    }
    return out + "Feature:";
}

Result<std::vector<SlurmJob>> parse_squeue_jobs(std::string_view text,
                                                std::string_view source,
                                                bool segment_size,
                                                std::vector<std::string>& problems) {
    std::vector<SlurmJob> jobs;
    const std::size_t fields = kFieldCount + (segment_size ? 2 : 1);
    std::size_t line_no = 0;
    for (auto line : split(text, '\n')) {
        ++line_no;
        if (line_no > kMaxJobLines) {
            return fail(
                Error::parse({std::string(source), static_cast<std::uint32_t>(line_no), 0},
                             "more than " + std::to_string(kMaxJobLines) + " jobs; not read"));
        }
        if (trim(line).empty()) {
            continue;
        }
        const auto f = detail::tab_fields(line, fields);
        const auto where = std::string(source) + ":" + std::to_string(line_no) + ": ";
        if (f.size() != fields) {
            problems.push_back(where + "expected " + std::to_string(fields) +
                               " tab-separated fields, got " + std::to_string(f.size()) +
                               "; job left out");
            continue;
        }
        SlurmJob job;
        if (const auto why = read_line(f, segment_size, job); !why.empty()) {
            problems.push_back(where + "job " + shown(f[kId]) + ": " + why + "; job left out");
            continue;
        }
        jobs.push_back(std::move(job));
    }
    return jobs;
}

namespace {

/// The "<id>\t<value>" lines of a two-field squeue answer: id → value (unset values left out).
std::map<std::string_view, std::string_view> id_values(std::string_view text) {
    std::map<std::string_view, std::string_view> out;
    for (auto line : split(text, '\n')) {
        const auto tab = line.find('\t');
        if (tab != std::string_view::npos) {
            const auto v = trim(line.substr(tab + 1));
            if (!unset_word(v)) {
                out.emplace(trim(line.substr(0, tab)), v);
            }
        }
    }
    return out;
}

}  // namespace

void read_squeue_prefer(std::string_view text, std::vector<SlurmJob>& jobs) {
    const auto prefer = id_values(text);
    for (auto& j : jobs) {
        if (const auto it = prefer.find(j.id); it != prefer.end()) {
            j.prefer = std::string(it->second);
        }
    }
}

void read_squeue_node_counts(std::string_view text, std::vector<SlurmJob>& jobs) {
    const auto counts = id_values(text);
    for (auto& j : jobs) {
        if (const auto it = counts.find(j.id); it != counts.end()) {
            const auto v = it->second;
            const auto n = small_count(v.substr(0, v.find('-')), 1u << 20);
            j.node_count = n.value_or(0);
        }
    }
}

std::vector<std::string> parse_usable_nodes(std::string_view text) {
    std::set<std::string> out;
    for (const auto line : split(text, '\n')) {
        const auto bar = line.find('|');
        if (bar == std::string_view::npos) {
            continue;
        }
        const auto node = trim(line.substr(0, bar));
        const auto state = trim(line.substr(bar + 1));
        if (!node.empty() && (state == "idle" || state == "idle~")) {
            out.emplace(node);
        }
    }
    return {out.begin(), out.end()};
}

std::map<std::string, std::set<std::string>> parse_node_features(std::string_view text) {
    std::map<std::string, std::set<std::string>> out;
    for (const auto line : split(text, '\n')) {
        const auto bar = line.find('|');
        if (bar == std::string_view::npos || trim(line.substr(0, bar)).empty()) {
            continue;
        }
        auto& set = out[std::string(trim(line.substr(0, bar)))];
        const auto list = trim(line.substr(bar + 1));
        if (unset_word(list)) {
            continue;
        }
        for (const auto f : split(list, ',')) {
            if (!trim(f).empty()) {
                set.emplace(trim(f));
            }
        }
    }
    return out;
}

Result<void> read_job_marker(std::string_view admin_comment, SlurmJob& job) {
    const auto at = admin_comment.find(kJobMarker);
    if (at == std::string_view::npos) {
        return {};
    }
    auto word = admin_comment.substr(at + kJobMarker.size());
    word = word.substr(0, std::min(word.find(' '), word.find(';')));
    for (const auto item : split(word, ',')) {
        const auto eq = item.find('=');
        const auto key = item.substr(0, eq);
        const auto value = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
        const auto bad = [&](std::string_view expected) {
            return fail(Error::invalid_argument(std::string(kJobMarker) + " " + shown(key) + "='" +
                                                shown(value) + "': expected " +
                                                std::string(expected)));
        };
        if (key == "stages" || key == "segment" || key == "nvl") {
            const auto n = small_count(value, key == "stages" ? 1024 : 1u << 20);
            if (!n || *n == 0) {
                return bad("a positive count");
            }
            (key == "stages" ? job.stages : key == "nvl" ? job.nvl_group : job.segment) = *n;
        } else if (key == "scope") {
            if (value != "leaf" && value != "group" && value != "any") {
                return bad("leaf, group or any");
            }
            job.scope = std::string(value);
        } else if (key == "switches") {  // "K@W": K leaf switches within W seconds
            const auto at_sign = value.find('@');
            const auto n = small_count(value.substr(0, at_sign), 1u << 20);
            const auto w = at_sign == std::string_view::npos
                               ? std::optional<unsigned>(0)
                               : small_count(value.substr(at_sign + 1), 1u << 24);
            if (!n || *n == 0 || !w) {
                return bad("a switch count, then '@' and its wait in seconds");
            }
            if (job.switches == 0) {  // squeue's own field, read first, wins
                job.switches = *n;
                if (at_sign != std::string_view::npos) {  // else the job gave none: Slurm's
                    job.switch_wait_s = *w;               // max_switch_wait, not known here
                }
            }
        } else if (key == "prefer") {  // the filters' preference, which sacct does not keep
            if (value.empty() || value.size() > kMaxMarkerPrefer ||
                value.find_first_not_of(kMarkerPreferChars) != std::string_view::npos) {
                return bad("a preference of feature names, '|', '&' and brackets, up to " +
                           std::to_string(kMaxMarkerPrefer) + " characters");
            }
            if (job.prefer.empty()) {  // (squeue's own field, read_squeue_prefer, wins)
                job.prefer = std::string(value);
            }
        }  // other keys: a later release's; ignored
    }
    return {};
}

std::optional<double> parse_slurm_duration(std::string_view s) {
    std::uint64_t days = 0;
    if (const auto dash = s.find('-'); dash != std::string_view::npos) {
        const auto d = parse_uint(s.substr(0, dash));
        if (!d || *d > 100000) {
            return std::nullopt;
        }
        days = *d;
        s.remove_prefix(dash + 1);
    }
    const auto parts = split(s, ':');
    if (parts.empty() || parts.size() > 3) {
        return std::nullopt;
    }
    double total = 0;
    for (const auto p : parts) {
        const auto v = parse_uint(p);
        if (!v || *v > 1000000) {
            return std::nullopt;
        }
        total = total * 60 + static_cast<double>(*v);
    }
    if (parts.size() == 1) {
        total *= 60;  // a bare number is minutes, as Slurm reads it
    }
    return total + static_cast<double>(days) * 86400;
}

std::optional<std::int64_t> parse_slurm_time(std::string_view s) {
    // YYYY-MM-DDTHH:MM:SS
    if (s.size() != 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
        s[16] != ':') {
        return std::nullopt;
    }
    const auto num = [&](std::size_t at, std::size_t n) { return parse_uint(s.substr(at, n)); };
    const auto y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2),
               se = num(17, 2);
    if (!y || !mo || !d || !h || !mi || !se || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 ||
        *h > 23 || *mi > 59 || *se > 60) {
        return std::nullopt;
    }
    // Days from the civil date (H. Hinnant's algorithm), then seconds.
    const std::int64_t yy = static_cast<std::int64_t>(*y) - (*mo <= 2 ? 1 : 0);
    const std::int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
    const std::int64_t yoe = yy - era * 400;
    const std::int64_t m = static_cast<std::int64_t>(*mo);
    const std::int64_t doy =
        (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + static_cast<std::int64_t>(*d) - 1;
    const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const std::int64_t days = era * 146097 + doe - 719468;
    return days * 86400 + static_cast<std::int64_t>(*h) * 3600 +
           static_cast<std::int64_t>(*mi) * 60 + static_cast<std::int64_t>(*se);
}

Result<std::vector<ShownUnit>> parse_shown_topology(std::string_view text,
                                                    std::string_view source) {
    std::vector<ShownUnit> out;
    std::size_t line_no = 0;
    for (const auto line : split(text, '\n')) {
        ++line_no;
        const auto words = split(trim(line), ' ');
        if (words.empty() || words[0].empty()) {
            continue;
        }
        ShownUnit u;
        if (words[0].starts_with("SwitchName=")) {
            u.name = std::string(words[0].substr(11));
        } else if (words[0].starts_with("BlockName=")) {
            u.name = std::string(words[0].substr(10));
            u.block = true;
        } else {
            continue;  // AggregatedBlock=, BlockSizes and messages: Slurm's own sums
        }
        const auto bad = [&](std::string message) {
            return fail(Error::parse({std::string(source), static_cast<std::uint32_t>(line_no), 0},
                                     std::move(message)));
        };
        if (u.name.empty()) {
            return bad("a unit without a name");
        }
        for (const auto w : words) {
            for (const auto& [key, set] : {std::pair{std::string_view("Nodes="), &u.nodes},
                                           std::pair{std::string_view("Switches="), &u.children}}) {
                if (!w.starts_with(key) || unset_word(w.substr(key.size()))) {
                    continue;
                }
                auto names = expand_hostlist(w.substr(key.size()));
                if (!names) {
                    return bad(u.name + ": " + std::string(key) + " " + names.error().message());
                }
                set->insert(names->begin(), names->end());
            }
        }
        out.push_back(std::move(u));
    }
    return out;
}

std::vector<ShownUnit> expected_units(const fabric::FabricMap& map, std::string_view kind) {
    std::vector<ShownUnit> out;
    if (kind == "block") {
        for (const auto& [name, nodes] : layout_blocks(map, block_layout(map))) {
            ShownUnit u{name, {}, {}, true};
            if (auto names = expand_hostlist(nodes)) {
                u.nodes.insert(names->begin(), names->end());
            }
            out.push_back(std::move(u));
        }
        return out;
    }
    for (const auto& su : map.sus) {
        ShownUnit u{su.name, {}, {}, false};
        for (const auto h : su.hosts) {
            u.nodes.insert(map.hosts[h].name);
        }
        out.push_back(std::move(u));
    }
    if (map.groups.size() > 1) {
        for (const auto& g : map.groups) {
            ShownUnit u{g.name, {}, {}, false};
            for (const auto s : g.sus) {
                u.children.insert(map.sus[s].name);
            }
            out.push_back(std::move(u));
        }
    }
    return out;
}

std::map<std::string, std::string> leaf_unit_of(const std::vector<ShownUnit>& units) {
    std::map<std::string, std::string> out;
    for (const auto& u : units) {
        if (u.block || u.children.empty()) {  // a leaf switch or a base block
            for (const auto& n : u.nodes) {
                out.emplace(n, u.name);
            }
        }
    }
    return out;
}

std::vector<std::string> topology_disagreements(const std::vector<ShownUnit>& expected,
                                                const std::vector<ShownUnit>& shown_units,
                                                const std::set<std::string>& slurm_nodes,
                                                std::string_view topology) {
    std::vector<std::string> out;
    const std::string where =
        "slurmctld's topology" + (topology.empty() ? "" : " " + std::string(topology));
    const auto word = [](const ShownUnit& u) { return u.block ? "block " : "switch "; };
    std::map<std::string, const ShownUnit*> shown_by_name;
    for (const auto& u : shown_units) {
        shown_by_name.emplace(u.name, &u);
    }
    std::set<std::string> expected_names;
    for (const auto& u : expected) {
        expected_names.insert(u.name);
        const auto it = shown_by_name.find(u.name);
        const bool has_slurm_node = std::any_of(
            u.nodes.begin(), u.nodes.end(), [&](const auto& n) { return slurm_nodes.contains(n); });
        if (it == shown_by_name.end()) {
            if (has_slurm_node || !u.children.empty()) {
                out.push_back(word(u) + u.name + ": in the installed map, missing from " + where);
            }
            continue;
        }
        for (const auto& c : u.children) {
            if (!it->second->children.contains(c)) {
                out.push_back("switch " + u.name + ": " + where + " does not hold " + c +
                              " below it");
            }
        }
    }
    for (const auto& u : shown_units) {
        if (!expected_names.contains(u.name) && u.name != "root") {
            out.push_back(word(u) + u.name + ": in " + where + ", not in the installed map");
        }
    }
    const auto want = leaf_unit_of(expected);
    const auto have = leaf_unit_of(shown_units);
    for (const auto& [node, unit] : want) {
        if (!slurm_nodes.contains(node)) {
            continue;
        }
        const auto it = have.find(node);
        if (it == have.end()) {
            out.push_back(node + ": in " + unit + " of the installed map, in no " +
                          (expected.empty() || !expected.front().block ? "switch" : "block") +
                          " of " + where);
        } else if (it->second != unit) {
            out.push_back(node + ": in " + unit + " of the installed map, in " + it->second +
                          " of " + where);
        }
    }
    for (const auto& [node, unit] : have) {
        if (!want.contains(node) && slurm_nodes.contains(node)) {
            out.push_back(node + ": in " + unit + " of " + where +
                          ", in no unit of the installed map");
        }
    }
    return out;
}

}  // namespace switchyard::slurm
