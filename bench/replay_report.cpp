// SPDX-License-Identifier: Apache-2.0
// bench/replay.sh's report: reads the job trace and each run's Slurm job completion log
// (jobcomp/filetxt), rebuilds every job's pipeline stages as its ranks ran them (Switchyard's
// plan for jobs submitted with --pipeline-stages, else Slurm's node order cut into equal
// stages) and prints, per run side by side: stages inside one SU / one group, stage spread,
// the modelled step time (α–β model, sharing links with the jobs running when it started)
// and the wait before start. With --svg DIR, one picture per run: nodes (grouped by SU) over
// time, each job a colour, its stages alternating shades. With --check, exits 1 unless, on
// each release replayed both ways, Switchyard puts at least as many stages inside one SU as
// plain Slurm and its worst stage spread is no wider.
#include "replay_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/placement/planner.hpp"
#include "switchyard/placement/steer.hpp"

namespace {

using replay::fixed;
using replay::Job;
using replay::Run;

struct TraceJob {
    unsigned nodes = 0;
    unsigned stages = 1;
};

[[noreturn]] void die(const std::string& msg) {
    std::cerr << "replay_report: " << msg << "\n";
    std::exit(1);
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        die(path + ": cannot be read");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

long parse_time(const std::string& text, const std::string& where) {
    std::tm tm{};
    if (strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr) {
        die(where + ": time '" + text + "' is not YYYY-MM-DDTHH:MM:SS");
    }
    tm.tm_isdst = -1;
    return static_cast<long>(std::mktime(&tm));
}

std::map<unsigned, TraceJob> read_trace(const std::string& path) {
    std::map<unsigned, TraceJob> out;
    std::istringstream in(slurp(path));
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        std::istringstream f(line);
        unsigned id = 0;
        double at = 0;
        double dur = 0;
        TraceJob j;
        if (!(f >> id >> at >> j.nodes >> j.stages >> dur)) {
            die(path + ": line '" + line + "' is not 'id submit nodes stages duration'");
        }
        out[id] = j;
    }
    return out;
}

Run read_run(const std::string& path,
             const std::map<unsigned, TraceJob>& trace,
             const switchyard::fabric::FabricMap& map,
             const switchyard::placement::CostParams& params) {
    Run run;
    const auto slash = path.find_last_of('/');
    run.label = path.substr(slash == std::string::npos ? 0 : slash + 1);
    run.label = run.label.substr(0, run.label.find(".jobcomp"));
    // Runs with Switchyard's options ("steered": after `switchyard steer --apply` too).
    const bool switchyard =
        run.label.rfind("switchyard", 0) == 0 || run.label.rfind("steered", 0) == 0;
    std::istringstream in(slurp(path));
    std::string line;
    unsigned n = 0;
    while (std::getline(in, line)) {
        ++n;
        const std::string where = path + ":" + std::to_string(n);
        std::map<std::string, std::string> kv;
        std::istringstream f(line);
        std::string word;
        while (f >> word) {
            const auto eq = word.find('=');
            if (eq != std::string::npos) {
                kv[word.substr(0, eq)] = word.substr(eq + 1);
            }
        }
        const auto& name = kv["Name"];
        if (name.size() < 2 || name[0] != 'r') {
            continue;  // not a trace job
        }
        Job j;
        j.id = static_cast<unsigned>(std::stoul(name.substr(1)));
        const auto t = trace.find(j.id);
        if (t == trace.end()) {
            die(where + ": job " + name + " is not in the trace");
        }
        if (kv["JobState"] != "COMPLETED") {
            die(where + ": job " + name + " ended " + kv["JobState"] + ", expected COMPLETED");
        }
        j.stages = t->second.stages;
        j.submit = parse_time(kv["SubmitTime"], where);
        j.start = parse_time(kv["StartTime"], where);
        j.end = parse_time(kv["EndTime"], where);
        auto nodes = switchyard::expand_hostlist(kv["NodeList"]);
        if (!nodes || nodes->size() != t->second.nodes) {
            die(where + ": NodeList '" + kv["NodeList"] + "' is not " +
                std::to_string(t->second.nodes) + " nodes");
        }
        if (switchyard) {  // every job of those runs asked, one of one stage too
            auto plan = switchyard::placement::plan_stages(*nodes, &map, j.stages,
                                                           switchyard::StageScope::Any, params);
            if (!plan) {
                die(where + ": " + plan.error().message());
            }
            for (const auto& st : plan->stage_list) {
                j.stage_nodes.push_back(st.nodes);
            }
        } else {  // ranks in Slurm's node order, each stage a consecutive block
            const std::size_t per = nodes->size() / j.stages;
            for (unsigned s = 0; s < j.stages; ++s) {
                j.stage_nodes.emplace_back(nodes->begin() + static_cast<long>(s * per),
                                           nodes->begin() + static_cast<long>((s + 1) * per));
            }
        }
        run.jobs.push_back(std::move(j));
    }
    if (run.jobs.size() != trace.size()) {
        die(path + ": " + std::to_string(run.jobs.size()) + " of the trace's " +
            std::to_string(trace.size()) + " jobs completed");
    }
    std::sort(run.jobs.begin(), run.jobs.end(),
              [](const Job& a, const Job& b) { return a.id < b.id; });
    return run;
}

double quantile(std::vector<double> v, double q) {
    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
}

struct Summary {
    unsigned stages = 0;
    unsigned in_su = 0;
    unsigned in_group = 0;
    std::vector<double> su_spread;     ///< per job: most SUs one of its stages touches
    std::vector<double> group_spread;  ///< per job: most groups one of its stages touches
    /// per job: most SUs one of its stages touches beyond the fewest it could (a stage larger
    /// than an SU must touch several; this is what placement can change)
    std::vector<double> excess_spread;
    std::vector<double> step_ms;   ///< per job with 2+ nodes
    std::vector<double> dp_ms;     ///< its slowest stage's all-reduce
    std::vector<double> pp_ms;     ///< its slowest stage boundary (jobs of 2+ stages)
    std::vector<double> bound_ms;  ///< its step alone on the fabric, every link at full speed
    /// Where the distance to the bound goes, per job: its step alone on the idle fabric at the
    /// best placement an empty cluster gives (the fabric's share: stages that must cross SUs
    /// or groups), alone at the placement it got (adds placement and fragmentation), and
    /// step_ms (adds the other jobs' traffic on the same links).
    std::vector<double> best_alone_ms;
    std::vector<double> alone_ms;
    /// The same two with the stages striped over the nodes in map order (placement::stripe):
    /// alone on the first hosts, and every job of the run on its own nodes striped, sharing
    /// the links.
    std::vector<double> best_striped_ms;
    std::vector<double> striped_ms;
    std::vector<double> best_either_ms;  ///< per job the better of best_alone and best_striped
    /// per job the faster of step_ms and striped_ms (an estimate: which layout one job takes
    /// changes the others' traffic a little)
    std::vector<double> either_ms;
    unsigned global_paced = 0;  ///< jobs whose dp or pp is paced by Dragonfly+ global links
    /// per job: groups its nodes touch beyond the fewest that could hold it (its pipeline
    /// sends cross global links between them)
    std::vector<double> extra_groups;
    std::vector<double> wait_s;
    double busy = 0;  ///< node-seconds used / node-seconds available over the run
    double node_seconds = 0;
    double degraded_node_seconds = 0;  ///< on nodes of degraded places (fabric_degradation)
    unsigned degraded_stages = 0;      ///< stages with a node in a degraded place
    /// One line per job for --jobs: id, nodes, stages, SUs and groups its nodes touch, the
    /// groups beyond the fewest, step, dp and pp time, the bound (ms), its wait (s).
    std::vector<std::string> job_lines;
};

Summary summarise(const Run& run,
                  const switchyard::fabric::FabricMap& map,
                  const switchyard::placement::CostParams& params,
                  const std::map<std::string, switchyard::placement::Degradation>& degraded) {
    Summary s;
    std::size_t largest_su = 1;
    std::vector<std::size_t> group_hosts(map.groups.size(), 0);
    for (const auto& su : map.sus) {
        largest_su = std::max(largest_su, su.fabric_hosts());
        group_hosts[su.group] += su.fabric_hosts();
    }
    std::size_t largest_group = 1;
    for (const auto h : group_hosts) {
        largest_group = std::max(largest_group, h);
    }
    const auto map_order = replay::hosts_in_map_order(map);
    std::vector<std::size_t> position(map.hosts.size(), 0);
    for (std::size_t p = 0; p < map_order.size(); ++p) {
        position[map_order[p]] = p;
    }
    // Every job's nodes striped, in run.jobs' order.
    std::vector<std::vector<std::vector<std::string>>> striped_jobs;
    striped_jobs.reserve(run.jobs.size());
    for (const auto& j : run.jobs) {
        std::vector<std::pair<std::size_t, std::string>> all;  // (map position, name)
        for (const auto& st : j.stage_nodes) {
            for (const auto& n : st) {
                const auto* h = map.find_host(n);
                if (h == nullptr) {
                    die(run.label + ": node " + n + " is not in the map");
                }
                all.emplace_back(position[static_cast<std::size_t>(h - map.hosts.data())], n);
            }
        }
        std::sort(all.begin(), all.end());
        std::vector<std::string> names;
        for (auto& [pos, n] : all) {
            names.push_back(std::move(n));
        }
        striped_jobs.push_back(
            switchyard::placement::stripe(names, static_cast<unsigned>(j.stage_nodes.size())));
    }
    long first = run.jobs.empty() ? 0 : run.jobs.front().submit;
    long last = first;
    double node_seconds = 0;
    for (std::size_t ji = 0; ji < run.jobs.size(); ++ji) {
        const auto& j = run.jobs[ji];
        first = std::min(first, j.submit);
        last = std::max(last, j.end);
        std::size_t nodes = 0;
        std::size_t sus = 0;
        std::size_t groups = 0;
        std::size_t excess = 0;
        std::set<std::uint32_t> job_groups;
        for (const auto& st : j.stage_nodes) {
            std::set<std::uint32_t> su_set;
            std::set<std::uint32_t> group_set;
            for (const auto& n : st) {
                const auto* h = map.find_host(n);
                if (h == nullptr) {
                    die(run.label + ": node " + n + " is not in the map");
                }
                su_set.insert(h->su);
                group_set.insert(map.sus[h->su].group);
            }
            nodes += st.size();
            ++s.stages;
            const auto bad =
                static_cast<double>(std::count_if(st.begin(), st.end(), [&](const std::string& n) {
                    return degraded.count(n) != 0;
                }));
            s.degraded_stages += bad > 0 ? 1U : 0U;
            s.degraded_node_seconds += bad * static_cast<double>(j.end - j.start);
            s.in_su += su_set.size() == 1 ? 1U : 0U;
            s.in_group += group_set.size() == 1 ? 1U : 0U;
            sus = std::max(sus, su_set.size());
            const std::size_t fewest = (st.size() + largest_su - 1) / largest_su;
            excess = std::max(excess, su_set.size() - std::min(su_set.size(), fewest));
            groups = std::max(groups, group_set.size());
            job_groups.insert(group_set.begin(), group_set.end());
        }
        const std::size_t fewest_groups = (nodes + largest_group - 1) / largest_group;
        s.extra_groups.push_back(
            static_cast<double>(job_groups.size() - std::min(job_groups.size(), fewest_groups)));
        s.su_spread.push_back(static_cast<double>(sus));
        s.group_spread.push_back(static_cast<double>(groups));
        s.excess_spread.push_back(static_cast<double>(excess));
        s.wait_s.push_back(static_cast<double>(j.start - j.submit));
        node_seconds += static_cast<double>(nodes) * static_cast<double>(j.end - j.start);
        // The jobs running when this one started share the fabric's links with it.
        std::vector<std::vector<std::vector<std::string>>> others;
        std::vector<std::vector<std::vector<std::string>>> others_striped;
        for (std::size_t oi = 0; oi < run.jobs.size(); ++oi) {
            const auto& o = run.jobs[oi];
            if (oi != ji && o.start <= j.start && j.start < o.end) {
                others.push_back(o.stage_nodes);
                others_striped.push_back(striped_jobs[oi]);
            }
        }
        double step = 0;
        double dp = 0;
        double pp = 0;
        double bound = 0;
        if (nodes >= 2) {
            const auto c = switchyard::placement::shared_cost(j.stage_nodes, others, &map, params);
            step = c.total * 1e3;
            dp = c.dp * 1e3;
            pp = c.pp * 1e3;
            s.step_ms.push_back(step);
            s.dp_ms.push_back(dp);
            if (j.stage_nodes.size() > 1) {
                s.pp_ms.push_back(pp);
            }
            const auto global = switchyard::placement::Limit::Kind::Global;
            s.global_paced += c.dp_limit.kind == global || c.pp_limit.kind == global ? 1U : 0U;
            std::vector<std::string> all;
            for (const auto& st : j.stage_nodes) {
                all.insert(all.end(), st.begin(), st.end());
            }
            const auto plan = switchyard::placement::plan_stages(
                all, &map, static_cast<unsigned>(j.stage_nodes.size()), switchyard::StageScope::Any,
                params);
            if (plan) {
                bound = plan->lower_bound_cost.total * 1e3;
                s.bound_ms.push_back(bound);
            }
            s.alone_ms.push_back(
                switchyard::placement::shared_cost(j.stage_nodes, {}, &map, params).total * 1e3);
            if (const auto best =
                    replay::best_alone(map, map_order, nodes, j.stage_nodes.size(), params)) {
                s.best_alone_ms.push_back(best->planned_ms);
                s.best_striped_ms.push_back(best->striped_ms);
                s.best_either_ms.push_back(std::min(best->planned_ms, best->striped_ms));
            }
            if (const auto& mine = striped_jobs[ji]; !mine.empty()) {
                s.striped_ms.push_back(
                    switchyard::placement::shared_cost(mine, others_striped, &map, params).total *
                    1e3);
                s.either_ms.push_back(std::min(step, s.striped_ms.back()));
            }
        }
        std::set<std::uint32_t> job_sus;
        for (const auto& st : j.stage_nodes) {
            for (const auto& n : st) {
                job_sus.insert(map.find_host(n)->su);
            }
        }
        char line[256];
        std::snprintf(line, sizeof line,
                      "%u\t%zu\t%zu\t%zu\t%zu\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t%ld", j.id, nodes,
                      j.stage_nodes.size(), job_sus.size(), job_groups.size(),
                      s.extra_groups.back(), step, dp, pp, bound, j.start - j.submit);
        s.job_lines.emplace_back(line);
    }
    const double span = static_cast<double>(std::max<long>(1, last - first));
    s.busy = node_seconds / (static_cast<double>(map.hosts.size()) * span);
    s.node_seconds = node_seconds;
    return s;
}

double geomean(const std::vector<double>& v) {
    double sum = 0;
    for (const double x : v) {
        sum += std::log(x);
    }
    return v.empty() ? 0 : std::exp(sum / static_cast<double>(v.size()));
}

}  // namespace

int main(int argc, char** argv) {
    std::string map_path;
    std::string trace_path;
    std::string svg_dir;
    std::string jobs_path;
    std::vector<std::string> logs;
    bool check = false;
    switchyard::placement::CostParams params;  // --stripe-stages: what the runs' policy said
    std::vector<std::string> flaky;            ///< nodes with growing link errors (--flaky NODE)
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--check") {
            check = true;
        } else if (a == "--flaky" && i + 1 < argc) {
            flaky.emplace_back(argv[++i]);
        } else if (a == "--stripe-stages" && i + 1 < argc) {
            const std::string v = argv[++i];
            if (v != "auto" && v != "never") {
                die("--stripe-stages: expected auto or never, got '" + v + "'");
            }
            params.stripe = v == "auto";
        } else if ((a == "--map" || a == "--trace" || a == "--svg" || a == "--jobs") &&
                   i + 1 < argc) {
            (a == "--map"     ? map_path
             : a == "--trace" ? trace_path
             : a == "--svg"   ? svg_dir
                              : jobs_path) = argv[++i];
        } else if (a.rfind("--", 0) == 0) {
            die("unknown option '" + a +
                "'; expected --map FILE --trace FILE [--svg DIR] [--jobs FILE] [--check] "
                "[--flaky NODE] [--stripe-stages auto|never] LOG...");
        } else {
            logs.push_back(a);
        }
    }
    if (map_path.empty() || trace_path.empty() || logs.empty()) {
        die("usage: replay_report --map FILE --trace FILE [--svg DIR] [--jobs FILE] "
            "RUN.jobcomp...");
    }
    auto map = switchyard::fabric::read_fabric_map(slurp(map_path), map_path);
    if (!map) {
        die(map.error().message());
    }
    const auto trace = read_trace(trace_path);
    auto degraded = switchyard::placement::fabric_degradation(*map);
    for (const auto& n : flaky) {
        switchyard::placement::add_soft_signal(degraded, n, 0.9, 0.5, "link errors growing");
    }
    std::vector<Run> runs;
    std::vector<Summary> sums;
    for (const auto& l : logs) {
        runs.push_back(read_run(l, trace, *map, params));
        sums.push_back(summarise(runs.back(), *map, params, degraded));
        if (!svg_dir.empty()) {
            write_svg(svg_dir, runs.back(), *map);
        }
    }
    if (!jobs_path.empty()) {  // every job of every run, for a closer look
        std::FILE* f = std::fopen(jobs_path.c_str(), "w");
        if (f == nullptr) {
            die("cannot write " + jobs_path);
        }
        std::fprintf(f,
                     "run\tjob\tnodes\tstages\tsus\tgroups\textra_groups\tstep_ms\tdp_ms\tpp_ms\t"
                     "bound_ms\twait_s\n");
        for (std::size_t r = 0; r < runs.size(); ++r) {
            for (const auto& l : sums[r].job_lines) {
                std::fprintf(f, "%s\t%s\n", runs[r].label.c_str(), l.c_str());
            }
        }
        std::fclose(f);
    }
    std::printf("%zu jobs, fabric %s: %zu hosts, %zu SUs, %zu groups\n", trace.size(),
                std::string(switchyard::fabric::to_string(map->kind)).c_str(), map->hosts.size(),
                map->sus.size(), map->groups.size());
    std::printf("%-30s", "");
    for (const auto& r : runs) {
        std::printf(" %18s", r.label.c_str());
    }
    std::printf("\n");
    const auto row = [&](const char* name, auto value) {
        std::printf("%-30s", name);
        for (const auto& s : sums) {
            std::printf(" %18s", value(s).c_str());
        }
        std::printf("\n");
    };
    const auto pct = [](unsigned a, unsigned b) {
        return fixed(b == 0 ? 0 : 100.0 * a / b, 1) + " %";
    };
    row("stages inside one SU", [&](const Summary& s) { return pct(s.in_su, s.stages); });
    row("stages inside one group", [&](const Summary& s) { return pct(s.in_group, s.stages); });
    row("stage spread, SUs: median",
        [](const Summary& s) { return fixed(quantile(s.su_spread, 0.5), 0); });
    row("stage spread, SUs: worst",
        [](const Summary& s) { return fixed(quantile(s.su_spread, 1), 0); });
    row("SUs beyond the fewest: worst",
        [](const Summary& s) { return fixed(quantile(s.excess_spread, 1), 0); });
    row("SUs beyond the fewest: mean", [](const Summary& s) {
        double sum = 0;
        for (const double x : s.excess_spread) {
            sum += x;
        }
        return fixed(
            s.excess_spread.empty() ? 0 : sum / static_cast<double>(s.excess_spread.size()), 2);
    });
    row("stage spread, groups: worst",
        [](const Summary& s) { return fixed(quantile(s.group_spread, 1), 0); });
    row("jobs in more groups than needed", [](const Summary& s) {
        const auto more = std::count_if(s.extra_groups.begin(), s.extra_groups.end(),
                                        [](double x) { return x > 0; });
        return fixed(s.extra_groups.empty() ? 0
                                            : 100.0 * static_cast<double>(more) /
                                                  static_cast<double>(s.extra_groups.size()),
                     1) +
               " %";
    });
    row("step time, geomean (ms)", [](const Summary& s) { return fixed(geomean(s.step_ms), 2); });
    row("step time, worst (ms)", [](const Summary& s) { return fixed(quantile(s.step_ms, 1), 2); });
    row("  dp all-reduce, geomean (ms)",
        [](const Summary& s) { return fixed(geomean(s.dp_ms), 2); });
    row("  pp sends, geomean (ms)", [](const Summary& s) { return fixed(geomean(s.pp_ms), 2); });
    row("  jobs paced by global links", [](const Summary& s) {
        return fixed(s.step_ms.empty()
                         ? 0
                         : 100.0 * s.global_paced / static_cast<double>(s.step_ms.size()),
                     1) +
               " %";
    });
    row("  lower bound, geomean (ms)",
        [](const Summary& s) { return fixed(geomean(s.bound_ms), 2); });
    row("  alone, best placement (ms)",
        [](const Summary& s) { return fixed(geomean(s.best_alone_ms), 2); });
    row("  alone, striped (ms)",
        [](const Summary& s) { return fixed(geomean(s.best_striped_ms), 2); });
    row("  alone, best of both (ms)",
        [](const Summary& s) { return fixed(geomean(s.best_either_ms), 2); });
    row("  alone, its placement (ms)",
        [](const Summary& s) { return fixed(geomean(s.alone_ms), 2); });
    row("  its nodes, striped (ms)",
        [](const Summary& s) { return fixed(geomean(s.striped_ms), 2); });
    row("  its nodes, best of both (ms)",
        [](const Summary& s) { return fixed(geomean(s.either_ms), 2); });
    row("  step over bound", [](const Summary& s) {
        return fixed(100 * (geomean(s.step_ms) / geomean(s.bound_ms) - 1), 1) + " %";
    });
    row("wait: median (s)", [](const Summary& s) { return fixed(quantile(s.wait_s, 0.5), 0); });
    row("wait: p95 (s)", [](const Summary& s) { return fixed(quantile(s.wait_s, 0.95), 0); });
    row("nodes busy", [](const Summary& s) { return fixed(100 * s.busy, 1) + " %"; });
    if (!degraded.empty()) {
        std::printf(
            "degraded: %zu nodes (an SU short of uplinks; nodes with link errors "
            "growing)\n",
            degraded.size());
        row("node time on degraded nodes", [](const Summary& s) {
            return fixed(s.node_seconds > 0 ? 100 * s.degraded_node_seconds / s.node_seconds : 0,
                         1) +
                   " %";
        });
        row("stages touching them",
            [&](const Summary& s) { return pct(s.degraded_stages, s.stages); });
    }
    int status = 0;
    for (std::size_t i = 0; check && i < runs.size(); ++i) {
        if (runs[i].label.rfind("switchyard-", 0) != 0) {
            continue;
        }
        const auto release = runs[i].label.substr(11);
        for (std::size_t j = 0; j < runs.size(); ++j) {
            if (runs[j].label != "plain-" + release) {
                continue;
            }
            const auto& sy = sums[i];
            const auto& pl = sums[j];
            const bool ok = sy.in_su * pl.stages >= pl.in_su * sy.stages &&
                            quantile(sy.su_spread, 1) <= quantile(pl.su_spread, 1);
            std::printf(
                "check %s: stages inside one SU %u/%u vs plain %u/%u, worst spread %.0f "
                "vs %.0f: %s\n",
                release.c_str(), sy.in_su, sy.stages, pl.in_su, pl.stages,
                quantile(sy.su_spread, 1), quantile(pl.su_spread, 1), ok ? "ok" : "FAILED");
            status = ok ? status : 1;
        }
    }
    return status;
}
