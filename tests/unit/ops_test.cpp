// SPDX-License-Identifier: Apache-2.0
// The use cases against the fake Slurm client and a fixed clock: what each asks Slurm, what it
// changes there, and what it reports.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "switchyard/common/hostlist.hpp"
#include "switchyard/ops/audit.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/ops/node.hpp"
#include "switchyard/ops/preflight.hpp"
#include "switchyard/ops/steer.hpp"
#include "switchyard/ops/why.hpp"
#include "switchyard/slurm/client/client.hpp"
#include "switchyard/slurm/client/slurm_jobs.hpp"

using namespace switchyard;
using namespace switchyard::ops;

namespace {

const std::string kMap =
    std::string(SWITCHYARD_SOURCE_DIR) + "/tests/golden/discover/superpod/fabric.map.expected";
const std::string kSinfoAll = "sinfo --all --noheader --Node --format=%N|%w|%T|%E";

/// Every node of the superpod map idle, at weight 1 or as `weights` (host list, weight) say, as
/// sinfo prints them.
std::string all_idle(const std::vector<std::pair<std::string, unsigned>>& weights = {}) {
    std::map<std::string, unsigned> weight;
    for (const auto& [list, w] : weights) {
        const auto names = expand_hostlist(list);
        REQUIRE(names);
        for (const auto& n : *names) {
            weight[n] = w;
        }
    }
    std::string out;
    for (const char* su :
         {"a05-p1-dgx-01", "a06-p1-dgx-02", "a07-p1-dgx-03", "a08-p1-dgx-04", "b07-p1-dgx-07"}) {
        for (int c = 1; c <= 18; ++c) {
            char name[64];
            std::snprintf(name, sizeof name, "%s-c%02d", su, c);
            const auto w = weight.find(name);
            out += std::string(name) + "|" + std::to_string(w == weight.end() ? 1 : w->second) +
                   "|idle|none\n";
        }
    }
    return out;
}

struct Fixture {
    slurm::FakeClient slurm;
    FixedClock clock{1'800'000'000};
    std::ostringstream out;
    std::ostringstream err;
    Deps deps{slurm, clock, "", out, err};
    std::filesystem::path dir;
    Fixture() {
        char tmpl[] = "/tmp/switchyard-ops-test.XXXXXX";
        REQUIRE(::mkdtemp(tmpl) != nullptr);
        dir = tmpl;
    }
    ~Fixture() { std::filesystem::remove_all(dir); }
    Fixture(const Fixture&) = delete;
    Fixture& operator=(const Fixture&) = delete;
};

}  // namespace

TEST_CASE("ops: steer --apply sets the weights through the client, once", "[ops]") {
    Fixture f;
    f.slurm.answer(kSinfoAll, all_idle());
    SteerRequest req;
    req.map = kMap;
    req.state = (f.dir / "steer.state").string();
    req.apply = true;
    const std::vector<std::pair<std::string, unsigned>> weights = {
        {"a07-p1-dgx-03-c[01-18],b07-p1-dgx-07-c[01-04,06-14,16-18]", 44},
        {"a08-p1-dgx-04-c[01-17]", 30},
        {"a06-p1-dgx-02-c[01-04,07,10-12,14,16,18]", 58}};
    for (const auto& [list, w] : weights) {
        f.slurm.answer("scontrol update NodeName=" + list + " Weight=" + std::to_string(w), "");
    }
    const auto first = run_steer(req, f.deps);
    INFO(first.errors.size() << " errors; calls: " << f.slurm.calls().size());
    CHECK(first.rc == 0);
    CHECK(f.slurm.calls().front() == kSinfoAll);
    CHECK(f.slurm.calls().size() == 4);  // sinfo, then one update per weight
    CHECK(std::count(first.lines.begin(), first.lines.end(),
                     "set Weight=30 on a08-p1-dgx-04-c[01-17]") == 1);
    // The next round sees its own weights in Slurm and changes nothing.
    f.slurm.answer(kSinfoAll, all_idle(weights));
    f.clock.set(1'800'000'000 + 3600);
    const auto calls = f.slurm.calls().size();
    const auto second = run_steer(req, f.deps);
    CHECK(second.rc == 0);
    CHECK(f.slurm.calls().size() == calls + 1);
    CHECK(second.lines.size() == first.lines.size() - 3);  // the places, no "set" line
}

TEST_CASE("ops: steer --apply names an update Slurm refused and fails", "[ops]") {
    Fixture f;
    f.slurm.answer(kSinfoAll, all_idle());
    SteerRequest req;
    req.map = kMap;
    req.state = (f.dir / "steer.state").string();
    req.apply = true;
    f.slurm.answer(
        "scontrol update NodeName=a07-p1-dgx-03-c[01-18],b07-p1-dgx-07-c[01-04,06-14,16-18] "
        "Weight=44",
        "");
    f.slurm.answer("scontrol update NodeName=a06-p1-dgx-02-c[01-04,07,10-12,14,16,18] Weight=58",
                   "");
    f.slurm.refuse("scontrol update NodeName=a08-p1-dgx-04-c[01-17] Weight=30",
                   "slurm_update error: Access/permission denied");
    const auto r = run_steer(req, f.deps);
    CHECK(r.rc == 1);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0] ==
          "scontrol update NodeName=a08-p1-dgx-04-c[01-17] Weight=30: slurm_update error: "
          "Access/permission denied");
    CHECK(std::count(r.lines.begin(), r.lines.end(),
                     "set Weight=58 on "
                     "a06-p1-dgx-02-c[01-04,07,10-12,14,16,18]") == 1);
}

TEST_CASE("ops: why judges against the usable nodes sinfo gives, within its timeout", "[ops]") {
    Fixture f;
    WhyRequest req;
    req.map = kMap;
    req.nodes = 8;
    req.stages = 2;
    req.topology = "tree";
    req.partition = "gpu";
    // Only 4 nodes usable: a 2-stage job of 8 cannot start.
    f.slurm.answer("sinfo --noheader --Node --format=%N|%t --partition=gpu",
                   "a05-p1-dgx-01-c01|idle\na05-p1-dgx-01-c03|idle\na05-p1-dgx-01-c04|idle\n"
                   "a05-p1-dgx-01-c05|alloc\n");
    const auto r = run_why(req, f.deps);
    CHECK(r.rc == 0);
    CHECK(r.said.starts_with("switchyard: -N8 --pipeline-stages=2 in partition gpu: "));
    // sinfo failing is the report's error, rc 1, nothing said.
    f.slurm.refuse("sinfo --noheader --Node --format=%N|%t --partition=gpu",
                   "no answer in time (is slurmctld up?)");
    const auto down = run_why(req, f.deps);
    CHECK(down.rc == 1);
    CHECK(down.said.empty());
    CHECK(down.error ==
          "sinfo --noheader --Node --format=%N|%t --partition=gpu: no answer in time (is "
          "slurmctld up?)");
    // A job id that is no id is refused before Slurm is asked.
    const auto calls = f.slurm.calls().size();
    req.job = "12;rm";
    const auto bad = run_why(req, f.deps);
    CHECK(bad.rc == 2);
    CHECK(f.slurm.calls().size() == calls);
}

TEST_CASE("ops: audit compares slurmctld's topology with the map, through the client", "[ops]") {
    Fixture f;
    const std::string map =
        std::string(SWITCHYARD_SOURCE_DIR) + "/tests/golden/discover/dfp16/fabric.map.expected";
    // Before 25.05 there is no topoconf: the one TopologyPlugin of `show config` decides.
    f.slurm.refuse("scontrol show topoconf", "invalid entity:topoconf for keyword:show");
    f.slurm.answer("scontrol show config", "TopologyPlugin          = topology/tree\n");
    std::string features;
    for (int n = 1; n <= 16; ++n) {
        char line[64];
        std::snprintf(line, sizeof line, "node%03d|(null)\n", n);
        features += line;
    }
    f.slurm.answer("sinfo --noheader --Node --format=%N|%b", features);
    std::string shown;
    for (const char* l : {"SwitchName=g1-leaf1 Level=0 LinkSpeed=1 Nodes=node[001-004]",
                          "SwitchName=g1-leaf2 Level=0 LinkSpeed=1 Nodes=node[005-008]",
                          "SwitchName=g2-leaf1 Level=0 LinkSpeed=1 Nodes=node[009-012]",
                          "SwitchName=g2-leaf2 Level=0 LinkSpeed=1 Nodes=node[013-016]",
                          "SwitchName=g1 Level=1 LinkSpeed=1 Nodes=node[001-008] "
                          "Switches=g1-leaf[1-2]",
                          "SwitchName=g2 Level=1 LinkSpeed=1 Nodes=node[009-016] "
                          "Switches=g2-leaf[1-2]"}) {
        shown += std::string(l) + "\n";
    }
    f.slurm.answer("scontrol show topology", shown);
    AuditRequest req;
    req.map = map;
    req.policy = "";
    req.no_jobs = true;
    auto r = run_audit(req, f.deps);
    INFO(r.error);
    CHECK(r.rc == 0);
    REQUIRE(r.topologies.size() == 1);
    CHECK(r.topologies[0].kind == "tree");
    CHECK(r.topologies[0].disagreements.empty());
    CHECK(r.when == 1'800'000'000);
    CHECK(audit_metrics(r).find("switchyard_audit_last_run_timestamp_seconds 1800000000\n") !=
          std::string::npos);
    // node016 under another leaf in slurmctld's view: a disagreement, exit 3.
    std::string moved = shown;
    moved.replace(moved.find("node[013-016]"), 13, "node[013-015]");
    moved.replace(moved.find("node[009-012]"), 13, "node[009-012],node016");
    f.slurm.answer("scontrol show topology", moved);
    r = run_audit(req, f.deps);
    CHECK(r.rc == 3);
    REQUIRE(r.topologies.size() == 1);
    CHECK_FALSE(r.topologies[0].disagreements.empty());
    // slurmctld not answering: the audit cannot run, and says which call failed.
    f.slurm.refuse("scontrol show config", "no answer in time (is slurmctld up?)");
    r = run_audit(req, f.deps);
    CHECK(r.rc == 1);
    CHECK(r.error == "scontrol show config: no answer in time (is slurmctld up?)");
}

TEST_CASE(
    "ops: preflight --act drains the node at fault with the owned reason, and a leaf's "
    "uplinks drain nobody",
    "[ops]") {
    const std::string golden = SWITCHYARD_SOURCE_DIR "/tests/golden/cli/";
    const std::string map =
        SWITCHYARD_SOURCE_DIR "/tests/golden/discover/dfp16/fabric.map.expected";
    Fixture f;
    const std::string sinfo = "sinfo --all --noheader --Node --format=%N|%w|%T|%E --nodes=node007";
    const std::string drain =
        "scontrol update NodeName=node007 State=DRAIN Reason=switchyard: "
        "preflight: mlx5_0: 11.2 us to 2 peers (limit 5)";
    f.slurm.answer(sinfo, "node007|1|idle|none\n");
    f.slurm.answer(drain, "");
    f.slurm.answer("scontrol requeue 4711", "");
    PreflightRequest req;
    req.map = map;
    req.policy = golden + "preflight-node-fault/policy.yaml";
    req.hosts = "node[001-016]";
    req.results = golden + "preflight-node-fault/pairs.jsonl";
    req.act = true;
    req.job = "4711";
    auto r = run_preflight(req, f.deps);
    INFO(r.error);
    REQUIRE(r.actions.size() == 1);  // the report first; the requeue after it is printed
    CHECK(requeue_after(req, r, f.deps));
    CHECK_THAT(f.err.str(), Catch::Contains("requeuing job 4711 (its node at fault is drained)"));
    REQUIRE(r.actions.size() == 2);
    CHECK(r.actions[0].what == "drained");
    CHECK(r.actions[0].node == "node007");
    // The job goes back to the queue; it cannot land on the drained node again.
    CHECK(r.actions[1].what == "requeued");
    CHECK(f.slurm.calls() == std::vector<std::string>{sinfo, drain, "scontrol requeue 4711"});
    CHECK(r.rc == kExitProblem);

    // Held for a reason Switchyard does not own: left alone.
    Fixture held;
    held.slurm.answer(sinfo, "node007|1|drained|cable swap by ops\n");
    r = run_preflight(req, held.deps);
    CHECK_FALSE(requeue_after(req, r, held.deps));  // nothing drained: not requeued
    REQUIRE(r.actions.size() == 1);
    CHECK(r.actions[0].what == "held elsewhere");
    CHECK(held.slurm.calls() == std::vector<std::string>{sinfo});

    // A leaf's uplinks at fault: no Slurm call at all.
    Fixture link;
    req.results = golden + "preflight-uplinks/pairs.jsonl";
    r = run_preflight(req, link.deps);
    CHECK_FALSE(requeue_after(req, r, link.deps));  // warn: the job goes on
    REQUIRE(r.location.has_value());
    REQUIRE(r.location->faults.size() == 1);
    REQUIRE(r.actions.size() == 1);
    CHECK(r.actions[0].node.empty());
    CHECK(r.actions[0].what == "warned");
    CHECK(link.slurm.calls().empty());

    // Under on_link_fault: requeue, the job is requeued held, kept off the hosts behind the
    // part, and released.
    Fixture away;
    const auto policy = away.dir / "policy.yaml";
    {
        std::ofstream(policy) << "version: 1\npreflight:\n  link_rate_gbps: 400\n"
                                 "  on_link_fault: requeue\n";
    }
    for (const char* c :
         {"scontrol requeuehold 4711", "scontrol update JobId=4711 ExcNodeList=node[005-008,012]",
          "scontrol release 4711"}) {
        away.slurm.answer(c, "");
    }
    // The user's own --exclude stays.
    away.slurm.answer("scontrol show job -o 4711",
                      "JobId=4711 JobName=train ReqNodeList=(null) ExcNodeList=node012 "
                      "NodeList=node[001-008]\n");
    req.policy = policy.string();
    r = run_preflight(req, away.deps);
    CHECK(requeue_after(req, r, away.deps));
    REQUIRE(r.actions.size() == 2);
    CHECK(r.actions[0].what == "requeue");
    CHECK(r.actions[1].what == "requeued");
    CHECK(r.actions[1].reason == "node[005-008]");
    CHECK(away.slurm.calls() ==
          std::vector<std::string>{"scontrol show job -o 4711", "scontrol requeuehold 4711",
                                   "scontrol update JobId=4711 ExcNodeList=node[005-008,012]",
                                   "scontrol release 4711"});
}

TEST_CASE("ops: node's text report prints no terminal escape", "[ops][node]") {
    // Strings from sysfs and LLDP neighbours (a switch names itself) reach the text report.
    NodeReport r;
    r.topology.emplace();
    node::Nic nic;
    nic.name = "mlx5_0";
    nic.kind = "infiniband\x1b]0;owned\x07";
    node::RdmaPort port;
    port.port = 1;
    port.state = "ACTIVE\x1b[2J";
    nic.ports.push_back(port);
    r.topology->nics.push_back(nic);
    r.topology->shape = "nic:1xinfiniband";
    std::ostringstream out;
    std::ostringstream err;
    print_node(NodeRequest{}, r, out, err);
    const auto text = out.str();
    CHECK(text.find('\x1b') == std::string::npos);
    CHECK(text.find('\x07') == std::string::npos);
    CHECK(text.find("infiniband\\x1b]0;owned\\x07") != std::string::npos);
    CHECK(text.find("port 1: ACTIVE\\x1b[2J") != std::string::npos);
    CHECK(std::count(text.begin(), text.end(), '\n') >= 3);  // lines kept
    r.error = "cannot read \x1b[31mnode\n";
    print_node(NodeRequest{}, r, out, err);
    CHECK(err.str() == "switchyard node: cannot read \\x1b[31mnode\\x0a\n");
}

TEST_CASE("ops: why of a job just submitted, and of a job Slurm does not know", "[ops]") {
    Fixture f;
    WhyRequest req;
    req.map = kMap;
    req.topology = "tree";
    req.job = "42";
    const auto squeue = "squeue --noheader --jobs=42 --Format=" + slurm::squeue_job_format(false);
    // Right after submission squeue's reason is None: the scheduler has not looked yet.
    f.slurm.answer(squeue,
                   "42\tPENDING\tgpu\t\t0\t0:00\t2026-12-05T15:20:41\t"
                   "2027-12-05T15:20:41\t(null)\tNone\t(null)\n");
    f.slurm.answer(
        "squeue --noheader --jobs=42 --Format=" + std::string(slurm::kSqueueNodeCountFormat),
        "42\t8\n");
    f.slurm.answer("squeue --noheader --jobs=42 --Format=SegmentSize:", "0\n");
    std::string idle;
    for (int c = 1; c <= 18; ++c) {
        idle += "a05-p1-dgx-01-c" + std::string(c < 10 ? "0" : "") + std::to_string(c) + "|idle\n";
    }
    f.slurm.answer("sinfo --noheader --Node --format=%N|%t --partition=gpu", idle);
    auto r = run_why(req, f.deps);
    CHECK(r.error.empty());
    CHECK_THAT(r.said, Catch::StartsWith("switchyard: job 42 pends (not yet scheduled: slurmctld "
                                         "has not tried to place it) in partition gpu: "));
    // A job Slurm does not know: Slurm's words, not the command line with its tabs.
    f.slurm.refuse(squeue, "slurm_load_jobs error: Invalid job id specified");
    r = run_why(req, f.deps);
    CHECK(r.rc == kExitProblem);
    CHECK(r.error == "job 42: squeue: slurm_load_jobs error: Invalid job id specified");
}

TEST_CASE("ops: locate reads Inspector files past 64 MiB and refuses links", "[ops]") {
    Fixture f;
    const std::string golden =
        std::string(SWITCHYARD_SOURCE_DIR) + "/tests/golden/cli/locate-inspector/inspector/";
    std::ifstream in(golden + "node001-40001.log");
    std::stringstream text;
    text << in.rdbuf();
    REQUIRE(!text.str().empty());
    LocateRequest req;
    req.map =
        std::string(SWITCHYARD_SOURCE_DIR) + "/tests/golden/discover/dfp16/fabric.map.expected";
    req.inspector = f.dir.string();
    std::ofstream(f.dir / "node001-40001.log") << text.str();
    const auto one = run_locate(req, f.deps);
    REQUIRE(one.rc == 0);
    REQUIRE(one.records > 0);
    // The same records on both sides of 70 MiB of blank lines: a long job's file.
    {
        std::ofstream big(f.dir / "node001-40001.log");
        big << text.str() << std::string(std::size_t{70} << 20, '\n') << text.str();
    }
    const auto two = run_locate(req, f.deps);
    CHECK(two.error.empty());
    CHECK(two.records == 2 * one.records);
    // A link in the directory (the job's tasks write it) is refused, never followed.
    std::filesystem::remove(f.dir / "node001-40001.log");
    std::filesystem::create_symlink(golden + "node001-40001.log", f.dir / "node001-40001.log");
    const auto linked = run_locate(req, f.deps);
    CHECK(linked.rc == kExitProblem);
    CHECK_THAT(linked.error, Catch::Contains("symbolic link"));
}

TEST_CASE("ops: audit's text has no terminal escape, its metrics are valid UTF-8", "[ops][audit]") {
    // Names from slurmctld (a topology, a disagreement naming a switch) are printed and
    // labelled; node_exporter drops a whole file that is not UTF-8.
    AuditReport r;
    r.topologies.push_back(
        {"blk\x1b[2J\xff", "block", 2, {"switch sw\x1b]0;x\x07 holds node001\rforged line"}});
    std::ostringstream out;
    print_audit_text(r, out);
    const auto text = out.str();
    CHECK(text.find('\x1b') == std::string::npos);
    CHECK(text.find('\xff') == std::string::npos);
    CHECK(text.find("blk\\x1b[2J\\xff") != std::string::npos);
    // (squeue and scontrol lines are split on newlines: a carriage return is what is left.)
    CHECK(text.find("node001\\x0dforged line") != std::string::npos);
    const auto metrics = audit_metrics(r);
    CHECK(metrics.find('\xff') == std::string::npos);
    CHECK(metrics.find('\x1b') == std::string::npos);
    CHECK(metrics.find("topology=\"blk\\\\x1b[2J\\\\xff\"") != std::string::npos);
}

TEST_CASE("ops: audit ends at the first Slurm command slurmctld does not answer", "[ops][audit]") {
    // slurmctld stopped: each command waits its whole timeout. The audit ran every one of
    // them (58 s), and a refresh round waited as long.
    Fixture f;
    f.slurm.refuse("scontrol show topoconf", "no answer in time (is slurmctld up?)");
    AuditRequest req;
    req.map =
        std::string(SWITCHYARD_SOURCE_DIR) + "/tests/golden/discover/dfp16/fabric.map.expected";
    req.policy = "";
    const auto r = run_audit(req, f.deps);
    CHECK(r.rc == kExitProblem);
    CHECK_THAT(r.error, Catch::Contains("no answer in time (is slurmctld up?)"));
    CHECK(f.slurm.calls().size() == 1);  // nothing more was asked
}

TEST_CASE("slurm client: BoundedClient caps each call and stops after one timed out",
          "[slurm-client]") {
    slurm::FakeClient inner;
    inner.answer("sinfo --version", "slurm 24.11.5\n");
    inner.refuse("scontrol ping", "no answer in time (is slurmctld up?)");
    slurm::BoundedClient client(inner, 2);
    CHECK(client.run({slurm::Tool::Sinfo, {"--version"}, 30}).value() == "slurm 24.11.5\n");
    CHECK_FALSE(client.run({slurm::Tool::Scontrol, {"ping"}, 30}));
    const auto after = client.run({slurm::Tool::Sinfo, {"--version"}, 30});
    REQUIRE_FALSE(after);
    CHECK(after.error().message() ==
          "sinfo --version: not run: scontrol ping got no answer in time (is slurmctld up?)");
    CHECK(inner.calls().size() == 2);
}
