// SPDX-License-Identifier: Apache-2.0
// `switchyard preflight --prolog`: the --preflight job option, run by the gate's prolog on every
// node of the job at once (PrologFlags=Alloc). The job's first node gathers: it waits up to
// preflight.join_s for the others' hello, gives everyone the rounds' start, runs its own share,
// collects every node's result lines, locates and acts (as --act --job), writes its reports, and
// answers each node. The wire is preflight_wire.hpp's: lines over TCP between ports under 1024.
//
//   node -> first:  hello JOB NODE
//   first -> node:  start EPOCH
//   node -> first:  r {pair result}...  then  end
//   first -> node:  verdict ok | verdict fault REASON
#include <poll.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "preflight_wire.hpp"
#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/state_file.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/ops/preflight.hpp"
#include "switchyard/policy/loaders.hpp"
#include "switchyard/slurm/client/scontrol.hpp"

namespace switchyard::ops {
namespace {

constexpr std::size_t kMaxMemberLines = 200000;  ///< far more than any node's pairs
constexpr std::size_t kKeptReports = 64;         ///< job-<id>-<start>.json files kept

/// One other node's connection to the first node.
struct Member {
    wire::Socket sock;
    wire::LineReader reader;
    std::string peer;  ///< address:port, for messages
    std::string name;  ///< the node, once it said hello
    bool ended = false;
    std::size_t lines = 0;
    std::string results;
};

/// This node's own share of the rounds from `start`: its result lines; its notes into `notes`.
std::string own_rounds(const PreflightRequest& a,
                       double start,
                       Deps& deps,
                       std::vector<std::string>& notes) {
    std::ostringstream out;
    std::ostringstream err;
    Deps d{deps.slurm, deps.clock, deps.root, out, err};
    PreflightRequest r = a;
    r.start = start;
    r.results.clear();
    r.results_text.reset();
    try {
        const auto rep = run_preflight_agent(r, d);
        notes.insert(notes.end(), rep.notes.begin(), rep.notes.end());
        if (!rep.error.empty()) {
            notes.push_back(rep.error);
        }
    } catch (const std::exception& e) {
        notes.push_back(std::string("this node's rounds: ") + e.what());
    }
    std::istringstream lines(err.str());
    for (std::string l; std::getline(lines, l);) {
        notes.push_back(l);
    }
    return out.str();
}

/// Joins a thread on every way out (an exception too): a joinable thread must never be dropped.
struct Joined {
    std::thread& t;
    ~Joined() {
        if (t.joinable()) {
            t.join();
        }
    }
};

std::string start_line(double start) {
    char b[48];
    std::snprintf(b, sizeof b, "start %.3f\n", start);
    return b;
}

/// The seconds the rounds take from their start (the agent's windows), and some slack.
double rounds_span(const PreflightReport& plan) {
    const auto& pol = plan.policy;
    const auto rounds = std::max<std::uint32_t>(1, plan.schedule.rounds);
    const double window = std::max(1.0, std::min(pol.probe_timeout_s, pol.deadline_s / rounds));
    const auto runnable = std::min<double>(rounds, std::floor(pol.deadline_s / window));
    return runnable * window;
}

/// Replaces `dir`/`name` (a root-owned 0700 directory), keeping the newest kKeptReports job
/// reports (job-<id>-<start>.json: a requeued job's next run keeps the first's). \return why
/// not, or "".
std::string write_report(const std::string& dir, const std::string& name, const std::string& text) {
    if (auto d = ensure_private_dir(dir); !d) {
        return d.error().message();
    }
    if (auto w = replace_owned_file(dir + "/" + name, text); !w) {
        return w.error().message();
    }
    std::vector<std::pair<std::filesystem::file_time_type, std::filesystem::path>> jobs;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        const auto n = e.path().filename().string();
        if (n.starts_with("job-") && n.ends_with(".json") && e.is_regular_file(ec)) {
            jobs.emplace_back(e.last_write_time(ec), e.path());
        }
    }
    if (jobs.size() > kKeptReports) {
        std::sort(jobs.begin(), jobs.end());
        for (std::size_t i = 0; i + kKeptReports < jobs.size(); ++i) {
            std::filesystem::remove(jobs[i].second, ec);
        }
    }
    return "";
}

/// The first node's side.
PreflightReport gather(const PreflightRequest& a,
                       const std::vector<std::string>& hosts,
                       std::uint16_t port,
                       PreflightReport plan,
                       Deps& deps) {
    const auto& pol = plan.policy;
    PreflightReport r;
    r.verdict = "ok";
    auto listener = wire::listen_on(port);
    if (!listener) {
        r.notes.push_back(listener.error().message() + "; the job is not measured");
        return r;
    }
    const std::set<std::string> expected(hosts.begin() + 1, hosts.end());
    std::vector<Member> members;
    std::set<std::string> joined;
    std::size_t refused = 0;
    const double join_end = wire::now() + pol.join_s;
    double start = 0;
    double rounds_end = 0;
    double results_end = 0;
    std::string own;
    std::vector<std::string> own_notes;
    std::thread agent;
    const Joined agent_joined{agent};
    auto say_start = [&](Member& m) {
        if (!wire::send_all(m.sock, start_line(start), wire::now() + 2)) {
            m.reader.closed = true;
        }
    };
    auto ended = [&] {
        std::size_t n = 0;
        for (const auto& m : members) {
            if (!m.name.empty() && (m.ended || m.reader.closed)) {
                ++n;
            }
        }
        return n;
    };
    for (;;) {
        const double t = wire::now();
        if (start == 0 && (joined.size() == expected.size() || t >= join_end)) {
            start = t + 1;
            rounds_end = start + rounds_span(plan);
            results_end = rounds_end + 10;
            for (auto& m : members) {
                if (!m.name.empty() && !m.reader.closed) {
                    say_start(m);
                }
            }
            agent = std::thread([&] { own = own_rounds(a, start, deps, own_notes); });
        }
        // Done when everyone sent their lines; or when the rounds are over (a node that joins
        // now has none left to run) and everyone who came sent theirs; or at the end.
        if (start != 0 && (t >= results_end || ended() == expected.size() ||
                           (t >= rounds_end && ended() == joined.size()))) {
            break;
        }
        std::vector<pollfd> fds{{listener->fd(), POLLIN, 0}};
        for (const auto& m : members) {
            fds.push_back({m.reader.closed ? -1 : m.sock.fd(), static_cast<short>(POLLIN), 0});
        }
        const double until = start == 0 ? join_end : results_end;
        (void)poll(fds.data(), fds.size(),
                   static_cast<int>(std::clamp((until - t) * 1000.0, 0.0, 200.0) + 1));
        for (int i = 0; i < 256; ++i) {  // whoever is waiting to connect, a bounded number a turn
            bool reserved = false;
            std::string peer;
            auto s = wire::accept_one(*listener, reserved, peer);
            if (!s.open()) {
                break;
            }
            if (!reserved || members.size() >= 4 * expected.size() + 16) {
                if (++refused <= 3) {  // a flood of them is counted, not kept
                    r.notes.push_back("a connection from " + peer +
                                      (reserved ? " is one too many" : " (not a port under 1024)") +
                                      ": refused");
                }
                continue;
            }
            members.push_back(Member{std::move(s), {}, peer, "", false, 0, ""});
        }
        for (auto& m : members) {
            if (m.reader.closed) {
                continue;
            }
            (void)m.reader.fill(m.sock);
            while (auto line = m.reader.next()) {
                const auto w = split_words(*line);
                if (m.name.empty()) {
                    const std::string who = w.size() == 3 ? std::string(w[2]) : "";
                    if (w.size() == 3 && w[0] == "hello" && w[1] == a.job &&
                        expected.contains(who) && !joined.contains(who)) {
                        m.name = who;
                        joined.insert(m.name);
                        if (start != 0) {
                            say_start(m);  // late: the rounds still ahead are its to run
                        }
                        continue;
                    }
                    r.notes.push_back("from " + m.peer + ": '" + printable(line->substr(0, 80)) +
                                      "' is no hello of job " + a.job + ": closed");
                    m.reader.closed = true;
                    break;
                }
                if (line->starts_with("r ") && !m.ended && ++m.lines <= kMaxMemberLines) {
                    m.results.append(*line, 2).push_back('\n');
                } else if (*line == "end") {
                    m.ended = true;
                } else {
                    r.notes.push_back(m.name + ": '" + printable(line->substr(0, 80)) +
                                      "' out of turn: its connection is closed");
                    m.reader.closed = true;
                    break;
                }
            }
        }
    }
    if (agent.joinable()) {
        agent.join();  // its rounds end by their own deadline
    }
    r.notes.insert(r.notes.end(), own_notes.begin(), own_notes.end());
    if (refused > 3) {
        r.notes.push_back(std::to_string(refused) + " connections refused in all");
    }
    std::set<std::string> missing = expected;
    std::string text = own;
    for (const auto& m : members) {
        if (!m.name.empty() && m.ended) {
            missing.erase(m.name);
            text += m.results;
        }
    }
    if (!missing.empty()) {
        r.notes.push_back(std::to_string(missing.size()) + " node(s) sent no results (" +
                          compress_hostlist({missing.begin(), missing.end()}) +
                          "): their pairs count as failed probes, nobody's fault");
    }
    // Locate and act as `preflight --act --job` does; the job goes back to the queue through
    // the prologs that fail (a drained node's), or under on_link_fault: requeue.
    PreflightRequest full = a;
    full.results_text = std::move(text);
    full.act = true;
    auto report = run_preflight(full, deps);
    report.notes.insert(report.notes.begin(), r.notes.begin(), r.notes.end());
    report.verdict = "ok";
    std::map<std::string, std::string> faults;
    for (const auto& act : report.actions) {
        if (!act.node.empty() && (act.what == "drained" || act.what == "held elsewhere")) {
            faults[act.node] = act.what == "drained" ? act.reason : act.message;
        }
    }
    const double answer_end = wire::now() + 5;
    for (auto& m : members) {
        if (m.name.empty() || m.reader.closed) {
            continue;
        }
        const auto f = faults.find(m.name);
        if (auto sent =
                wire::send_all(m.sock,
                               f == faults.end() ? std::string("verdict ok\n")
                                                 : "verdict fault " + printable(f->second) + "\n",
                               answer_end);
            !sent) {
            report.notes.push_back(m.name + " was not told its verdict: " + sent.error().message());
        }
    }
    // Everyone told first: a link fault under requeue ends the job's allocation.
    if (faults.empty()) {
        (void)requeue_after(full, report, deps);
    }
    if (const auto f = faults.find(a.me); f != faults.end()) {
        report.verdict = f->second;
        report.rc = kExitNodeAtFault;
    } else {
        report.rc = kExitOk;
    }
    if (!pol.reports.empty()) {
        for (const auto& [name, format] :
             {std::pair<std::string, PreflightFormat>{
                  "job-" + a.job + "-" + std::to_string(static_cast<long long>(start)) + ".json",
                  PreflightFormat::Json},
              {"preflight.prom", PreflightFormat::Metrics}}) {
            std::ostringstream out;
            std::ostringstream err;
            print_preflight(report, format, out, err);
            if (out.str().empty()) {  // a run that could not plan (its error is in the log)
                report.notes.push_back("report " + name + " not written: " + printable(err.str()));
                continue;
            }
            if (auto why = write_report(pol.reports, name, out.str()); !why.empty()) {
                report.notes.push_back("report: " + why);
            }
        }
    }
    return report;
}

/// Every other node's side.
PreflightReport join(const PreflightRequest& a,
                     const std::string& first,
                     std::uint16_t port,
                     const preflight::PreflightPolicy& pol,
                     Deps& deps) {
    PreflightReport r;
    r.verdict = "ok";
    auto addresses = wire::resolve(first);
    if (!addresses) {  // names that only slurmctld knows (NodeAddr)
        auto addr = slurm::node_address(deps.slurm, first);
        addresses = addr ? wire::resolve(*addr) : fail(addr.error());
        if (!addresses) {
            r.notes.push_back("the first node, " + first + ": " + addresses.error().message() +
                              "; this node is not measured");
            return r;
        }
    }
    // The first node may start its prolog later than this one: keep trying for its join time.
    const double join_end = wire::now() + pol.join_s + 5;
    wire::Socket s;
    std::string last;
    while (!s.open() && wire::now() < join_end) {
        for (const auto& addr : *addresses) {
            auto c = wire::connect_reserved(addr, port, std::min(join_end, wire::now() + 3));
            if (c) {
                s = std::move(*c);
                break;
            }
            last = c.error().message();
        }
        if (!s.open()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
        }
    }
    auto give_up = [&](const std::string& why) {
        r.notes.push_back("the first node, " + first + ": " + why + "; this node goes on");
        return r;
    };
    if (!s.open()) {
        return give_up(last.empty() ? "no connection" : last);
    }
    if (auto w = wire::send_all(s, "hello " + a.job + " " + a.me + "\n", wire::now() + 5); !w) {
        return give_up(w.error().message());
    }
    wire::LineReader reader;
    auto line = wire::read_line(s, reader, join_end + 10);
    if (!line) {
        return give_up(line.error().message());
    }
    const auto w = split_words(*line);
    std::optional<double> start;
    if (w.size() == 2 && w[0] == "start") {
        const std::string t(w[1]);
        char* end = nullptr;
        const double v = std::strtod(t.c_str(), &end);
        if (end != t.c_str() && *end == '\0' && std::isfinite(v)) {
            start = v;
        }
    }
    if (!start) {
        return give_up("'" + printable(line->substr(0, 80)) + "' is no start");
    }
    std::vector<std::string> notes;
    const auto lines = own_rounds(a, *start, deps, notes);
    r.notes = notes;
    std::string out;
    std::istringstream in(lines);
    for (std::string l; std::getline(in, l);) {
        out += "r " + l + "\n";
    }
    out += "end\n";
    if (auto sent = wire::send_all(s, out, wire::now() + 10); !sent) {
        return give_up(sent.error().message());
    }
    auto verdict = wire::read_line(s, reader, *start + pol.deadline_s + 40);
    if (!verdict) {
        return give_up(verdict.error().message());
    }
    if (*verdict == "verdict ok") {
        return r;
    }
    if (verdict->starts_with("verdict fault ")) {
        r.verdict = verdict->substr(14);
        r.rc = kExitNodeAtFault;
        return r;
    }
    return give_up("'" + printable(verdict->substr(0, 80)) + "' is no verdict");
}

}  // namespace

PreflightReport run_preflight_prolog(const PreflightRequest& a, Deps& deps) {
    PreflightReport r;
    auto stop = [&](int rc, std::string why) {
        r.rc = rc;
        r.error = std::move(why);
        return std::move(r);
    };
    if (a.policy.empty() || a.me.empty() || a.job.empty() || a.hosts.empty()) {
        return stop(kExitUsage, "--prolog needs --policy, --job, --hosts and --me");
    }
    const auto job_id = parse_uint(a.job);  // Slurm's job ids are 32-bit
    if (!job_id || *job_id > 0xffffffffULL) {
        return stop(kExitUsage,
                    "--job: expected a job id (digits), got '" + printable(a.job) + "'");
    }
    auto hosts = expand_hostlist(a.hosts);
    if (!hosts) {
        return stop(kExitUsage, "--hosts: " + hosts.error().message());
    }
    if (std::find(hosts->begin(), hosts->end(), a.me) == hosts->end()) {
        return stop(kExitUsage, "--me: '" + printable(a.me) + "' is not one of the job's nodes");
    }
    if (a.mode == "full") {
        r.notes.push_back("full: the job-wide all_reduce_perf is not run yet; the pairs are");
    }
    // The plan: the policy, the map and the rounds, checked before anyone waits on anyone.
    PreflightRequest plan_request = a;
    plan_request.results.clear();
    plan_request.results_text.reset();
    auto plan = run_preflight(plan_request, deps);
    const auto& pol = plan.policy;
    const auto port =
        static_cast<std::uint16_t>(pol.port + *job_id % std::max<std::uint16_t>(1, pol.ports));
    if (!plan.error.empty()) {
        // Every node finds the same problem: nobody waits for anybody.
        r.verdict = "ok";
        r.notes.push_back(plan.error + "; the job is not measured");
        return r;
    }
    // Who gathers and who is waited for: the job's hosts on the map, the same on every node.
    const auto on_map = plan.model.hosts;
    r.verdict = "ok";
    if (std::find(on_map.begin(), on_map.end(), a.me) == on_map.end()) {
        r.notes.push_back("this node is not on the fabric map: not measured");
        return r;
    }
    if (on_map.size() < 2) {
        r.notes.push_back("one node on the map: no pair to measure");
        return r;
    }
    auto out = a.me == on_map.front() ? gather(a, on_map, port, std::move(plan), deps)
                                      : join(a, on_map.front(), port, pol, deps);
    out.notes.insert(out.notes.begin(), r.notes.begin(), r.notes.end());
    return out;
}

}  // namespace switchyard::ops
